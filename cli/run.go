package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
)

// pipelineFlags are the flags of `run` and the phase commands; each
// command registers the ones it uses. Their defaults are
// pipeline.DefaultConfig's (newPipelineFlags) and their rules the
// pipeline's (check): the command line declares neither.
type pipelineFlags struct {
	sim         simFlags
	defSystem   string // --system's default (app.defaultSystem)
	out         string
	trainRuns   int
	profileRuns int
	maxRuns     int
	triageRuns  int
	alpha       float64
	fenceOnly   bool
	class       int
	walks       int
	confirm     int
	iqrFactor   float64
	minSlowdown float64
	minExcess   string
	progress    string
	shard       string // --shard i/n (shard.go)
	resume      bool
	resumeSet   bool   // --resume was given (true or false)
	cpuProfile  string // --cpuprofile FILE (hidden): a developer's CPU profile of the command
}

func (f *pipelineFlags) registerOut(fs *pflag.FlagSet) {
	fs.StringVar(&f.out, "out", "macepc-out", "results directory")
	fs.StringVar(&f.progress, "progress", "auto", progressUsage)
}

func (f *pipelineFlags) registerJobs(fs *pflag.FlagSet) {
	fs.IntVar(&f.sim.jobs, "jobs", f.sim.jobs, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	fs.BoolVar(&f.sim.checkDet, "check-determinism", false, checkDetDoc)
}

// newPipelineFlags are the flags with pipeline.DefaultConfig's values,
// which the register methods make the flags' defaults: a flag a command
// does not register keeps its default, which its checks accept.
func newPipelineFlags(defSystem string) *pipelineFlags {
	def := pipeline.DefaultConfig(nil, nil)
	minExcess := "auto"
	if !def.Thresholds.AutoMinExcess {
		minExcess = def.Thresholds.MinExcess.String()
	}
	return &pipelineFlags{defSystem: defSystem, trainRuns: def.TrainRuns, profileRuns: def.ProfileRuns, maxRuns: def.MaxRuns, triageRuns: def.TriageRuns,
		alpha: def.Verdict.Alpha, fenceOnly: def.Verdict.FenceOnly, class: 1, walks: def.Walks, confirm: def.Confirm,
		iqrFactor: def.Thresholds.IQRFactor, minSlowdown: def.Thresholds.MinSlowdown, minExcess: minExcess, sim: simFlags{jobs: def.Jobs}}
}

func (f *pipelineFlags) registerTrain(fs *pflag.FlagSet) {
	fs.IntVar(&f.trainRuns, "train-runs", f.trainRuns, "phase 1a: executions whose real handler times train the EDDs")
}

func (f *pipelineFlags) registerProfile(fs *pflag.FlagSet) {
	fs.IntVar(&f.profileRuns, "profile-runs", f.profileRuns, "phase 1b: executions that define the normal execution time (quartiles)")
	fs.Float64Var(&f.iqrFactor, "iqr-factor", f.iqrFactor, "anomaly threshold Q3 + factor*(Q3-Q1): 1.5 mild outliers (the paper), 3 extreme")
	fs.Float64Var(&f.minSlowdown, "min-slowdown", f.minSlowdown, "an anomaly is also at least this many times the median execution time (0: the paper's threshold alone)")
	fs.StringVar(&f.minExcess, "min-excess", f.minExcess, "an anomaly is also at least this much slower than the median, e.g. 100ms for a protocol whose executions take milliseconds (auto: one link latency of the scenario's network; 0: none)")
}

// seedEDDSource is the EDD source of a profile without trained or given
// event durations (profile.json's edd_source).
const seedEDDSource = "seed (uniform 1-10ms)"

// thresholds parses the threshold flags.
func (f *pipelineFlags) thresholds() (pipeline.Thresholds, error) {
	th := pipeline.Thresholds{IQRFactor: f.iqrFactor, MinSlowdown: f.minSlowdown, AutoMinExcess: true}
	if f.minExcess == "auto" {
		return th, nil
	}
	d, err := time.ParseDuration(f.minExcess)
	if f.minExcess == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 {
		return th, fmt.Errorf("--min-excess must be auto or a duration >= 0 such as 100ms, got %q", f.minExcess)
	}
	th.MinExcess, th.AutoMinExcess, th.MinExcessBy = d, false, "--min-excess "+f.minExcess
	return th, nil
}

func (f *pipelineFlags) registerSearch(fs *pflag.FlagSet) {
	fs.IntVar(&f.maxRuns, "max-runs", f.maxRuns, "phase 2: executions explored at most to find an anomaly")
	fs.IntVar(&f.triageRuns, "triage-runs", f.triageRuns, "phase 2: executions explored after the first execution above the threshold, to find the others and class them (0: stop at the first); when none of them is significant the search goes on to --max-runs and judges again")
	fs.Float64Var(&f.alpha, "alpha", f.alpha, "phase 2: family-wise error rate of the significance test: an execution above the threshold is an anomaly only if normal variance (a tail model of the faster executions) explains it with probability below this, given how many executions were searched")
	fs.BoolVar(&f.fenceOnly, "fence-only", f.fenceOnly, "phase 2: MacePC's verdict: every execution above the threshold is an anomaly, with no significance test (the paper's tables)")
	fs.BoolVar(&f.resume, "resume", false, "continue an interrupted run in --out: keep its training, profile and search executions where they are this configuration's (the files are those of an uninterrupted run); the default when --out holds an interrupted run, --resume=false starts afresh")
}

// verdict is phase 2's verdict from --alpha and --fence-only.
func (f *pipelineFlags) verdict() pipeline.Verdict {
	return pipeline.Verdict{Alpha: f.alpha, FenceOnly: f.fenceOnly}
}

func (f *pipelineFlags) registerDiverge(fs *pflag.FlagSet) {
	fs.IntVar(&f.walks, "walks", f.walks, "phase 3a: random walks per prefix (k)")
	fs.IntVar(&f.confirm, "confirm-walks", f.confirm, "phase 3a: more walks, cut short at the recovery limit, before a prefix none of whose k walks recovered counts as doomed (0: none, as in MacePC)")
}

func (f *pipelineFlags) registerClass(fs *pflag.FlagSet) {
	fs.IntVar(&f.class, "class", f.class, "phase 3a: analyse the representative of this class of anomalies (1: the most severe; see search.json)")
}

// check checks the flags of command name with the pipeline's rules
// (their errors name the pipeline's fields, which message names by these
// flags), before anything is opened or printed: the settings of `run` as
// pipeline.Config's, a phase command's as its phase configuration's.
func (f *pipelineFlags) check(name string) error {
	th := pipeline.Thresholds{IQRFactor: f.iqrFactor, MinSlowdown: f.minSlowdown, AutoMinExcess: true} // --min-excess: thresholds
	env := pipeline.Env{Jobs: f.sim.jobs}
	var err error
	if pc, ok := phaseCommands()[pipeline.Phase(name)]; ok {
		if pc.check != nil {
			err = pc.check(f, env, th)
		}
	} else {
		err = (&pipeline.Config{Env: env, TrainRuns: f.trainRuns, ProfileRuns: f.profileRuns, Thresholds: th, MaxRuns: f.maxRuns, TriageRuns: f.triageRuns,
			Verdict: f.verdict(), Walks: f.walks, Confirm: f.confirm}).Validate()
	}
	if err != nil {
		return err
	}
	// The library reads a zero Alpha as its default (the zero Verdict is
	// DefaultVerdict); a flag given as 0 is a level of 0, which no test
	// can reach.
	if f.alpha == 0 {
		return fmt.Errorf("--alpha must be in (0, 1), got %v", f.alpha)
	}
	if f.out == "" {
		return fmt.Errorf("--out must name a directory")
	}
	return nil
}

// env opens --out and the progress display for a phase that writes
// (creating the directory).
func (a *app) env(f *pipelineFlags) (pipeline.Env, error) {
	prog, err := a.progress(f.progress, f.sim.jobs)
	if err != nil {
		return pipeline.Env{}, err
	}
	d, err := pipeline.OpenDir(f.out)
	if err != nil {
		return pipeline.Env{}, err
	}
	// Shards write their own files into a shared directory, at once: only
	// an unsharded phase takes the directory's lock.
	if _, sharded, err := a.shardOf(f.shard); err != nil {
		return pipeline.Env{}, err
	} else if !sharded {
		if err := a.lockDir(d); err != nil {
			return pipeline.Env{}, err
		}
	}
	return pipeline.Env{Dir: d, Systems: a.reg, Jobs: f.sim.jobs, Progress: prog, CheckDeterminism: f.sim.checkDet}, nil
}

// parsePipeline registers the given flag groups, parses and checks.
func (a *app) parsePipeline(name string, args []string, groups ...func(*pipelineFlags, *pflag.FlagSet)) (*pipelineFlags, *pflag.FlagSet, error) {
	fs := a.flags(name)
	f := newPipelineFlags(a.defaultSystem())
	for _, g := range groups {
		g(f, fs)
	}
	if err := fs.Parse(args); err != nil {
		if fs.Lookup("system") == nil && strings.HasPrefix(err.Error(), "unknown flag") {
			return nil, nil, fmt.Errorf("%w (%s takes the system and its options from the profile in --out DIR)", err, name)
		}
		return nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, fmt.Errorf("%s takes no arguments, got %q", name, fs.Args())
	}
	f.resumeSet = fs.Changed("resume")
	return f, fs, f.check(name)
}

func withSim(f *pipelineFlags, fs *pflag.FlagSet) { f.sim.register(fs, f.defSystem) }

// withLivenessFlag documents --liveness in run's help (the flag itself
// switches to runLiveness before parsing).
func withLivenessFlag(_ *pipelineFlags, fs *pflag.FlagSet) {
	fs.Bool("liveness", false, "MaceMC's liveness search instead of the performance pipeline ('macepc run --liveness --help' for its flags)")
}

// withCPUProfile registers --cpuprofile FILE, hidden: it is for whoever
// measures where a command's time goes (go tool pprof FILE), not an
// option of the analysis.
func withCPUProfile(f *pipelineFlags, fs *pflag.FlagSet) {
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole command to this file (runtime/pprof)")
	fs.MarkHidden("cpuprofile") //nolint:errcheck // registered just above
}

// startCPUProfile starts the CPU profile of --cpuprofile (nothing without
// it); the function it returns stops it and closes the file.
func startCPUProfile(name string) (stop func(), err error) {
	if name == "" {
		return func() {}, nil
	}
	w, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		w.Close()
	}, nil
}

// runAll is `macepc run`: every phase into --out (pipeline.Run).
func (a *app) runAll(args []string) (int, error) {
	if isLiveness(args) {
		return a.runLiveness(args)
	}
	f, fs, err := a.parsePipeline("run", args, append([]func(*pipelineFlags, *pflag.FlagSet){withLivenessFlag, withSim, (*pipelineFlags).registerOut, withCPUProfile}, runPhaseFlags()...)...)
	if err != nil {
		return ExitError, err
	}
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return ExitError, err
	}
	defer stopProfile()
	t, err := a.resolve(&f.sim)
	if err != nil {
		return ExitError, err
	}
	env, err := a.env(f)
	if err != nil {
		return ExitError, err
	}
	seed := f.sim.seed
	fmt.Fprintf(a.stdout, "%s run: system=%s variant=%s%s nodes=%d seed=%d (phase seeds: %s) semantics=%s exec-time=%s\n",
		a.name, t.System.Name, t.Variant, paramsNote(t.Scenario.Params), t.Scenario.Nodes, seed, phaseSeeds(seed), t.Options.Semantics, t.Options.ExecTime)
	th, err := f.thresholds()
	if err != nil {
		return ExitError, err
	}
	cfg := pipeline.Config{Env: env, Target: t, Seed: seed, TrainRuns: f.trainRuns, Scale: f.sim.scale, ProfileRuns: f.profileRuns, Thresholds: th,
		MaxRuns: f.maxRuns, TriageRuns: f.triageRuns, Verdict: f.verdict(), Walks: f.walks, Confirm: f.confirm, Resume: f.resume}
	if !f.resumeSet && env.Dir.Interrupted() {
		cfg.Resume = true
		fmt.Fprintf(a.stderr, "%s: note: %s holds an interrupted run: resuming it where it is this configuration's (--resume=false starts afresh)\n", a.name, env.Dir.Path())
	}
	switch {
	case fs.Changed("edd"): // phase 1a is skipped
		cfg.TrainRuns, cfg.EDDSource = 0, "--edd "+f.sim.eddFile
		// Keep this directory's training only if --edd is its edd.json.
		cfg.KeepTraining = pipeline.SameFile(f.sim.eddFile, env.Dir.File(results.FileEDD))
	case cfg.TrainRuns == 0: // pipeline.Config: no training
		cfg.EDDSource = seedEDDSource
		fmt.Fprintf(a.stderr, "%s: warning: --train-runs 0 and no --edd: profiling with the seed distributions\n", a.name)
	}
	cfg.OnPhase = func(p pipeline.Phase, r *pipeline.Result) {
		if p == pipeline.PhaseTrain && r.Train == nil {
			fmt.Fprintf(a.stdout, "phase 1a train: skipped, using %s\n", cfg.EDDSource)
			return
		}
		a.printPhase(env.Dir, p, r)
	}
	res, err := pipeline.Run(a.ctx, cfg)
	if err != nil {
		return ExitError, err
	}
	return a.finished(env.Dir, res.Summary)
}

// printPhase prints each phase of pipeline.Run as it ends.
func (a *app) printPhase(d *pipeline.Dir, p pipeline.Phase, r *pipeline.Result) {
	if pc, ok := phaseCommands()[p]; ok && pc.print != nil {
		pc.print(a, d, r)
	}
}

// finish writes summary.json and prints the human summary.
func (a *app) finish(d *pipeline.Dir, pf *results.Profile) (int, error) {
	sum, err := d.WriteSummary(pf)
	if err != nil {
		return ExitError, err
	}
	return a.finished(d, sum)
}

// finished prints the summary, renders the report and says whether an
// anomaly was found.
func (a *app) finished(d *pipeline.Dir, sum *results.Summary) (int, error) {
	printSummary(a.stdout, a.name, d.Path(), sum)
	a.writeReport(d.Path())
	if sum.Anomaly != nil && sum.Anomaly.Found {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

func (a *app) train(args []string) (int, error) {
	if hasTrace(args) {
		return a.trainTrace(args)
	}
	f, fs, err := a.parsePipeline("train", args, withTraceFlag, withSim, (*pipelineFlags).registerOut, phaseCommands()[pipeline.PhaseTrain].flags)
	if err != nil {
		return ExitError, err
	}
	if fs.Changed("edd") || fs.Changed("scale") {
		return ExitError, errors.New("train measures handlers under the seed distributions: --edd and --scale belong to the later phases")
	}
	t, err := a.resolve(&f.sim)
	if err != nil {
		return ExitError, err
	}
	env, err := a.env(f)
	if err != nil {
		return ExitError, err
	}
	tf, _, err := pipeline.Train(a.ctx, pipeline.TrainConfig{Env: env, Target: t, Seed: f.sim.seed, Runs: f.trainRuns})
	if err != nil {
		return ExitError, err
	}
	a.printTrain(env.Dir, tf)
	return ExitOK, nil
}

func (a *app) profileCmd(args []string) (int, error) {
	f, fs, err := a.parsePipeline("profile", args, withSim, (*pipelineFlags).registerOut, phaseCommands()[pipeline.PhaseProfile].flags, withShard)
	if err != nil {
		return ExitError, err
	}
	sh, sharded, err := a.shardOf(f.shard)
	if err != nil {
		return ExitError, err
	}
	eddSource := "--edd " + f.sim.eddFile
	if !fs.Changed("edd") {
		// The trained EDD of this directory, if phase 1a ran.
		if trained := filepath.Join(f.out, results.FileEDD); fileExists(trained) {
			from, err := fromTraining(a.name, f.out, &f.sim, fs)
			if err != nil {
				return ExitError, err
			}
			if from {
				fmt.Fprintf(a.stdout, "profile: the configuration of %s: system=%s variant=%s nodes=%d seed=%d\n", filepath.Join(f.out, results.FileTrain), f.sim.system, f.sim.variant, f.sim.nodes, f.sim.seed)
			}
			f.sim.eddFile = trained
			eddSource = "trained: " + results.FileEDD
		} else {
			eddSource = seedEDDSource
			fmt.Fprintf(a.stderr, "%s: warning: %s has no %s and no --edd was given: profiling with the seed distributions\n", a.name, f.out, results.FileEDD)
		}
	}
	t, err := a.resolve(&f.sim)
	if err != nil {
		return ExitError, err
	}
	env, err := a.env(f)
	if err != nil {
		return ExitError, err
	}
	if sharded {
		return a.profileShard(f, env, t, sh, eddSource)
	}
	th, err := f.thresholds()
	if err != nil {
		return ExitError, err
	}
	pf, err := pipeline.Profile(a.ctx, pipeline.ProfileConfig{Env: env, Target: t, EDDSource: eddSource, Seed: f.sim.seed, Runs: f.profileRuns, Thresholds: th})
	if err != nil {
		return ExitError, err
	}
	a.printProfile(pf)
	return a.finish(env.Dir, pf)
}

// fromTraining takes the configuration of DIR/train.json for the flags
// that were not given (the system, variant, node count, seed and
// simulator options of `macepc train`), so that `train --variant fixed
// --nodes 16 --seed 7` followed by `profile` profiles what was trained.
// It refuses a flag given with another value than training's, since
// edd.json holds that configuration's handler times; a directory without
// train.json is left alone.
func fromTraining(name, dir string, f *simFlags, fs *pflag.FlagSet) (bool, error) {
	tf, err := pipeline.NewDir(dir).LoadTraining()
	if err != nil || tf == nil {
		return false, err
	}
	for _, c := range []struct {
		flag        string
		given, want string
		set         func()
	}{
		{"system", f.system, tf.System, func() { f.system = tf.System }},
		{"variant", f.variant, tf.Variant, func() { f.variant = tf.Variant }},
		{"nodes", strconv.Itoa(f.nodes), strconv.Itoa(tf.Nodes), func() { f.nodes = tf.Nodes }},
		{"seed", strconv.FormatUint(f.seed, 10), strconv.FormatUint(tf.Seed, 10), func() { f.seed = tf.Seed }},
		{"semantics", f.semantics, tf.Options.Semantics, func() { f.semantics = tf.Options.Semantics }},
		{"exec-time", f.execTime, tf.Options.ExecTime, func() { f.execTime = tf.Options.ExecTime }},
		{"max-steps", strconv.Itoa(f.maxSteps), strconv.Itoa(tf.Options.MaxSteps), func() { f.maxSteps = tf.Options.MaxSteps }},
		{"check-safety", strconv.FormatBool(f.checkSafety), strconv.FormatBool(tf.Options.CheckSafety), func() { f.checkSafety = tf.Options.CheckSafety }},
	} {
		switch {
		case !fs.Changed(c.flag):
			c.set()
		case c.given != c.want && c.flag == "seed":
			// Another seed profiles other executions of the trained
			// configuration: allowed.
		case c.given != c.want:
			return false, fmt.Errorf("%s was trained with --%s %s, not %s: retrain ('%s') or pass --edd", filepath.Join(dir, results.FileEDD), c.flag, c.want, c.given, shellquote.Join(name, "train", "--"+c.flag, c.given, "--out", dir))
		}
	}
	return true, nil
}

// laterPhase parses the flags of a phase that starts from DIR/profile.json
// and loads it.
func (a *app) laterPhase(name string, args []string, groups ...func(*pipelineFlags, *pflag.FlagSet)) (*pipelineFlags, pipeline.Env, *results.Profile, *pipeline.Target, error) {
	f, _, err := a.parsePipeline(name, args, append([]func(*pipelineFlags, *pflag.FlagSet){(*pipelineFlags).registerOut}, groups...)...)
	if err != nil {
		return nil, pipeline.Env{}, nil, nil, err
	}
	if _, err := pipeline.ExistingDir(f.out); err != nil {
		return nil, pipeline.Env{}, nil, nil, err
	}
	env, err := a.env(f)
	if err != nil {
		return nil, pipeline.Env{}, nil, nil, err
	}
	pf, t, err := env.Dir.LoadProfile(a.reg)
	if err != nil {
		return nil, pipeline.Env{}, nil, nil, err
	}
	return f, env, pf, t, nil
}

func (a *app) searchCmd(args []string) (int, error) {
	f, env, pf, t, err := a.laterPhase("search", args, (*pipelineFlags).registerJobs, phaseCommands()[pipeline.PhaseSearch].flags, withShard)
	if err != nil {
		return ExitError, err
	}
	cfg := pipeline.SearchConfig{Env: env, Profile: pf, Target: t, MaxRuns: f.maxRuns, TriageRuns: f.triageRuns, Verdict: f.verdict(), Resume: f.resume}
	if sh, ok, err := a.shardOf(f.shard); err != nil {
		return ExitError, err
	} else if ok {
		return a.searchShard(cfg, sh)
	}
	if !f.resumeSet && env.Dir.Interrupted() {
		cfg.Resume = true
		fmt.Fprintf(a.stderr, "%s: note: %s holds an interrupted run: resuming its search where it is this configuration's (--resume=false starts afresh)\n", a.name, env.Dir.Path())
	}
	sf, err := pipeline.Search(a.ctx, cfg)
	if err != nil {
		return ExitError, err
	}
	a.printSearch(env.Dir, sf)
	return a.finish(env.Dir, pf)
}

func (a *app) divergeCmd(args []string) (int, error) {
	pc := phaseCommands()[pipeline.PhaseDiverge]
	f, env, pf, t, err := a.laterPhase("diverge", args, (*pipelineFlags).registerJobs, pc.flags, pc.own)
	if err != nil {
		return ExitError, err
	}
	df, err := pipeline.Diverge(a.ctx, pipeline.DivergeConfig{Env: env, Profile: pf, Target: t, Class: f.class, Walks: f.walks, Confirm: f.confirm})
	if err != nil {
		return ExitError, err
	}
	a.printDivergence(env.Dir, df)
	return a.finish(env.Dir, pf)
}

func (a *app) correlateCmd(args []string) (int, error) {
	_, env, pf, _, err := a.laterPhase("correlate", args)
	if err != nil {
		return ExitError, err
	}
	cf, err := pipeline.Correlate(a.ctx, pipeline.CorrelateConfig{Env: env, Profile: pf})
	if err != nil {
		return ExitError, err
	}
	a.printCorrelation(cf)
	return a.finish(env.Dir, pf)
}

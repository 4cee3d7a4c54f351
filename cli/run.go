package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/divergence"
)

// pipelineFlags are the flags of `run` and the phase commands; each
// command registers the ones it uses.
type pipelineFlags struct {
	sim         simFlags
	out         string
	trainRuns   int
	profileRuns int
	maxRuns     int
	triageRuns  int
	class       int
	walks       int
	confirm     int
	iqrFactor   float64
	minSlowdown float64
	minExcess   string
	progress    string
	shard       string // --shard i/n (shard.go)
}

func (f *pipelineFlags) registerOut(fs *pflag.FlagSet) {
	fs.StringVar(&f.out, "out", "macepc-out", "results directory")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (when stderr is a terminal), always or never")
}

func (f *pipelineFlags) registerJobs(fs *pflag.FlagSet) {
	fs.IntVar(&f.sim.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
}

func (f *pipelineFlags) registerTrain(fs *pflag.FlagSet) {
	fs.IntVar(&f.trainRuns, "train-runs", 20, "phase 1a: executions whose real handler times train the EDDs")
}

func (f *pipelineFlags) registerProfile(fs *pflag.FlagSet) {
	fs.IntVar(&f.profileRuns, "profile-runs", 50, "phase 1b: executions that define the normal execution time (quartiles)")
	fs.Float64Var(&f.iqrFactor, "iqr-factor", anomaly.MildOutliers, "anomaly threshold Q3 + factor*(Q3-Q1): 1.5 mild outliers (the paper), 3 extreme")
	fs.Float64Var(&f.minSlowdown, "min-slowdown", 1.5, "an anomaly is also at least this many times the median execution time (0: the paper's threshold alone)")
	fs.StringVar(&f.minExcess, "min-excess", "auto", "an anomaly is also at least this much slower than the median, e.g. 100ms for a protocol whose executions take milliseconds (auto: one link latency of the scenario's network; 0: none)")
}

// thresholds resolves the threshold flags for a system configuration.
func (f *pipelineFlags) thresholds(rs *resolved) (thresholds, error) {
	th := thresholds{IQRFactor: f.iqrFactor, MinSlowdown: f.minSlowdown, MinExcessBy: "--min-excess " + f.minExcess}
	if f.minExcess == "auto" {
		lat := rs.sc.Network.WithDefaults().Latency
		th.MinExcessNS, th.MinExcessBy = int64(lat), "auto: one link latency ("+lat.String()+")"
		return th, nil
	}
	d, err := time.ParseDuration(f.minExcess)
	if f.minExcess == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 {
		return th, fmt.Errorf("--min-excess must be auto or a duration >= 0 such as 100ms, got %q", f.minExcess)
	}
	th.MinExcessNS = int64(d)
	return th, nil
}

func (f *pipelineFlags) registerSearch(fs *pflag.FlagSet) {
	fs.IntVar(&f.maxRuns, "max-runs", 1000, "phase 2: executions explored at most to find an anomaly")
	fs.IntVar(&f.triageRuns, "triage-runs", 200, "phase 2: executions explored after the first anomaly, to find the others and class them (0: stop at the first)")
}

func (f *pipelineFlags) registerDiverge(fs *pflag.FlagSet) {
	fs.IntVar(&f.walks, "walks", 20, "phase 3a: random walks per prefix (k)")
	fs.IntVar(&f.confirm, "confirm-walks", divergence.DefaultConfirm, "phase 3a: more walks, cut short at the recovery limit, before a prefix none of whose k walks recovered counts as doomed (0: none, as in MacePC)")
}

func (f *pipelineFlags) registerClass(fs *pflag.FlagSet) {
	fs.IntVar(&f.class, "class", 1, "phase 3a: analyse the representative of this class of anomalies (1: the most severe; see search.json)")
}

func (f *pipelineFlags) check(fs *pflag.FlagSet) error {
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{{"train-runs", f.trainRuns, 1}, {"profile-runs", f.profileRuns, 1}, {"max-runs", f.maxRuns, 1}, {"triage-runs", f.triageRuns, 0}, {"walks", f.walks, 1}, {"confirm-walks", f.confirm, 0}, {"class", f.class, 1}, {"jobs", f.sim.jobs, 0}} {
		if fs.Lookup(c.name) != nil && c.v < c.min {
			return fmt.Errorf("--%s must be at least %d, got %d", c.name, c.min, c.v)
		}
	}
	if fs.Lookup("iqr-factor") != nil && (f.iqrFactor <= 0 || math.IsNaN(f.iqrFactor) || math.IsInf(f.iqrFactor, 0)) {
		return fmt.Errorf("--iqr-factor must be a positive number, got %v", f.iqrFactor)
	}
	if fs.Lookup("min-slowdown") != nil && (f.minSlowdown < 0 || math.IsNaN(f.minSlowdown) || math.IsInf(f.minSlowdown, 0)) {
		return fmt.Errorf("--min-slowdown must be a number >= 0, got %v", f.minSlowdown)
	}
	if f.out == "" {
		return fmt.Errorf("--out must name a directory")
	}
	return nil
}

func (a *app) newPipeline(f *pipelineFlags) (*pipeline, error) {
	show, err := progressEnabled(f.progress, a.stderr)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	return &pipeline{a: a, dir: f.out, jobs: f.sim.jobs, progress: show}, nil
}

// parse registers the given flag groups, parses and checks.
func (a *app) parsePipeline(name string, args []string, groups ...func(*pipelineFlags, *pflag.FlagSet)) (*pipelineFlags, *pflag.FlagSet, error) {
	fs := a.flags(name)
	f := &pipelineFlags{}
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
	return f, fs, f.check(fs)
}

func withSim(f *pipelineFlags, fs *pflag.FlagSet) { f.sim.register(fs) }

// withLivenessFlag documents --liveness in run's help (the flag itself
// switches to runLiveness before parsing).
func withLivenessFlag(_ *pipelineFlags, fs *pflag.FlagSet) {
	fs.Bool("liveness", false, "MaceMC's liveness search instead of the performance pipeline ('macepc run --liveness --help' for its flags)")
}

// run is `macepc run`: every phase into --out.
func (a *app) runAll(args []string) (int, error) {
	if isLiveness(args) {
		return a.runLiveness(args)
	}
	f, fs, err := a.parsePipeline("run", args, withLivenessFlag, withSim, (*pipelineFlags).registerOut, (*pipelineFlags).registerTrain,
		(*pipelineFlags).registerProfile, (*pipelineFlags).registerSearch, (*pipelineFlags).registerDiverge)
	if err != nil {
		return ExitError, err
	}
	rs, err := a.resolve(&f.sim)
	if err != nil {
		return ExitError, err
	}
	p, err := a.newPipeline(f)
	if err != nil {
		return ExitError, err
	}
	seed := f.sim.seed
	fmt.Fprintf(a.stdout, "macepc run: system=%s variant=%s%s nodes=%d seed=%d (phase seeds: train=%d profile=%d search=%d diverge=%d) semantics=%s exec-time=%s\n",
		rs.sys.Name, rs.variant, paramsNote(rs.sc.Params), rs.sc.Nodes, seed, phaseSeed(seed, "train"), phaseSeed(seed, "profile"), phaseSeed(seed, "search"), phaseSeed(seed, "diverge"),
		rs.opts.Semantics, rs.opts.ExecTime)

	// Phase 1a, unless --edd names trained distributions.
	eddSource := "--edd " + f.sim.eddFile
	if fs.Changed("edd") {
		// Keep this directory's training only if --edd is its edd.json.
		keep := "train"
		if !sameFile(f.sim.eddFile, p.path(fileEDD)) {
			keep = ""
		}
		if err := clearAfter(p.dir, keep); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "phase 1a train: skipped, using --edd %s\n", f.sim.eddFile)
	} else {
		if err := clearAfter(p.dir, ""); err != nil {
			return ExitError, err
		}
		set, tf, err := p.train(rs, seed, f.trainRuns)
		if err != nil {
			return ExitError, err
		}
		if err := applyScale(set, f.sim.scale); err != nil {
			return ExitError, err
		}
		rs.opts.EDD = set
		eddSource = "trained: " + fileEDD
		a.printTrain(p, tf)
	}
	return a.runFrom(p, rs, f, eddSource)
}

// runFrom runs phases 1b to 3b.
func (a *app) runFrom(p *pipeline, rs *resolved, f *pipelineFlags, eddSource string) (int, error) {
	th, err := f.thresholds(rs)
	if err != nil {
		return ExitError, err
	}
	pf, err := p.profile(rs, f.sim.seed, f.profileRuns, th, eddSource)
	if err != nil {
		return ExitError, err
	}
	a.printProfile(pf)
	if err := a.searchOn(p, pf, f); err != nil {
		p.salvageSummary(pf)
		return ExitError, err
	}
	return a.finish(p, pf)
}

// searchOn runs phases 2 to 3b after the profile.
func (a *app) searchOn(p *pipeline, pf *profileFile, f *pipelineFlags) error {
	rs, err := a.fromPathFile(pf.Template) // the exact configuration the files describe
	if err != nil {
		return err
	}
	sf, err := p.search(pf, rs, f.maxRuns, f.triageRuns)
	if err != nil {
		return err
	}
	a.printSearch(p, sf)
	if sf.Anomaly == nil {
		return nil
	}
	df, err := p.diverge(pf, rs, sf, sf.Anomaly, f.walks, f.confirm)
	if err != nil {
		return err
	}
	a.printDivergence(p, df)
	cf, err := p.correlate(pf)
	if err != nil {
		return err
	}
	a.printCorrelation(cf)
	return nil
}

// salvageSummary rewrites summary.json from the files left by a phase that
// failed or was interrupted (best effort: the phase's error is what the
// user sees).
func (p *pipeline) salvageSummary(pf *profileFile) {
	if sum, err := buildSummary(p, pf); err == nil {
		writeJSON(p.path(fileSummary), sum)
	}
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// finish writes summary.json and prints the human summary.
func (a *app) finish(p *pipeline, pf *profileFile) (int, error) {
	sum, err := buildSummary(p, pf)
	if err != nil {
		return ExitError, err
	}
	if err := writeJSON(p.path(fileSummary), sum); err != nil {
		return ExitError, err
	}
	printSummary(a.stdout, p.dir, sum)
	a.writeReport(p.dir)
	if sum.Anomaly != nil && sum.Anomaly.Found {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

// firstPhase resolves the system of a phase that starts from flags (train,
// profile), opens DIR and removes the files of the phases after phase ("":
// all).
func (a *app) firstPhase(f *pipelineFlags, phase string) (*resolved, *pipeline, error) {
	rs, err := a.resolve(&f.sim)
	if err != nil {
		return nil, nil, err
	}
	p, err := a.newPipeline(f)
	if err != nil {
		return nil, nil, err
	}
	if err := clearAfter(p.dir, phase); err != nil {
		return nil, nil, err
	}
	return rs, p, nil
}

func (a *app) train(args []string) (int, error) {
	f, fs, err := a.parsePipeline("train", args, withSim, (*pipelineFlags).registerOut, (*pipelineFlags).registerTrain)
	if err != nil {
		return ExitError, err
	}
	if fs.Changed("edd") || fs.Changed("scale") {
		return ExitError, errors.New("train measures handlers under the seed distributions: --edd and --scale belong to the later phases")
	}
	rs, p, err := a.firstPhase(f, "")
	if err != nil {
		return ExitError, err
	}
	_, tf, err := p.train(rs, f.sim.seed, f.trainRuns)
	if err != nil {
		return ExitError, err
	}
	a.printTrain(p, tf)
	return ExitOK, nil
}

func (a *app) profileCmd(args []string) (int, error) {
	f, fs, err := a.parsePipeline("profile", args, withSim, (*pipelineFlags).registerOut, (*pipelineFlags).registerProfile, withShard)
	if err != nil {
		return ExitError, err
	}
	sp, source, sharded, err := a.shardOf(f.shard)
	if err != nil {
		return ExitError, err
	}
	eddSource := "--edd " + f.sim.eddFile
	if !fs.Changed("edd") {
		// The trained EDD of this directory, if phase 1a ran.
		if trained := filepath.Join(f.out, fileEDD); fileExists(trained) {
			from, err := fromTraining(f.out, &f.sim, fs)
			if err != nil {
				return ExitError, err
			}
			if from {
				fmt.Fprintf(a.stdout, "profile: the configuration of %s: system=%s variant=%s nodes=%d seed=%d\n", filepath.Join(f.out, fileTrain), f.sim.system, f.sim.variant, f.sim.nodes, f.sim.seed)
			}
			f.sim.eddFile = trained
			eddSource = "trained: " + fileEDD
		} else {
			eddSource = "seed (uniform 1-10ms)"
			fmt.Fprintf(a.stderr, "macepc: warning: %s has no %s and no --edd was given: profiling with the seed distributions\n", f.out, fileEDD)
		}
	}
	if sharded {
		return a.profileShard(f, sp, source, eddSource)
	}
	rs, p, err := a.firstPhase(f, "profile")
	if err != nil {
		return ExitError, err
	}
	th, err := f.thresholds(rs)
	if err != nil {
		return ExitError, err
	}
	pf, err := p.profile(rs, f.sim.seed, f.profileRuns, th, eddSource)
	if err != nil {
		return ExitError, err
	}
	a.printProfile(pf)
	return a.finish(p, pf)
}

// laterPhase parses the flags of a phase that starts from DIR/profile.json
// and loads it.
func (a *app) laterPhase(name string, args []string, groups ...func(*pipelineFlags, *pflag.FlagSet)) (*pipelineFlags, *pipeline, *profileFile, *resolved, error) {
	f, _, err := a.parsePipeline(name, args, append([]func(*pipelineFlags, *pflag.FlagSet){(*pipelineFlags).registerOut}, groups...)...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if st, err := os.Stat(f.out); err != nil || !st.IsDir() {
		return nil, nil, nil, nil, fmt.Errorf("--out %s is not a results directory (run 'macepc run' or 'macepc profile --out %s' first)", f.out, f.out)
	}
	p, err := a.newPipeline(f)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pf, rs, err := p.loadProfile()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return f, p, pf, rs, nil
}

func (a *app) searchCmd(args []string) (int, error) {
	f, p, pf, rs, err := a.laterPhase("search", args, (*pipelineFlags).registerJobs, (*pipelineFlags).registerSearch, withShard)
	if err != nil {
		return ExitError, err
	}
	if sp, source, ok, err := a.shardOf(f.shard); err != nil {
		return ExitError, err
	} else if ok {
		return a.searchShard(p, pf, rs, f.maxRuns, f.triageRuns, sp, source)
	}
	if err := clearAfter(p.dir, "profile"); err != nil {
		return ExitError, err
	}
	sf, err := p.search(pf, rs, f.maxRuns, f.triageRuns)
	if err != nil {
		p.salvageSummary(pf)
		return ExitError, err
	}
	a.printSearch(p, sf)
	return a.finish(p, pf)
}

func (a *app) divergeCmd(args []string) (int, error) {
	f, p, pf, rs, err := a.laterPhase("diverge", args, (*pipelineFlags).registerJobs, (*pipelineFlags).registerDiverge, (*pipelineFlags).registerClass)
	if err != nil {
		return ExitError, err
	}
	sf, err := p.loadSearch(pf)
	if err != nil {
		return ExitError, err
	}
	an, err := p.pickClass(rs, sf, f.class)
	if err != nil {
		return ExitError, err
	}
	if err := clearAfter(p.dir, "search"); err != nil {
		return ExitError, err
	}
	df, err := p.diverge(pf, rs, sf, an, f.walks, f.confirm)
	if err != nil {
		p.salvageSummary(pf)
		return ExitError, err
	}
	a.printDivergence(p, df)
	return a.finish(p, pf)
}

func (a *app) correlateCmd(args []string) (int, error) {
	_, p, pf, _, err := a.laterPhase("correlate", args)
	if err != nil {
		return ExitError, err
	}
	if _, err := p.loadSearch(pf); err != nil {
		return ExitError, err
	}
	if fileExists(p.path(fileWalks)) {
		if _, err := p.loadDivergence(pf); err != nil {
			return ExitError, fmt.Errorf("%w (%s is there without a valid %s: run 'macepc diverge --out %s' again)", err, fileWalks, fileDivergence, p.dir)
		}
	}
	if err := clearAfter(p.dir, "diverge"); err != nil {
		return ExitError, err
	}
	cf, err := p.correlate(pf)
	if err != nil {
		p.salvageSummary(pf)
		return ExitError, err
	}
	a.printCorrelation(cf)
	return a.finish(p, pf)
}

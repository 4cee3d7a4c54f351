package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// pipeline is one results directory being worked on by the phases.
type pipeline struct {
	a        *app
	dir      string
	jobs     int
	progress bool
}

func (p *pipeline) path(name string) string { return filepath.Join(p.dir, name) }

// interrupted wraps a phase's cancellation: the files of the completed
// phases are intact.
func (p *pipeline) interrupted(phase string, done, total int) error {
	return fmt.Errorf("interrupted in phase %s after %d of %d executions; the files of the completed phases are in %s", phase, done, total, p.dir)
}

// ---- phase 1a: EDD training ----

// trainFile is DIR/train.json: how edd.json was trained.
type trainFile struct {
	fileHeader
	// Options are the simulator options training ran with; profile takes
	// them, with the system, variant, nodes and seed, from here.
	Options    trainOptions `json:"options"`
	PhaseSeed  uint64       `json:"phase_seed"`
	Runs       int          `json:"runs"`
	Note       string       `json:"note"`
	Labels     []trainLabel `json:"labels"`
	SeedLabels []string     `json:"seed_labels"` // labels seen but with no sample (none today: every executed handler is measured)
}

type trainOptions struct {
	Semantics   string `json:"semantics"`
	ExecTime    string `json:"exec_time"`
	MaxSteps    int    `json:"max_steps"`
	CheckSafety bool   `json:"check_safety"`
}

type trainLabel struct {
	Label    string `json:"label"`
	Samples  int    `json:"samples"`
	MedianNS int64  `json:"median_ns"`
	P99NS    int64  `json:"p99_ns"`
	MaxNS    int64  `json:"max_ns"`
}

// train runs phase 1a: the explorer with the seed EDDs, measuring each
// handler's real time, and trains edd.json from the samples.
func (p *pipeline) train(rs *resolved, seed uint64, runs int) (*edd.Set, *trainFile, error) {
	opts := rs.opts
	opts.EDD = edd.NewSet(edd.DefaultSeed())
	opts.MeasureRealTime = true
	ps := phaseSeed(seed, "train")
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: opts, Jobs: p.jobs}
	samples := map[string][]time.Duration{}
	prog := p.a.startProgress(p.progress, "train", runs)
	_, done, err := ex.Run(p.a.ctx, timedsim.Work{N: runs, Path: timedsim.Seeded(ps), Each: func(i int, r *timedsim.Result) bool {
		for l, xs := range r.RealTimes {
			samples[l] = append(samples[l], xs...)
		}
		prog.add(1, "")
		return true
	}})
	prog.done()
	if err != nil || done < runs {
		return nil, nil, p.interrupted("train", done, runs)
	}
	set, err := edd.Train(samples, edd.DefaultSeed(), 0)
	if err != nil {
		return nil, nil, err
	}
	tf := &trainFile{fileHeader: newHeader("macepc-train", rs.sys.Name, rs.variant, rs.sc.Nodes, seed), PhaseSeed: ps, Runs: runs, SeedLabels: []string{},
		Options: trainOptions{Semantics: rs.opts.Semantics.String(), ExecTime: rs.opts.ExecTime.String(), MaxSteps: rs.opts.MaxSteps, CheckSafety: rs.opts.CheckSafety},
		Note:    "edd.json holds measured real handler times: training again gives slightly different distributions; pass --edd " + fileEDD + " to reuse these"}
	for _, l := range set.Labels() {
		d, _, _ := set.Lookup(l)
		e := d.(*edd.Empirical)
		tf.Labels = append(tf.Labels, trainLabel{Label: l, Samples: e.N(), MedianNS: int64(e.Quantile(0.5)), P99NS: int64(e.Quantile(0.99)), MaxNS: int64(e.Quantile(1))})
	}
	if err := writeEDD(p.path(fileEDD), set); err != nil {
		return nil, nil, err
	}
	if err := writeJSON(p.path(fileTrain), tf); err != nil {
		return nil, nil, err
	}
	return set, tf, nil
}

// fromTraining takes the configuration of DIR/train.json for the flags
// that were not given (the system, variant, node count, seed and
// simulator options of `macepc train`), so that `train --variant fixed
// --nodes 16 --seed 7` followed by `profile` profiles what was trained.
// It refuses a flag given with another value than training's, since
// edd.json holds that configuration's handler times; a directory without
// train.json is left alone.
func fromTraining(dir string, f *simFlags, fs *pflag.FlagSet) (bool, error) {
	path := filepath.Join(dir, fileTrain)
	if !fileExists(path) {
		return false, nil
	}
	var tf trainFile
	if err := readJSONFile(path, &tf); err != nil {
		return false, err
	}
	if err := checkFormat(path, tf.Format, tf.Version, "macepc-train"); err != nil {
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
			return false, fmt.Errorf("%s was trained with --%s %s, not %s: retrain ('macepc train --%s %s --out %s') or pass --edd", filepath.Join(dir, fileEDD), c.flag, c.want, c.given, c.flag, c.given, dir)
		}
	}
	return true, nil
}

// ---- phase 1b: profile ----

// profileFile is DIR/profile.json: the normal execution time, and the
// configuration every later phase uses.
type profileFile struct {
	fileHeader
	Runs       int     `json:"runs"`
	ConfigHash string  `json:"config_hash"`
	EDDSource  string  `json:"edd_source"`
	Estimator  string  `json:"estimator"`
	IQRFactor  float64 `json:"iqr_factor"`
	// Threshold is the largest of Tukey's (Q3 + IQRFactor·IQR),
	// MinSlowdown·median and median + MinExcess.
	MinSlowdown float64  `json:"min_slowdown"`
	MinExcessNS int64    `json:"min_excess_ns"`
	MinExcessBy string   `json:"min_excess_by"` // where MinExcess came from: "--min-excess", "auto: …"
	TukeyNS     int64    `json:"tukey_threshold_ns"`
	MinNS       int64    `json:"min_ns"`
	Q1NS        int64    `json:"q1_ns"`
	MedianNS    int64    `json:"median_ns"`
	Q3NS        int64    `json:"q3_ns"`
	MaxNS       int64    `json:"max_ns"`
	Threshold   int64    `json:"threshold_ns"`
	Unfinished  int      `json:"unfinished"`
	Warnings    []string `json:"warnings"`
	// Coverage classifies the labels the profile's executions ran by the
	// distribution they got: trained, a fallback of their kind, or the seed.
	Coverage   edd.Coverage `json:"coverage"`
	Executions []execLine   `json:"executions"`
	// Template is the path file of execution 0: system, options and EDD
	// for the later phases; execution i's segments are
	// SeedPath(ExecutionSeed(Seed, i)).
	Template *timedsim.PathFile `json:"template"`
}

const estimatorDoc = "gonum stat.Quantile with stat.LinInterp (Hyndman-Fan type 4: linear interpolation of the empirical CDF, p(k) = k/n)"

// thresholds are the settings of the anomaly threshold (anomaly.Profile).
type thresholds struct {
	IQRFactor   float64 `json:"iqr_factor"`
	MinSlowdown float64 `json:"min_slowdown"`
	MinExcessNS int64   `json:"min_excess_ns"`
	MinExcessBy string  `json:"min_excess_by"`
}

// thresholdsOf are a profile's threshold settings.
func thresholdsOf(pf *profileFile) thresholds {
	return thresholds{IQRFactor: pf.IQRFactor, MinSlowdown: pf.MinSlowdown, MinExcessNS: pf.MinExcessNS, MinExcessBy: pf.MinExcessBy}
}

// profile runs phase 1b with rs.opts (whose EDD is the trained one).
func (p *pipeline) profile(rs *resolved, seed uint64, runs int, th thresholds, eddSource string) (*profileFile, error) {
	lines, seen, err := p.profileExecs(rs, seed, shard.Spec{Index: 0, Count: 1}, runs)
	if err != nil {
		return nil, err
	}
	pf, err := newProfileFile(rs, seed, runs, th, eddSource, lines, seen)
	if err != nil {
		return nil, err
	}
	if err := writeJSON(p.path(fileProfile), pf); err != nil {
		return nil, err
	}
	return pf, nil
}

// profileExecs runs shard sp's share of phase 1b's executions 0..runs-1
// (all of them for shard 0/1): one line per execution in index order, and
// the labels they ran.
func (p *pipeline) profileExecs(rs *resolved, seed uint64, sp shard.Spec, runs int) ([]execLine, map[string]bool, error) {
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: rs.opts, Jobs: p.jobs}
	n := sp.Len(runs)
	lines := make([]execLine, 0, n)
	seen := map[string]bool{}
	prog := p.a.startProgress(p.progress, "profile", n)
	path := timedsim.Seeded(seed)
	_, done, err := ex.Run(p.a.ctx, timedsim.Work{N: n, Path: func(j int) timedsim.Path { return path(sp.Global(j)) }, Each: func(j int, r *timedsim.Result) bool {
		lines = append(lines, execLine{Index: sp.Global(j), Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps, Finished: r.Finished, Outcome: r.Outcome.String()})
		for l := range r.Counts {
			seen[l] = true
		}
		prog.add(1, "")
		return true
	}})
	prog.done()
	if err != nil || done < n {
		return nil, nil, p.interrupted("profile", done, n)
	}
	return lines, seen, nil
}

// newProfileFile is phase 1b's result from its executions (in index
// order) and the labels they ran.
func newProfileFile(rs *resolved, seed uint64, runs int, th thresholds, eddSource string, lines []execLine, seen map[string]bool) (*profileFile, error) {
	times := make([]time.Duration, 0, len(lines))
	unfinished := 0
	outcomes := map[string]int{}
	for _, l := range lines {
		times = append(times, time.Duration(l.ExecTimeNS))
		if !l.Finished {
			unfinished++
			outcomes[l.Outcome]++
		}
	}
	prof, err := anomaly.NewProfile(times, unfinished, th.IQRFactor)
	if err != nil {
		return nil, err
	}
	if err := prof.RequireSlowdown(th.MinSlowdown); err != nil {
		return nil, err
	}
	if err := prof.RequireExcess(time.Duration(th.MinExcessNS)); err != nil {
		return nil, err
	}
	for _, o := range []timedsim.Outcome{timedsim.Panicked, timedsim.SafetyViolated, timedsim.TimedOut, timedsim.Stalled, timedsim.StepLimit} {
		if k := outcomes[o.String()]; k > 0 {
			prof.Warnings = append(prof.Warnings, fmt.Sprintf("%d of %d profile executions ended %s", k, runs, o))
		}
	}
	if lat := rs.sc.Network.WithDefaults().Latency; prof.Median < lat {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("the median execution takes %v, less than one link latency (%v): these executions exchange (almost) no messages and differ only in handler durations; an anomaly must be at least %v slower than the median (--min-excess)",
			prof.Median, lat, prof.MinExcess))
	}
	if above := prof.Above(times); above > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("%d of %d profile executions are already above the threshold %v (the slowest %v): slow executions are not rare in this scenario",
			above, runs, prof.Threshold, prof.Max))
	}
	tmpl, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, timedsim.Seeded(seed)(0), fmt.Sprintf("profile seed=%d execution 0", seed))
	if err != nil {
		return nil, err
	}
	labels := make([]string, 0, len(seen))
	for l := range seen {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	pf := &profileFile{fileHeader: newHeader("macepc-profile", rs.sys.Name, rs.variant, rs.sc.Nodes, seed), Runs: runs, ConfigHash: tmpl.ConfigHash, EDDSource: eddSource, Estimator: estimatorDoc, IQRFactor: th.IQRFactor,
		MinExcessNS: int64(prof.MinExcess), MinExcessBy: th.MinExcessBy,
		MinNS: int64(prof.Min), Q1NS: int64(prof.Q1), MedianNS: int64(prof.Median), Q3NS: int64(prof.Q3), MaxNS: int64(prof.Max),
		Threshold: int64(prof.Threshold), TukeyNS: int64(prof.TukeyThreshold), MinSlowdown: prof.MinSlowdown, Unfinished: prof.Unfinished, Warnings: append([]string{}, prof.Warnings...),
		Coverage: rs.opts.EDD.Coverage(labels), Executions: lines, Template: tmpl}
	return pf, nil
}

// countWindow is phase 3b's count window for this profile
// (anomaly.Profile.CountWindow of its quartiles).
func (pf *profileFile) countWindow() time.Duration {
	p := anomaly.Profile{Runs: pf.Runs, Unfinished: pf.Unfinished, Min: time.Duration(pf.MinNS), Q1: time.Duration(pf.Q1NS),
		Median: time.Duration(pf.MedianNS), Q3: time.Duration(pf.Q3NS), Max: time.Duration(pf.MaxNS), Threshold: time.Duration(pf.Threshold)}
	return p.CountWindow()
}

// loadProfile reads DIR/profile.json and rebuilds its configuration.
func (p *pipeline) loadProfile() (*profileFile, *resolved, error) {
	path := p.path(fileProfile)
	var pf profileFile
	if err := readJSONFile(path, &pf); err != nil {
		return nil, nil, fmt.Errorf("%w (run 'macepc profile --out %s' first)", err, p.dir)
	}
	if err := checkFormat(path, pf.Format, pf.Version, "macepc-profile"); err != nil {
		return nil, nil, err
	}
	if pf.Template == nil || pf.Runs < 1 || pf.Q3NS < pf.Q1NS || pf.Threshold < pf.Q3NS {
		return nil, nil, fmt.Errorf("%s is malformed: missing template or inconsistent quartiles", path)
	}
	rs, err := p.a.fromPathFile(pf.Template)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if rs.hash != pf.ConfigHash {
		return nil, nil, fmt.Errorf("%s: config hash %s does not match its template's %s", path, pf.ConfigHash, rs.hash)
	}
	return &pf, rs, nil
}

// ---- phase 2: anomaly search ----

// searchFile is DIR/search.json.
type searchFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Seed       uint64 `json:"seed"` // the phase seed: execution i is SeedPath(ExecutionSeed(Seed, i))
	MaxRuns    int    `json:"max_runs"`
	// TriageRuns is how many executions the search explores after the
	// first anomalous one, to triage the anomalies it finds.
	TriageRuns int `json:"triage_runs"`
	Explored   int `json:"explored"`
	// Complete is false when the search was interrupted before finding an
	// anomaly or spending its budget.
	Complete    bool       `json:"complete"`
	ThresholdNS int64      `json:"threshold_ns"`
	WindowNS    int64      `json:"window_ns"`   // counts in search-executions.jsonl's "window" are of events starting before this (anomaly.Profile.CountWindow: the profile's Q1)
	FirstIndex  int        `json:"first_index"` // the first anomalous execution, -1 if none
	Anomalies   int        `json:"anomalies"`   // anomalous executions explored
	Classes     []classRec `json:"classes"`
	// Anomaly is the execution phase 3a analyses: the representative of
	// the class ranked first, or of --class.
	Anomaly *anomalyRec `json:"anomaly"`
}

type anomalyRec struct {
	Index      int    `json:"index"`
	Seed       uint64 `json:"seed"`
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Outcome    string `json:"outcome"`
	Finding    string `json:"finding,omitempty"` // a panic or safety violation, beyond slowness
	Path       string `json:"path"`
	Class      int    `json:"class"` // the rank of its class
}

// classRec is one class of anomalies (anomaly.Class).
type classRec struct {
	Rank           int        `json:"rank"`
	Executions     int        `json:"executions"`
	Members        []int      `json:"members"`
	Finding        string     `json:"finding,omitempty"`
	MinNS          int64      `json:"min_ns"`
	MedianNS       int64      `json:"median_ns"`
	MaxNS          int64      `json:"max_ns"`
	Slowdown       float64    `json:"slowdown"`
	ExcessNS       int64      `json:"excess_ns"`
	Signature      []string   `json:"signature"`
	Representative anomalyRec `json:"representative"`
}

// maxClassPaths is the number of classes whose representative gets a
// path file (the others can be analysed with diverge --class).
const maxClassPaths = 10

// classPath is the path file of class rank's representative.
func classPath(rank int) string {
	if rank == 1 {
		return fileAnomalyPath
	}
	return fmt.Sprintf("anomaly-class-%d.path.json", rank)
}

func (p *pipeline) search(pf *profileFile, rs *resolved, maxRuns, triageRuns int) (*searchFile, error) {
	opts := rs.opts
	opts.CountWindow = pf.countWindow()
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: opts, Jobs: p.jobs}
	seed := phaseSeed(pf.Seed, "search")
	anomalous := searchPredicate(pf)
	var lines jsonLines
	var execs []countsLine
	prog := p.a.startProgress(p.progress, "search", maxRuns)
	first := -1
	res, err := anomaly.Search(p.a.ctx, ex, timedsim.Seeded(seed), anomaly.SearchConfig{MaxRuns: maxRuns, Triage: triageRuns}, anomalous, func(i int, r *timedsim.Result) {
		l := newCountsLine("search", i, 0, r.Path.Segments[0].Seed, r)
		lines.add(l)
		execs = append(execs, l)
		if first < 0 && isAnomalous(pf, l) {
			first = i // the budget is now the triage runs after it
			prog.setMax(min(maxRuns, i+1+triageRuns))
		}
		prog.add(1, "")
	})
	prog.done()
	sf := &searchFile{Format: "macepc-search", Version: 1, ConfigHash: pf.ConfigHash, Seed: seed, MaxRuns: maxRuns, TriageRuns: triageRuns,
		Explored: res.Explored, Complete: err == nil, ThresholdNS: pf.Threshold, WindowNS: int64(pf.countWindow()), FirstIndex: -1, Classes: []classRec{}}
	if err == nil {
		if err := p.triage(rs, pf, sf, execs); err != nil {
			return nil, err
		}
	}
	// The executions explored so far are kept even when interrupted.
	if werr := lines.write(p.path(fileSearchExecs)); werr != nil {
		return nil, werr
	}
	if werr := writeJSON(p.path(fileSearch), sf); werr != nil {
		return nil, werr
	}
	if err != nil {
		return sf, p.interrupted("search", res.Explored, maxRuns)
	}
	return sf, nil
}

// searchPredicate is phase 2's test of an execution.
func searchPredicate(pf *profileFile) func(*timedsim.Result) bool {
	threshold := time.Duration(pf.Threshold)
	return func(r *timedsim.Result) bool { return r.ExecTime > threshold || finding(r) != "" }
}

// isAnomalous is searchPredicate on an execution's line.
func isAnomalous(pf *profileFile, l countsLine) bool {
	return l.ExecTimeNS > pf.Threshold || l.Finding != ""
}

// triage classes the anomalies among the explored executions (in index
// order), fills sf's anomaly fields and writes the path files of the
// classes' representatives.
func (p *pipeline) triage(rs *resolved, pf *profileFile, sf *searchFile, execs []countsLine) error {
	in := make([]anomaly.Execution, len(execs))
	byIndex := make(map[int]countsLine)
	for i, l := range execs {
		in[i] = anomaly.Execution{Index: l.Index, ExecTime: time.Duration(l.ExecTimeNS), Steps: l.Steps, Anomalous: isAnomalous(pf, l),
			Finding: findingBucket(l.Finding), Window: l.Window}
		if in[i].Anomalous {
			byIndex[l.Index] = l
			sf.Anomalies++
			if sf.FirstIndex < 0 {
				sf.FirstIndex = l.Index
			}
		}
	}
	for _, c := range anomaly.Triage(in, anomaly.TriageConfig{Median: time.Duration(pf.MedianNS)}) {
		l := byIndex[c.Representative]
		rep := anomalyRec{Index: l.Index, Seed: l.Seed, ExecTimeNS: l.ExecTimeNS, Steps: l.Steps, Outcome: l.Outcome, Finding: l.Finding, Class: c.Rank}
		if c.Rank <= maxClassPaths {
			rep.Path = classPath(c.Rank)
			if err := p.writeAnomalyPath(rs, sf.Seed, &rep, sf.ThresholdNS); err != nil {
				return err
			}
		}
		sf.Classes = append(sf.Classes, classRec{Rank: c.Rank, Executions: len(c.Members), Members: c.Members, Finding: c.Finding,
			MinNS: int64(c.Min), MedianNS: int64(c.Median), MaxNS: int64(c.Max), Slowdown: c.Slowdown, ExcessNS: int64(c.Excess),
			Signature: c.Signature, Representative: rep})
	}
	if len(sf.Classes) > 0 {
		an := sf.Classes[0].Representative
		sf.Anomaly = &an
	}
	return nil
}

// findingBucket is the class key of a finding: its text without the
// numbers (step, node, index) that differ between executions of one
// problem.
func findingBucket(f string) string {
	if f == "" {
		return ""
	}
	b := make([]byte, 0, len(f))
	digits := false
	for i := 0; i < len(f); i++ {
		if f[i] >= '0' && f[i] <= '9' {
			if !digits {
				b = append(b, '#')
			}
			digits = true
			continue
		}
		digits = false
		b = append(b, f[i])
	}
	return string(b)
}

// writeAnomalyPath writes the path file of an anomaly of the search with
// phase seed seed.
func (p *pipeline) writeAnomalyPath(rs *resolved, seed uint64, an *anomalyRec, thresholdNS int64) error {
	note := fmt.Sprintf("anomaly: search seed=%d execution %d (class %d), %s > threshold %s", seed, an.Index, an.Class,
		timedsim.FormatTime(time.Duration(an.ExecTimeNS)), timedsim.FormatTime(time.Duration(thresholdNS)))
	if an.Finding != "" {
		note = fmt.Sprintf("finding: search seed=%d execution %d (class %d), %s", seed, an.Index, an.Class, an.Finding)
	}
	return p.a.writePath(p.path(an.Path), rs, timedsim.SeedPath(an.Seed), note)
}

func (p *pipeline) loadSearch(pf *profileFile) (*searchFile, error) {
	path := p.path(fileSearch)
	var sf searchFile
	if err := readJSONFile(path, &sf); err != nil {
		return nil, fmt.Errorf("%w (run 'macepc search --out %s' first)", err, p.dir)
	}
	if err := checkFormat(path, sf.Format, sf.Version, "macepc-search"); err != nil {
		return nil, err
	}
	if sf.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s): run the search again", path, sf.ConfigHash, pf.ConfigHash)
	}
	return &sf, nil
}

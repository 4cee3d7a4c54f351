package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

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
	PhaseSeed  uint64       `json:"phase_seed"`
	Runs       int          `json:"runs"`
	Note       string       `json:"note"`
	Labels     []trainLabel `json:"labels"`
	SeedLabels []string     `json:"seed_labels"` // labels seen but with no sample (none today: every executed handler is measured)
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
		Note: "edd.json holds measured real handler times: training again gives slightly different distributions; pass --edd " + fileEDD + " to reuse these"}
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

// checkTraining refuses a results directory whose edd.json was trained on
// another system (its labels would silently stand in for this one's).
func checkTraining(dir, system string) error {
	path := filepath.Join(dir, fileTrain)
	if !fileExists(path) {
		return nil
	}
	var tf trainFile
	if err := readJSONFile(path, &tf); err != nil {
		return err
	}
	if err := checkFormat(path, tf.Format, tf.Version, "macepc-train"); err != nil {
		return err
	}
	if tf.System != system {
		return fmt.Errorf("%s was trained on system %s, not %s: run 'macepc train --system %s --out %s' or pass --edd", filepath.Join(dir, fileEDD), tf.System, system, system, dir)
	}
	return nil
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
	// Threshold is the larger of Tukey's (Q3 + IQRFactor·IQR) and
	// MinSlowdown·median.
	MinSlowdown float64  `json:"min_slowdown"`
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

// profile runs phase 1b with rs.opts (whose EDD is the trained one).
func (p *pipeline) profile(rs *resolved, seed uint64, runs int, iqrFactor, minSlowdown float64, eddSource string) (*profileFile, error) {
	lines, seen, err := p.profileExecs(rs, seed, shard.Spec{Index: 0, Count: 1}, runs)
	if err != nil {
		return nil, err
	}
	pf, err := newProfileFile(rs, seed, runs, iqrFactor, minSlowdown, eddSource, lines, seen)
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
func newProfileFile(rs *resolved, seed uint64, runs int, iqrFactor, minSlowdown float64, eddSource string, lines []execLine, seen map[string]bool) (*profileFile, error) {
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
	prof, err := anomaly.NewProfile(times, unfinished, iqrFactor)
	if err != nil {
		return nil, err
	}
	if err := prof.RequireSlowdown(minSlowdown); err != nil {
		return nil, err
	}
	for _, o := range []timedsim.Outcome{timedsim.Panicked, timedsim.SafetyViolated, timedsim.TimedOut, timedsim.Stalled, timedsim.StepLimit} {
		if k := outcomes[o.String()]; k > 0 {
			prof.Warnings = append(prof.Warnings, fmt.Sprintf("%d of %d profile executions ended %s", k, runs, o))
		}
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
	pf := &profileFile{fileHeader: newHeader("macepc-profile", rs.sys.Name, rs.variant, rs.sc.Nodes, seed), Runs: runs, ConfigHash: tmpl.ConfigHash, EDDSource: eddSource, Estimator: estimatorDoc, IQRFactor: iqrFactor,
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
	Explored   int    `json:"explored"`
	// Complete is false when the search was interrupted before finding an
	// anomaly or spending its budget.
	Complete    bool        `json:"complete"`
	ThresholdNS int64       `json:"threshold_ns"`
	WindowNS    int64       `json:"window_ns"` // counts in search-executions.jsonl's "window" are of events starting before this (anomaly.Profile.CountWindow: the profile's Q1)
	Anomaly     *anomalyRec `json:"anomaly"`
}

type anomalyRec struct {
	Index      int    `json:"index"`
	Seed       uint64 `json:"seed"`
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Outcome    string `json:"outcome"`
	Finding    string `json:"finding,omitempty"` // a panic or safety violation, beyond slowness
	Path       string `json:"path"`
}

func (p *pipeline) search(pf *profileFile, rs *resolved, maxRuns int) (*searchFile, error) {
	opts := rs.opts
	opts.CountWindow = pf.countWindow()
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: opts, Jobs: p.jobs}
	seed := phaseSeed(pf.Seed, "search")
	threshold := time.Duration(pf.Threshold)
	anomalous := func(r *timedsim.Result) bool { return r.ExecTime > threshold || finding(r) != "" }
	var lines jsonLines
	prog := p.a.startProgress(p.progress, "search", maxRuns)
	res, err := anomaly.Search(p.a.ctx, ex, timedsim.Seeded(seed), maxRuns, anomalous, func(i int, r *timedsim.Result) {
		lines.add(newCountsLine("search", i, 0, r.Path.Segments[0].Seed, r))
		prog.add(1, "")
	})
	prog.done()
	sf := &searchFile{Format: "macepc-search", Version: 1, ConfigHash: pf.ConfigHash, Seed: seed, MaxRuns: maxRuns,
		Explored: res.Explored, Complete: err == nil, ThresholdNS: pf.Threshold, WindowNS: int64(pf.countWindow())}
	if err == nil && res.Found {
		r := res.Result
		sf.Anomaly = &anomalyRec{Index: res.Index, Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
			Outcome: r.Outcome.String(), Finding: finding(r), Path: fileAnomalyPath}
		if err := p.writeAnomalyPath(rs, sf, r.Path); err != nil {
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

// writeAnomalyPath writes the path file of sf's anomaly, execution path.
func (p *pipeline) writeAnomalyPath(rs *resolved, sf *searchFile, path timedsim.Path) error {
	an := sf.Anomaly
	note := fmt.Sprintf("anomaly: search seed=%d execution %d, %s > threshold %s", sf.Seed, an.Index, timedsim.FormatTime(time.Duration(an.ExecTimeNS)), timedsim.FormatTime(time.Duration(sf.ThresholdNS)))
	if an.Finding != "" {
		note = fmt.Sprintf("finding: search seed=%d execution %d, %s", sf.Seed, an.Index, an.Finding)
	}
	return p.a.writePath(p.path(fileAnomalyPath), rs, path, note)
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

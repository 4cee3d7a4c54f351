package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// MaxListedSlow bounds regress.json's list of slow current executions.
const MaxListedSlow = 100

// regressMethod says how regress.json was computed.
func regressMethod() []string {
	return []string{
		"execution times: the baseline's profile.json and a profile of the current code with the baseline's system, nodes, options and EDD (variant, seed and runs too unless overridden)",
		"median and Q3: gonum stat.Quantile, stat.LinInterp (type 4), as the profile",
		"intervals: percentile bootstrap of current/baseline median and Q3, both samples resampled independently with replacement, at level 1-alpha",
		"shift test: one-sided Mann-Whitney U (current slower), exact without ties for samples of at most 50, else normal approximation with tie and continuity corrections; and the bootstrap p-value of 'neither the median's nor Q3's ratio exceeds 1+max-slowdown' (twice the smaller fraction of resampled ratios at or below it); its p-value is the larger of the two",
		"tail test: the executions above the baseline's anomaly threshold, their number (one-sided Fisher exact test) and their mean excess over it (one-sided permutation test), combined by Westfall-Young min-P over the same random splits (as many as the bootstrap resamples)",
		"the shift and tail tests compare the current profile (as many executions as the baseline's) with the baseline's profile",
		"slow-rate test: every current execution, the profile's first and then batches of as many until the verdict or the run cap, is slow when it is above the baseline's threshold; the allowed rate is the largest of the tolerated rate, the upper 1-alpha Clopper-Pearson bound of the baseline's own rate above its threshold when it had executions there, and its generalized Pareto tail model's conservative rate above it; evidence of more is a mixture of likelihood ratios (alternatives 1.5 to 50 times the allowed rate), a test martingale whose running maximum gives a p-value valid whenever the test stops (Ville's inequality); evidence of fewer than twice the allowed rate, against alternatives at and below it, passes the gate at level alpha",
		"regression: Holm's step-down procedure over the shift, tail and slow-rate tests at family-wise alpha (the smallest p-value against alpha/3, and so on); a test that cannot reach alpha on these executions (the tail test with few executions above the threshold) is left out (Tarone's rule); a rejected test is a regression; the gate stops at a regression, at a pass, or at the run cap (undecided, no regression shown)",
	}
}

// RegressConfig configures the regression test (StartRegress): profile
// the current code as a baseline was profiled and compare the two
// execution-time distributions.
type RegressConfig struct {
	// Env.Dir receives the current profile.json, regress.json, the plot
	// and the path files of the first execution above the baseline's
	// threshold and of the slowest execution. Env.Systems must hold the baseline's system.
	Env
	// Baseline is a results directory or its profile.json.
	Baseline string
	// Variant, Seed and Runs of the current profile: nil (0) takes the
	// baseline's, so that unchanged code gives identical executions.
	Variant *string
	Seed    *uint64
	Runs    int
	// Scale are what-if factors (label=factor) of the current run's EDD.
	Scale []string
	// System, Nodes and EDDFile, if not nil, refuse a baseline of another
	// system, node count, or event duration distributions than this
	// edd.json's.
	System  *string
	Nodes   *int
	EDDFile *string
	// Compare holds MaxSlowdown, Alpha and Resamples
	// (anomaly.DefaultCompareConfig); the bootstrap seed and the
	// threshold are the run's.
	Compare anomaly.CompareConfig
	// MaxSlowRate is the tolerated share of current executions above the
	// baseline's threshold (0: anomaly.DefaultMaxSlowRate); MaxRuns caps
	// the current executions of the sequential test (0:
	// anomaly.DefaultMaxRuns, and at least the profile's runs).
	MaxSlowRate float64
	MaxRuns     int
}

// Regression is a regression test ready to run: the baseline read and
// checked, the current configuration resolved, the results directory
// cleared.
type Regression struct {
	cfg RegressConfig
	// BaselinePath is the baseline's profile.json, Baseline its contents.
	BaselinePath string
	Baseline     *results.Profile
	// Target is the current configuration: the baseline's system, nodes,
	// options and EDD (scaled by RegressConfig.Scale), with its variant or
	// RegressConfig's.
	Target *Target
	// Seed and Runs are the current profile's; MaxRuns caps the current
	// executions of the sequential test (at least Runs).
	Seed    uint64
	Runs    int
	MaxRuns int
	// ConfigChanged says that the configuration hash the current code
	// gives the baseline's own configuration, NowHash, is not the
	// baseline's: its scenario's revision, timeout or network changed,
	// which the comparison includes.
	ConfigChanged bool
	NowHash       string
	// BootstrapSeed seeds the bootstrap and the permutations.
	BootstrapSeed uint64
}

// StartRegress reads and checks the baseline, resolves the current
// configuration and clears cfg.Dir (which must not hold the baseline).
func StartRegress(cfg RegressConfig) (r *Regression, err error) {
	defer wrapErr(&err)
	if err := cfg.Env.check(); err != nil {
		return nil, err
	}
	if err := checkResamples(cfg.Compare.Resamples); err != nil {
		return nil, err
	}
	basePath, base, err := readBaseline(cfg.Baseline)
	if err != nil {
		return nil, err
	}
	if err := checkBaselineAgainst(&cfg, basePath, base); err != nil {
		return nil, err
	}
	sys, err := cfg.Systems.Lookup(base.System)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	variant := base.Variant
	if cfg.Variant != nil {
		variant = sys.ResolveVariant(*cfg.Variant)
	}
	sc, err := sys.ScenarioParams(variant, base.Nodes, base.Template.Params)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	opts, err := base.Template.Options()
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	r = &Regression{cfg: cfg, BaselinePath: basePath, Baseline: base, Seed: base.Seed, Runs: base.Runs}
	// The hash the current code gives to the baseline's own configuration.
	if scBase, err := sys.ScenarioParams(base.Variant, base.Nodes, base.Template.Params); err == nil {
		r.NowHash = timedsim.ConfigHash(sys.Name, base.Variant, scBase, opts)
		r.ConfigChanged = r.NowHash != base.ConfigHash
	} else if variant == base.Variant {
		return nil, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	if err := applyScale(opts.EDD, cfg.Scale); err != nil {
		return nil, err
	}
	if r.Target, err = newTarget(sys, variant, sc, opts); err != nil {
		return nil, err
	}
	if cfg.Seed != nil {
		r.Seed = *cfg.Seed
	}
	if cfg.Runs != 0 {
		r.Runs = cfg.Runs
	}
	r.MaxRuns = cfg.MaxRuns
	if r.MaxRuns == 0 {
		r.MaxRuns = max(anomaly.DefaultMaxRuns, r.Runs)
	}
	switch {
	case cfg.MaxRuns < 0:
		return nil, fieldErr("RegressConfig.MaxRuns", "must be at least 1, got %d", cfg.MaxRuns)
	case r.MaxRuns < r.Runs:
		return nil, fieldErr("RegressConfig.MaxRuns", "%d is below the current profile's %d executions ({RegressConfig.Runs})", r.MaxRuns, r.Runs)
	case math.IsNaN(cfg.MaxSlowRate) || cfg.MaxSlowRate < 0 || cfg.MaxSlowRate > anomaly.MaxAllowedRate:
		return nil, fieldErr("RegressConfig.MaxSlowRate", "must be in (0, %g], got %v", anomaly.MaxAllowedRate, cfg.MaxSlowRate)
	}
	if err := checkMemory("RegressConfig.MaxRuns", r.MaxRuns, bytesPerExecLine); err != nil {
		return nil, err
	}
	if SameFile(cfg.Dir.File(results.FileProfile), basePath) {
		return nil, fieldErr("Env.Dir", "%s holds the baseline %s: write the current profile elsewhere", cfg.Dir.path, basePath)
	}
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	r.BootstrapSeed = PhaseSeed(r.Seed, PhaseRegress)
	return r, nil
}

// Scale are the current run's what-if factors.
func (r *Regression) Scale() []string { return append([]string{}, r.cfg.Scale...) }

// Run profiles the current code (Result.Profile, which is set as soon as
// the profile is written, even if a later step fails), compares it with
// the baseline by anomaly.Compare (a shift test and a tail test, combined
// by Holm's procedure at family-wise alpha) and writes regress.json, the
// plot of both ECDFs (regress.svg, regress.png) and summary.json.
// Result.Regress.Regression is the verdict.
func (r *Regression) Run(ctx context.Context) (res *Result, err error) {
	defer wrapErr(&err)
	res = &Result{}
	base, d, rs := r.Baseline, r.cfg.Dir, r.Target
	seed, runs := r.Seed, r.Runs
	scale := r.Scale()
	eddSource := "baseline: " + base.EDDSource
	if len(scale) > 0 {
		eddSource += ", scaled " + strings.Join(scale, ", ")
	}
	clear := func() error { return d.clearAfter("") } // the regress files too, once the profile succeeded
	cur, err := profile(ctx, ProfileConfig{Env: r.cfg.Env, Target: rs, EDDSource: eddSource, Seed: seed, Runs: runs, Thresholds: profileThresholds(base)}, clear)
	if err != nil {
		return nil, err
	}
	res.Profile = cur

	gcfg := anomaly.GateConfig{CompareConfig: r.cfg.Compare, MaxSlowRate: r.cfg.MaxSlowRate, MaxRuns: r.MaxRuns, TailShape: modelShape(rs)}
	gcfg.Seed = r.BootstrapSeed
	gcfg.Threshold = time.Duration(base.Threshold)
	if gcfg.MaxSlowRate == 0 {
		gcfg.MaxSlowRate = anomaly.DefaultMaxSlowRate
	}
	g, err := anomaly.NewGate(base.ExecTimes(), cur.ExecTimes(), gcfg)
	if err != nil {
		return res, err
	}
	all := slices.Clone(cur.Executions)
	for !g.Done() {
		n := min(runs, gcfg.MaxRuns-len(all))
		lines, err := regressExecs(ctx, r.cfg.Env, rs, seed, len(all), n)
		if err != nil {
			return res, err
		}
		times := make([]time.Duration, len(lines))
		for i, l := range lines {
			times[i] = time.Duration(l.ExecTimeNS)
		}
		g.Add(times)
		all = append(all, lines...)
	}
	c := g.Comparison()
	cfg := c.Config
	if c.Outliers == nil { // cfg.Threshold > 0: readBaseline checked it
		return res, errors.New("regress: no outlier comparison")
	}
	baseOpts, _ := base.Template.Options() // unscaled, for the record
	variant := rs.Variant
	rf := &results.Regress{Header: results.NewHeader(results.FormatRegress, rs.System.Name, variant, rs.Scenario.Nodes, seed),
		Baseline:      results.RegressSide{Profile: r.BaselinePath, Variant: base.Variant, Seed: base.Seed, Runs: base.Runs, ConfigHash: base.ConfigHash, Scale: scaleSpecs(baseOpts.EDD)},
		Current:       results.RegressSide{Variant: variant, Seed: seed, Runs: runs, ConfigHash: cur.ConfigHash, Scale: scale},
		ConfigChanged: r.ConfigChanged, Alpha: cfg.Alpha, MaxSlowdown: cfg.MaxSlowdown, Resamples: cfg.Resamples, BootstrapSeed: cfg.Seed, Method: regressMethod(),
		BaseMedianNS: int64(c.BaseMedian), CurMedianNS: int64(c.CurMedian), BaseQ3NS: int64(c.BaseQ3), CurQ3NS: int64(c.CurQ3),
		MedianRatio: roundInterval(c.MedianRatio), Q3Ratio: roundInterval(c.Q3Ratio), MannWhitney: c.MannWhitney, BootstrapP: c.BootstrapP,
		Outliers: results.RegressOutliers{ThresholdNS: base.Threshold, Base: c.Outliers.Base, Current: c.Outliers.Current, P: c.Outliers.P,
			BaseExcessNS: int64(c.Outliers.BaseExcess), CurrentExcessNS: int64(c.Outliers.CurrentExcess), ExcessP: c.Outliers.ExcessP, Executions: []results.ExecLine{}},
		SlowRate: c.SlowRate, Tests: c.Tests, Regression: c.Regression, Reasons: c.Reasons, Warnings: c.Warnings, Plot: []string{results.FileRegressSVG, results.FileRegressPNG}}
	for _, e := range all {
		if e.ExecTimeNS > base.Threshold && len(rf.Outliers.Executions) < MaxListedSlow {
			rf.Outliers.Executions = append(rf.Outliers.Executions, e)
		}
	}
	if len(rf.Outliers.Executions) > 0 {
		e := rf.Outliers.Executions[0]
		et, th := twoTimes(time.Duration(e.ExecTimeNS), time.Duration(base.Threshold))
		note := fmt.Sprintf("regress: current profile seed=%d execution %d, %s > the baseline's threshold %s", seed, e.Index, et, th)
		if err := writePath(d.File(results.FileRegressOutlier), rs, timedsim.Seeded(seed)(e.Index), note); err != nil {
			return res, err
		}
		rf.Outliers.Path = results.FileRegressOutlier
	}
	if len(all) > 0 {
		e := all[0]
		for _, x := range all[1:] {
			if x.ExecTimeNS > e.ExecTimeNS {
				e = x
			}
		}
		note := fmt.Sprintf("regress: current profile seed=%d execution %d, the slowest, %s", seed, e.Index, units.Duration(time.Duration(e.ExecTimeNS)))
		if err := writePath(d.File(results.FileRegressSlowest), rs, timedsim.Seeded(seed)(e.Index), note); err != nil {
			return res, err
		}
		rf.Slowest = &results.RegressSlowest{ExecLine: e, Path: results.FileRegressSlowest}
	}
	secsOf := func(ds []time.Duration) []float64 {
		out := make([]float64, len(ds))
		for i, d := range ds {
			out[i] = d.Seconds()
		}
		return out
	}
	verdict := "no regression"
	switch {
	case c.Regression:
		verdict = "REGRESSION"
	case c.SlowRate.Decision == anomaly.SlowRateUndecided:
		verdict = "undecided, no regression shown"
	}
	allTimes := make([]time.Duration, len(all))
	for i, e := range all {
		allTimes[i] = time.Duration(e.ExecTimeNS)
	}
	svg, png, err := report.RenderRegress(report.RegressData{Base: secsOf(base.ExecTimes()), Current: secsOf(allTimes), Threshold: time.Duration(base.Threshold).Seconds(),
		BaseLabel: fmt.Sprintf("baseline %s seed %d, %d executions", base.Variant, base.Seed, len(base.Executions)), CurrentLabel: fmt.Sprintf("current %s seed %d%s, %d executions", variant, seed, ScaleNote(scale), len(all)),
		Title: fmt.Sprintf("%s %s: %s (%d of %d slow; median %+.1f%%, Q3 %+.1f%%)", rs.System.Name, variant, verdict, c.SlowRate.Slow, c.SlowRate.Runs, 100*(c.MedianRatio.Estimate-1), 100*(c.Q3Ratio.Estimate-1))})
	if err != nil {
		return res, err
	}
	if err := atomicfile.WriteBytes(d.File(results.FileRegressSVG), svg); err != nil {
		return res, err
	}
	if err := atomicfile.WriteBytes(d.File(results.FileRegressPNG), png); err != nil {
		return res, err
	}
	for _, b := range []struct {
		name, what string
		variant    string
		seed       uint64
		times      []time.Duration
	}{{results.FileRegressBaseBench, "the baseline's profile", base.Variant, base.Seed, base.ExecTimes()}, {results.FileRegressCurBench, "the current code's executions, every batch", variant, seed, allTimes}} {
		note := fmt.Sprintf("%s: %s variant %s seed %d, %d executions", b.what, rs.System.Name, b.variant, b.seed, len(b.times))
		if err := d.write(b.name, func(w io.Writer) error { return writeBench(w, note, rs.System.Name, rs.Scenario.Nodes, b.times) }); err != nil {
			return res, err
		}
	}
	if err := d.writeJSON(results.FileRegress, rf); err != nil {
		return res, err
	}
	res.Regress = rf
	if s, err := d.buildSummary(cur); err == nil { // best effort, as after a failed phase
		if d.writeJSON(results.FileSummary, s) == nil {
			res.Summary = s
		}
	}
	return res, nil
}

// regressExecs runs the current executions from..from+n-1 of the
// sequential test: one line per execution in index order.
func regressExecs(ctx context.Context, env Env, t *Target, seed uint64, from, n int) ([]results.ExecLine, error) {
	ex := env.explorer(t, t.Options)
	lines := make([]results.ExecLine, 0, n)
	prog := start(env.Progress, PhaseRegress, n)
	path := timedsim.Seeded(seed)
	_, done, err := ex.Run(ctx, timedsim.Work{N: n, Path: func(j int) timedsim.Path { return path(from + j) }, Each: func(j int, r *timedsim.Result) bool {
		lines = append(lines, results.ExecLine{Index: from + j, Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps, Finished: r.Finished, Outcome: r.Outcome})
		prog.Add(1, "")
		return true
	}})
	prog.Done()
	if errors.Is(err, timedsim.ErrNondeterministic) {
		return nil, err
	}
	if err != nil || done < n {
		return nil, env.Dir.interrupted(ctx, PhaseRegress, from+done, from+n)
	}
	return lines, nil
}

// writeBench writes execution times in the Go benchmark format, one
// result line per execution ("BenchmarkExecution 1 541234567 ns/exec"),
// so that `benchstat baseline.bench.txt current.bench.txt` compares the
// two sides as Go users compare benchmarks. The configuration lines are
// the ones both sides share (system, nodes): benchstat splits its tables
// by configuration, and the variant and seed, which differ, are in the
// comment.
func writeBench(w io.Writer, note, system string, nodes int, times []time.Duration) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# macepc regress, %s\n# compare: benchstat %s %s\nsystem: %s\nnodes: %d\n", note, results.FileRegressBaseBench, results.FileRegressCurBench, system, nodes)
	for _, t := range times {
		fmt.Fprintf(bw, "BenchmarkExecution 1 %d ns/exec\n", int64(t))
	}
	return bw.Flush()
}

// ReadBaseline reads a baseline, a results directory or its
// profile.json, and checks that it is whole; it returns the path of the
// profile.json read.
func ReadBaseline(arg string) (path string, pf *results.Profile, err error) {
	defer wrapErr(&err)
	return readBaseline(arg)
}

// readBaseline reads a baseline profile.json (or DIR/profile.json) and
// checks that it is whole.
func readBaseline(arg string) (string, *results.Profile, error) {
	path := arg
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		path = filepath.Join(arg, results.FileProfile)
	}
	var pf results.Profile
	if err := results.ReadJSON(path, &pf); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, configErr("RegressConfig.Baseline", [][]string{{"profile", "--out", "DIR"}}, "{RegressConfig.Baseline}: %s does not exist (a baseline is a results directory with a profile.json, or the file itself: '{hint}' writes one)", path)
		}
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %w", err)
	}
	if err := results.CheckFormat(path, pf.Format, pf.Version, results.FormatProfile); err != nil {
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %w", err)
	}
	switch {
	case pf.Template == nil:
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s has no template: it cannot say how it was profiled", path)
	case pf.Template.ConfigHash != pf.ConfigHash:
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s is inconsistent: config hash %s, its template's %s", path, pf.ConfigHash, pf.Template.ConfigHash)
	case pf.Template.System != pf.System || pf.Template.Variant != pf.Variant || pf.Template.Nodes != pf.Nodes:
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s is inconsistent: its header and its template name different configurations", path)
	case pf.Q3NS < pf.Q1NS || pf.Threshold < pf.NormalQ3NS() || pf.Threshold <= 0:
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s is malformed: inconsistent quartiles or threshold", path)
	case pf.Runs < 1 || len(pf.Executions) != pf.Runs:
		return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s has %d executions for %d runs", path, len(pf.Executions), pf.Runs)
	}
	for i, e := range pf.Executions {
		if e.Index != i || e.ExecTimeNS < 0 {
			return "", nil, configErr("RegressConfig.Baseline", nil, "{RegressConfig.Baseline}: %s: execution %d is malformed (index %d, time %d ns)", path, i, e.Index, e.ExecTimeNS)
		}
	}
	return path, &pf, nil
}

// checkBaselineAgainst refuses a baseline of another system, node count or
// EDD than cfg pins.
func checkBaselineAgainst(cfg *RegressConfig, path string, base *results.Profile) error {
	if cfg.System != nil && *cfg.System != base.System {
		return fieldErr("RegressConfig.Baseline", "%s is a profile of system %s, not %s", path, base.System, *cfg.System)
	}
	if cfg.Nodes != nil && *cfg.Nodes != base.Nodes {
		return fieldErr("RegressConfig.Baseline", "%s is a profile of %d nodes, not %d", path, base.Nodes, *cfg.Nodes)
	}
	if cfg.EDDFile != nil {
		set, err := readEDD(*cfg.EDDFile)
		if err != nil {
			return err
		}
		opts, err := base.Template.Options()
		if err != nil {
			return fieldErr("RegressConfig.Baseline", "%s: %w", path, err)
		}
		if set.Hash() != opts.EDD.Hash() {
			return fieldErr("RegressConfig.Baseline", "%s was profiled with other event duration distributions than {RegressConfig.EDDFile} %s: profile the baseline again with this edd.json", path, *cfg.EDDFile)
		}
	}
	return nil
}

// ReadEDD reads an edd.json file.
func ReadEDD(path string) (set *edd.Set, err error) {
	defer wrapErr(&err)
	return readEDD(path)
}

func readEDD(path string) (*edd.Set, error) {
	b, err := readlimit.ReadJSONFile(path, readlimit.MaxEDDFile)
	if err != nil {
		return nil, configErr("ReadEDD.path", nil, "{ReadEDD.path}: %w", err)
	}
	set, err := edd.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fieldErr("ReadEDD.path", "%s: %w", path, err)
	}
	return set, nil
}

// scaleSpecs lists a set's what-if factors as label=factor, sorted.
func scaleSpecs(set *edd.Set) []string {
	out := []string{}
	for _, l := range slices.Sorted(maps.Keys(set.ScaleFactors())) {
		out = append(out, l+"="+strconv.FormatFloat(set.ScaleFactors()[l], 'g', -1, 64))
	}
	return out
}

// ScaleNote is " scale a=2, b=3" for what-if factors, "" for none.
func ScaleNote(scale []string) string {
	if len(scale) == 0 {
		return ""
	}
	return " scale " + strings.Join(scale, ", ")
}

func roundInterval(iv anomaly.Interval) anomaly.Interval {
	return anomaly.Interval{Estimate: round6(iv.Estimate), Low: round6(iv.Low), High: round6(iv.High)}
}

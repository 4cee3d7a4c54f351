package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/timedsim"
)

// The files `macepc regress` writes into --out besides profile.json and
// summary.json. Any phase that starts in the directory removes them
// (clearAfter), as it does summary.json: they describe the directory as
// regress left it.
const (
	fileRegress        = "regress.json"
	fileRegressSVG     = "regress.svg"
	fileRegressPNG     = "regress.png"
	fileRegressOutlier = "regress-outlier.path.json"
)

// regressFile is DIR/regress.json: the comparison of the current code's
// profile with a baseline profile. Its header is the current run's:
// system, variant, nodes and profile seed.
type regressFile struct {
	fileHeader
	Baseline regressSide `json:"baseline"`
	Current  regressSide `json:"current"`
	// ConfigChanged says that the baseline's configuration hash differs
	// from the one the current code gives for the baseline's variant and
	// EDD: the scenario's revision, timeout or network changed, which is
	// part of the change under test.
	ConfigChanged bool     `json:"config_changed"`
	Alpha         float64  `json:"alpha"`
	MaxSlowdown   float64  `json:"max_slowdown"`
	Resamples     int      `json:"resamples"`
	BootstrapSeed uint64   `json:"bootstrap_seed"`
	Method        []string `json:"method"`

	BaseMedianNS int64                     `json:"base_median_ns"`
	CurMedianNS  int64                     `json:"current_median_ns"`
	BaseQ3NS     int64                     `json:"base_q3_ns"`
	CurQ3NS      int64                     `json:"current_q3_ns"`
	MedianRatio  anomaly.Interval          `json:"median_ratio"`
	Q3Ratio      anomaly.Interval          `json:"q3_ratio"`
	MannWhitney  anomaly.MannWhitneyResult `json:"mann_whitney"`
	BootstrapP   float64                   `json:"bootstrap_p"`
	Outliers     regressOutliers           `json:"outliers"`
	// Tests are the shift and tail tests with Holm's decision.
	Tests      []anomaly.Test `json:"tests"`
	Regression bool           `json:"regression"`
	Reasons    []string       `json:"reasons"`
	Warnings   []string       `json:"warnings"`
	Plot       []string       `json:"plot"`
}

type regressSide struct {
	Profile    string   `json:"profile,omitempty"` // the baseline's profile.json as given
	Variant    string   `json:"variant"`
	Seed       uint64   `json:"seed"`
	Runs       int      `json:"runs"`
	ConfigHash string   `json:"config_hash"`
	Scale      []string `json:"scale"`
}

type regressOutliers struct {
	ThresholdNS int64   `json:"threshold_ns"`
	Base        int     `json:"base"`
	Current     int     `json:"current"`
	P           float64 `json:"p"`
	// BaseExcessNS and CurrentExcessNS are the mean excess over the
	// threshold per execution; ExcessP its permutation p-value.
	BaseExcessNS    int64   `json:"base_excess_ns"`
	CurrentExcessNS int64   `json:"current_excess_ns"`
	ExcessP         float64 `json:"excess_p"`
	// Executions are the current executions above the threshold; the
	// first one's path file is regress-outlier.path.json.
	Executions []execLine `json:"executions"`
	Path       string     `json:"path,omitempty"`
}

var regressMethod = []string{
	"execution times: the baseline's profile.json and a profile of the current code with the baseline's system, nodes, options and EDD (variant, seed and runs too unless overridden)",
	"median and Q3: gonum stat.Quantile, stat.LinInterp (type 4), as the profile",
	"intervals: percentile bootstrap of current/baseline median and Q3, both samples resampled independently with replacement, at level 1-alpha",
	"shift test: one-sided Mann-Whitney U (current slower), exact without ties for samples of at most 50, else normal approximation with tie and continuity corrections; and the bootstrap p-value of 'neither the median's nor Q3's ratio exceeds 1+max-slowdown' (twice the smaller fraction of resampled ratios at or below it); its p-value is the larger of the two",
	"tail test: the executions above the baseline's anomaly threshold, their number (one-sided Fisher exact test) and their mean excess over it (one-sided permutation test), combined by Westfall-Young min-P over the same random splits (as many as the bootstrap resamples)",
	"regression: Holm's step-down procedure over the shift and tail tests at family-wise alpha (the smaller p-value against alpha/2, then the other against alpha); a test that cannot reach alpha on these executions however they were split (the tail test with few executions above the threshold) is left out (Tarone's rule); a rejected test is a regression",
}

type regressFlags struct {
	baseline, out, progress string
	variant, system         string
	nodes, runs, jobs       int
	seed                    uint64
	eddFile                 string
	scale                   []string
	maxSlowdown             string
	alpha                   float64
	resamples               int
}

// regress is `macepc regress`: profile the current code as the baseline
// was profiled and compare the two execution-time distributions.
func (a *app) regress(args []string) (int, error) {
	fl := a.flags("regress")
	var f regressFlags
	fl.StringVar(&f.baseline, "baseline", "", "the baseline: a results directory or its profile.json (required)")
	fl.StringVar(&f.out, "out", "macepc-regress", "results directory for the current profile, regress.json and the plot")
	fl.StringVar(&f.variant, "variant", "", "profile this variant instead of the baseline's (e.g. fixed against a buggy baseline)")
	fl.Uint64Var(&f.seed, "seed", 0, "profile seed of the current run (default: the baseline's, so unchanged code gives identical executions)")
	fl.IntVar(&f.runs, "runs", 0, "executions of the current profile (default: as many as the baseline)")
	fl.StringArrayVar(&f.scale, "scale", nil, "what-if scaling of an event's durations in the current run, label=factor (repeatable)")
	fl.StringVar(&f.system, "system", "", "refuse a baseline of another system")
	fl.IntVar(&f.nodes, "nodes", 0, "refuse a baseline with another number of nodes")
	fl.StringVar(&f.eddFile, "edd", "", "refuse a baseline profiled with other event duration distributions than this edd.json")
	fl.StringVar(&f.maxSlowdown, "max-slowdown", "5%", "tolerated slowdown of the median and Q3: a percentage (5%) or a fraction (0.05)")
	fl.Float64Var(&f.alpha, "alpha", anomaly.DefaultAlpha, "family-wise significance level: Holm's procedure over the shift and tail tests; the intervals are at 1-alpha")
	fl.IntVar(&f.resamples, "resamples", anomaly.DefaultResamples, "bootstrap resamples, and permutations of the tail test")
	fl.IntVar(&f.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (when stderr is a terminal), always or never")
	if err := fl.Parse(args); err != nil {
		return ExitError, err
	}
	if fl.NArg() > 0 {
		return ExitError, fmt.Errorf("regress takes no arguments, got %q", fl.Args())
	}
	cfg := anomaly.DefaultCompareConfig()
	var err error
	if cfg.MaxSlowdown, err = parseFraction(f.maxSlowdown); err != nil {
		return ExitError, fmt.Errorf("--max-slowdown: %w", err)
	}
	cfg.Alpha, cfg.Resamples = f.alpha, f.resamples
	switch {
	case f.baseline == "":
		return ExitError, errors.New("--baseline is required: a results directory or its profile.json")
	case math.IsNaN(f.alpha) || f.alpha <= 0 || f.alpha >= 1:
		return ExitError, fmt.Errorf("--alpha must be in (0, 1), got %v", f.alpha)
	case f.resamples < 1:
		return ExitError, fmt.Errorf("--resamples must be at least 1, got %d", f.resamples)
	case fl.Changed("runs") && f.runs < 1:
		return ExitError, fmt.Errorf("--runs must be at least 1, got %d", f.runs)
	case f.jobs < 0:
		return ExitError, fmt.Errorf("--jobs must be positive, got %d", f.jobs)
	case f.out == "":
		return ExitError, errors.New("--out must name a directory")
	}
	show, err := progressEnabled(f.progress, a.stderr)
	if err != nil {
		return ExitError, err
	}

	basePath, base, err := readBaseline(f.baseline)
	if err != nil {
		return ExitError, err
	}
	if err := checkBaselineAgainst(&f, fl, basePath, base); err != nil {
		return ExitError, err
	}
	sys, err := a.reg.Lookup(base.System)
	if err != nil {
		return ExitError, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	variant := base.Variant
	if fl.Changed("variant") {
		variant = sys.ResolveVariant(f.variant)
	}
	sc, err := sys.ScenarioParams(variant, base.Nodes, base.Template.Params)
	if err != nil {
		return ExitError, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	opts, err := base.Template.Options()
	if err != nil {
		return ExitError, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	baseOpts, _ := base.Template.Options() // unscaled, for the record
	// The hash the current code gives to the baseline's own configuration.
	changed, nowHash := false, ""
	if scBase, err := sys.ScenarioParams(base.Variant, base.Nodes, base.Template.Params); err == nil {
		nowHash = timedsim.ConfigHash(sys.Name, base.Variant, scBase, opts)
		changed = nowHash != base.ConfigHash
	} else if variant == base.Variant {
		return ExitError, fmt.Errorf("baseline %s: %w", basePath, err)
	}
	if err := applyScale(opts.EDD, f.scale); err != nil {
		return ExitError, err
	}
	rs := &resolved{sys: sys, variant: variant, sc: sc, opts: opts, hash: timedsim.ConfigHash(sys.Name, variant, sc, opts)}
	seed, runs := base.Seed, base.Runs
	if fl.Changed("seed") {
		seed = f.seed
	}
	if fl.Changed("runs") {
		runs = f.runs
	}
	if sameFile(filepath.Join(f.out, fileProfile), basePath) {
		return ExitError, fmt.Errorf("--out %s holds the baseline %s: write the current profile elsewhere", f.out, basePath)
	}

	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return ExitError, fmt.Errorf("--out: %w", err)
	}
	p := &pipeline{a: a, dir: f.out, jobs: f.jobs, progress: show}
	if err := clearAfter(p.dir, ""); err != nil { // the regress files too
		return ExitError, err
	}
	cfg.Seed = phaseSeed(seed, "regress")
	cfg.Threshold = time.Duration(base.Threshold)
	scale := append([]string{}, f.scale...)
	fmt.Fprintf(a.stdout, "macepc regress: baseline %s: system=%s variant=%s nodes=%d seed=%d runs=%d\n", basePath, base.System, base.Variant, base.Nodes, base.Seed, base.Runs)
	fmt.Fprintf(a.stdout, "  current: variant=%s seed=%d runs=%d%s (bootstrap seed %d)\n", variant, seed, runs, scaleNote(scale), cfg.Seed)
	if changed {
		fmt.Fprintf(a.stderr, "macepc: warning: the configuration of %s %s changed since the baseline (config hash %s, now %s): its scenario's revision, timeout or network differs, and the comparison includes that change\n",
			base.System, base.Variant, base.ConfigHash, nowHash)
	}

	eddSource := "baseline: " + base.EDDSource
	if len(scale) > 0 {
		eddSource += ", scaled " + strings.Join(scale, ", ")
	}
	cur, err := p.profile(rs, seed, runs, thresholdsOf(base), eddSource)
	if err != nil {
		return ExitError, err
	}
	a.printProfile(cur)

	times := func(pf *profileFile) []time.Duration {
		out := make([]time.Duration, len(pf.Executions))
		for i, e := range pf.Executions {
			out[i] = time.Duration(e.ExecTimeNS)
		}
		return out
	}
	c, err := anomaly.Compare(times(base), times(cur), cfg)
	if err != nil {
		return ExitError, err
	}
	if c.Outliers == nil { // cfg.Threshold > 0: readBaseline checked it
		return ExitError, errors.New("regress: no outlier comparison")
	}
	rf := &regressFile{fileHeader: newHeader("macepc-regress", sys.Name, variant, sc.Nodes, seed),
		Baseline:      regressSide{Profile: basePath, Variant: base.Variant, Seed: base.Seed, Runs: base.Runs, ConfigHash: base.ConfigHash, Scale: scaleSpecs(baseOpts.EDD)},
		Current:       regressSide{Variant: variant, Seed: seed, Runs: runs, ConfigHash: cur.ConfigHash, Scale: scale},
		ConfigChanged: changed, Alpha: cfg.Alpha, MaxSlowdown: cfg.MaxSlowdown, Resamples: cfg.Resamples, BootstrapSeed: cfg.Seed, Method: regressMethod,
		BaseMedianNS: int64(c.BaseMedian), CurMedianNS: int64(c.CurMedian), BaseQ3NS: int64(c.BaseQ3), CurQ3NS: int64(c.CurQ3),
		MedianRatio: roundInterval(c.MedianRatio), Q3Ratio: roundInterval(c.Q3Ratio), MannWhitney: c.MannWhitney, BootstrapP: c.BootstrapP,
		Outliers: regressOutliers{ThresholdNS: base.Threshold, Base: c.Outliers.Base, Current: c.Outliers.Current, P: c.Outliers.P,
			BaseExcessNS: int64(c.Outliers.BaseExcess), CurrentExcessNS: int64(c.Outliers.CurrentExcess), ExcessP: c.Outliers.ExcessP, Executions: []execLine{}},
		Tests: c.Tests, Regression: c.Regression, Reasons: c.Reasons, Warnings: c.Warnings, Plot: []string{fileRegressSVG, fileRegressPNG}}
	for _, e := range cur.Executions {
		if e.ExecTimeNS > base.Threshold {
			rf.Outliers.Executions = append(rf.Outliers.Executions, e)
		}
	}
	if len(rf.Outliers.Executions) > 0 {
		e := rf.Outliers.Executions[0]
		note := fmt.Sprintf("regress: current profile seed=%d execution %d, %s > the baseline's threshold %s", seed, e.Index, timedsim.FormatTime(time.Duration(e.ExecTimeNS)), timedsim.FormatTime(time.Duration(base.Threshold)))
		if err := a.writePath(p.path(fileRegressOutlier), rs, timedsim.Seeded(seed)(e.Index), note); err != nil {
			return ExitError, err
		}
		rf.Outliers.Path = fileRegressOutlier
	}
	secsOf := func(ds []time.Duration) []float64 {
		out := make([]float64, len(ds))
		for i, d := range ds {
			out[i] = d.Seconds()
		}
		return out
	}
	verdict := "no regression"
	if c.Regression {
		verdict = "REGRESSION"
	}
	svg, png, err := report.RenderRegress(report.RegressData{Base: secsOf(times(base)), Current: secsOf(times(cur)), Threshold: time.Duration(base.Threshold).Seconds(),
		BaseLabel: fmt.Sprintf("baseline %s seed %d", base.Variant, base.Seed), CurrentLabel: fmt.Sprintf("current %s seed %d%s", variant, seed, scaleNote(scale)),
		Title: fmt.Sprintf("%s %s: %s (median %+.1f%%, Q3 %+.1f%%)", sys.Name, variant, verdict, 100*(c.MedianRatio.Estimate-1), 100*(c.Q3Ratio.Estimate-1))})
	if err != nil {
		return ExitError, err
	}
	if err := atomicfile.WriteBytes(p.path(fileRegressSVG), svg); err != nil {
		return ExitError, err
	}
	if err := atomicfile.WriteBytes(p.path(fileRegressPNG), png); err != nil {
		return ExitError, err
	}
	if err := writeJSON(p.path(fileRegress), rf); err != nil {
		return ExitError, err
	}
	p.salvageSummary(cur)
	a.printRegress(p, rf)
	a.writeReport(p.dir)
	if c.Regression {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

// readBaseline reads a baseline profile.json (or DIR/profile.json) and
// checks that it is whole.
func readBaseline(arg string) (string, *profileFile, error) {
	path := arg
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		path = filepath.Join(arg, fileProfile)
	}
	var pf profileFile
	if err := readJSONFile(path, &pf); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("--baseline: %s does not exist (a baseline is a results directory with a profile.json, or the file itself: 'macepc profile --out DIR' writes one)", path)
		}
		return "", nil, fmt.Errorf("--baseline: %w", err)
	}
	if err := checkFormat(path, pf.Format, pf.Version, "macepc-profile"); err != nil {
		return "", nil, fmt.Errorf("--baseline: %w", err)
	}
	switch {
	case pf.Template == nil:
		return "", nil, fmt.Errorf("--baseline: %s has no template: it cannot say how it was profiled", path)
	case pf.Template.ConfigHash != pf.ConfigHash:
		return "", nil, fmt.Errorf("--baseline: %s is inconsistent: config hash %s, its template's %s", path, pf.ConfigHash, pf.Template.ConfigHash)
	case pf.Template.System != pf.System || pf.Template.Variant != pf.Variant || pf.Template.Nodes != pf.Nodes:
		return "", nil, fmt.Errorf("--baseline: %s is inconsistent: its header and its template name different configurations", path)
	case pf.Q3NS < pf.Q1NS || pf.Threshold < pf.Q3NS || pf.Threshold <= 0:
		return "", nil, fmt.Errorf("--baseline: %s is malformed: inconsistent quartiles or threshold", path)
	case pf.Runs < 1 || len(pf.Executions) != pf.Runs:
		return "", nil, fmt.Errorf("--baseline: %s has %d executions for %d runs", path, len(pf.Executions), pf.Runs)
	}
	for i, e := range pf.Executions {
		if e.Index != i || e.ExecTimeNS < 0 {
			return "", nil, fmt.Errorf("--baseline: %s: execution %d is malformed (index %d, time %d ns)", path, i, e.Index, e.ExecTimeNS)
		}
	}
	return path, &pf, nil
}

// checkBaselineAgainst refuses a baseline of another system, node count or
// EDD than the flags pin.
func checkBaselineAgainst(f *regressFlags, fs *pflag.FlagSet, path string, base *profileFile) error {
	if fs.Changed("system") && f.system != base.System {
		return fmt.Errorf("--baseline %s is a profile of system %s, not %s", path, base.System, f.system)
	}
	if fs.Changed("nodes") && f.nodes != base.Nodes {
		return fmt.Errorf("--baseline %s is a profile of %d nodes, not %d", path, base.Nodes, f.nodes)
	}
	if fs.Changed("edd") {
		set, err := readEDDFile(f.eddFile)
		if err != nil {
			return err
		}
		opts, err := base.Template.Options()
		if err != nil {
			return fmt.Errorf("--baseline %s: %w", path, err)
		}
		if set.Hash() != opts.EDD.Hash() {
			return fmt.Errorf("--baseline %s was profiled with other event duration distributions than --edd %s: profile the baseline again with this edd.json", path, f.eddFile)
		}
	}
	return nil
}

func readEDDFile(path string) (*edd.Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--edd: %w", err)
	}
	set, err := edd.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("--edd %s: %w", path, err)
	}
	return set, nil
}

// parseFraction reads "5%" as 0.05 and "0.05" as 0.05. A bare number of
// 1 or more is refused: "5" is far more likely to mean 5% than 500%, and
// a gate that silently tolerates 500% passes everything; "500%" says it.
func parseFraction(s string) (float64, error) {
	t, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("want a percentage such as 5%% or a fraction such as 0.05, got %q", s)
	}
	if pct {
		return v / 100, nil
	}
	if v >= 1 {
		return 0, fmt.Errorf("%q is ambiguous: write %s%% for a percentage, or a fraction below 1 (%s%% is %s)", s, t, t, strconv.FormatFloat(v/100, 'g', -1, 64))
	}
	return v, nil
}

// scaleSpecs lists a set's what-if factors as label=factor, sorted.
func scaleSpecs(set *edd.Set) []string {
	out := []string{}
	for _, l := range slices.Sorted(maps.Keys(set.ScaleFactors())) {
		out = append(out, l+"="+strconv.FormatFloat(set.ScaleFactors()[l], 'g', -1, 64))
	}
	return out
}

func scaleNote(scale []string) string {
	if len(scale) == 0 {
		return ""
	}
	return " scale " + strings.Join(scale, ", ")
}

func roundInterval(iv anomaly.Interval) anomaly.Interval {
	return anomaly.Interval{Estimate: round6(iv.Estimate), Low: round6(iv.Low), High: round6(iv.High)}
}

func pct(r float64) string { return fmt.Sprintf("%+.1f%%", 100*(r-1)) }

func (a *app) printRegress(p *pipeline, rf *regressFile) {
	w := a.stdout
	fmt.Fprintf(w, "regression test (family-wise alpha %g, Holm over the tests that can reach it; tolerated slowdown %g%%; %d bootstrap resamples and permutations):\n", rf.Alpha, 100*rf.MaxSlowdown, rf.Resamples)
	level := 100 * (1 - rf.Alpha)
	for _, r := range []struct {
		name      string
		base, cur int64
		iv        anomaly.Interval
	}{{"median", rf.BaseMedianNS, rf.CurMedianNS, rf.MedianRatio}, {"Q3", rf.BaseQ3NS, rf.CurQ3NS, rf.Q3Ratio}} {
		fmt.Fprintf(w, "  %-6s %s -> %s: %s (%g%% CI %s to %s)\n", r.name, fmtS(secs(r.base)), fmtS(secs(r.cur)), pct(r.iv.Estimate), level, pct(r.iv.Low), pct(r.iv.High))
	}
	mw := rf.MannWhitney
	how := "normal approximation"
	if mw.Exact {
		how = "exact"
	}
	fmt.Fprintf(w, "  Mann-Whitney U = %g of %d pairs, one-sided p = %.3g (%s)\n", mw.U, rf.Baseline.Runs*rf.Current.Runs, mw.P, how)
	o := rf.Outliers
	fmt.Fprintf(w, "  above the baseline's threshold %s: %d of %d (baseline %d of %d), Fisher p = %.3g; mean excess %s per execution (baseline %s), permutation p = %.3g\n",
		fmtS(secs(o.ThresholdNS)), o.Current, rf.Current.Runs, o.Base, rf.Baseline.Runs, o.P, fmtS(secs(o.CurrentExcessNS)), fmtS(secs(o.BaseExcessNS)), o.ExcessP)
	if o.Path != "" {
		fmt.Fprintf(w, "  replay the first: macepc replay --path %s\n", p.path(o.Path))
	}
	for _, t := range rf.Tests {
		what := ""
		switch t.Name {
		case anomaly.TestShift:
			what = fmt.Sprintf("median or Q3 beyond %s; the larger of Mann-Whitney %.3g and bootstrap %.3g", pct(1+rf.MaxSlowdown), mw.P, rf.BootstrapP)
		case anomaly.TestTail:
			what = fmt.Sprintf("more or longer executions above the threshold; min-P of Fisher %.3g and excess %.3g", o.P, o.ExcessP)
		}
		if t.Excluded {
			fmt.Fprintf(w, "  %s test (%s): p = %.3g; left out, it cannot reach alpha on these executions (smallest attainable p %.3g)\n", t.Name, what, t.P, t.Attainable)
			continue
		}
		verdict := "passed"
		if t.Rejected {
			verdict = "REJECTED"
		}
		fmt.Fprintf(w, "  %s test (%s): p = %.3g, Holm level %.3g, adjusted p = %.3g: %s\n", t.Name, what, t.P, t.Level, t.AdjustedP, verdict)
	}
	if rf.Regression {
		for _, r := range rf.Reasons {
			fmt.Fprintf(w, "REGRESSION: %s\n", r)
		}
	} else {
		fmt.Fprintf(w, "no regression\n")
	}
	for _, warn := range rf.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "  -> %s, %s, %s\n", p.path(fileRegress), p.path(fileRegressSVG), p.path(fileRegressPNG))
}

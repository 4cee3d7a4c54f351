package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
)

type regressFlags struct {
	baseline, out, progress string
	variant, system         string
	nodes, runs, jobs       int
	seed                    uint64
	eddFile                 string
	scale                   []string
	maxSlowdown             string
	maxSlowRate             string
	maxRuns                 int
	alpha                   float64
	resamples               int
}

// regress is `macepc regress`: profile the current code as the baseline
// was profiled and compare the two execution-time distributions.
func (a *app) regress(args []string) (int, error) {
	fl := a.flags("regress")
	var f regressFlags
	fl.StringVar(&f.baseline, "baseline", "", "the baseline: a results directory or its profile.json (required)")
	fl.StringVar(&f.out, "out", "macepc-out", "results directory for the current profile, regress.json and the plot (not the baseline's)")
	fl.StringVar(&f.variant, "variant", "", "profile this variant instead of the baseline's (e.g. fixed against a buggy baseline)")
	fl.Uint64Var(&f.seed, "seed", 0, "profile seed of the current run (default: the baseline's, so unchanged code gives identical executions)")
	fl.IntVar(&f.runs, "profile-runs", 0, "executions of the current profile (default: as many as the baseline)")
	deprecatedAlias(fl, "runs", "profile-runs")
	fl.StringArrayVar(&f.scale, "scale", nil, "what-if scaling of an event's durations in the current run, label=factor (repeatable)")
	fl.StringVar(&f.system, "system", "", "refuse a baseline of another system")
	fl.IntVar(&f.nodes, "nodes", 0, "refuse a baseline with another number of nodes")
	fl.StringVar(&f.eddFile, "edd", "", "refuse a baseline profiled with other event duration distributions than this edd.json")
	fl.StringVar(&f.maxSlowdown, "max-slowdown", "5%", "tolerated slowdown of the median and Q3: a percentage (5%) or a fraction (0.05)")
	fl.StringVar(&f.maxSlowRate, "max-slow-rate", "1%", "tolerated share of current executions above the baseline's anomaly threshold: a percentage (1%) or a fraction (0.01); the baseline's own rate, or its tail model's, if larger")
	fl.IntVar(&f.maxRuns, "max-runs", anomaly.DefaultMaxRuns, "cap on the current executions: they run in batches as large as the profile until the verdict, at most this many")
	fl.Float64Var(&f.alpha, "alpha", anomaly.DefaultAlpha, "family-wise significance level: Holm's procedure over the shift, tail and slow-rate tests; also the level of the slow-rate test's pass; the intervals are at 1-alpha")
	fl.IntVar(&f.resamples, "resamples", anomaly.DefaultResamples, "bootstrap resamples, and permutations of the tail test")
	fl.IntVar(&f.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	fl.StringVar(&f.progress, "progress", "auto", progressUsage)
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
	maxSlowRate, err := parseFraction(f.maxSlowRate)
	if err != nil {
		return ExitError, fmt.Errorf("--max-slow-rate: %w", err)
	}
	switch {
	case f.baseline == "":
		return ExitError, errors.New("--baseline is required: a results directory or its profile.json")
	case math.IsNaN(f.alpha) || f.alpha <= 0 || f.alpha >= 1:
		return ExitError, fmt.Errorf("--alpha must be in (0, 1), got %v", f.alpha)
	case f.resamples < 1 || f.resamples > pipeline.MaxResamples:
		return ExitError, fmt.Errorf("--resamples must be between 1 and %d, got %d", pipeline.MaxResamples, f.resamples)
	case maxSlowRate <= 0 || maxSlowRate > anomaly.MaxAllowedRate:
		return ExitError, fmt.Errorf("--max-slow-rate must be above 0%% and at most %g%%, got %s", 100*anomaly.MaxAllowedRate, f.maxSlowRate)
	case f.maxRuns < 1:
		return ExitError, fmt.Errorf("--max-runs must be at least 1, got %d", f.maxRuns)
	case fl.Changed("profile-runs") && f.runs < 1:
		return ExitError, fmt.Errorf("--profile-runs must be at least 1, got %d", f.runs)
	case f.jobs < 0:
		return ExitError, fmt.Errorf("--jobs must be positive, got %d", f.jobs)
	case f.out == "":
		return ExitError, errors.New("--out must name a directory")
	}
	prog, err := a.progress(f.progress, f.jobs)
	if err != nil {
		return ExitError, err
	}

	env := pipeline.Env{Dir: pipeline.NewDir(f.out), Systems: a.reg, Jobs: f.jobs, Progress: prog}
	rc := pipeline.RegressConfig{Env: env, Baseline: f.baseline, Scale: f.scale, Compare: cfg, MaxSlowRate: maxSlowRate}
	if fl.Changed("max-runs") {
		rc.MaxRuns = f.maxRuns
	}
	for _, o := range []struct {
		flag string
		set  func()
	}{
		{"variant", func() { rc.Variant = &f.variant }},
		{"seed", func() { rc.Seed = &f.seed }},
		{"profile-runs", func() { rc.Runs = f.runs }},
		{"system", func() { rc.System = &f.system }},
		{"nodes", func() { rc.Nodes = &f.nodes }},
		{"edd", func() { rc.EDDFile = &f.eddFile }},
	} {
		if fl.Changed(o.flag) {
			o.set()
		}
	}
	r, err := pipeline.StartRegress(rc)
	if err != nil {
		return ExitError, err
	}
	if err := a.lockDir(env.Dir); err != nil { // checked first: a refused regress creates no directory
		return ExitError, err
	}
	base, t := r.Baseline, r.Target
	fmt.Fprintf(a.stdout, "macepc regress: baseline %s: system=%s variant=%s nodes=%d seed=%d runs=%d\n", r.BaselinePath, base.System, base.Variant, base.Nodes, base.Seed, base.Runs)
	fmt.Fprintf(a.stdout, "  current: variant=%s seed=%d runs=%d, then batches of %d up to %d until the verdict%s (bootstrap seed %d)\n", t.Variant, r.Seed, r.Runs, r.Runs, r.MaxRuns, pipeline.ScaleNote(r.Scale()), r.BootstrapSeed)
	if r.ConfigChanged {
		fmt.Fprintf(a.stderr, "%s: warning: the configuration of %s %s changed since the baseline (config hash %s, now %s): its scenario's revision, timeout or network differs, and the comparison includes that change\n",
			a.name, base.System, base.Variant, base.ConfigHash, r.NowHash)
	}
	res, err := r.Run(a.ctx)
	if res != nil && res.Profile != nil {
		a.printProfile(res.Profile)
	}
	if err != nil {
		return ExitError, err
	}
	a.printRegress(env.Dir, res.Regress)
	a.writeReport(env.Dir.Path())
	if res.Regress.Regression {
		return ExitFinding, nil
	}
	return ExitOK, nil
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

func pct(r float64) string { return fmt.Sprintf("%+.1f%%", 100*(r-1)) }

func (a *app) printRegress(d *pipeline.Dir, rf *results.Regress) {
	w := a.stdout
	fmt.Fprintf(w, "regression test (family-wise alpha %g, Holm over the tests that can reach it; tolerated slowdown %g%%; %d bootstrap resamples and permutations; the shift and tail tests on the first %d current executions):\n", rf.Alpha, 100*rf.MaxSlowdown, rf.Resamples, rf.Current.Runs)
	level := 100 * (1 - rf.Alpha)
	for _, r := range []struct {
		name      string
		base, cur int64
		iv        anomaly.Interval
	}{{"median", rf.BaseMedianNS, rf.CurMedianNS, rf.MedianRatio}, {"Q3", rf.BaseQ3NS, rf.CurQ3NS, rf.Q3Ratio}} {
		fmt.Fprintf(w, "  %-6s %s -> %s: %s (%g%% CI %s to %s)\n", r.name, fmtNS(r.base), fmtNS(r.cur), pct(r.iv.Estimate), level, pct(r.iv.Low), pct(r.iv.High))
	}
	mw := rf.MannWhitney
	how := "normal approximation"
	if mw.Exact {
		how = "exact"
	}
	fmt.Fprintf(w, "  Mann-Whitney U = %g of %d pairs, one-sided p = %.3g (%s)\n", mw.U, rf.Baseline.Runs*rf.Current.Runs, mw.P, how)
	o := rf.Outliers
	fmt.Fprintf(w, "  above the baseline's threshold %s: %d of %d (baseline %d of %d), Fisher p = %.3g; mean excess %s per execution (baseline %s), permutation p = %.3g\n",
		fmtNS(o.ThresholdNS), o.Current, rf.Current.Runs, o.Base, rf.Baseline.Runs, o.P, fmtNS(o.CurrentExcessNS), fmtNS(o.BaseExcessNS), o.ExcessP)
	if sr := rf.SlowRate; sr != nil {
		fmt.Fprintf(w, "  slow-rate test: %s\n", sr.Statement())
	}
	if o.Path != "" {
		fmt.Fprintf(w, "  replay the first: %s\n", a.replayCommand(d.File(o.Path)))
	}
	for _, t := range rf.Tests {
		what := ""
		switch t.Name {
		case anomaly.TestShift:
			what = fmt.Sprintf("median or Q3 beyond %s; the larger of Mann-Whitney %.3g and bootstrap %.3g", pct(1+rf.MaxSlowdown), mw.P, rf.BootstrapP)
		case anomaly.TestTail:
			what = fmt.Sprintf("more or longer executions above the threshold; min-P of Fisher %.3g and excess %.3g", o.P, o.ExcessP)
		case anomaly.TestSlowRate:
			what = fmt.Sprintf("more than %.3g%% of the executions above the threshold; sequential, %d executions", 100*rf.SlowRate.Allowed, rf.SlowRate.Runs)
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
	} else if sr := rf.SlowRate; sr != nil && sr.Decision == anomaly.SlowRateUndecided {
		fmt.Fprintf(w, "no regression shown: undecided after %d executions\n", sr.Runs)
	} else {
		fmt.Fprintf(w, "no regression\n")
	}
	if sr := rf.SlowRate; sr != nil {
		fmt.Fprintf(w, "  verdict after %d current executions (cap %d)\n", sr.Runs, sr.MaxRuns)
	}
	for _, warn := range rf.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "  -> %s, %s, %s\n", d.File(results.FileRegress), d.File(results.FileRegressSVG), d.File(results.FileRegressPNG))
}

package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/results"
)

// RegressData feeds the regression plot of `macepc regress`: the execution
// times of the baseline and of the current code, in seconds.
type RegressData struct {
	Base, Current []float64
	// Threshold is the baseline's anomaly threshold (s); 0 draws none.
	Threshold float64
	// BaseLabel and CurrentLabel name the two samples in the legend.
	BaseLabel, CurrentLabel string
	// Title is the plot's title, e.g. the verdict.
	Title string
}

// RegressPlot overlays the empirical CDFs of both samples as step lines,
// with their medians (thin) and the baseline's anomaly threshold (orange).
// When slow executions lie far out, the x axis is broken (//) past both
// distributions' bodies and the slow tail drawn on its own scale right
// of the break.
// A curve to the right of the other is slower; the horizontal distance at
// 0.5 is the median's change. It panics on an empty sample (a caller bug).
func RegressPlot(d RegressData) *plot.Plot {
	if len(d.Base) == 0 || len(d.Current) == 0 {
		panic("report: RegressPlot of an empty sample")
	}
	base, cur := slices.Sorted(slices.Values(d.Base)), slices.Sorted(slices.Values(d.Current))
	lo, hi := min(base[0], cur[0]), max(base[len(base)-1], cur[len(cur)-1])
	if d.Threshold > 0 {
		hi = max(hi, d.Threshold)
	}
	span := hi - lo
	if span <= 0 {
		span = max(hi*0.02, 1e-9)
	}
	g := regressKnee(base, cur, d.Threshold)
	if g != nil { // each side padded on its own scale
		lo, hi = lo-0.05*(g.a-lo), hi+0.08*(hi-g.a)
	} else {
		lo, hi = lo-0.05*span, hi+0.08*span
	}
	p := newPlot(d.Title, "execution time (s)", "fraction ≤ x")
	// Headroom above 1 for the legend: the curves reach 1 anywhere.
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, 0, 1.3
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.25}, {Value: 0.5, Label: "0.5"}, {Value: 0.75}, {Value: 1, Label: "1"}})
	p.X.Tick.Marker = secTicks{}
	if g != nil {
		p.X.Scale, p.X.Tick.Marker = g, kneeTicks{g}
		p.Add(g)
	}
	p.Add(gridBelow{max: 1.05})
	for _, s := range []struct {
		xs    []float64
		label string
		base  bool
	}{{base, d.BaseLabel, true}, {cur, d.CurrentLabel, false}} {
		e := plotter.XYs{{X: lo, Y: 0}}
		for i, x := range s.xs {
			e = append(e, plotter.XY{X: x, Y: float64(i+1) / float64(len(s.xs))})
		}
		e = append(e, plotter.XY{X: hi, Y: 1})
		l, err := plotter.NewLine(e)
		if err != nil {
			panic(fmt.Sprintf("report: regression plot: %v", err)) // NaN or Inf: caller bug
		}
		l.StepStyle = plotter.PostStep
		l.Width = vg.Points(1.5)
		c := colNormal
		if !s.base {
			c = colAnomaly
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		l.Color = c
		med := vline(median4(s.xs), 0, 1.05, c, 0.6)
		p.Add(l, med)
		p.Legend.Add(fmt.Sprintf("%s (%d, median %s)", s.label, len(s.xs), fmtSec(median4(s.xs))), l)
	}
	if d.Threshold > 0 {
		th := vline(d.Threshold, 0, 1.05, colThreshold, 1.5)
		p.Add(th)
		p.Legend.Add("baseline threshold "+fmtSec(d.Threshold), th)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(4)
	return p
}

// regressKneeAt is the share of the regression plot's width left of its
// knee.
const regressKneeAt = 0.72

// regressKnee breaks the regression plot's x axis (of sorted samples)
// at a knee past the threshold and 1.2× the larger Q3, so that both
// distributions' bodies lie left of it, when they would fill less than
// half of a linear axis (slow executions far out): the stretch up to the
// knee then gets regressKneeAt of the width, the slow tail the rest, each
// linear. Nil when the bodies fill enough.
func regressKnee(base, cur []float64, threshold float64) *gapScale {
	fastest, slowest := min(base[0], cur[0]), max(base[len(base)-1], cur[len(cur)-1])
	k := max(threshold, 1.2*max(stat.Quantile(0.75, stat.LinInterp, base, nil), stat.Quantile(0.75, stat.LinInterp, cur, nil)))
	k += 0.05 * (k - fastest)
	if k-fastest >= 0.5*(slowest-fastest) {
		return nil
	}
	return &gapScale{a: k, b: k, at: regressKneeAt}
}

// kneeTicks labels an axis broken by a gapScale: secTicks on each side
// of the break, each side's own (the labels next to the break on its
// right are left out, so that they do not touch those on its left).
type kneeTicks struct{ g *gapScale }

func (t kneeTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range (secTicks{}).Ticks(lo, t.g.a) {
		if tk.Value <= t.g.a {
			out = append(out, tk)
		}
	}
	for _, tk := range (secTicks{}).Ticks(t.g.b, hi) {
		if tk.Value >= t.g.b+0.1*(hi-t.g.b) {
			out = append(out, tk)
		}
	}
	return out
}

// median4 is the median of sorted xs by type 4, as package anomaly's
// profile: the lower middle value for an even count.
func median4(xs []float64) float64 {
	h := 0.5 * float64(len(xs))
	k := int(h)
	if k < 1 {
		return xs[0]
	}
	if k >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[k-1] + (h-float64(k))*(xs[k]-xs[k-1])
}

// RenderRegress draws RegressPlot as SVG and PNG, 640×400 points.
func RenderRegress(d RegressData) (svg, png []byte, err error) {
	return RenderPlot(RegressPlot(d), vg.Points(640), vg.Points(400))
}

// ---- a regress directory's report ----

// RegressFigureData is what the report shows of regress.json: the
// verdict and the figures behind it.
type RegressFigureData struct {
	Regression bool        `json:"regression"`
	Rows       [][2]string `json:"rows"`
}

// regressVerdict is the one-line outcome of regress.json, with the
// figures behind it, and whether it is a finding.
func regressVerdict(rg *results.Regress) (string, bool) {
	figures := fmt.Sprintf("median %s, Q3 %s, Mann-Whitney p = %.3g; %d of %d executions above the baseline's threshold %s (baseline %d of %d), Fisher p = %.3g, mean excess over it %s (baseline %s)",
		changeText(rg.MedianRatio, rg.Alpha), changeText(rg.Q3Ratio, rg.Alpha), rg.MannWhitney.P, rg.Outliers.Current, rg.Current.Runs, fmtSec(secsNS(rg.Outliers.ThresholdNS)), rg.Outliers.Base, rg.Baseline.Runs, rg.Outliers.P,
		fmtSec(secsNS(rg.Outliers.CurrentExcessNS)), fmtSec(secsNS(rg.Outliers.BaseExcessNS)))
	var tests []string
	for _, t := range rg.Tests {
		if t.Excluded {
			tests = append(tests, fmt.Sprintf("%s test p = %.3g (left out: it cannot reach alpha here)", t.Name, t.P))
			continue
		}
		tests = append(tests, fmt.Sprintf("%s test p = %.3g, Holm-adjusted %.3g (%s)", t.Name, t.P, t.AdjustedP, ifs(t.Rejected, "rejected", "passed")))
	}
	if len(tests) > 0 {
		figures += "; " + strings.Join(tests, ", ")
	}
	if sr := rg.SlowRate; sr != nil {
		figures += "; slow-rate test: " + sr.Statement()
	}
	if rg.Regression {
		if len(rg.Reasons) > 0 {
			more := ""
			if n := len(rg.Reasons) - 1; n > 0 {
				more = fmt.Sprintf(" (and %d more %s below)", n, ifs(n == 1, "reason", "reasons"))
			}
			return "Regression against the baseline: " + rg.Reasons[0] + more + ".", true
		}
		return "Regression against the baseline: " + figures + ".", true
	}
	return fmt.Sprintf("No regression against the baseline (tolerated slowdown %s, family-wise alpha %g): %s.", pctChange(1+rg.MaxSlowdown), rg.Alpha, figures), false
}

func pctChange(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }

// changeText is a ratio's change with its confidence interval at level
// 1-alpha: "+3.1% (99% interval +1.0% to +5.2%)".
func changeText(r anomaly.Interval, alpha float64) string {
	return fmt.Sprintf("%s (%g%% interval %s to %s)", pctChange(r.Estimate), 100*(1-alpha), pctChange(r.Low), pctChange(r.High))
}

// regressRows are the figures of regress.json.
func regressRows(rg *results.Regress) []row {
	side := func(s results.RegressSide) string {
		v := fmt.Sprintf("variant %s, seed %d, %d executions", s.Variant, s.Seed, s.Runs)
		if len(s.Scale) > 0 {
			v += ", scaled " + strings.Join(s.Scale, ", ")
		}
		return v + " (configuration hash " + s.ConfigHash + ")"
	}
	ratio := func(base, cur int64, r anomaly.Interval) string {
		q := fmtSecs(secsNS(base), secsNS(cur))
		return fmt.Sprintf("%s → %s: %s", q[0], q[1], changeText(r, rg.Alpha))
	}
	how := "normal approximation"
	if rg.MannWhitney.Exact {
		how = "exact"
	}
	rows := []row{
		{"regression test", ifs(rg.Regression, "REGRESSION", "no regression")},
		{"baseline", side(rg.Baseline)},
		{"current", side(rg.Current)},
	}
	if rg.ConfigChanged {
		rows = append(rows, row{"warning", "the scenario's configuration changed since the baseline (revision, timeout or network): the comparison includes that change"})
	}
	rows = append(rows,
		row{"median", ratio(rg.BaseMedianNS, rg.CurMedianNS, rg.MedianRatio)},
		row{"Q3", ratio(rg.BaseQ3NS, rg.CurQ3NS, rg.Q3Ratio)},
		row{"Mann-Whitney test", fmt.Sprintf("U = %g of %d pairs, one-sided p = %.3g (%s)", rg.MannWhitney.U, rg.Baseline.Runs*rg.Current.Runs, rg.MannWhitney.P, how)},
		row{"above the baseline's threshold", fmt.Sprintf("%d of %d executions (%.0f%%; baseline %d of %d) above %s, Fisher p = %.3g",
			rg.Outliers.Current, rg.Current.Runs, 100*float64(rg.Outliers.Current)/float64(max(rg.Current.Runs, 1)), rg.Outliers.Base, rg.Baseline.Runs, fmtSec(secsNS(rg.Outliers.ThresholdNS)), rg.Outliers.P)},
		row{"mean excess over the threshold", fmt.Sprintf("%s per execution (baseline %s), permutation p = %.3g",
			fmtSec(secsNS(rg.Outliers.CurrentExcessNS)), fmtSec(secsNS(rg.Outliers.BaseExcessNS)), rg.Outliers.ExcessP)},
	)
	if sr := rg.SlowRate; sr != nil {
		rows = append(rows, row{"slow executions, all runs", sr.Statement()})
		if sr.TailNote != "" {
			rows = append(rows, row{"baseline's tail model", fmt.Sprintf("none: %s; baseline's own: %d of %d above its threshold", sr.TailNote, sr.BaseSlow, sr.BaseRuns)})
		} else {
			rows = append(rows, row{"baseline's tail model", fmt.Sprintf("%.3g%% of its executions above its threshold (conservative generalized Pareto fit); baseline's own: %d of %d", 100*sr.TailRate, sr.BaseSlow, sr.BaseRuns)})
		}
	}
	for _, t := range rg.Tests {
		what := t.Name + " test"
		switch t.Name {
		case "shift":
			what = fmt.Sprintf("shift test (the larger of Mann-Whitney p and bootstrap p = %.3g)", rg.BootstrapP)
		case "tail":
			what = "tail test (min-P of Fisher and excess)"
		case "slow-rate":
			what = "slow-rate test (sequential, every current execution)"
		}
		if t.Excluded {
			rows = append(rows, row{what, fmt.Sprintf("p = %.3g; left out: the smallest p-value it could give on these executions is %.3g, not below alpha %g", t.P, t.Attainable, rg.Alpha)})
			continue
		}
		rows = append(rows, row{what, fmt.Sprintf("p = %.3g, Holm level %.3g, adjusted p = %.3g: %s", t.P, t.Level, t.AdjustedP, ifs(t.Rejected, "REJECTED", "passed"))})
	}
	crit := fmt.Sprintf("Holm's procedure at family-wise alpha %g over the shift test (Mann-Whitney and the median's or Q3's bootstrap evidence beyond %s) and the tail test (more or longer executions above the baseline's threshold), leaving out a test that cannot reach alpha on these executions; a rejected test is a regression", rg.Alpha, pctChange(1+rg.MaxSlowdown))
	if sr := rg.SlowRate; sr != nil {
		crit = fmt.Sprintf("Holm's procedure at family-wise alpha %g over the shift test (Mann-Whitney and the median's or Q3's bootstrap evidence beyond %s) and the tail test (more or longer executions above the baseline's threshold), both on the first %d current executions, and the sequential slow-rate test (more than %.3g%% of all current executions above the threshold), leaving out a test that cannot reach alpha; a rejected test is a regression. The current executions run in batches until a regression, until fewer than %.3g%% slow is shown at level %g, or until %d executions (undecided)",
			rg.Alpha, pctChange(1+rg.MaxSlowdown), rg.Current.Runs, 100*sr.Allowed, 100*sr.PassRate, rg.Alpha, sr.MaxRuns)
	}
	rows = append(rows, row{"criterion", crit})
	for _, r := range rg.Reasons {
		rows = append(rows, row{"reason", r})
	}
	for _, w := range rg.Warnings {
		rows = append(rows, row{"warning", w})
	}
	return rows
}

// regressOnly says that a directory is a `macepc regress` run's: a
// profile and the comparison, no search, divergence or correlation.
func regressOnly(r *Results) bool {
	return r.Regress != nil && (r.Summary == nil || r.Summary.Anomaly == nil)
}

// regressReplay replays the slowest current execution, then the first
// one above the baseline's threshold; note says which is which.
func regressReplay(program string, rg *results.Regress) (cmds []string, note string) {
	var what []string
	if s := rg.Slowest; s != nil && s.Path != "" {
		cmds = append(cmds, replayCommand(program, s.Path))
		what = append(what, fmt.Sprintf("the slowest current execution, execution %d (%s, %d steps)", s.Index, fmtSec(secsNS(s.ExecTimeNS)), s.Steps))
	}
	if o := rg.Outliers; o.Path != "" {
		cmds = append(cmds, replayCommand(program, o.Path))
		first := "the first current execution above the baseline's threshold"
		if len(o.Executions) > 0 {
			first += fmt.Sprintf(", execution %d (%s)", o.Executions[0].Index, fmtSec(secsNS(o.Executions[0].ExecTimeNS)))
		}
		what = append(what, first)
	}
	if len(cmds) == 0 {
		return nil, ""
	}
	return cmds, fmt.Sprintf("From the results directory, %s exactly (add --log FILE for its event log): %s.",
		ifs(len(cmds) == 1, "the command re-runs one execution", "each command re-runs one execution"), strings.Join(what, ", then "))
}

// regressCaption is the plot caption's verdict: the same as the text's
// and the exit status's.
func regressCaption(rg *results.Regress) string {
	sr := rg.SlowRate
	switch {
	case rg.Regression && sr != nil && len(rg.Reasons) > 0:
		return "A regression: " + strings.Join(rg.Reasons, "; ") + "."
	case rg.Regression:
		return "A regression: the current code is slower beyond the tolerance (see the reasons above)."
	case sr != nil && sr.Decision == anomaly.SlowRateUndecided:
		return "No regression was shown, but the gate is undecided: " + sr.Statement() + "."
	case sr != nil:
		return "No regression: no test found one, and " + sr.Statement() + "."
	}
	return "No regression: no test found the current code slower beyond the tolerance."
}

func regressFigure(r *Results) Figure {
	rg := r.Regress
	f := Figure{Title: "Regression test against the baseline (macepc regress)", W: vg.Points(640), H: vg.Points(400), rows: regressRows(rg)}
	d := &RegressFigureData{Regression: rg.Regression}
	for _, x := range f.rows {
		d.Rows = append(d.Rows, [2]string{x.Key, x.Value})
	}
	svg := inlineSVG(r.RegressSVG)
	switch {
	case len(r.RegressSVG) == 0 || len(r.RegressPNG) == 0:
		f.Missing = fmt.Sprintf("%s or %s is missing from this results directory: the figures are in the table above", results.FileRegressSVG, results.FileRegressPNG)
	case !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.HasPrefix(r.RegressPNG, []byte("\x89PNG")):
		f.Missing = fmt.Sprintf("%s or %s is not an image that macepc regress drew", results.FileRegressSVG, results.FileRegressPNG)
	default:
		f.preSVG, f.prePNG = svg, r.RegressPNG
		f.Guide = fmt.Sprintf("Drawn by macepc regress: the empirical CDFs of the baseline's execution times (blue) and the current code's (red, dashed), with their medians (thin lines) and the baseline's anomaly threshold %s (orange). "+
			"A curve to the right of the other is slower; the horizontal distance between them at 0.5 is the median's change; an x axis broken by // draws the slow tail right of the break on its own scale. %s",
			fmtSec(secsNS(rg.Outliers.ThresholdNS)), regressCaption(rg))
	}
	f = finish(f, func() func(draw.Canvas) {
		return placeholder(f.Title, "drawn by macepc regress: "+results.FileRegressSVG).Draw
	})
	f.Data = d
	return f
}

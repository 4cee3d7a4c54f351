package report

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
	lo, hi = lo-0.05*span, hi+0.08*span
	p := newPlot(d.Title, "execution time (s)", "fraction ≤ x")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, 0, 1.05
	p.X.Tick.Marker = secTicks{}
	p.Add(plotter.NewGrid())
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
	p.Legend.Top, p.Legend.Left = false, false
	return p
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

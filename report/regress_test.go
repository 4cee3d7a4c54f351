package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// The regression plot's medians are the profile's (type 4), for odd and
// even counts and ties.
func TestRegressMedianIsType4(t *testing.T) {
	for _, xs := range [][]float64{{3}, {1, 2}, {1, 2, 3}, {1, 2, 3, 10}, {0.5, 0.5, 0.7, 0.9, 1.1}, {4, 4, 4, 5, 6, 9, 12, 13}} {
		want := stat.Quantile(0.5, stat.LinInterp, xs, nil)
		if got := median4(xs); got != want {
			t.Errorf("median4(%v) = %v, stat.Quantile type 4 gives %v", xs, got, want)
		}
	}
}

// The plot renders to the same bytes twice, names both samples with their
// counts and medians and the threshold, and refuses an empty sample.
func TestRegressPlot(t *testing.T) {
	d := RegressData{Base: []float64{0.52, 0.50, 0.55, 0.51}, Current: []float64{0.61, 0.58, 0.60}, Threshold: 0.8,
		BaseLabel: "baseline fixed seed 1", CurrentLabel: "current fixed seed 1", Title: "randtree fixed: REGRESSION"}
	base := slices.Clone(d.Base)
	svg1, png1, err := RenderRegress(d)
	if err != nil {
		t.Fatal(err)
	}
	svg2, png2, err := RenderRegress(d)
	if err != nil || !bytes.Equal(svg1, svg2) || !bytes.Equal(png1, png2) {
		t.Fatalf("two renderings differ (err %v)", err)
	}
	if !slices.Equal(d.Base, base) {
		t.Errorf("RegressPlot sorted the caller's slice: %v", d.Base)
	}
	s := string(svg1)
	for _, want := range []string{"baseline fixed seed 1 (4, median 510 ms)", "current fixed seed 1 (3, median 590 ms)", "baseline threshold 800 ms", "randtree fixed: REGRESSION"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if !bytes.HasPrefix(png1, []byte("\x89PNG")) {
		t.Errorf("not a PNG")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("no panic on an empty sample")
		}
	}()
	RegressPlot(RegressData{Base: d.Base})
}

// spread is n sorted values evenly from lo to hi.
func spread(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(max(n-1, 1))
	}
	return out
}

// With slow executions far out (10 s against medians of 0.5 s), the
// regression plot breaks its x axis, as the profile plot does, so that
// the two distributions' bodies do not collapse into one line: their
// medians lie far apart on the page, and the tail keeps the right edge.
func TestRegressPlotBrokenAxis(t *testing.T) {
	for _, c := range []struct {
		name      string
		base, cur []float64
		apart     float64 // the medians' distance, a fraction of the width
	}{
		{"shifted, with a tail", spread(20, 0.44, 0.52), append(spread(16, 1.6, 2.9), 10, 10.02, 10.05, 10.1), 0.25},
		{"same body, a tail", spread(50, 0.44, 0.51), append(spread(44, 0.46, 0.6), 1.1, 2, 3, 4.6, 5.3, 5.5), 0.08},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := RegressData{Base: c.base, Current: c.cur, Threshold: 0.75, BaseLabel: "baseline", CurrentLabel: "current", Title: "t"}
			p := RegressPlot(d)
			if _, ok := p.X.Scale.(*gapScale); !ok {
				t.Fatalf("x axis not broken: %T", p.X.Scale)
			}
			mb, mc := median4(c.base), median4(c.cur)
			if got := p.X.Norm(mc) - p.X.Norm(mb); got < c.apart {
				t.Errorf("medians %.3f and %.3f s are %.3f of the width apart, want %.2f or more", mb, mc, got, c.apart)
			}
			if n := p.X.Norm(c.cur[len(c.cur)-1]); n < 0.85 || n > 1 {
				t.Errorf("the slowest execution is drawn at %.2f of the width", n)
			}
		})
	}
	// A tight comparison keeps one linear axis.
	p := RegressPlot(RegressData{Base: spread(20, 0.44, 0.52), Current: spread(20, 0.45, 0.6), Threshold: 0.75})
	if _, ok := p.X.Scale.(*gapScale); ok {
		t.Error("x axis broken without slow executions")
	}
}

// The legend's texts stay clear of the threshold line and of the medians'
// lines, whatever the data.
func TestRegressLegendClearOfLines(t *testing.T) {
	for _, c := range []struct{ base, cur []float64 }{
		{spread(20, 0.44, 0.52), append(spread(16, 1.6, 2.9), 10, 10.02, 10.05, 10.1)},
		{spread(50, 0.44, 0.51), append(spread(44, 0.46, 0.6), 1.1, 2, 3, 4.6, 5.3, 5.5)},
		{spread(20, 0.05, 0.06), spread(20, 0.05, 0.07)}, // the threshold far right
		{spread(20, 0.7, 0.74), spread(20, 0.7, 0.76)},   // at the legend's left end
	} {
		d := RegressData{Base: c.base, Current: c.cur, Threshold: 0.75, Title: "randtree fixed: REGRESSION (median +10.2%, Q3 +15.9%)",
			BaseLabel: "baseline fixed seed 1", CurrentLabel: "current fixed seed 1 scale deliver JoinReply=200000"}
		p := RegressPlot(d)
		rec := &recorder.Canvas{}
		p.Draw(draw.NewCanvas(rec, vg.Points(640), vg.Points(400)))
		var lines []vg.Rectangle
		for _, a := range rec.Actions {
			if st, ok := a.(*recorder.Stroke); ok {
				if b := pathBounds(st.Path); b.Max.X-b.Min.X < 1 && b.Max.Y-b.Min.Y > 50 {
					lines = append(lines, b) // a vertical line across the plot
				}
			}
		}
		texts, _ := plotTexts(p, vg.Points(640), vg.Points(400))
		for _, tx := range texts {
			if !strings.Contains(tx.s, "median") && !strings.Contains(tx.s, "threshold") || strings.HasPrefix(tx.s, "randtree") {
				continue
			}
			for _, l := range lines {
				if l.Min.X >= tx.min.X && l.Min.X <= tx.max.X && l.Max.Y > tx.min.Y && l.Min.Y < tx.max.Y {
					t.Errorf("legend text %q (x %.0f–%.0f, y %.0f–%.0f) crosses a line at x %.0f, y %.0f–%.0f", tx.s, tx.min.X, tx.max.X, tx.min.Y, tx.max.Y, l.Min.X, l.Min.Y, l.Max.Y)
				}
			}
		}
		if len(lines) < 3 {
			t.Errorf("%d vertical lines found, want the two medians and the threshold", len(lines))
		}
	}
}

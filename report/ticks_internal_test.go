package report

import (
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg"
)

// intTicks labels whole numbers only, 2 to maxIntLabels of them on any
// range spanning more than one, with a step of 1, 2 or 5 times a power
// of ten.
func TestIntTicks(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{
		{-0.5, 1.5}, {-0.5, 0.5}, {0, 42.5}, {0, 25}, {-0.5, 246.5}, {0, 1.7}, {0, 3.4}, {3, 17}, {0, 1e6 + 0.5}, {0.2, 0.8},
	} {
		var labels []string
		for _, tk := range (intTicks{}).Ticks(c.lo, c.hi) {
			if tk.Value != float64(int64(tk.Value)) || tk.Value < c.lo || tk.Value > c.hi {
				t.Errorf("[%g, %g]: tick at %g", c.lo, c.hi, tk.Value)
			}
			if tk.Label == "" {
				continue
			}
			if tk.Label != strconv.FormatInt(int64(tk.Value), 10) {
				t.Errorf("[%g, %g]: tick %g labelled %q", c.lo, c.hi, tk.Value, tk.Label)
			}
			labels = append(labels, tk.Label)
		}
		n := len(labels)
		switch {
		case c.hi-c.lo < 1 && c.lo != -0.5 && n > 1:
			t.Errorf("[%g, %g]: labels %q", c.lo, c.hi, labels)
		case c.hi-c.lo >= 2 && (n < 2 || n > maxIntLabels):
			t.Errorf("[%g, %g]: %d labels %q, want 2 to %d", c.lo, c.hi, n, labels, maxIntLabels)
		}
	}
}

// The search plot of a search that explored one execution labels its x
// axis with whole execution indices: no 0.5 between 0 and 1.
func TestSearchPlotIntegerIndices(t *testing.T) {
	for _, n := range []int{1, 2, 7, 246} {
		d := &SearchData{Threshold: 0.75, Q3: 0.5, AnomalyIndex: -1, FirstIndex: -1, Explored: n, MaxRuns: 1000}
		for i := range n {
			d.Points = append(d.Points, SearchPoint{Index: i, Time: 0.5})
		}
		p := newSearchPlot(d)
		texts, dc := plotTexts(p, vg.Points(640), vg.Points(300))
		var got []string
		for _, tx := range texts {
			if tx.max.Y > dc.Min.Y || tx.min.X < dc.Min.X-20 || tx.s == p.X.Label.Text || tx.s == p.Y.Label.Text {
				continue // not an x tick label
			}
			got = append(got, tx.s)
			if _, err := strconv.Atoi(tx.s); err != nil {
				t.Errorf("%d executions: x tick label %q is not an execution index", n, tx.s)
			}
		}
		if len(got) < 1 {
			t.Errorf("%d executions: no x tick labels", n)
		}
	}
}

package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
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
	for _, want := range []string{"baseline fixed seed 1 (4, median 0.510 s)", "current fixed seed 1 (3, median 0.590 s)", "baseline threshold 0.800 s", "randtree fixed: REGRESSION"} {
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

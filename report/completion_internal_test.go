package report

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// keepUnderLegend raises the y axis so that the highest value lies below
// the legend at the top of a small plot, on a linear and a log scale, and
// leaves an axis that already has room (within 0.1%) alone.
func TestKeepUnderLegend(t *testing.T) {
	for _, logScale := range []bool{false, true} {
		for _, h := range []vg.Length{vg.Points(180), vg.Points(300)} {
			t.Run(fmt.Sprintf("log=%v height=%v", logScale, h), func(t *testing.T) {
				p := newPlot("", "node", "completion time (s)")
				hi := 10.0
				sc, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: hi}})
				if err != nil {
					t.Fatal(err)
				}
				p.Add(sc)
				for i := range 4 {
					p.Legend.Add(fmt.Sprintf("legend entry %d", i), sc)
				}
				p.Legend.Left = false
				p.Y.Min, p.Y.Max = 0.9, hi*1.05
				if logScale {
					p.Y.Scale = plot.LogScale{}
				}
				c := draw.NewCanvas(&recorder.Canvas{}, vg.Points(400), h)
				keepUnderLegend(p, c, hi)
				dc := p.DataCanvas(c)
				_, trY := p.Transforms(&dc)
				if top, legend := trY(hi), p.Legend.Rectangle(dc).Min.Y; top > legend {
					t.Errorf("the highest value is drawn at %v, above the legend's bottom %v (y max %v)", top, legend, p.Y.Max)
				}
				before := p.Y.Max
				keepUnderLegend(p, c, hi)
				if p.Y.Max > before*1.001 {
					t.Errorf("a second call moved the axis from %v to %v", before, p.Y.Max)
				}
			})
		}
	}
}

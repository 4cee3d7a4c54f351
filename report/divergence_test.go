package report

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// drawnText is a text a drawing wrote, with its extent.
type drawnText struct {
	s        string
	min, max vg.Point
}

// plotTexts draws p on a w×h canvas and returns its texts and its data
// area.
func plotTexts(p *plot.Plot, w, h vg.Length) ([]drawnText, draw.Canvas) {
	rec := &recorder.Canvas{}
	c := draw.NewCanvas(rec, w, h)
	p.Draw(c)
	return recordedTexts(rec), p.DataCanvas(c)
}

// recordedTexts are the texts of a recorded drawing with their boxes:
// from the baseline, the font's ascent up and its descent down, its width
// across.
func recordedTexts(rec *recorder.Canvas) []drawnText {
	var out []drawnText
	for _, a := range rec.Actions {
		fs, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		face := font.DefaultCache.Lookup(fs.Font, fs.Size)
		e := face.Extents()
		out = append(out, drawnText{s: fs.String, min: vg.Point{X: fs.Point.X, Y: fs.Point.Y - e.Descent}, max: vg.Point{X: fs.Point.X + face.Width(fs.String), Y: fs.Point.Y + e.Ascent}})
	}
	return out
}

// probes builds the probes of an exponential-then-binary search for the
// divergence step d of an execution of total steps.
func probes(d, total int) []DivProbe {
	var out []DivProbe
	add := func(phase string, prefix int) bool {
		rec := prefix <= d
		out = append(out, DivProbe{Order: len(out) + 1, Phase: phase, Prefix: prefix, Walks: 20, Recovered: rec})
		return rec
	}
	lo, hi := 0, 0
	for p := 1; ; p *= 2 {
		p = min(p, total)
		if !add("exponential", p) {
			hi = p
			break
		}
		lo = p
	}
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if add("binary", m) {
			lo = m
		} else {
			hi = m
		}
	}
	return out
}

// The divergence plot (MacePC Figure 3) names its two phases on the plot
// itself, and keeps every text of its own (bar, phases, probes, the
// divergence point) inside its axes, zoomed or not, with the divergence
// point anywhere.
func TestDivergencePlotPhasesAndTextsInside(t *testing.T) {
	for _, c := range []struct {
		name     string
		d, total int
	}{
		{"pastry-like", 555, 1050},
		{"zoomed", 88, 70731},
		{"divergence near the end", 990, 1000},
		{"divergence at the start", 0, 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			dd := &DivergenceData{TotalSteps: c.total, Step: c.d, Lower: -1, Upper: -1, Walks: 20, Probes: probes(c.d, c.total),
				Criterion: "a walk within Q3", Execution: "anomalous execution", Point: "divergence point"}
			nexp := 0
			for _, p := range dd.Probes {
				if p.Phase == "exponential" {
					nexp++
				}
			}
			texts, dc := plotTexts(divergencePlot(dd), vg.Points(640), vg.Points(340))
			exp := fmt.Sprintf("↑ exponential search (probes 1–%d)", nexp)
			if nexp == 1 {
				exp = "↑ exponential search (probe 1)"
			}
			want := map[string]bool{exp: false, fmt.Sprintf("divergence point: step %d", c.d): false}
			if nexp < len(dd.Probes) {
				want[fmt.Sprintf("↓ binary search (probes %d–%d)", nexp+1, len(dd.Probes))] = false
			}
			for _, tx := range texts {
				if _, ok := want[tx.s]; ok {
					want[tx.s] = true
				}
				own := strings.HasPrefix(tx.s, "anomalous execution") || strings.Contains(tx.s, "search (probe") || strings.Contains(tx.s, " walk") || strings.HasPrefix(tx.s, "divergence point")
				if own && (tx.min.X < dc.Min.X-0.5 || tx.max.X > dc.Max.X+0.5 || tx.min.Y < dc.Min.Y-0.5 || tx.max.Y > dc.Max.Y+0.5) {
					t.Errorf("%q at x %.1f–%.1f, y %.1f–%.1f runs out of the axes (x %.1f–%.1f, y %.1f–%.1f)", tx.s, tx.min.X, tx.max.X, tx.min.Y, tx.max.Y, dc.Min.X, dc.Max.X, dc.Min.Y, dc.Max.Y)
				}
			}
			for s, ok := range want {
				if !ok {
					t.Errorf("the plot does not say %q", s)
				}
			}
		})
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/results"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure whose building or drawing panics (a bug) becomes a placeholder
// that says the plot failed, with the panic's text, and the other figures
// are kept: one broken plot no longer aborts the whole report.
func TestFailingPlotKeepsReport(t *testing.T) {
	r := &Results{Profile: &results.Profile{Q1NS: 1, MedianNS: 1, Q3NS: 1, Threshold: 2}}
	r.Profile.Executions = append(r.Profile.Executions, results.ExecLine{ExecTimeNS: 1})
	figs := buildFigures(r, []figureBuilder{
		{"boom", func(*Results) Figure { panic("kaboom while building") }},
		{"profile", profileFigure},
	})
	figs = append(figs, Figure{ID: "drawn", Title: "Drawn badly", W: vg.Points(640), H: vg.Points(300), Draw: func(draw.Canvas) { panic("kaboom while drawing") }})
	out, err := renderFigures(figs, "macepc test")
	if err != nil {
		t.Fatalf("renderFigures: %v", err)
	}
	if len(out) != 3 {
		t.Fatalf("%d figures rendered, want 3", len(out))
	}
	for i, want := range []string{"kaboom while building", "", "kaboom while drawing"} {
		f := out[i]
		if want == "" {
			if f.Missing != "" || f.Data == nil {
				t.Errorf("%s: the good figure was lost: %q", f.ID, f.Missing)
			}
			continue
		}
		if !strings.HasPrefix(f.Missing, "the plot failed (a bug in macepc): ") || !strings.Contains(f.Missing, want) {
			t.Errorf("%s: placeholder says %q, want the failure %q", f.ID, f.Missing, want)
		}
		if !bytes.Contains(f.SVG, []byte(want)) || !bytes.HasPrefix(f.PNG, []byte("\x89PNG")) {
			t.Errorf("%s: the placeholder picture does not say %q", f.ID, want)
		}
	}
	if out[0].ID != "boom" || out[2].ID != "drawn" || out[2].Title != "Drawn badly" {
		t.Errorf("failed figures keep their ids and titles: %s %s %q", out[0].ID, out[2].ID, out[2].Title)
	}
}

package report

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
)

// Report.Write writes a plot file for every figure under a name that
// PlotFiles lists, so that clearing a directory finds them all.
func TestPlotFilesNameEveryFigure(t *testing.T) {
	var sum results.Summary
	if err := json.Unmarshal([]byte(`{"anomaly":{"found":true},"divergence":{}}`), &sum); err != nil {
		t.Fatal(err)
	}
	r := &Results{Summary: &sum, Regress: &results.Regress{}, Liveness: &results.Liveness{Report: &liveness.Report{}}}
	files := PlotFiles()
	n := 0
	for _, f := range Figures(r) {
		n++
		if !slices.Contains(files, f.ID+".png") {
			t.Errorf("figure %s is not in PlotFiles %v", f.ID, files)
		}
	}
	if n != len(files) {
		t.Errorf("%d figures, %d plot files", n, len(files))
	}
}

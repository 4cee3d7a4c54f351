package report_test

import (
	"testing"

	"github.com/macepc/macepc/report"
)

// The RandTree run's event graph has no overlapping texts, measured as
// drawn (the font's width, ascent and descent at each text's position,
// with the clearance of report's layout).
func TestEventGraphTextsDoNotOverlap(t *testing.T) {
	r, err := report.Load(runPipeline(t))
	if err != nil {
		t.Fatal(err)
	}
	d, why := report.NewEventGraphData(r)
	if d == nil {
		t.Fatalf("no event graph: %s", why)
	}
	for _, c := range report.EventGraphClashes(d) {
		t.Errorf("overlapping texts: %s", c)
	}
}

package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// The verdict leads with the cause: on the RandTree run, the line under
// the title names what the anomaly's critical path waited for (the
// recovery timer), the divergence event of divergence.json and the label
// ranked first in summary.json, in summary.md and in report.html's banner.
func TestVerdictNamesCause(t *testing.T) {
	dir := runPipeline(t)
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	r := load(t, dir)
	ev := r.Divergence.Event
	if c := r.Summary.Anomaly.Cause; !strings.Contains(c, "waiting on timer recovery") {
		t.Fatalf("the critical path does not name the recovery timer: %q", c)
	}
	want := fmt.Sprintf("Cause: %s; divergence at step %d, %s on %s; top-ranked label %s (r = ", r.Summary.Anomaly.Cause, ev.Step, ev.Label, ev.Node, r.Summary.Correlations[0].Label)
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(md), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "**Anomaly: ") || !strings.Contains(lines[2], want) {
		t.Errorf("summary.md's verdict line does not name the cause %q:\n%s", want, lines[min(2, len(lines)-1)])
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	banner := string(html)
	if i := strings.Index(banner, `<section id="verdict">`); i >= 0 {
		banner = banner[i:]
	}
	if j := strings.Index(banner, "</div>"); j >= 0 {
		banner = banner[:j]
	}
	if !strings.Contains(banner, `<span id="cause">`+want) {
		t.Errorf("report.html's verdict banner does not name the cause %q: %s", want, banner)
	}
}

// Without a divergence point the cause says so; a run whose search found
// nothing names no cause.
func TestVerdictCauseWithoutDivergence(t *testing.T) {
	base := toySummary()
	base.Anomaly = &results.SummaryAnomaly{Found: true, Explored: 10, MaxRuns: 10, Complete: true, Index: 3, ExecutionTime: 2, Steps: 9}
	base.Divergence = &results.SummaryDivergence{Step: -1, TotalSteps: 9}
	r := 0.5
	base.Correlations = []results.SummaryCorr{{Label: "deliver X", R: &r}}
	for _, c := range []struct {
		name    string
		summary *results.Summary
		want    string
	}{
		{"no divergence point", base, "Cause: no divergence point (no walk recovers even from the start); top-ranked label deliver X (r = +0.500)."},
		{"no anomaly", toySummary(), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := resultsDir(t, map[string]any{
				results.FileSummary: c.summary,
				results.FileProfile: toyProfile(0, 0, 0, 0),
			})
			if err := report.Write(dir); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(string(md), "Cause:")
			if c.want == "" && got {
				t.Errorf("a cause without an anomaly:\n%s", md)
			}
			if c.want != "" && !strings.Contains(string(md), c.want) {
				t.Errorf("summary.md does not say %q:\n%s", c.want, md)
			}
		})
	}
}

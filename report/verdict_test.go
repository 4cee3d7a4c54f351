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
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
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
	base := strings.Replace(summaryJSON, `"anomaly":null,"divergence":null,"correlations":[]`,
		`"anomaly":{"found":true,"explored":10,"max_runs":10,"complete":true,"index":3,"execution_time":2,"steps":9},"divergence":{"step":-1,"total_steps":9},"correlations":[{"label":"deliver X","r":0.5,"window_r":null}]`, 1)
	for _, c := range []struct {
		name, summary, want string
	}{
		{"no divergence point", base, "Cause: no divergence point (no walk recovers even from the start); top-ranked label deliver X (r = +0.500)."},
		{"no anomaly", summaryJSON, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				results.FileSummary: c.summary,
				results.FileProfile: `{"format":"macepc-profile","version":1,"runs":0,"executions":[]}`,
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

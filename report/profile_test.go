package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

const slowWarning = "10 of 50 profile executions are already above the threshold 2.98s (the slowest 20.0049s): slow executions are not rare in this scenario"

// slowProfileDir is a results directory whose profile has 40 executions
// near 2 s and 10 at 20 s (above the 2.98 s threshold), as Pastry's can,
// and whose search found a 20.002 s anomaly.
func slowProfileDir(t *testing.T) string {
	t.Helper()
	var ex []int64
	for i := range 50 {
		ns := int64(1_950_000_000 + 2_000_000*int64(i%25))
		if i%5 == 4 {
			ns = 20_000_000_000 + int64(i)*100_000
		}
		ex = append(ex, ns)
	}
	// The warning macepc writes into the profile of such a run.
	summary := toySummary()
	summary.Profile.Warnings = []string{slowWarning}
	const anomalyNS = 20_002_000_000
	return resultsDir(t, map[string]any{
		results.FileSummary:     summary,
		results.FileProfile:     toyProfile(1_970_000_000, 1_996_000_000, 2_020_000_000, 2_980_000_000, ex...),
		results.FileSearch:      oneAnomaly(10, 2_980_000_000, anomalyNS, 3),
		results.FileSearchExecs: oneAnomalyExecs(anomalyNS, 3),
	})
}

// A profile with many executions above the threshold says so (a summary
// row, the profile's warning under the verdict, not again in the summary
// table) and breaks its x axis at the threshold so that the usual
// executions are not one bar.
func TestProfileManySlow(t *testing.T) {
	dir := slowProfileDir(t)
	var d *report.ProfileData
	for _, f := range renderAll(t, dir) {
		if f.ID == "profile" {
			d = f.Data.(*report.ProfileData)
			if !strings.Contains(f.Guide, "10 of the 50 executions are above the threshold") || !strings.Contains(f.Guide, "the x axis is broken at the threshold") {
				t.Errorf("profile guide: %s", f.Guide)
			}
		}
	}
	count := func(bs []report.Bin) (n int) {
		for _, b := range bs {
			n += b.Count
		}
		return n
	}
	if d.Above != 10 || d.Split != d.Threshold || count(d.Bins) != 40 || count(d.TailBins) != 10 || d.Bins[len(d.Bins)-1].Max > d.Threshold {
		t.Errorf("profile data: %d above, split at %v, %d executions in the bins up to %v, %d in the tail", d.Above, d.Split, count(d.Bins), d.Bins[len(d.Bins)-1].Max, count(d.TailBins))
	}
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| profile executions above the threshold | 10 of 50 |", "> Warning: " + slowWarning + "."} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	if n := bytes.Count(md, []byte("10 of 50 profile executions are already above")); n != 1 {
		t.Errorf("summary.md gives the warning %d times, want once", n)
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(`<div class="verdict warn">Warning: 10 of 50 profile executions are already above`)) {
		t.Error("report.html shows no warning about the slow profile executions")
	}

	// A profile without: the row says 0, no warning, one axis.
	dir = resultsDir(t, map[string]any{
		results.FileSummary: toySummary(),
		results.FileProfile: toyProfile(1, 1, 1, 2, 1, 2),
	})
	renderAll(t, dir)
	md, err = os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("| profile executions above the threshold | 0 of 2 |")) || bytes.Contains(md, []byte("Warning")) {
		t.Errorf("summary.md of a profile without slow executions:\n%s", md)
	}
}

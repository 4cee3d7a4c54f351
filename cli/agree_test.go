package cli_test

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/report"
)

// The outputs of one run agree with each other: explore.html
// marks as the first differing step of the anomalous and the similar
// execution the step the report's event graph marks, and its title gives
// the run's seed, as the report does, with the divergence walks' phase
// seed named as such.
func TestExploreAndReportAgree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if out, errs, st := runRT(t, context.Background(), "run", "--variant", "buggy", "--seed", "1", "--edd", "../report/testdata/edd.json", "--progress", "never", "--out", dir); st != cli.ExitFinding {
		t.Fatalf("run: %d\n%s%s", st, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "explore.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="explore-data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("explore.html has no embedded data")
	}
	var data struct {
		Title string `json:"title"`
		Pairs []struct {
			FirstDiff int `json:"first_diff"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &data); err != nil {
		t.Fatalf("explore.html's data: %v", err)
	}
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, missing := report.NewEventGraphData(r)
	if g == nil {
		t.Fatalf("no event graph: %s", missing)
	}
	if len(data.Pairs) != 1 || data.Pairs[0].FirstDiff < 0 || data.Pairs[0].FirstDiff != g.FirstDiff {
		t.Errorf("explore.html's first difference %+v, the event graph's %d", data.Pairs, g.FirstDiff)
	}
	if !strings.Contains(data.Title, ", seed 1 (divergence walks: phase seed ") {
		t.Errorf("explore.html's title %q does not give the run's seed 1", data.Title)
	}
}

// --edd is read with the EDD format's cap like every other input: a
// device that never ends is refused at once, not read until memory runs
// out.
func TestEDDFromADeviceIsRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, errs, st := runRT(t, context.Background(), "simulate", "--runs", "1", "--edd", "/dev/zero", "--out", t.TempDir(), "--progress", "never")
	if st != cli.ExitError || !strings.Contains(errs, "--edd") {
		t.Errorf("--edd /dev/zero: status %d, %s", st, errs)
	}
}

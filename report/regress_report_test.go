package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// regressDir profiles RandTree's fixed variant (20 executions, the
// committed durations) as a baseline and runs the regression test
// against it with the what-if scaling given, as `macepc profile` and
// `macepc regress --baseline … --scale …` do (pipeline.Profile,
// pipeline.StartRegress), then renders the report; it returns the
// regress directory and whether it found a regression.
func regressDir(t *testing.T, scale string) (string, bool) {
	t.Helper()
	ctx, reg := context.Background(), timedsim.Registry{randtree.System()}
	// The fixed variant: the buggy one's rare 10 s executions are a
	// regression for the slow-rate test whenever its 20 baseline
	// executions happen to show none.
	target, err := randtreeTarget("fixed")
	if err != nil {
		t.Fatal(err)
	}
	base, dir := filepath.Join(t.TempDir(), "base"), filepath.Join(t.TempDir(), "reg")
	def := pipeline.DefaultConfig(nil, nil)
	if _, err := pipeline.Profile(ctx, pipeline.ProfileConfig{Env: pipeline.Env{Dir: pipeline.NewDir(base), Systems: reg}, Target: target,
		EDDSource: "--edd testdata/edd.json", Seed: def.Seed, Runs: 20, Thresholds: def.Thresholds}); err != nil {
		t.Fatal(err)
	}
	r, err := pipeline.StartRegress(pipeline.RegressConfig{Env: pipeline.Env{Dir: pipeline.NewDir(dir), Systems: reg}, Baseline: base,
		Scale: []string{scale}, Compare: anomaly.DefaultCompareConfig()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Explore(ctx, reg, dir); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir, res.Regress.Regression
}

// TestRegressReport: `macepc report` of a regress directory leads with
// regress's verdict (red for a regression, with the median's and Q3's
// change and intervals, the test's p-value and the outlier rate), shows
// its table and plot, and never calls a regression clean; summary.md is
// pinned.
func TestRegressReport(t *testing.T) {
	dir, regression := regressDir(t, "deliver Join=200000")
	if !regression {
		t.Fatal("regress found no regression")
	}
	figs := renderAll(t, dir)
	if figs[0].ID != "regress" || figs[0].Missing != "" {
		t.Fatalf("first figure %s (missing: %q), want the regression plot", figs[0].ID, figs[0].Missing)
	}
	reg, err := os.ReadFile(filepath.Join(dir, results.FileRegressSVG))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(figs[0].SVG, reg) {
		t.Error("the report's regression plot is not regress.svg")
	}
	png, err := os.ReadFile(filepath.Join(dir, results.DirPlots, "regress.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("plots/regress.png: %v", err)
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	h := string(html)
	for _, want := range []string{
		`<div class="verdict finding">Regression against the baseline: median `,
		"one-sided p = ", "20 of 20 executions above the baseline&#39;s threshold", "Fisher p = ", "slow-rate test p = ",
		`<section id="regress">`, "99% interval", "macepc replay --path regress-outlier.path.json",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(h, `verdict clean`) {
		t.Error("report.html shows a clean verdict for a regression")
	}
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "regress-summary.md", md)
	// A regress run has a profile and the comparison, nothing else: no
	// placeholder of the phases it never runs, no diff section.
	if len(figs) != 2 || figs[1].ID != "profile" || figs[1].Missing != "" {
		t.Errorf("%d figures, want the regression plot and the profile", len(figs))
	}
	for _, id := range []string{"search", "divergence", "correlation", "completion", "eventgraph", "diff"} {
		if strings.Contains(h, `<section id="`+id+`">`) {
			t.Errorf("report.html has a %s section in a regress directory", id)
		}
	}
	if strings.Contains(h, "did not run") {
		t.Error("report.html says a phase did not run")
	}
	// The replay names the slowest current execution.
	r := load(t, dir)
	slow := r.Profile.Executions[0]
	for _, e := range r.Profile.Executions {
		if e.ExecTimeNS > slow.ExecTimeNS {
			slow = e
		}
	}
	want := fmt.Sprintf("the slowest current execution, execution %d (", slow.Index)
	if !strings.Contains(h, want) || !strings.Contains(h, "macepc replay --path regress-slowest.path.json") {
		t.Errorf("report.html's replay does not name %q and its path file", want)
	}
	if _, err := os.Stat(filepath.Join(dir, "regress-slowest.path.json")); err != nil {
		t.Error(err)
	}
	// A regression without any execution above the threshold (a shift of
	// the whole distribution) still has the slowest execution to replay.
	editRegress(t, dir, func(rj map[string]any) {
		o := rj["outliers"].(map[string]any)
		o["executions"], o["path"] = []any{}, ""
	})
	renderAll(t, dir)
	html, err = os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if h := string(html); strings.Contains(h, "Nothing to replay") || !strings.Contains(h, want) || strings.Contains(h, "regress-outlier.path.json") {
		t.Errorf("a regression without outliers: the replay section does not name the slowest execution:\n%s", h[strings.Index(h, `<section id="replay">`):])
	}

	// No regression: a clean verdict that still gives the figures.
	dir, regression = regressDir(t, "deliver Join=3")
	if regression {
		t.Fatal("regress found a regression in a slowdown it tolerates")
	}
	renderAll(t, dir)
	html, err = os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(`<div class="verdict clean">No regression against the baseline`)) && !bytes.Contains(html, []byte(`<div class="verdict caution">No regression against the baseline`)) || !bytes.Contains(html, []byte("Mann-Whitney p = ")) {
		t.Error("report.html of a regress directory without a regression does not say so with its figures")
	}

	// Without warnings the banner is green.
	editRegress(t, dir, func(rj map[string]any) { rj["warnings"] = []string{} })
	renderAll(t, dir)
	html, err = os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(`<div class="verdict clean">No regression against the baseline`)) {
		t.Error("report.html of a regress directory without a regression or warnings does not show a green verdict")
	}

	// regress's warnings (slow executions not yet significant) show under
	// the verdict and in the regression table, and turn the banner amber.
	editRegress(t, dir, func(rj map[string]any) {
		rj["warnings"] = []string{"2 of 20 executions above the baseline's threshold, not significant"}
	})
	renderAll(t, dir)
	html, err = os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), "2 of 20 executions above the baseline&#39;s threshold, not significant"); n != 2 {
		t.Errorf("regress's warning appears %d times in report.html, want 2 (under the verdict and in the table)", n)
	}
	if !bytes.Contains(html, []byte(`<div class="verdict caution">No regression against the baseline`)) || bytes.Contains(html, []byte(`verdict clean`)) {
		t.Error("a warning that slow executions appeared sits under a green banner, not an amber one")
	}
}

// editRegress rewrites dir's regress.json with edit.
func editRegress(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "regress.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rj map[string]any
	if err := json.Unmarshal(b, &rj); err != nil {
		t.Fatal(err)
	}
	edit(rj)
	if b, err = json.Marshal(rj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A regress directory whose plot files are gone still reports the verdict
// and the figures, with a placeholder for the plot.
func TestRegressReportWithoutPlot(t *testing.T) {
	dir, _ := regressDir(t, "deliver Join=200000")
	for _, n := range []string{results.FileRegressSVG, results.FileRegressPNG} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	figs := renderAll(t, dir)
	if figs[0].ID != "regress" || !strings.Contains(figs[0].Missing, "regress.svg or regress.png is missing") {
		t.Fatalf("regression figure without its files: %+v", figs[0].Missing)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("**Regression against the baseline")) || !bytes.Contains(md, []byte("| regression test | REGRESSION |")) {
		t.Errorf("summary.md:\n%s", md)
	}
}

package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// renderAll renders every figure of a directory, checking SVG and PNG.
func renderAll(t *testing.T, dir string) []report.Rendered {
	t.Helper()
	r := load(t, dir)
	figs := renderFigures(t, r)
	for _, f := range figs {
		checkSVG(t, f.ID, f.SVG)
		checkPNG(t, f.ID, f.PNG)
	}
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	return figs
}

// TestRenderEmpty: a profile without executions and no later phase gives a
// placeholder for every plot, saying why, instead of a panic.
func TestRenderEmpty(t *testing.T) {
	dir := resultsDir(t, map[string]any{
		results.FileSummary: toySummary(),
		results.FileProfile: toyProfile(0, 0, 0, 0),
	})
	for _, f := range renderAll(t, dir) {
		if f.Missing == "" || f.Data != nil {
			t.Errorf("%s: drawn from no data", f.ID)
			continue
		}
		// The reason is in the picture, whole.
		var esc bytes.Buffer
		if err := xml.EscapeText(&esc, []byte(f.Missing)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(f.SVG, []byte(">"+esc.String()+"<")) {
			t.Errorf("%s: the placeholder SVG does not say %q", f.ID, f.Missing)
		}
		// The PNG file names the run and the figure on a line above the
		// plot (the placeholder's title is centred: the top left is
		// blank without that line).
		img := checkPNG(t, f.ID, f.PNG)
		if want := int(math.Round(float64(f.H+16) * 96 / 72)); img.Bounds().Dy() != want {
			t.Errorf("%s: PNG %d px tall, want %d (the plot and its title line)", f.ID, img.Bounds().Dy(), want)
		}
		if frac := nonWhite(cropImage(img, image.Rect(0, 2, img.Bounds().Dx()/5, 18))); frac < 0.02 {
			t.Errorf("%s: the PNG has no title line (%.4f of its top left drawn)", f.ID, frac)
		}
		if bytes.Contains(f.SVG, []byte("macepc toy/v, seed 7")) {
			t.Errorf("%s: the SVG (under its HTML heading) repeats the run's title", f.ID)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"phase 1b did not run", "Nothing to replay", "No divergence.diff"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestRenderSingleExecution: every phase with one execution (one probe,
// one event) renders real plots.
func TestRenderSingleExecution(t *testing.T) {
	const ns = 2_000_000_000
	an := oneAnomaly(1, 750_000_000, ns, 3)
	events := &results.Events{Format: results.FormatEvents, Version: results.Version, Nodes: 2, Step: 0, FromStep: 0, ToStep: 3,
		Executions: []results.EventsExec{{Name: "anomalous", ExecTimeNS: ns, Steps: 3, NodeLastNS: []int64{100, -1}, NodeEvents: []int{1, 0},
			Events: []results.EventsStep{
				{Step: 0, Node: 0, From: -1, Label: "init", StartNS: 0, DurationNS: 100, Sends: []results.EventsSend{
					{To: 1, Type: "Ping", Transport: "tcp", Size: 10, Status: "queue-full"},
					{To: 1, Type: "Ping", Transport: "udp", Size: 10, Status: "dropped"}}},
				{Step: 1, Node: 1, From: -1, Label: "reset", StartNS: 200, DurationNS: 0},
				{Step: 2, Node: 0, From: 1, Label: "error broken", StartNS: 300, DurationNS: 50, Timers: []results.EventsTimer{{Name: "retry", AtNS: 1000000}}, Notes: []string{"held: busy"}},
			}}}}
	r := 0.5
	dir := resultsDir(t, map[string]any{
		results.FileSummary:     toySummary(),
		results.FileProfile:     toyProfile(500_000_000, 500_000_000, 500_000_000, 750_000_000, 500_000_000),
		results.FileSearch:      an,
		results.FileSearchExecs: oneAnomalyExecs(ns, 3),
		results.FileDivergence: &results.Divergence{Format: results.FormatDivergence, Version: results.Version, Walks: 1, Q3NS: 500_000_000, Step: 0, TotalSteps: 3,
			Probes: []results.Probe{{Prefix: 1, Walks: 1, RecoveredWalk: -1, ExecTimesNS: []int64{ns}}}, Executions: 1, Anomaly: an.Anomaly},
		results.FileEvents: events,
		results.FileCorrelation: &results.Correlation{Format: results.FormatCorrelation, Version: results.Version, Executions: 1, SearchExecutions: 1, MinR: 0.3,
			Labels: []anomaly.Correlation{{Label: "deliver Ping", Executions: 1, MeanCount: 1, R: &r, WindowR: &r}}},
	})
	for _, f := range renderAll(t, dir) {
		if f.Missing != "" {
			t.Errorf("%s: placeholder with one execution: %s", f.ID, f.Missing)
		}
		if f.ID != "eventgraph" {
			continue
		}
		// The event graph shows failed sends, drops, resets, error upcalls,
		// timers and notes.
		d := f.Data.(*report.EventGraphData)
		var kinds, statuses []string
		for _, e := range d.Panels[0].Events {
			kinds = append(kinds, e.Kind)
		}
		for _, m := range d.Panels[0].Messages {
			statuses = append(statuses, m.Status)
		}
		if strings.Join(kinds, ",") != "other,reset,error" || strings.Join(statuses, ",") != "queue-full,dropped" {
			t.Errorf("event graph data: kinds %v, message statuses %v", kinds, statuses)
		}
		for _, want := range []string{"Ping to n1: queue-full", "1 RESET", "2 error broken +retry@0.001s [held: busy]"} {
			if !bytes.Contains(f.SVG, []byte(want)) {
				t.Errorf("the event graph does not show %q", want)
			}
		}
	}
}

// TestLoadRefusesBadDirectories: a missing directory, one without the
// pipeline's files and one with a garbage file are clear errors.
func TestLoadRefusesBadDirectories(t *testing.T) {
	for _, c := range []struct {
		name  string
		dir   string
		files map[string]any
		want  string
	}{
		{name: "missing", dir: filepath.Join(t.TempDir(), "nope"), want: "not a results directory"},
		{name: "empty", files: map[string]any{}, want: "has no summary.json"},
		{name: "garbage", files: map[string]any{results.FileSummary: "not json"}, want: "summary.json is malformed"},
		{name: "other format", files: map[string]any{results.FileSummary: `{"format":"macepc-profile","version":1}`}, want: "not a version-2 macepc-summary file"},
		{name: "garbage later phase", files: map[string]any{results.FileSummary: toySummaryJSON(),
			results.FileProfile: `{"format":"macepc-profile","version":1}`, results.FileSearch: "{"}, want: "search.json is malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if dir == "" {
				dir = resultsDir(t, c.files)
			}
			_, err := report.Load(dir)
			if err == nil || !strings.HasPrefix(err.Error(), "report: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestLivenessReport: a liveness run's directory (liveness.json, no
// summary.json) gets its own report: the critical-transition search as
// Figure 3, the state diff and the replay commands of both paths.
func TestLivenessReport(t *testing.T) {
	// `macepc run --liveness --system randtree --variant liveness-bug
	// --seed 1`: 3 nodes and the search's defaults.
	dir := filepath.Join(t.TempDir(), "lv")
	ctx, sys := context.Background(), randtree.System()
	sc, err := sys.ScenarioParams("liveness-bug", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	lvDir, err := pipeline.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Liveness(ctx, pipeline.LivenessConfig{Dir: lvDir, System: sys, Variant: "liveness-bug", Search: liveness.Config{Scenario: sc, Seed: 1,
		Depth: liveness.DefaultDepth, DepthStep: liveness.DefaultDepthStep, MaxDepth: liveness.DefaultMaxDepth, DMax: liveness.DefaultDMax, Walks: liveness.DefaultWalks}})
	if err != nil || res.Report().Violation == nil {
		t.Fatalf("liveness run: %v, found no violation", err)
	}
	if _, err := pipeline.Explore(ctx, timedsim.Registry{sys}, dir); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	r := load(t, dir)
	lv := r.Liveness
	if lv == nil || r.Summary != nil || lv.System != "randtree" || lv.Report.Violation == nil || lv.Report.Critical == nil {
		t.Fatalf("liveness.json not decoded: %+v", lv)
	}
	c := lv.Report.Critical
	if c.Class != "C1" || c.Step < 0 || c.Step >= c.Dead.Steps || len(c.Probes) == 0 || c.Live == nil || c.DeadEvent == "" || lv.Report.Settings.Walks <= 0 {
		t.Fatalf("critical transition not decoded: %+v", c)
	}
	if run := res.Report().Critical; run == nil || c.Step != run.Step || c.DeadEvent != run.DeadEvent {
		t.Fatalf("decoded critical step %d (%s) is not the one the run found: %+v", c.Step, c.DeadEvent, run)
	}
	if !strings.HasPrefix(r.StateDiff, "# macepc state diff") {
		t.Fatalf("state.diff not read: %q", r.StateDiff)
	}
	figs := renderAll(t, dir)
	if len(figs) != 1 || figs[0].ID != "critical" || figs[0].Missing != "" {
		t.Fatalf("figures of a liveness run: %+v", figs)
	}
	d, _ := report.NewCriticalData(r)
	if d.Step != c.Step || d.TotalSteps != c.Dead.Steps || len(d.Probes) != len(c.Probes) {
		t.Fatalf("critical plot data %+v does not match liveness.json", d)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "critical.json", append(b, '\n'))
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "liveness-summary.md", md)
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range report.Sections(r, figs) {
		if !bytes.Contains(html, []byte(`id="`+id+`"`)) {
			t.Errorf("report.html has no section %s", id)
		}
	}
	for _, want := range []string{"macepc replay --path dead.path.json", "macepc replay --path live.path.json", `<span class="dl">-`, "critical transition: step"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if bytes.Contains(html, []byte(`id="diff"`)) {
		t.Error("a liveness report has the timed pipeline's diff section")
	}
}

// TestFailedPhaseLeavesNoStaleReport: a phase that starts removes the old
// report with the files it replaces, so an interrupted phase does not
// leave a report of results that are gone.
func TestFailedPhaseLeavesNoStaleReport(t *testing.T) {
	dir := runPipeline(t)
	if _, err := os.Stat(filepath.Join(dir, results.FileReport)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the search explores anything
	d := pipeline.NewDir(dir)
	pf, target, err := d.LoadProfile(timedsim.Registry{randtree.System()})
	if err != nil {
		t.Fatal(err)
	}
	def := pipeline.DefaultConfig(nil, nil)
	if _, err := pipeline.Search(ctx, pipeline.SearchConfig{Env: pipeline.Env{Dir: d}, Profile: pf, Target: target, MaxRuns: def.MaxRuns, TriageRuns: def.TriageRuns}); err == nil {
		t.Fatal("an interrupted search did not fail")
	}
	for _, n := range []string{results.FileReport, results.FileMarkdown, results.DirPlots} {
		if _, err := os.Stat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after an interrupted search: %v", n, err)
		}
	}
	// macepc report renders what is left: the profile and the interrupted search.
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("interrupted")) {
		t.Errorf("summary.md of an interrupted search does not say so:\n%s", md)
	}
}

// cropImage is the part r of img.
func cropImage(img image.Image, r image.Rectangle) image.Image {
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(r)
}

// A summary.json of version 1, whose replays were command lines, and one
// of version 2, whose replays are data, both load: the report renders
// its replay commands from the paths.
func TestLoadSummaryVersions(t *testing.T) {
	compact, err := json.Marshal(toySummary())
	if err != nil {
		t.Fatal(err)
	}
	summaryJSON := string(compact)
	if !strings.Contains(summaryJSON, `"version":2`) || !strings.Contains(summaryJSON, `"replay":[]`) {
		t.Fatalf("the toy summary is not a version-2 one without replays: %s", summaryJSON)
	}
	v2 := strings.Replace(summaryJSON, `"replay":[]`,
		`"replay":[{"execution":"anomaly","path":"anomaly.path.json","args":["replay","--path","anomaly.path.json"]}]`, 1)
	v1 := strings.Replace(strings.Replace(summaryJSON, `"version":2`, `"version":1`, 1), `"replay":[]`, `"replay":["macepc replay --path anomaly.path.json"]`, 1)
	bad := strings.Replace(summaryJSON, `"version":2`, `"version":3`, 1)
	for name, c := range map[string]struct {
		summary string
		replays int
		err     string
	}{"v1": {v1, 0, ""}, "v2": {v2, 1, ""}, "v3": {bad, 0, "not a version-2 macepc-summary file"}} {
		dir := resultsDir(t, map[string]any{
			results.FileSummary: c.summary,
			results.FileProfile: toyProfile(5e8, 5e8, 5e8, 75e7, 5e8),
		})
		r, err := report.Load(dir)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case len(r.Summary.Replay) != c.replays || r.Summary.Seed != 7:
			t.Errorf("%s: replays %+v, seed %d", name, r.Summary.Replay, r.Summary.Seed)
		}
	}
}

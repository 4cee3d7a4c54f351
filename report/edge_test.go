package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const summaryJSON = `{"format":"macepc-summary","version":1,"system":"toy","variant":"v","nodes":2,"seed":7,
"profile":{"runs":1,"q1":0.5,"median":0.5,"q3":0.5,"threshold":0.75,"iqr_factor":1.5,"min_slowdown":1.5},
"anomaly":null,"divergence":null,"correlations":[],"length_only":[],"replay":[]}`

// renderAll renders every figure of a directory, checking SVG and PNG.
func renderAll(t *testing.T, dir string) []report.Rendered {
	t.Helper()
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := report.RenderFigures(r)
	if err != nil {
		t.Fatal(err)
	}
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
	dir := writeFiles(t, map[string]string{
		results.FileSummary: summaryJSON,
		results.FileProfile: `{"format":"macepc-profile","version":1,"runs":0,"executions":[]}`,
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
	dir := writeFiles(t, map[string]string{
		results.FileSummary: summaryJSON,
		results.FileProfile: `{"format":"macepc-profile","version":1,"runs":1,"q1_ns":500000000,"median_ns":500000000,"q3_ns":500000000,"threshold_ns":750000000,
			"executions":[{"index":0,"exec_time_ns":500000000,"finished":true}]}`,
		results.FileSearch:      `{"format":"macepc-search","version":1,"max_runs":1,"explored":1,"complete":true,"threshold_ns":750000000,"anomaly":{"index":0,"exec_time_ns":2000000000,"steps":3}}`,
		results.FileSearchExecs: `{"phase":"search","index":0,"prefix":0,"seed":0,"exec_time_ns":2000000000,"steps":3,"outcome":"timed-out","counts":{"deliver Ping":1},"window":{}}` + "\n",
		results.FileDivergence: `{"format":"macepc-divergence","version":1,"walks":1,"q3_ns":500000000,"step":0,"total_steps":3,
			"probes":[{"prefix":1,"walks":1,"recovered":false,"recovered_walk":-1,"exec_times_ns":[2000000000]}]}`,
		results.FileEvents: `{"format":"macepc-divergence-events","version":1,"nodes":2,"step":0,"from_step":0,"to_step":3,
			"executions":[{"name":"anomalous","exec_time_ns":2000000000,"steps":3,"node_last_ns":[100,-1],"node_events":[1,0],
			"events":[{"step":0,"node":0,"from":-1,"label":"init","start_ns":0,"duration_ns":100,"sends":[{"to":1,"type":"Ping","transport":"tcp","size":10,"status":"queue-full"},
				{"to":1,"type":"Ping","transport":"udp","size":10,"status":"dropped"}]},
				{"step":1,"node":1,"from":-1,"label":"reset","start_ns":200,"duration_ns":0},
				{"step":2,"node":0,"from":1,"label":"error broken","start_ns":300,"duration_ns":50,"timers":[{"name":"retry","at_ns":1000000}],"notes":["held: busy"]}]}]}`,
		results.FileCorrelation: `{"format":"macepc-correlation","version":1,"executions":1,"min_r":0.3,"labels":[{"label":"deliver Ping","executions":1,"mean_count":1,"r":0.5,"window_r":0.5}]}`,
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
		files map[string]string
		want  string
	}{
		{name: "missing", dir: filepath.Join(t.TempDir(), "nope"), want: "not a results directory"},
		{name: "empty", files: map[string]string{}, want: "has no summary.json"},
		{name: "garbage", files: map[string]string{results.FileSummary: "not json"}, want: "summary.json is malformed"},
		{name: "other format", files: map[string]string{results.FileSummary: `{"format":"macepc-profile","version":1}`}, want: "not a version-2 macepc-summary file"},
		{name: "garbage later phase", files: map[string]string{results.FileSummary: summaryJSON,
			results.FileProfile: `{"format":"macepc-profile","version":1}`, results.FileSearch: "{"}, want: "search.json is malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if dir == "" {
				dir = writeFiles(t, c.files)
			}
			_, err := report.Load(dir)
			if err == nil || !strings.HasPrefix(err.Error(), "report: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestReportCommand: `macepc report DIR` re-renders from the files alone,
// renders what it can of a partial run, and exits 2 on a bad directory.
func TestReportCommand(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		st := cli.Run(context.Background(), args, &o, &e, randtree.System())
		return st, o.String(), e.String()
	}
	// A profile-only directory: later phases are placeholders.
	dir := filepath.Join(t.TempDir(), "p")
	if st, _, e := run("profile", "--system", "randtree", "--variant", "buggy", "--edd", "testdata/edd.json", "--profile-runs", "10", "--progress", "never", "--out", dir); st != cli.ExitOK {
		t.Fatalf("profile: exit %d: %s", st, e)
	}
	for _, n := range []string{results.FileReport, results.FileMarkdown} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatalf("the profile command did not write %s: %v", n, err)
		}
	}
	st, out, e := run("report", "--out", dir)
	if st != cli.ExitOK || !strings.Contains(out, results.FileReport) {
		t.Fatalf("report: exit %d: %s%s", st, out, e)
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("phase 2 did not run")) || !bytes.Contains(html, []byte("Profile only")) {
		t.Fatal("report.html of a profile-only run does not say the search did not run")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--out", filepath.Join(t.TempDir(), "missing")}, "not a results directory"},
		{[]string{"report", "--out", writeFiles(t, map[string]string{results.FileSummary: "garbage"})}, "malformed"},
	} {
		st, _, e := run(c.args...)
		if st != cli.ExitError || !strings.Contains(e, c.want) {
			t.Errorf("macepc %v: exit %d, stderr %q; want exit 2 and %q", c.args, st, e, c.want)
		}
	}
}

// TestLivenessReport: a liveness run's directory (liveness.json, no
// summary.json) gets its own report: the critical-transition search as
// Figure 3, the state diff and the replay commands of both paths.
func TestLivenessReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lv")
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), []string{"run", "--liveness", "--system", "randtree", "--variant", "liveness-bug", "--seed", "1", "--out", dir}, &o, &e, randtree.System())
	if st != cli.ExitFinding {
		t.Fatalf("liveness run: exit %d\n%s%s", st, o.String(), e.String())
	}
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	lv := r.Liveness
	if lv == nil || r.Summary != nil || lv.System != "randtree" || lv.Report.Violation == nil || lv.Report.Critical == nil {
		t.Fatalf("liveness.json not decoded: %+v", lv)
	}
	c := lv.Report.Critical
	if c.Class != "C1" || c.Step < 0 || c.Step >= c.Dead.Steps || len(c.Probes) == 0 || c.Live == nil || c.DeadEvent == "" || lv.Report.Settings.Walks <= 0 {
		t.Fatalf("critical transition not decoded: %+v", c)
	}
	if !strings.Contains(o.String(), fmt.Sprintf("step %d: %s", c.Step, c.DeadEvent)) {
		t.Fatalf("decoded critical step %d (%s) is not the one the run printed:\n%s", c.Step, c.DeadEvent, o.String())
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
	golden(t, "critical.json", append(b, '\n'))
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "liveness-summary.md", md)
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
	var o, e bytes.Buffer
	if st := cli.Run(ctx, []string{"search", "--out", dir, "--progress", "never"}, &o, &e, randtree.System()); st != cli.ExitError {
		t.Fatalf("interrupted search: exit %d\n%s%s", st, o.String(), e.String())
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
	v1 := strings.Replace(summaryJSON, `"replay":[]`, `"replay":["macepc replay --path anomaly.path.json"]`, 1)
	v2 := strings.Replace(strings.Replace(summaryJSON, `"version":1`, `"version":2`, 1), `"replay":[]`,
		`"replay":[{"execution":"anomaly","path":"anomaly.path.json","args":["replay","--path","anomaly.path.json"]}]`, 1)
	bad := strings.Replace(summaryJSON, `"version":1`, `"version":3`, 1)
	for name, c := range map[string]struct {
		summary string
		replays int
		err     string
	}{"v1": {v1, 0, ""}, "v2": {v2, 1, ""}, "v3": {bad, 0, "not a version-2 macepc-summary file"}} {
		dir := writeFiles(t, map[string]string{
			results.FileSummary: c.summary,
			results.FileProfile: `{"format":"macepc-profile","version":1,"runs":0,"executions":[]}`,
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

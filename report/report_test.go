package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"github.com/macepc/macepc/internal/golden"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testRoot is a directory for the whole test binary's files (TestMain
// makes it and removes it); set before any test runs, read-only after.
var testRoot string

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "macepc-report-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testRoot = root
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// pipelineRun runs the pipeline (pipeline.Run, as `macepc run
// --system randtree --variant buggy --seed 1 --edd testdata/edd.json`
// does) on RandTree's buggy variant with the committed trained durations
// (so the run is deterministic), and renders explore.html and the report
// as the command line does at its end, once for all the tests that need a
// real run's directory: the run is the same every time, its rendering is
// what they test. The tests read it through report.Load, that is through
// package results' readers.
var pipelineRun = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(testRoot, "run")
	target, err := randtreeTarget("buggy")
	if err != nil {
		return "", err
	}
	d, err := pipeline.OpenDir(dir)
	if err != nil {
		return "", err
	}
	cfg := pipeline.DefaultConfig(d, target)
	cfg.Seed, cfg.TrainRuns, cfg.EDDSource = 1, 0, "--edd testdata/edd.json"
	if _, err := pipeline.Run(context.Background(), cfg); err != nil {
		return "", err
	}
	if _, err := pipeline.Explore(context.Background(), timedsim.Registry{randtree.System()}, dir); err != nil {
		return "", err
	}
	return dir, report.Write(dir)
})

// randtreeTarget is RandTree's variant with the committed trained
// durations, as `--system randtree --variant V --edd testdata/edd.json`
// names it.
func randtreeTarget(variant string) (*pipeline.Target, error) {
	set, err := pipeline.ReadEDD("testdata/edd.json")
	if err != nil {
		return nil, err
	}
	return pipeline.ResolveTarget(randtree.System(), variant, 0, nil, timedsim.Options{EDD: set})
}

// runPipeline is a fresh copy of pipelineRun's directory, the test's to
// change.
func runPipeline(t *testing.T) string {
	t.Helper()
	src, err := pipelineRun()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// golden compares got with testdata/golden/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got, *update)
}

// TestGoldenPlotData pins the data every plot of the RandTree buggy run is
// fed, and summary.md.
func TestGoldenPlotData(t *testing.T) {
	dir := runPipeline(t)
	r := load(t, dir)
	figs := report.Figures(r)
	if len(figs) != 6 {
		t.Fatalf("%d figures, want 6", len(figs))
	}
	for _, f := range figs {
		if f.Missing != "" {
			t.Errorf("figure %s is a placeholder on a full run: %s", f.ID, f.Missing)
			continue
		}
		b, err := json.MarshalIndent(f.Data, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, f.ID+".json", append(b, '\n'))
	}
	md, err := os.ReadFile(filepath.Join(dir, results.FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.md", md)
}

// TestLoadDecodesPipelineOutput guards the report's decoding types against
// drift from the files package cli writes.
func TestLoadDecodesPipelineOutput(t *testing.T) {
	dir := runPipeline(t)
	r := load(t, dir)
	s := r.Summary
	if s.System != "randtree" || s.Variant != "buggy" || s.Seed != 1 || s.Nodes < 2 {
		t.Fatalf("summary header: %+v", s)
	}
	if r.Profile == nil || r.Profile.Runs != s.Profile.Runs || len(r.Profile.Executions) != s.Profile.Runs || r.Profile.Q3NS <= 0 || r.Profile.Threshold < r.Profile.Q3NS {
		t.Fatalf("profile.json not decoded consistently with summary.json: %+v", r.Profile)
	}
	if r.Search == nil || s.Anomaly == nil || !s.Anomaly.Found || r.Search.Anomaly == nil || r.Search.Anomaly.Index != s.Anomaly.Index || len(r.SearchExecs) != r.Search.Explored {
		t.Fatalf("search files not decoded: search %+v, %d executions", r.Search, len(r.SearchExecs))
	}
	for _, l := range r.SearchExecs {
		if l.ExecTimeNS <= 0 || len(l.Counts) == 0 {
			t.Fatalf("search execution without time or counts: %+v", l)
		}
	}
	d := r.Divergence
	if d == nil || s.Divergence == nil || d.Step != s.Divergence.Step || d.TotalSteps != s.Divergence.TotalSteps || len(d.Probes) == 0 || d.Walks <= 0 || d.Event == nil || d.Similar == nil {
		t.Fatalf("divergence.json not decoded: %+v", d)
	}
	cut := 0
	for _, p := range d.Probes {
		cut += p.Cut
	}
	if len(r.Walks) != d.Executions-cut {
		t.Fatalf("%d walk lines, divergence.json says %d executions of which %d confirmation walks were cut short", len(r.Walks), d.Executions, cut)
	}
	ev := r.Events
	if ev == nil || ev.Step != d.Step || ev.Nodes != s.Nodes || len(ev.Executions) != 2 || ev.Executions[0].Name != "anomalous" || ev.Executions[1].Name != "similar" {
		t.Fatalf("divergence-events.json not decoded: %+v", ev)
	}
	an := ev.Executions[0]
	if an.Steps != s.Anomaly.Steps || len(an.NodeLastNS) != s.Nodes || len(an.Events) == 0 {
		t.Fatalf("anomalous execution in divergence-events.json: steps %d (want %d), %d node times, %d events", an.Steps, s.Anomaly.Steps, len(an.NodeLastNS), len(an.Events))
	}
	sends := 0
	for _, e := range an.Events {
		if e.Step == d.Step && e.Label != d.Event.Label {
			t.Fatalf("event at the divergence step is %q, divergence.json says %q", e.Label, d.Event.Label)
		}
		for _, m := range e.Sends {
			sends++
			if m.Status == "sent" && m.ArriveNS < e.StartNS {
				t.Fatalf("message %+v arrives before it is sent", m)
			}
		}
	}
	if sends == 0 {
		t.Fatal("no message sends decoded around the divergence point")
	}
	if c := r.Correlation; c == nil || len(c.Labels) == 0 || c.Executions != len(r.SearchExecs)+len(r.Walks) {
		t.Fatalf("correlation.json not decoded: %+v", c)
	}
	if !strings.Contains(r.Diff, "divergence point") {
		t.Fatal("divergence.diff not read")
	}
}

// TestReportDeterministic renders the same directory twice (and a copy of
// it under another path) and requires identical bytes, free of the path.
func TestReportDeterministic(t *testing.T) {
	dir := runPipeline(t)
	read := func(d string) map[string][]byte {
		out := map[string][]byte{}
		for _, n := range []string{results.FileReport, results.FileMarkdown} {
			b, err := os.ReadFile(filepath.Join(d, n))
			if err != nil {
				t.Fatal(err)
			}
			out[n] = b
		}
		ents, err := os.ReadDir(filepath.Join(d, results.DirPlots))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(d, results.DirPlots, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
		return out
	}
	first := read(dir)
	if len(first) != 8 {
		t.Fatalf("%d output files, want report.html, summary.md and 6 plots", len(first))
	}
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(other); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, other} {
		for n, b := range read(d) {
			if !bytes.Equal(b, first[n]) {
				t.Errorf("%s differs between renderings of the same results", n)
			}
		}
	}
	html := string(first[results.FileReport])
	for _, bad := range []string{dir, os.TempDir(), "<script", "<link", "href=\"http", "src=", "url(", "@import"} {
		if strings.Contains(html, bad) {
			t.Errorf("report.html contains %q: it must be self-contained and host-independent", bad)
		}
	}
	if len(html) > 3<<20 {
		t.Errorf("report.html is %d bytes, over 3 MB", len(html))
	}
}

// checkSVG parses an SVG document and checks its root element.
func checkSVG(t *testing.T, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: invalid SVG: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", name, root)
	}
}

func checkPNG(t *testing.T, name string, b []byte) image.Image {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil || format != "png" {
		t.Fatalf("%s: not a PNG (%s): %v", name, format, err)
	}
	if img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
		t.Fatalf("%s: %v is too small", name, img.Bounds())
	}
	return img
}

// nonWhite is the fraction of pixels that are not (near) white.
func nonWhite(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

// TestRenderNormal: every plot of a full run renders to valid SVG and PNG
// with something drawn.
func TestRenderNormal(t *testing.T) {
	dir := runPipeline(t)
	r := load(t, dir)
	figs := renderFigures(t, r)
	for _, f := range figs {
		checkSVG(t, f.ID, f.SVG)
		if frac := nonWhite(checkPNG(t, f.ID, f.PNG)); frac < 0.01 {
			t.Errorf("%s: only %.4f of the PNG is drawn", f.ID, frac)
		}
		if !bytes.Contains(f.SVG, []byte("<path")) {
			t.Errorf("%s: the SVG draws no path", f.ID)
		}
	}
}

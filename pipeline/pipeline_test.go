package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

const randtreeEDD = "../systems/randtree/testdata/edd.json"

// randtreeTarget is RandTree's variant with the committed durations.
func randtreeTarget(t *testing.T, variant string) *pipeline.Target {
	t.Helper()
	set, err := pipeline.ReadEDD(randtreeEDD)
	if err != nil {
		t.Fatal(err)
	}
	target, err := pipeline.ResolveTarget(randtree.System(), variant, 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		t.Fatal(err)
	}
	return target
}

func openDir(t *testing.T) *pipeline.Dir {
	t.Helper()
	d, err := pipeline.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every error of the package carries its prefix once, at the front, and
// its cause stays reachable: a missing file is fs.ErrNotExist, an error
// of the package below keeps its own prefix after this one.
func TestErrorsArePrefixedOnce(t *testing.T) {
	d := openDir(t)
	_, _, err := d.LoadProfile(nil)
	var pe *pipeline.Error
	if err == nil || !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadProfile of an empty directory: %v", err)
	}
	_, err = pipeline.ExistingDir(filepath.Join(d.Path(), "nosuch"))
	tmpl, perr := timedsim.NewPathFile("nosuch", "v", &timedsim.Scenario{Nodes: 1}, timedsim.Options{}, timedsim.SeedPath(1), "")
	if perr != nil {
		t.Fatal(perr)
	}
	_, err2 := pipeline.TargetFromPathFile(timedsim.Registry{pingpong.System()}, tmpl)
	// An error of a phase, made of errors of several layers.
	target, err3 := pipeline.ResolveTarget(pingpong.System(), "", 4, nil, timedsim.Options{})
	if err3 != nil {
		t.Fatal(err3)
	}
	env := pipeline.Env{Dir: d}
	pf, err3 := pipeline.Profile(context.Background(), pipeline.ProfileConfig{Env: env, Target: target, Seed: 1, Runs: 5, Thresholds: pipeline.DefaultThresholds()})
	if err3 != nil {
		t.Fatal(err3)
	}
	_, err3 = pipeline.Diverge(context.Background(), pipeline.DivergeConfig{Env: env, Profile: pf, Target: target, Walks: 1})
	for i, e := range []error{err, err2, err3} {
		if e == nil {
			t.Errorf("error %d: none", i)
			continue
		}
		msg := e.Error()
		if !strings.HasPrefix(msg, "pipeline: ") || strings.Count(msg, "pipeline: ") != 1 {
			t.Errorf("error %d: %q", i, msg)
		}
	}
	if err2 != nil && !strings.HasPrefix(err2.Error(), "pipeline: timedsim: ") {
		t.Errorf("a timedsim error lost its prefix: %q", err2)
	}
}

// ClearAfter removes the files of the phases after the one given, the
// summary, the regression test's files and the rendered report, and
// keeps the rest.
func TestClearAfter(t *testing.T) {
	d := openDir(t)
	all := []string{results.FileEDD, results.FileTrain, results.FileProfile, results.FileSearch, results.FileSearchExecs,
		results.FileAnomalyPath, results.ClassPath(2), results.TailPath(1), results.FileDivergence, results.FileWalks, results.FileEvents,
		results.FileCorrelation, results.FileSummary, results.FileRegress, results.FileRegressOutlier, "report.html", "summary.md",
		"plots/profile.png", "notes.txt"}
	for _, c := range []struct {
		phase pipeline.Phase
		keep  []string
	}{
		{pipeline.PhaseSearch, []string{results.FileEDD, results.FileTrain, results.FileProfile, results.FileSearch, results.FileSearchExecs, results.FileAnomalyPath, results.ClassPath(2), results.TailPath(1), "notes.txt"}},
		{pipeline.PhaseTrain, []string{results.FileEDD, results.FileTrain, "notes.txt"}},
		{"", []string{"notes.txt"}},
	} {
		for _, f := range all {
			path := d.File(f)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.ClearAfter(c.phase); err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, f := range all {
			if _, err := os.Stat(d.File(f)); err == nil {
				left = append(left, f)
			}
		}
		if !slices.Equal(left, c.keep) {
			t.Errorf("ClearAfter(%q) left %q, want %q", c.phase, left, c.keep)
		}
	}
}

// progressLog records what the phases report.
type progressLog struct {
	starts map[pipeline.Phase]int // total at start
	adds   map[pipeline.Phase]int
	done   []pipeline.Phase
}

func (p *progressLog) Start(phase pipeline.Phase, total int) pipeline.Task {
	p.starts[phase] = total
	return task{p, phase}
}

type task struct {
	p     *progressLog
	phase pipeline.Phase
}

func (t task) Add(n int, _ string) { t.p.adds[t.phase] += n }
func (t task) SetTotal(int)        {}
func (t task) Done()               { t.p.done = append(t.p.done, t.phase) }

// Run reports each phase as it ends, in order, with the files written so
// far; Progress counts every execution the phases ran; the result is what
// the directory holds.
func TestRunReportsPhasesAndProgress(t *testing.T) {
	d := openDir(t)
	prog := &progressLog{starts: map[pipeline.Phase]int{}, adds: map[pipeline.Phase]int{}}
	cfg := pipeline.DefaultConfig(d, randtreeTarget(t, "buggy"))
	cfg.TrainRuns, cfg.Progress, cfg.Jobs = 0, prog, 2
	var phases []pipeline.Phase
	cfg.OnPhase = func(p pipeline.Phase, r *pipeline.Result) {
		phases = append(phases, p)
		written := map[pipeline.Phase]bool{pipeline.PhaseTrain: r.Train != nil, pipeline.PhaseProfile: r.Profile != nil, pipeline.PhaseSearch: r.Search != nil,
			pipeline.PhaseDiverge: r.Divergence != nil, pipeline.PhaseCorrelate: r.Correlation != nil}
		for _, q := range []pipeline.Phase{pipeline.PhaseProfile, pipeline.PhaseSearch, pipeline.PhaseDiverge, pipeline.PhaseCorrelate} {
			if written[q] != slices.Contains(phases, q) {
				t.Errorf("at the end of %s, the result of %s is there: %v", p, q, written[q])
			}
		}
	}
	res, err := pipeline.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Phase{pipeline.PhaseTrain, pipeline.PhaseProfile, pipeline.PhaseSearch, pipeline.PhaseDiverge, pipeline.PhaseCorrelate}
	if !slices.Equal(phases, want) || !res.Found() {
		t.Fatalf("phases %v, found %v", phases, res.Found())
	}
	walks := res.Divergence.Executions // less the confirmation walks cut short, which the search does not report
	for _, p := range res.Divergence.Probes {
		walks -= p.Cut
	}
	if prog.adds[pipeline.PhaseProfile] != 50 || prog.starts[pipeline.PhaseProfile] != 50 || prog.adds[pipeline.PhaseSearch] != res.Search.Explored ||
		prog.adds[pipeline.PhaseDiverge] != walks {
		t.Errorf("progress %+v; explored %d, walks %d", prog, res.Search.Explored, walks)
	}
	if !slices.Equal(prog.done, want[1:4]) {
		t.Errorf("phases done: %v", prog.done)
	}
	// What Run returned is what the directory says.
	pf, _, err := d.LoadProfile(timedsim.Registry{randtree.System()})
	if err != nil {
		t.Fatal(err)
	}
	df, err := d.LoadDivergence(pf)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := d.WriteSummary(pf)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		file, res any
	}{{"profile", pf, res.Profile}, {"divergence", df, res.Divergence}, {"summary", sum, res.Summary}} {
		a, err1 := json.Marshal(c.file)
		b, err2 := json.Marshal(c.res)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("the %s file differs from the result:\n%s\n%s", c.name, a, b)
		}
	}
}

// A run without an anomaly stops after the search: no divergence, no
// correlation, and the summary says so.
func TestRunWithoutAnomaly(t *testing.T) {
	d := openDir(t)
	cfg := pipeline.DefaultConfig(d, randtreeTarget(t, "fixed"))
	cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns = 0, 20, 20
	var phases []pipeline.Phase
	cfg.OnPhase = func(p pipeline.Phase, _ *pipeline.Result) { phases = append(phases, p) }
	res, err := pipeline.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found() || res.Divergence != nil || res.Correlation != nil || res.Summary.Anomaly == nil || res.Summary.Anomaly.Explored != 20 {
		t.Errorf("result %+v", res)
	}
	if !slices.Equal(phases, []pipeline.Phase{pipeline.PhaseTrain, pipeline.PhaseProfile, pipeline.PhaseSearch}) {
		t.Errorf("phases %v", phases)
	}
	if _, err := os.Stat(d.File(results.FileDivergence)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("divergence.json: %v", err)
	}
}

// A configuration the command line could not give is refused with the
// field (named by its flag), before anything is written.
func TestConfigIsChecked(t *testing.T) {
	d := openDir(t)
	target := randtreeTarget(t, "buggy")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"walks", func() error {
			cfg := pipeline.DefaultConfig(d, target)
			cfg.Walks = 0
			_, err := pipeline.Run(ctx, cfg)
			return err
		}, "Config.Walks must be at least 1"},
		{"no dir", func() error {
			_, err := pipeline.Run(ctx, pipeline.DefaultConfig(nil, target))
			return err
		}, "no results directory"},
		{"train runs", func() error {
			_, _, err := pipeline.Train(ctx, pipeline.TrainConfig{Env: pipeline.Env{Dir: d}, Target: target})
			return err
		}, "TrainConfig.Runs must be at least 1"},
		{"no profile", func() error {
			_, err := pipeline.Search(ctx, pipeline.SearchConfig{Env: pipeline.Env{Dir: d}, MaxRuns: 1})
			return err
		}, "no profile"},
	} {
		if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(d.Path()); len(ents) > 0 {
		t.Errorf("a refused configuration wrote %d files", len(ents))
	}
}

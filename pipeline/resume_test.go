package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// cancelAt cancels a context when phase has counted n executions.
type cancelAt struct {
	phase  pipeline.Phase
	n      int
	cancel context.CancelFunc
}

func (c *cancelAt) Start(p pipeline.Phase, _ int) pipeline.Task {
	return &cancelTask{c: c, on: p == c.phase}
}

type cancelTask struct {
	c    *cancelAt
	on   bool
	done int
}

func (t *cancelTask) Add(n int, _ string) {
	if t.done += n; t.on && t.done >= t.c.n {
		t.c.cancel()
	}
}
func (*cancelTask) SetTotal(int) {}
func (*cancelTask) Done()        {}

func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameDir(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	for n, b := range want {
		if !bytes.Equal(b, got[n]) {
			t.Errorf("%s: %s differs", what, n)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: extra file %s", what, n)
		}
	}
}

// A run interrupted (Ctrl-C) in its search, at any execution, and run
// again with Resume writes the uninterrupted run's files byte for byte,
// exploring only the executions the interrupted one had not kept.
func TestResumeAfterInterruptedSearch(t *testing.T) {
	target := randtreeTarget(t, "buggy")
	config := func(d *pipeline.Dir) pipeline.Config {
		cfg := pipeline.DefaultConfig(d, target)
		cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm, cfg.Jobs = 0, 20, 300, 15, 4, 4, 2
		return cfg
	}
	ref := openDir(t)
	if _, err := pipeline.Run(context.Background(), config(ref)); err != nil {
		t.Fatal(err)
	}
	want := dirFiles(t, ref.Path())
	interrupted := 0
	for _, at := range []int{1, 9, 26} {
		d := openDir(t)
		ctx, cancel := context.WithCancel(context.Background())
		cfg := config(d)
		cfg.Progress = &cancelAt{phase: pipeline.PhaseSearch, n: at, cancel: cancel}
		if _, err := pipeline.Run(ctx, cfg); err == nil {
			t.Fatalf("cancelled at %d: no error", at)
		}
		sf, err := d.LoadSearch(mustProfile(t, d))
		if err != nil || sf.Explored < at {
			t.Fatalf("cancelled at %d: search %+v, %v", at, sf, err)
		}
		// A worker that ran ahead may have finished every later execution
		// before the cancellation: the search is then complete, and the
		// divergence phase was interrupted instead.
		kept := sf.Explored
		if sf.Complete {
			kept = 0 // the resumed run does not search
		} else {
			interrupted++
		}
		cfg = config(d)
		cfg.Resume = true
		count := &countSearch{}
		cfg.Progress = count
		if _, err := pipeline.Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		sameDir(t, "resumed", want, dirFiles(t, d.Path()))
		if count.first != kept {
			t.Errorf("cancelled at %d with %d kept: the resumed search started at %d", at, kept, count.first)
		}
	}
	if interrupted == 0 {
		t.Error("no search was interrupted: the test checked no resumed search")
	}
}

// countSearch records where the search's progress starts.
type countSearch struct{ first int }

func (c *countSearch) Start(p pipeline.Phase, _ int) pipeline.Task {
	return &countTask{c: c, on: p == pipeline.PhaseSearch, first: true}
}

type countTask struct {
	c         *countSearch
	on, first bool
}

func (t *countTask) Add(n int, _ string) {
	if t.on && t.first {
		t.c.first, t.first = n, false
	}
}
func (*countTask) SetTotal(int) {}
func (*countTask) Done()        {}

func mustProfile(t *testing.T, d *pipeline.Dir) *results.Profile {
	t.Helper()
	pf, _, err := d.LoadProfile(timedsim.Registry{randtree.System()})
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// A resumed run does not train again: the interrupted run's edd.json,
// train.json and profile.json stay as they were.
func TestResumeKeepsTheTraining(t *testing.T) {
	d := openDir(t)
	cfg := pipeline.DefaultConfig(d, randtreeTarget(t, "buggy"))
	cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm = 3, 20, 300, 15, 4, 4
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = &cancelAt{phase: pipeline.PhaseSearch, n: 5, cancel: cancel}
	if _, err := pipeline.Run(ctx, cfg); err == nil {
		t.Fatal("no interruption")
	}
	before := dirFiles(t, d.Path())
	trained := &countSearch{}
	cfg.Progress, cfg.Resume = &phases{seen: map[pipeline.Phase]bool{}, next: trained}, true
	if _, err := pipeline.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	after := dirFiles(t, d.Path())
	for _, f := range []string{results.FileEDD, results.FileTrain, results.FileProfile} {
		if !bytes.Equal(before[f], after[f]) {
			t.Errorf("%s changed", f)
		}
	}
	if seen := cfg.Progress.(*phases).seen; seen[pipeline.PhaseTrain] || seen[pipeline.PhaseProfile] {
		t.Errorf("phases run again: %v", seen)
	}
}

// phases records which phases ran executions.
type phases struct {
	seen map[pipeline.Phase]bool
	next pipeline.Progress
}

func (p *phases) Start(ph pipeline.Phase, total int) pipeline.Task {
	p.seen[ph] = true
	return p.next.Start(ph, total)
}

// Interrupted tells a directory whose run did not end from one whose run
// did, or that only holds a profile.
func TestInterrupted(t *testing.T) {
	d := openDir(t)
	if d.Interrupted() {
		t.Error("an empty directory is interrupted")
	}
	cfg := pipeline.DefaultConfig(d, randtreeTarget(t, "buggy"))
	cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm = 0, 20, 300, 15, 4, 4
	if _, err := pipeline.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if d.Interrupted() {
		t.Error("a complete run is interrupted")
	}
	for _, f := range []string{results.FileDivergence, results.FileCorrelation, results.FileSummary} {
		b, err := os.ReadFile(d.File(f))
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(d.File(f)) // as a kill before the file was written
		if !d.Interrupted() {
			t.Errorf("without %s: not interrupted", f)
		}
		os.WriteFile(d.File(f), b, 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = &cancelAt{phase: pipeline.PhaseSearch, n: 3, cancel: cancel}
	pipeline.Run(ctx, cfg) // Ctrl-C: the search is kept incomplete and summary.json salvaged
	if sf, err := d.LoadSearch(mustProfile(t, d)); err == nil && !sf.Complete && !d.Interrupted() {
		t.Error("an interrupted search is not interrupted")
	}
}

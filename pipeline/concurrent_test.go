package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/pipeline"
)

// runInside is a Progress that runs f once, when the phase starts: while
// the run it belongs to is writing into its directory.
type runInside struct {
	phase pipeline.Phase
	f     func()
}

func (r *runInside) Start(p pipeline.Phase, _ int) pipeline.Task {
	if p == r.phase && r.f != nil {
		r.f()
		r.f = nil
	}
	return nopTask{}
}

type nopTask struct{}

func (nopTask) Add(int, string) {}
func (nopTask) SetTotal(int)    {}
func (nopTask) Done()           {}

// A second Run on a directory that a Run is writing
// into is refused at once, whether through the same Dir or another one,
// instead of the two overwriting each other's files and phase 3a blaming
// the protocol ("not deterministic"); a caller that holds the lock
// itself (the command line) can still run.
func TestConcurrentRunsOnOneDirAreRefused(t *testing.T) {
	target := randtreeTarget(t, "buggy")
	d := openDir(t)
	config := func(d *pipeline.Dir) pipeline.Config {
		cfg := pipeline.DefaultConfig(d, target)
		cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm = 0, 20, 300, 15, 4, 4
		return cfg
	}
	var inner []error
	cfg := config(d)
	cfg.Progress = &runInside{phase: pipeline.PhaseSearch, f: func() {
		for _, other := range []*pipeline.Dir{d, pipeline.NewDir(d.Path())} {
			_, err := pipeline.Run(context.Background(), config(other))
			inner = append(inner, err)
		}
		_, err := pipeline.Simulate(context.Background(), pipeline.SimulateConfig{Env: pipeline.Env{Dir: d}, Target: target, Runs: 2})
		inner = append(inner, err)
	}}
	res, err := pipeline.Run(context.Background(), cfg)
	if err != nil || !res.Found() {
		t.Fatalf("the first run: %v", err)
	}
	if len(inner) != 3 {
		t.Fatalf("%d runs inside the first", len(inner))
	}
	for i, err := range inner {
		if err == nil || !strings.Contains(err.Error(), "is in use") {
			t.Errorf("run %d inside the first: %v, want 'is in use'", i, err)
		}
	}
	// The lock is released at the end: a later run, and a caller that
	// holds the lock through the same Dir, run.
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Run(context.Background(), config(d)); err != nil {
		t.Errorf("a run under its caller's lock: %v", err)
	}
	unlock()
	if _, err := pipeline.Run(context.Background(), config(pipeline.NewDir(d.Path()))); err != nil {
		t.Errorf("a run after the others: %v", err)
	}
}

// With a handler watchdog shorter than the handlers
// take, whether an execution is stopped depends on the machine, not on
// its path; the error says so and does not call the protocol
// nondeterministic (nor fails on a replay that has no events).
func TestTinyHandlerTimeoutIsNamed(t *testing.T) {
	for i := range 3 {
		cfg := pipeline.DefaultConfig(openDir(t), randtreeTarget(t, "buggy"))
		cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm = 0, 20, 300, 15, 4, 4
		cfg.HandlerTimeout = time.Nanosecond
		_, err := pipeline.Run(context.Background(), cfg)
		if err == nil {
			continue // no replay disagreed with its execution this time
		}
		if msg := err.Error(); !strings.Contains(msg, "the handler watchdog (Env.HandlerTimeout 1 ns)") || strings.Contains(msg, "not deterministic") {
			t.Errorf("run %d: %v", i, err)
		}
	}
}

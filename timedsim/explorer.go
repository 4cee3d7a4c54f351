package timedsim

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
)

// Explorer runs many executions of a scenario (Algorithm 2) across worker
// goroutines. Each worker owns a Simulator; execution i is a pure function
// of its path, so results do not depend on the number of workers.
type Explorer struct {
	Scenario *Scenario
	Options  Options
	// Jobs is the number of workers; 0 means GOMAXPROCS.
	Jobs int
	// CheckDeterminism runs every execution a second time, on a new
	// simulator (the first ran the worker's earlier executions before
	// it), and makes Run fail with ErrNondeterministic on any difference
	// in the results (madsim's check): a protocol with hidden state shared
	// between executions or nodes, map iteration order or the wall clock
	// shows there. The measured real times of training and hung handlers
	// are wall-clock by nature and not compared.
	CheckDeterminism bool
}

// ErrNondeterministic is the error of an Explorer with CheckDeterminism
// whose executions differ when run twice.
var ErrNondeterministic = errors.New("timedsim: an execution is not deterministic")

// Work is one exploration: N executions whose paths come from Path(i).
type Work struct {
	N    int
	Path func(i int) Path
	// Each, if set, is called with every result in execution-index order
	// (from one goroutine at a time). Returning false stops the
	// exploration after the executions already started: the results up to
	// that index are kept.
	Each func(i int, r *Result) bool
	// Keep, if false, drops results after Each has seen them, so long
	// searches do not hold every execution in memory.
	Keep bool
	// From, if set, is a snapshot (Explorer.Snapshot) that every
	// execution forks from (Simulator.RunFrom) instead of simulating its
	// first From.Steps() steps: Path(i) must follow From's path for those
	// steps. The results are the same.
	From *Snapshot
}

// Snapshot runs the first steps steps of path p on a new simulator of
// the explorer's scenario and options and returns the state after them
// (Simulator.SnapshotAt, whose errors it returns: ErrNotForkable for
// services that do not implement Cloner).
func (e *Explorer) Snapshot(ctx context.Context, p Path, steps int) (*Snapshot, error) {
	sim, err := NewSimulator(e.Scenario, e.Options)
	if err != nil {
		return nil, err
	}
	return sim.SnapshotAt(ctx, p, steps)
}

// Seeded is the usual path source: execution i is the fresh random
// execution ExecutionSeed(base, i).
func Seeded(base uint64) func(i int) Path {
	return func(i int) Path { return SeedPath(ExecutionSeed(base, i)) }
}

// Run explores. It returns the results of executions 0..done-1 in index
// order (nil when Keep is false) and done, how many consecutive executions
// from index 0 were completed and handed to Each: on cancellation of ctx or
// when Each returns false, done < N and everything before done is valid.
// Cancellation also interrupts executions in progress.
func (e *Explorer) Run(ctx context.Context, w Work) (results []*Result, done int, err error) {
	jobs := e.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs > w.N {
		jobs = w.N
	}
	if w.N <= 0 {
		return nil, 0, nil
	}
	sims := make([]*Simulator, jobs)
	for i := range sims {
		if sims[i], err = NewSimulator(e.Scenario, e.Options); err != nil {
			return nil, 0, err
		}
	}
	var (
		diffErr atomic.Pointer[error]
		next    atomic.Int64
		stop    atomic.Bool
		mu      sync.Mutex
		pending = make(map[int]*Result, jobs) // finished, waiting for lower indexes
		emitted int
		wg      sync.WaitGroup
	)
	// emit hands completed results to Each in index order. Only results
	// that finished ahead of a lower, still running index are held (as
	// many as the other workers finish meanwhile), so a search with a huge
	// budget costs no memory up front.
	emit := func() {
		for !stop.Load() {
			r, ok := pending[emitted]
			if !ok {
				return
			}
			delete(pending, emitted)
			emitted++
			if w.Keep {
				results = append(results, r)
			}
			if w.Each != nil && !w.Each(emitted-1, r) {
				stop.Store(true)
				return
			}
		}
	}
	for j := 0; j < jobs; j++ {
		wg.Add(1)
		go func(sim *Simulator) {
			defer wg.Done()
			for !stop.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= w.N {
					return
				}
				var r *Result
				if w.From != nil {
					r = sim.RunFrom(ctx, w.From, w.Path(i))
				} else {
					r = sim.RunContext(ctx, w.Path(i))
				}
				if r.Outcome == Interrupted {
					return
				}
				if e.CheckDeterminism {
					twin, err := NewSimulator(e.Scenario, e.Options) // no history: what an earlier execution left shows
					if err != nil {
						panic(err) // it was made with the same arguments before
					}
					again := twin.RunContext(ctx, w.Path(i))
					if again.Outcome == Interrupted {
						return
					}
					if what := resultDiff(r, again); what != "" {
						err := fmt.Errorf("%w: execution %d differs when run again: %s", ErrNondeterministic, i, what)
						diffErr.CompareAndSwap(nil, &err)
						stop.Store(true)
						return
					}
				}
				if r.Outcome == Hung { // an abandoned handler still runs on sim
					var err error
					if sim, err = NewSimulator(e.Scenario, e.Options); err != nil {
						panic(err) // it was made with the same arguments before
					}
				}
				mu.Lock()
				pending[i] = r
				emit()
				mu.Unlock()
			}
		}(sims[j])
	}
	wg.Wait()
	if err := diffErr.Load(); err != nil {
		return results, emitted, *err
	}
	if emitted < w.N && !stop.Load() {
		return results, emitted, ctx.Err()
	}
	return results, emitted, nil
}

// DiffResults names what differs between two results of one path, ""
// if nothing does: every field but the wall-clock ones (the real handler
// times, a hung handler, a panic's stack). It is how CheckDeterminism
// compares, and how tests compare a fork from a Snapshot with a replay.
func DiffResults(a, b *Result) string { return resultDiff(a, b) }

// resultDiff names what differs between two runs of one path ("" if
// nothing): every field of the results but the wall-clock ones (the real
// handler times, a hung handler, a panic's stack).
func resultDiff(a, b *Result) string {
	if a.Outcome == Hung || b.Outcome == Hung {
		return ""
	}
	norm := func(r *Result) Result {
		c := *r
		c.RealTimes = nil
		if c.Panic != nil {
			p := *c.Panic
			p.Stack = ""
			c.Panic = &p
		}
		return c
	}
	x, y := norm(a), norm(b)
	v, u := reflect.ValueOf(x), reflect.ValueOf(y)
	for i := range v.NumField() {
		if !reflect.DeepEqual(v.Field(i).Interface(), u.Field(i).Interface()) {
			return fmt.Sprintf("%s %v, then %v", v.Type().Field(i).Name, clip(v.Field(i).Interface()), clip(u.Field(i).Interface()))
		}
	}
	return ""
}

// clip is a value for a one-line message.
func clip(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

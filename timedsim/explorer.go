package timedsim

import (
	"context"
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
}

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
				r := sim.RunContext(ctx, w.Path(i))
				if r.Outcome == Interrupted {
					return
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
	if emitted < w.N && !stop.Load() {
		return results, emitted, ctx.Err()
	}
	return results, emitted, nil
}

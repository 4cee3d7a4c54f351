package liveness

import (
	"context"
	"sync"
	"sync/atomic"
)

// parallel runs f(w, i) for i in [0, n) on the workers' worlds (one
// goroutine each) and returns the results in index order, with cut: the
// smallest i+1 for which stop(result i) is true, or n. Results after cut
// may be missing (zero): a worker takes no index beyond the smallest
// stopping index known so far, so every result up to cut is computed, and
// out[:cut] is the same whatever the number of workers.
func parallel[T any](ctx context.Context, worlds []*world, n int, f func(w *world, i int) T, stop func(T) bool) (out []T, cut int, err error) {
	out = make([]T, n)
	if len(worlds) == 1 || n <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return out, 0, err
			}
			out[i] = f(worlds[0], i)
			if stop(out[i]) {
				return out, i + 1, nil
			}
		}
		return out, n, nil
	}
	var next atomic.Int64
	var first atomic.Int64 // smallest stopping index
	first.Store(int64(n))
	var wg sync.WaitGroup
	for _, w := range worlds[:min(len(worlds), n)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) || i > first.Load() {
					return
				}
				r := f(w, int(i))
				out[i] = r
				if stop(r) {
					for {
						cur := first.Load()
						if i >= cur || first.CompareAndSwap(cur, i) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, 0, err
	}
	cut = n
	if f := first.Load(); f < int64(n) {
		cut = int(f) + 1
	}
	return out, cut, nil
}

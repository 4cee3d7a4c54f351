package liveness

import (
	"context"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/randtree"
)

// BenchmarkRandTreeRT3 is the RandTree RT3 search on 3 nodes (seed 1:
// found at depth 10 after 261 walks) and then its critical transition,
// timed apart: states/s and steps/s of the search, the critical-transition
// wall time.
func BenchmarkRandTreeRT3(b *testing.B) {
	for _, jobs := range []int{1, 2} {
		b.Run(map[int]string{1: "jobs=1", 2: "jobs=2"}[jobs], func(b *testing.B) {
			cfg := randtreeConfig(b, randtree.VariantLivenessBug, 1)
			cfg.Jobs, cfg.NoCritical = jobs, true
			var search, crit time.Duration
			var states, steps int64
			for range b.N {
				t0 := time.Now()
				rep, err := Run(context.Background(), cfg)
				if err != nil || rep.Violation == nil {
					b.Fatalf("%v %+v", err, rep)
				}
				t1 := time.Now()
				c, err := FindCritical(context.Background(), cfg, rep.Violation.Path)
				if err != nil || c.Class != C1 {
					b.Fatalf("%v %+v", err, c)
				}
				search += t1.Sub(t0)
				crit += time.Since(t1)
				states += rep.Stats.States
				steps += rep.Stats.Steps
			}
			b.ReportMetric(float64(states)/search.Seconds(), "states/s")
			b.ReportMetric(float64(steps)/search.Seconds(), "steps/s")
			b.ReportMetric(float64(crit.Milliseconds())/float64(b.N), "critical-ms")
		})
	}
}

// BenchmarkRandTreeSearch is the exhaustive search of the fixed variant
// on 3 nodes to depth 15 (iterations 5, 10 and 15), which finds nothing,
// at 1 and 2 workers: states/s (States counts a state once per prefix
// task that reached it), distinct states/s and steps/s.
func BenchmarkRandTreeSearch(b *testing.B) {
	for _, jobs := range []int{1, 2} {
		b.Run(map[int]string{1: "jobs=1", 2: "jobs=2"}[jobs], func(b *testing.B) {
			cfg := randtreeConfig(b, randtree.VariantFixed, 1)
			cfg.MaxDepth, cfg.Jobs = 15, jobs
			var d time.Duration
			var states, distinct, steps int64
			for range b.N {
				t0 := time.Now()
				rep, err := Run(context.Background(), cfg)
				if err != nil || rep.Violation != nil {
					b.Fatalf("%v %+v", err, rep)
				}
				d += time.Since(t0)
				states += rep.Stats.States
				distinct += rep.Stats.Distinct
				steps += rep.Stats.Steps
			}
			b.ReportMetric(float64(states)/d.Seconds(), "states/s")
			b.ReportMetric(float64(distinct)/d.Seconds(), "distinct/s")
			b.ReportMetric(float64(steps)/d.Seconds(), "steps/s")
		})
	}
}

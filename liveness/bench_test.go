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
// at 1 and 2 workers, with the sequential division (jobs=J) and the level
// division (levels/jobs=J): states/s (States counts a state once per
// prefix task that reached it), distinct states/s and steps/s.
func BenchmarkRandTreeSearch(b *testing.B) {
	for _, name := range []string{"jobs=1", "jobs=2", "levels/jobs=1", "levels/jobs=2"} {
		jobs := int(name[len(name)-1] - '0')
		b.Run(name, func(b *testing.B) {
			cfg := randtreeConfig(b, randtree.VariantFixed, 1)
			cfg.MaxDepth, cfg.Jobs = 15, jobs
			cfg.LevelDivision = name[0] == 'l'
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

// BenchmarkCriticalRT3 is the critical-transition search of RandTree's
// RT3 (seed 1: C1 at step 12 of the 1,000-step dead path; 8 probes, 65
// walks) on one worker, its walks replaying each probe's prefix from step
// 0 (mode=replay) or forking from a snapshot of it (mode=snapshot). The
// search that finds the dead path runs once, outside the timer.
func BenchmarkCriticalRT3(b *testing.B) {
	cfg := randtreeConfig(b, randtree.VariantLivenessBug, 1)
	cfg.Jobs, cfg.NoCritical = 1, true
	rep, err := Run(context.Background(), cfg)
	if err != nil || rep.Violation == nil {
		b.Fatalf("%v %+v", err, rep)
	}
	for _, mode := range []string{WalksReplay, WalksSnapshot} {
		b.Run("mode="+mode, func(b *testing.B) {
			cfg.Replay = mode == WalksReplay
			for range b.N {
				c, err := FindCritical(context.Background(), cfg, rep.Violation.Path)
				if err != nil || c.Class != C1 || c.WalksFrom != mode {
					b.Fatalf("%v %+v", err, c)
				}
			}
		})
	}
}

// BenchmarkCriticalLate is a critical-transition search whose prefixes
// are long: a trap node (with Clone) whose 1,000-step dead path fires its
// trap at step 900, with DMax 1,000, so that the walks of a probe at
// prefix p replay p steps each before their own (mode=replay), or none
// (mode=snapshot). Forking saves at most p/(p+DMax) of a walk: under 2×.
func BenchmarkCriticalLate(b *testing.B) {
	choices := make([]int, 901)
	choices[900] = 1 // the trap, armed at the third tick
	dead := Path{Driver: 5, Choices: choices, Segments: startPath(5).Segments, Steps: 1000}
	cfg := Config{Scenario: cloneable(trapSystem(1, 5)), Weights: trapWeights(), DMax: 1000, Seed: 5, Jobs: 1}
	for _, mode := range []string{WalksReplay, WalksSnapshot} {
		b.Run("mode="+mode, func(b *testing.B) {
			cfg.Replay = mode == WalksReplay
			for range b.N {
				c, err := FindCritical(context.Background(), cfg, dead)
				if err != nil || c.Class != C1 || c.Step != 900 || c.WalksFrom != mode {
					b.Fatalf("%v %+v", err, c)
				}
			}
		})
	}
}

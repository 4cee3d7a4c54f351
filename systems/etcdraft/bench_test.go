package etcdraft_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/timedsim"
)

// benchEDD gives every event 2–20 µs, the range of raft's trained handler
// times, so that no node is saturated by the seed distribution's 1–10 ms.
func benchEDD() *edd.Set {
	return edd.NewSet(edd.Uniform{Min: 2 * time.Microsecond, Max: 20 * time.Microsecond})
}

// BenchmarkProposals is one 5-node execution of the election scenario
// with 10,000 proposals (one every 5 ms, to random nodes) per iteration:
// events/s and allocations per event, raft's and the adapter's together
// (bench/RESULTS.md separates raft's with a memory profile).
func BenchmarkProposals(b *testing.B) {
	for _, n := range []int{10_000} {
		b.Run(fmt.Sprintf("proposals=%d", n), func(b *testing.B) {
			sc, err := etcdraft.System().ScenarioParams("prevote", 5, timedsim.Params{"proposals": fmt.Sprint(n)})
			if err != nil {
				b.Fatal(err)
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: benchEDD()})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			steps := 0
			for i := 0; b.Loop(); i++ {
				res := sim.Run(timedsim.SeedPath(uint64(i + 1)))
				if !res.Finished {
					b.Fatalf("execution %d: %v", i, res.Outcome)
				}
				steps += res.Steps
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(steps)/float64(b.N), "events/op")
		})
	}
}

// BenchmarkExplorerJobs runs 8 executions of the 200-proposal election
// scenario on 1 and 2 workers: raft's code runs under one process-wide
// lock (its crypto/rand draws), so this measures what the lock leaves of
// the parallel speed-up.
func BenchmarkExplorerJobs(b *testing.B) {
	sc, err := etcdraft.System().ScenarioParams("prevote", 5, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: benchEDD()}, Jobs: jobs}
			steps := 0
			for b.Loop() {
				res, _, err := ex.Run(context.Background(), timedsim.Work{N: 8, Path: timedsim.Seeded(1), Keep: true})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res {
					steps += r.Steps
				}
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

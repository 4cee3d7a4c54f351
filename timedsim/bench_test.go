package timedsim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// BenchmarkSimulator runs the null ping-pong protocol (systems/pingpong) (node 2i pings node
// 2i+1, which pongs back, forever) and reports events/s and allocs/event.
// Each iteration is one execution of a fixed number of events, on a
// simulator whose memory is reused as the explorer does.
func BenchmarkSimulator(b *testing.B) {
	benchSimulator(b, 0)
}

// BenchmarkSimulatorWatchdog is BenchmarkSimulator with the handler
// watchdog on (the pipeline's default): its cost per event.
func BenchmarkSimulatorWatchdog(b *testing.B) {
	benchSimulator(b, timedsim.DefaultHandlerTimeout)
}

func benchSimulator(b *testing.B, watchdog time.Duration) {
	for _, nodes := range []int{2, 100, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			sc := pingpong.Scenario(nodes, -1)
			sc.Timeout = 1000 * time.Hour
			steps := 200_000
			if nodes*20 > steps {
				steps = nodes * 20
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: steps, HandlerTimeout: watchdog})
			if err != nil {
				b.Fatal(err)
			}
			sim.Run(timedsim.SeedPath(0)) // warm up: connections, interning
			b.ReportAllocs()
			b.ResetTimer()
			events := 0
			for i := 0; i < b.N; i++ {
				r := sim.Run(timedsim.SeedPath(uint64(i)))
				events += r.Steps
			}
			b.StopTimer()
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			// Steady-state allocations per event: the difference between an
			// execution of 2×steps and one of steps events, per event, so
			// the per-execution cost (one service value per node) cancels.
			long, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: 2 * steps})
			if err != nil {
				b.Fatal(err)
			}
			long.Run(timedsim.SeedPath(0))
			short := testing.AllocsPerRun(1, func() { sim.Run(timedsim.SeedPath(1)) })
			twice := testing.AllocsPerRun(1, func() { long.Run(timedsim.SeedPath(1)) })
			b.ReportMetric((twice-short)/float64(steps), "allocs/event")
		})
	}
}

// BenchmarkExplorerGossip reports executions/s of the explorer on the
// gossip test protocol at 1 and 2 workers.
func BenchmarkExplorerGossip(b *testing.B) {
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			ex := &timedsim.Explorer{Scenario: gossipScenario(16), Jobs: jobs}
			const n = 64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, done, err := ex.Run(context.Background(), timedsim.Work{N: n, Path: timedsim.Seeded(uint64(i))}); err != nil || done != n {
					b.Fatal(done, err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "executions/s")
		})
	}
}

// BenchmarkNotes is BenchmarkSimulator's nodes=100 case with a note on
// every delivery and two on every other Pong (notedPing): the cost of
// Context.Note, by the ratio of the two events/s.
func BenchmarkNotes(b *testing.B) {
	sc := notedPingScenario(100)
	const steps = 200_000
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: steps})
	if err != nil {
		b.Fatal(err)
	}
	sim.Run(timedsim.SeedPath(0)) // warm up: connections, interning
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for i := 0; i < b.N; i++ {
		events += sim.Run(timedsim.SeedPath(uint64(i))).Steps
	}
	b.StopTimer()
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

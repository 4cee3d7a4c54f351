package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// BenchmarkPeer runs the two workloads of the SimGrid comparison (the
// Chord-like lookups of chord.go and systems/pingpong) as run.sh's
// defaults size them, and reports events/s, msgs/s (deliveries) and
// allocs/event. One iteration is one execution of 200,000 deliveries on a
// reused simulator (as macepc's explorer runs them). msgs/cpu-s divides by the process's
// CPU time (user + system, the garbage collector's included) instead of
// the wall time: on a loaded machine it is the steadier figure.
func BenchmarkPeer(b *testing.B) {
	for _, c := range []struct {
		workload string
		size     int
	}{{"chord", 1000}, {"chord", 10000}, {"pingpong", 1000}, {"pingpong", 10000}} {
		b.Run(fmt.Sprintf("%s/size=%d", c.workload, c.size), func(b *testing.B) {
			var sc *timedsim.Scenario
			var labels [2]string
			const msgs = 200_000
			switch c.workload {
			case "chord":
				sc = chordScenario(c.size)
				labels = [2]string{"deliver Lookup", "deliver Reply"}
			default:
				sc = pingpong.Scenario(2*c.size, -1)
				sc.Timeout = 1 << 62
				labels = [2]string{"deliver Ping", "deliver Pong"}
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: msgs + sc.Nodes})
			if err != nil {
				b.Fatal(err)
			}
			sim.Run(timedsim.SeedPath(0)) // warm up
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			events, delivered := 0, 0
			for i := 0; i < b.N; i++ {
				r := sim.Run(timedsim.SeedPath(uint64(i)))
				events += r.Steps
				delivered += r.Counts[labels[0]] + r.Counts[labels[1]]
			}
			b.StopTimer()
			cpu := (cpuTime() - cpu0).Seconds()
			if delivered != msgs*b.N {
				b.Fatalf("%d deliveries, want %d", delivered, msgs*b.N)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(delivered)/cpu, "msgs/cpu-s")
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() { sim.Run(timedsim.SeedPath(1)) }))/float64(msgs+sc.Nodes), "allocs/event")
		})
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

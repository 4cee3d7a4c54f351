package chord

import (
	"fmt"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// BenchmarkScenario runs bundled executions (32 nodes, handler durations
// of trained size) and reports executions/s and events/s. Join-race
// executions that hit the race run 60 s of simulated maintenance.
func BenchmarkScenario(b *testing.B) {
	for _, v := range []string{VariantFixed, VariantBuggy, VariantJoinRace} {
		b.Run(fmt.Sprintf("variant=%s/nodes=32", v), func(b *testing.B) {
			sc, err := Build(v, 32)
			if err != nil {
				b.Fatal(err)
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: fastHandlers()})
			if err != nil {
				b.Fatal(err)
			}
			steps := 0
			i := 0
			for b.Loop() {
				steps += sim.Run(timedsim.SeedPath(timedsim.ExecutionSeed(1, i))).Steps
				i++
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(i)/s, "executions/s")
			b.ReportMetric(float64(steps)/s, "events/s")
		})
	}
}

// BenchmarkStop measures the hinted stopping condition on a correct
// 1,000-node ring (the worst case: a full scan).
func BenchmarkStop(b *testing.B) {
	const n = 1000
	h := &harness{}
	r := NewRingOrder(n)
	for id := range NodeID(n) {
		nd := NewNode(id, Config{})
		nd.state, nd.pred, nd.succs = Joined, r.Pred(id), []NodeID{r.Succ(id)}
		h.nodes = append(h.nodes, nd)
	}
	stop := r.NewRing()
	for b.Loop() {
		if !stop(h) {
			b.Fatal("not a ring")
		}
	}
}

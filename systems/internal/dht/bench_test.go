package dht

import (
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// BenchmarkStable measures the stopping condition on a stable 40-node ring
// (every check runs the O(n²) routing check): checks/s.
func BenchmarkStable(b *testing.B) {
	ids := NodeIDs(40, 3)
	ring := NewRing(ids, 1)
	states := completeStates(ids, ring, 8)
	get := func(id timedsim.NodeID) State { return states[id] }
	for b.Loop() {
		if !ring.Stable(get) {
			b.Fatal("not stable")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}

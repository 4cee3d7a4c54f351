package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/randtree"
)

// BenchmarkExplorer: RandTree (buggy variant, 32 nodes) explored at 1 and
// 2 workers; compare executions/s of the two in one run for the speed-up.
func BenchmarkExplorer(b *testing.B) {
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("randtree-32/jobs=%d", jobs), func(b *testing.B) {
			var total bench.ExplorerResult
			for i := 0; i < b.N; i++ {
				r, err := bench.RunExplorer(context.Background(), bench.ExplorerConfig{
					System: randtree.System(), Variant: "buggy", Nodes: 32, Runs: 256, Jobs: jobs, Seed: uint64(i + 1),
				})
				if err != nil {
					b.Fatal(err)
				}
				total.Executions += r.Executions
				total.Events += r.Events
				total.Elapsed += r.Elapsed
			}
			b.ReportMetric(total.ExecutionsPerSec(), "executions/s")
			b.ReportMetric(total.EventsPerSec(), "events/s")
		})
	}
}

// TestRunExplorerCounts checks the workload itself (not its speed): it runs
// every execution and counts their events.
func TestRunExplorerCounts(t *testing.T) {
	r, err := bench.RunExplorer(context.Background(), bench.ExplorerConfig{System: randtree.System(), Variant: "fixed", Nodes: 8, Runs: 4, Jobs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Executions != 4 || r.Events < 4*8 || r.Elapsed <= 0 {
		t.Fatalf("%+v", r)
	}
}

package bench_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
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

// randtreeEDD is a RandTree EDD trained with `macepc train` (handler times
// of this machine), so the benchmark runs the trained configuration of
// `macepc run` without re-training.
func randtreeEDD(tb testing.TB) *edd.Set {
	f, err := os.Open("../systems/randtree/testdata/edd.json")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	set, err := edd.Read(f)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// BenchmarkDivergence times phase 3a (k = 20, all cores) on an anomalous
// RandTree execution of 3,000 nodes with at least 20,000 steps. MacePC
// needed 1 to 22 hours for this phase.
func BenchmarkDivergence(b *testing.B) {
	cfg := bench.DivergenceConfig{System: randtree.System(), Variant: "buggy", Nodes: 3000, Seed: 1,
		ProfileRuns: 20, MaxRuns: 400, MinSteps: 20000, Walks: 20, Options: timedsim.Options{EDD: randtreeEDD(b)}}
	c, err := bench.FindAnomaly(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("anomaly: search execution %d, %s (threshold %s), %d steps", c.Index, timedsim.FormatTime(c.ExecTime), timedsim.FormatTime(c.Threshold), c.Steps)
	b.ResetTimer()
	var total bench.DivergenceResult
	for i := 0; i < b.N; i++ {
		r, err := bench.RunDivergence(context.Background(), cfg, c)
		if err != nil {
			b.Fatal(err)
		}
		total.Executions += r.Executions
		total.Events += r.Events
		total.Elapsed += r.Elapsed
		if i == 0 {
			b.Logf("divergence step %d of %d, %d probes, %d executions, %d events, %s", r.Step, r.TotalSteps, r.Probes, r.Executions, r.Events, r.Elapsed.Round(time.Millisecond))
		}
	}
	b.ReportMetric(float64(c.Steps), "steps")
	b.ReportMetric(float64(total.Executions)/float64(b.N), "executions/op")
	b.ReportMetric(float64(total.Executions)/total.Elapsed.Seconds(), "executions/s")
	b.ReportMetric(float64(total.Events)/total.Elapsed.Seconds(), "events/s")
}

// TestDivergenceWorkload checks the phase-3a workload on a small case: the
// anomaly is above the threshold and the divergence step inside it.
func TestDivergenceWorkload(t *testing.T) {
	cfg := bench.DivergenceConfig{System: randtree.System(), Variant: "buggy", Nodes: 32, Seed: 1,
		ProfileRuns: 20, MaxRuns: 400, MinSteps: 100, Walks: 20, Jobs: 2, Options: timedsim.Options{EDD: randtreeEDD(t)}}
	c, err := bench.FindAnomaly(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.ExecTime <= c.Threshold || c.Steps < 100 || c.Q3 >= c.Threshold {
		t.Fatalf("case %+v", c)
	}
	r, err := bench.RunDivergence(context.Background(), cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalSteps != c.Steps || r.Step <= 0 || r.Step >= r.TotalSteps || r.Executions < r.Probes || r.Events <= 0 {
		t.Fatalf("result %+v", r)
	}
}

package bullet_test

import (
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/timedsim"
)

// BenchmarkExecution runs the paper's experiments, 100 nodes with the
// committed trained durations (testdata/edd.json), one execution per
// iteration, and reports events/s and allocations per event (the
// allocations include the protocol's: Diff and Request slices).
func BenchmarkExecution(b *testing.B) {
	set, err := pipeline.ReadEDD("testdata/edd.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, variant, scenario string }{
		{"20mb/fixed", bullet.VariantFixed, bullet.Scenario20MB},
		{"20mb/diff-drop", bullet.VariantDiffDrop, bullet.Scenario20MB},
		{"2mb/join-reject", bullet.VariantJoinReject, bullet.Scenario2MB},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc, err := bullet.System().ScenarioParams(c.variant, 0, timedsim.Params{"scenario": c.scenario})
			if err != nil {
				b.Fatal(err)
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: set})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			steps, i := 0, 0
			for b.Loop() {
				r := sim.Run(timedsim.SeedPath(timedsim.ExecutionSeed(1, i)))
				if !r.Finished {
					b.Fatalf("execution %d: %v", i, r.Outcome)
				}
				steps += r.Steps
				i++
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(i)/s, "executions/s")
			b.ReportMetric(float64(steps)/s, "events/s")
			b.ReportMetric(float64(steps)/float64(i), "events/execution")
		})
	}
}

package explore

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// bigExecution is the first steps steps of a RandTree (buggy) execution
// on nodes nodes, states recorded: the input of the size and speed benchmarks.
func bigExecution(b testing.TB, nodes, steps int) *Data {
	b.Helper()
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, nodes)
	if err != nil {
		b.Fatal(err)
	}
	r, h := run(b, sc, 1, timedsim.Options{MaxSteps: steps})
	if r.Steps != steps {
		b.Fatalf("%d steps, want %d", r.Steps, steps)
	}
	h.System, h.Variant = "randtree", randtree.VariantBuggy
	return &Data{Title: fmt.Sprintf("randtree/buggy, %d nodes", nodes), Executions: []*Execution{FromTimed("big", h, r)}}
}

// BenchmarkWrite writes explore.html for a 30,000-step execution of 3,000
// RandTree nodes: steps/s, and the file's size in bytes.
func BenchmarkWrite(b *testing.B) {
	d := bigExecution(b, 3000, 30000)
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		b.Fatal(err)
	}
	size := buf.Len()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(30000*b.N)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(size), "bytes")
	w, err := encodeExec(d.Executions[0])
	if err != nil {
		b.Fatal(err)
	}
	whole, stored := 0, 0
	for _, s := range d.Executions[0].Steps {
		whole += len(s.State)
	}
	for _, t := range d.Executions[0].Initial {
		whole += len(t)
	}
	for _, t := range w.StText {
		stored += len(t)
	}
	for _, t := range w.Initial { // the states before the first step, stored whole
		stored += len(t)
	}
	b.ReportMetric(float64(whole), "state-bytes-whole")
	b.ReportMetric(float64(stored), "state-bytes-stored")
}

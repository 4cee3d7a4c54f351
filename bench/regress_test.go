package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/pingpong"
)

// TestRunRegressRates runs two rows on pingpong, two seed pairs each: a
// Ping handler made twice as slow is a regression in both pairs (the
// shift test), the unchanged code in neither; the table shows both rows
// with their counts and the first pair's commands are recorded.
func TestRunRegressRates(t *testing.T) {
	pp := pingpong.System()
	edd := "../macepctest/testdata/edd.json"
	cfg := bench.RegressConfig{Work: t.TempDir(), Cases: []bench.RegressCase{
		{Name: "slow ping", System: pp, Nodes: 4, Base: "default", Current: "default", Scale: []string{"deliver Ping=2"}, EDD: edd, Runs: 30, Pairs: 2, SeedOffset: 1000},
		{Name: "same", System: pp, Nodes: 4, Base: "default", Current: "default", EDD: edd, Runs: 30, Pairs: 2, SeedOffset: 1000},
	}}
	rates, err := bench.RunRegressRates(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 2 || rates[0].Regressions != 2 || rates[0].ByTest["shift"] != 2 || rates[1].Regressions != 0 || len(rates[1].Slow) != 2 {
		t.Fatalf("rates: %+v", rates)
	}
	if c := rates[0].Commands; len(c) != 2 || !strings.HasPrefix(c[0], "macepc profile --system pingpong --variant default --nodes 4") || !strings.Contains(c[1], "--scale 'deliver Ping=2'") {
		t.Errorf("commands %q", c)
	}
	var b strings.Builder
	bench.WriteRegressRates(&b, rates)
	if !strings.Contains(b.String(), "| pingpong | default → default scaled deliver Ping=2 | "+edd+" | 30 | **2 of 2** | shift 2") ||
		!strings.Contains(b.String(), "| pingpong | default → default | "+edd+" | 30 | **0 of 2** |  |") {
		t.Errorf("table:\n%s", b.String())
	}
	if _, err := bench.RunRegressRates(context.Background(), bench.RegressConfig{Work: t.TempDir(), Cases: []bench.RegressCase{{Name: "x", System: pp, EDD: edd}}}, nil); err == nil || !strings.HasPrefix(err.Error(), "bench: regress: x: runs and pairs must be positive") {
		t.Errorf("zero runs: %v", err)
	}
}

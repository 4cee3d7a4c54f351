package pingpong_test

import (
	"testing"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

func TestEveryPairPlaysItsRounds(t *testing.T) {
	sc, err := pingpong.System().Scenario("default", 6)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(1))
	// 3 pairs x 10 rounds x (Ping + Pong) + 6 inits.
	if !r.Finished || r.Counts["deliver Ping"] != 30 || r.Counts["deliver Pong"] != 30 || r.Steps != 66 {
		t.Fatalf("outcome %v, steps %d, counts %v", r.Outcome, r.Steps, r.Counts)
	}
	if r.Composite["deliver Ping → Pong"] != 30 || r.Composite["deliver Pong → Ping"] != 27 {
		t.Fatalf("composite %v (the last Pong of each pair sends nothing)", r.Composite)
	}
	if _, err := pingpong.System().Scenario("default", 1); err == nil {
		t.Fatal("1 node accepted")
	}
}

package etcdraft_test

import (
	"context"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/timedsim"
)

// Liveness mode on 3 nodes with a reset: a bounded search finds no safety
// or liveness violation, and its states are told apart by raft's hidden
// clocks (without them every tick hashed as a duplicate, the space looked
// exhausted after 4 steps, and one-leader was reported violated).
func TestLivenessNoViolation(t *testing.T) {
	sc, err := etcdraft.System().ScenarioParams("prevote", 3, timedsim.Params{"proposals": "2"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := liveness.Config{Scenario: sc, Depth: 6, MaxDepth: 6, DMax: 3000, RandomWalks: 40, Faults: 1, Seed: 1, Jobs: 2}
	rep, err := liveness.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation != nil {
		t.Fatalf("violation: %+v", rep.Violation)
	}
	if rep.End != "walk-budget" || rep.Stats.Walks < 40 {
		t.Fatalf("the search stopped early: %+v (ended %s)", rep.Stats, rep.End)
	}
}

package etcdraft_test

import (
	"context"
	"strings"
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

// With its defaults (200 proposals, 3 nodes, dmax 1000) a random walk
// rarely applies everything in 1000 steps, so the search reports a dead
// path; its critical-transition search then names a step after which none
// of 20 walks of 1000 steps became live. The dead walk itself, continued,
// becomes live: the critical transition is refuted and the violation is
// inconclusive, not a verdict (no liveness false alarm on
// etcd's recommended configuration).
func TestLivenessDefaultsAreInconclusive(t *testing.T) {
	sc, err := etcdraft.System().ScenarioParams("prevote", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := liveness.Run(context.Background(), liveness.Config{Scenario: sc, Seed: 2, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Critical
	if rep.Violation == nil || c == nil || !rep.Inconclusive() || len(c.Rechecks) == 0 {
		t.Fatalf("want an inconclusive dead path: violation %+v, critical %+v", rep.Violation, c)
	}
	if last := c.Rechecks[len(c.Rechecks)-1]; !strings.Contains(last.Reason, "reaches a live state") {
		t.Fatalf("the re-check does not find the dead walk live: %+v", last)
	}
}

// Liveness mode on 3 nodes with a crash-stop: with PreVote and
// CheckQuorum, whichever node stops for good and whenever, the two left
// elect a leader (one-leader is over the nodes that are up). all-applied
// is left out: a client's proposal that reached a node before it stopped
// is lost with it, so not every proposal can be applied, as the search
// with it finds.
func TestLivenessCrashStop(t *testing.T) {
	sc, err := etcdraft.System().ScenarioParams("prevote", 3, timedsim.Params{"proposals": "2"})
	if err != nil {
		t.Fatal(err)
	}
	live, err := liveness.Select(sc.Liveness, etcdraft.PropOneLeader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := liveness.Config{Scenario: sc, Liveness: live, Depth: 6, MaxDepth: 6, DMax: 3000, RandomWalks: 40, Crashes: 1, Seed: 1, Jobs: 2,
		Weights: map[string]int{"crash": 8}} // crash often in the walks too
	rep, err := liveness.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation != nil {
		t.Fatalf("violation: %+v", rep.Violation)
	}
	if rep.End != "walk-budget" || rep.Stats.Walks < 40 || rep.Settings.Crashes != 1 {
		t.Fatalf("the search stopped early: %+v (ended %s)", rep.Stats, rep.End)
	}
	// The control: with all-applied too, the same search stops a node
	// that holds a client's proposal, and finds all-applied dead.
	cfg.Liveness, cfg.NoCritical = nil, true
	rep, err = liveness.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Violation; v == nil || v.Property != etcdraft.PropAllApplied {
		t.Fatalf("with all-applied: violation %+v", v)
	}
	lines, err := liveness.Replay(cfg, rep.Violation.Path)
	if err != nil || !strings.Contains(strings.Join(lines, "\n"), " crash [choice ") {
		t.Fatalf("the dead path (%v) has no crash-stop:\n%s", err, strings.Join(lines, "\n"))
	}
}

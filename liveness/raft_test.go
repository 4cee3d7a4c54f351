package liveness

import (
	"context"
	"testing"

	"go.etcd.io/raft/v3"

	"github.com/macepc/macepc/raftsim"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/timedsim"
)

// leaderOf is the raft leader among the nodes that are up, -1 if none.
func leaderOf(w *world) int32 {
	for i := range w.nodes {
		if !w.nodes[i].crashed && raftsim.NodeOf(w, timedsim.NodeID(i)).Status().Role == raft.StateLeader {
			return int32(i)
		}
	}
	return -1
}

// TestRaftLeaderCrashStop: etcd raft with PreVote and CheckQuorum (the
// etcdraft system's fixed variant), 3 nodes: once a leader is elected, a
// crash-stop of the leader leaves the state not live (one-leader is over
// the nodes that are up: the stopped leader does not count), and every
// random walk from there elects a new leader among the two nodes left.
// A search with one crash-stop from that steady state (every node's
// crash among its first choices) finds no violation.
func TestRaftLeaderCrashStop(t *testing.T) {
	sc, err := etcdraft.System().ScenarioParams(etcdraft.VariantPreVote, 3, timedsim.Params{etcdraft.ParamProposals: "2"})
	if err != nil {
		t.Fatal(err)
	}
	live, err := Select(sc.Liveness, etcdraft.PropOneLeader)
	if err != nil {
		t.Fatal(err)
	}
	// No crash before the leader is elected: the walks' crash weight is 0.
	cfg := Config{Scenario: sc, Liveness: live, Crashes: 1, Seed: 1, DMax: 3000, Jobs: 2, Weights: map[string]int{"crash": 0}}
	w, err := pathWorld(cfg, startPath(1))
	if err != nil {
		t.Fatal(err)
	}
	var choices []int
	elect := startPath(1)
	elect.Steps = cfg.DMax
	res := w.walk(elect, walkOptions{liveFrom: 0, onChoice: func(c int) { choices = append(choices, c) }})
	old := leaderOf(w)
	if !res.live || old < 0 || w.crashesLeft != 1 {
		t.Fatalf("no leader elected in %d steps (live %v, leader %d, %d crashes left)", res.steps, res.live, old, w.crashesLeft)
	}
	crash := -1
	for i, e := range w.enabled() {
		if e.kind == kindCrash && e.node == old {
			crash = i
		}
	}
	if crash < 0 {
		t.Fatalf("the leader's crash is not enabled: %q", w.enabledLabels())
	}
	at := len(choices) + 1
	crashed := Path{Driver: 1, Choices: append(choices, crash), Segments: elect.Segments, Steps: at}
	if r := w.walk(crashed, walkOptions{liveFrom: at}); r.live || r.steps != at || !w.Crashed(timedsim.NodeID(old)) {
		t.Fatalf("right after the leader's crash: live %v after %d steps, crashed %v", r.live, r.steps, w.Crashed(timedsim.NodeID(old)))
	}
	for j := range 10 {
		p := crashed.Branch(at, WalkSeed(cfg.Seed, at, j), at+cfg.DMax)
		r := w.walk(p, walkOptions{liveFrom: at})
		if l := leaderOf(w); !r.live || r.err != nil || l < 0 || l == old {
			t.Fatalf("walk %d after n%d's crash: live %v after %d steps (%v), leader %d", j, old, r.live, r.steps, r.err, l)
		}
	}
	prefix := Path{Driver: 1, Choices: choices, Segments: elect.Segments, Steps: len(choices)}
	search := Config{Scenario: sc, Liveness: live, Crashes: 1, Seed: 1, DMax: 3000, Depth: 1, MaxDepth: 1, Jobs: 2, Prefix: &prefix}
	rep, err := Run(context.Background(), search)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation != nil || rep.Stats.Walks < 3 {
		t.Fatalf("the search from the elected leader with one crash-stop: violation %+v, stats %+v", rep.Violation, rep.Stats)
	}
}

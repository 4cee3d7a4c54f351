package etcdraft_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"

	"github.com/macepc/macepc/raftsim"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/timedsim"
)

func scenario(t *testing.T, variant string, params timedsim.Params) *timedsim.Scenario {
	t.Helper()
	sc, err := etcdraft.System().ScenarioParams(variant, 0, params)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestParams(t *testing.T) {
	sys := etcdraft.System()
	for _, c := range []struct {
		variant string
		nodes   int
		params  timedsim.Params
		want    string
	}{
		{"prevote", 0, timedsim.Params{"heartbeat-tick": "10"}, "ElectionTick (10) must be greater than HeartbeatTick (10)"},
		{"prevote", 2, timedsim.Params{"scenario": "rejoin"}, "the rejoin scenario needs at least 3 nodes"},
		{"prevote", 0, timedsim.Params{"scenario": "split-brain"}, `value "split-brain" is not one of election, rejoin, leader-crash`},
		{"prevote", 0, timedsim.Params{"interval": "soon"}, "not a duration"},
		{"raft", 0, nil, `has no variant "raft"`},
	} {
		if _, err := sys.ScenarioParams(c.variant, c.nodes, c.params); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.variant, c.params, err, c.want)
		}
	}
	sc := scenario(t, "", timedsim.Params{"proposals": "7", "interval": "1ms"})
	if sc.Nodes != 5 || sc.Params.Get("scenario") != "election" || sc.Params.Get("interval") != "1ms" {
		t.Errorf("defaults: %d nodes, params %v", sc.Nodes, sc.Params)
	}
}

// termsAt records every node's term at the given times (its last state
// before each).
func termsAt(sc *timedsim.Scenario, at ...time.Duration) (*[][]uint64, func(timedsim.World) bool) {
	got := make([][]uint64, len(at))
	stop := sc.Stop
	return &got, func(w timedsim.World) bool {
		for i, t := range at {
			if w.Now() <= t {
				got[i] = got[i][:0]
				for n := range w.Nodes() {
					got[i] = append(got[i], raftsim.NodeOf(w, timedsim.NodeID(n)).Status().Term)
				}
			}
		}
		return stop(w)
	}
}

// rejoin: without PreVote the cut-off follower campaigns while it is alone
// — its term alone rises — and when it returns its term is the cluster's
// (the leader stepped down); with PreVote and CheckQuorum it only
// pre-campaigns and no term moves while it is away. Both finish with every
// proposal applied and the safety properties held after every event.
func TestRejoinTermInflation(t *testing.T) {
	const cut, heal = 4 * time.Second, 7 * time.Second // start 3 s + a quarter of 4 s; 3 s partition
	for _, variant := range []string{"no-prevote", "prevote"} {
		for seed := uint64(1); seed <= 4; seed++ {
			sc := scenario(t, variant, timedsim.Params{"scenario": "rejoin"})
			got, stop := termsAt(sc, cut, heal, sc.Timeout)
			sc.Stop = stop
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
			if err != nil {
				t.Fatal(err)
			}
			res := sim.Run(timedsim.SeedPath(seed))
			if !res.Finished || res.Counts["partition"] != 1 || res.Counts["heal"] != 1 {
				t.Fatalf("%s seed %d: %v %s, counts %v", variant, seed, res.Outcome, res.Violation, res.Counts)
			}
			atCut, atHeal, atEnd := (*got)[0], (*got)[1], (*got)[2]
			raised := 0
			for n := range atCut {
				if atHeal[n] > atCut[n] {
					raised++
				}
			}
			switch variant {
			case "no-prevote":
				if raised != 1 || slices.Max(atEnd) <= slices.Max(atCut) {
					t.Errorf("no-prevote seed %d: terms %v at the cut, %v at the heal, %v at the end", seed, atCut, atHeal, atEnd)
				}
			case "prevote":
				if raised != 0 || res.Counts["deliver MsgPreVote"] == 0 {
					t.Errorf("prevote seed %d: terms %v at the cut, %v at the heal; %d pre-votes", seed, atCut, atHeal, res.Counts["deliver MsgPreVote"])
				}
			}
		}
	}
}

// leader-crash resets the node that leads at the time; a new leader of a
// higher term takes over and every proposal is applied.
func TestLeaderCrash(t *testing.T) {
	sc := scenario(t, "prevote", timedsim.Params{"scenario": "leader-crash", "proposals": "50"})
	var crashed timedsim.NodeID = timedsim.None
	sc.Stop = func(w timedsim.World) bool {
		if crashed == timedsim.None && w.Now() > 3*time.Second {
			for n := range w.Nodes() {
				if raftsim.NodeOf(w, timedsim.NodeID(n)).Status().Role == raft.StateLeader {
					crashed = timedsim.NodeID(n)
				}
			}
		}
		for n := range w.Nodes() {
			if etcdraft.Len(w, timedsim.NodeID(n)) < 50 {
				return false
			}
		}
		return true
	}
	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true, Record: true})
	res := sim.Run(timedsim.SeedPath(2))
	if !res.Finished {
		t.Fatalf("%v %s", res.Outcome, res.Violation)
	}
	var reset timedsim.NodeID = timedsim.None
	for _, e := range res.Events {
		if e.Label == "reset" {
			reset = e.Node
		}
	}
	if reset == timedsim.None || reset != crashed {
		t.Fatalf("reset %v, the leader before was %v", reset, crashed)
	}
	// A leader of a later term took over (the restarted node may win it
	// again: led=[1 2]).
	leaders := 0
	for _, s := range res.FinalStates {
		if strings.Contains(s, "role=leader") && !strings.Contains(s, "term=1 ") {
			leaders++
		}
		if !strings.Contains(s, "kv{50 keys k0..k49") {
			t.Errorf("a store misses proposals: %s", s)
		}
	}
	if leaders != 1 {
		t.Errorf("%d leaders of a later term at the end:\n%s", leaders, strings.Join(res.FinalStates, "\n"))
	}
}

// The election scenario on the seed EDD: every execution finishes, the
// event labels are raft's, and the state shows raft's fields.
func TestElectionLabelsAndState(t *testing.T) {
	sc := scenario(t, "prevote", timedsim.Params{"proposals": "20"})
	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true, Record: true})
	res := sim.Run(timedsim.SeedPath(1))
	if !res.Finished {
		t.Fatalf("%v", res.Outcome)
	}
	for _, l := range []string{"deliver MsgApp", "deliver MsgAppResp", "deliver MsgPreVote", "deliver MsgVote", "deliver MsgHeartbeat", "timer persist", "timer tick", "timer boot", "app propose"} {
		if res.Counts[l] == 0 {
			t.Errorf("no %q events (counts %v)", l, res.Counts)
		}
	}
	for _, s := range res.FinalStates {
		for _, f := range []string{"term=", "vote=", "role=", "lead=", "commit=", "applied=", "last=", "kv{20 keys k0..k19 digest "} {
			if !strings.Contains(s, f) {
				t.Errorf("state %q lacks %q", s, f)
			}
		}
	}
}

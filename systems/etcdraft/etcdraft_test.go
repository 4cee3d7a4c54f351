package etcdraft_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"

	"github.com/macepc/macepc/edd"
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
		{"prevote", 0, timedsim.Params{"partition-rate": "2"}, `value "2": out of range [0, 1]`},
		{"prevote", 0, timedsim.Params{"blip": "-1s"}, "below the minimum 0s"},
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

// committedEDD reads the durations trained for a variant of rejoin
// (testdata/rejoin-VARIANT.edd.json).
func committedEDD(t *testing.T, variant string) *edd.Set {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "rejoin-"+variant+".edd.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set, err := edd.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// rejoinRun is what TestRejoinOutages looks at in one execution.
type rejoinRun struct {
	exec    time.Duration
	outage  time.Duration  // the outage's length (heal - partition)
	away    []uint64       // every node's term just before the heal
	end     []uint64       // every node's term at the end
	maxTerm uint64         // the highest term any node had at any time
	counts  map[string]int // plain and composite labels
}

func runRejoin(t *testing.T, variant string, params timedsim.Params, seed uint64) rejoinRun {
	t.Helper()
	sc := scenario(t, variant, params)
	type terms struct {
		at    time.Duration
		terms []uint64
	}
	var history []terms // every change of the nodes' terms
	stop := sc.Stop
	sc.Stop = func(w timedsim.World) bool {
		ts := make([]uint64, w.Nodes())
		for n := range ts {
			ts[n] = raftsim.NodeOf(w, timedsim.NodeID(n)).Status().Term
		}
		if len(history) == 0 || !slices.Equal(history[len(history)-1].terms, ts) {
			history = append(history, terms{w.Now(), ts})
		}
		return stop(w)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true, Record: true, EDD: committedEDD(t, variant)})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(timedsim.SeedPath(seed))
	if !res.Finished {
		t.Fatalf("%s %v seed %d: %v %s", variant, params, seed, res.Outcome, res.Violation)
	}
	run := rejoinRun{exec: res.ExecTime, end: history[len(history)-1].terms, counts: map[string]int{}}
	var part, heal time.Duration
	for _, e := range res.Events {
		switch e.Label {
		case "partition":
			part = e.Start
		case "heal":
			heal = e.Start
		}
	}
	run.outage = heal - part
	for _, h := range history {
		if h.at < heal {
			run.away = h.terms
		}
		run.maxTerm = max(run.maxTerm, slices.Max(h.terms))
	}
	maps.Copy(run.counts, res.Counts)
	maps.Copy(run.counts, res.Composite)
	return run
}

// rejoin's outages, on the committed durations. A blip (partition-rate=0:
// every outage is one) never makes the cut-off node campaign, in either
// variant: no term moves past the first leader's, and the execution time
// is the stream's. A long outage (partition-rate=1) without PreVote makes
// it campaign alone — its term alone rises while it is away — and when it
// returns its term makes the leader step down: every node ends in a later
// term, and the cluster, leaderless, waits at least election-tick-1 ticks
// after the heal for a new leader, who catches the node up. With PreVote
// and CheckQuorum it only pre-campaigns, no term moves, and the execution
// time is a blip's. Safety holds after every event.
func TestRejoinOutages(t *testing.T) {
	const seeds = 8
	slowestBlip := map[string]time.Duration{}
	for _, variant := range []string{"no-prevote", "prevote"} {
		for seed := uint64(1); seed <= seeds; seed++ {
			r := runRejoin(t, variant, timedsim.Params{"scenario": "rejoin", "partition-rate": "0"}, seed)
			if r.outage <= 0 || r.outage > 800*time.Millisecond || r.maxTerm != 1 {
				t.Errorf("%s seed %d: a blip of %v, terms up to %d", variant, seed, r.outage, r.maxTerm)
			}
			slowestBlip[variant] = max(slowestBlip[variant], r.exec)
		}
	}
	for _, variant := range []string{"no-prevote", "prevote"} {
		for seed := uint64(1); seed <= seeds; seed++ {
			r := runRejoin(t, variant, timedsim.Params{"scenario": "rejoin", "partition-rate": "1"}, seed)
			if r.outage != 2*time.Second {
				t.Fatalf("%s seed %d: a long outage of %v, want 2s", variant, seed, r.outage)
			}
			cut := len(r.away) - 1
			switch variant {
			case "no-prevote":
				alone := r.away[cut] > 1 && slices.Max(r.away[:cut]) == 1
				// heal at 2.1s, then 9 ticks at least without a leader
				if !alone || slices.Min(r.end) <= r.away[cut] || r.exec < 3*time.Second || r.counts["timer persist → MsgVote"] < 3 {
					t.Errorf("no-prevote seed %d: terms %v while away, %v at the end; %v (a blip's: up to %v); %d campaigns",
						seed, r.away, r.end, r.exec, slowestBlip[variant], r.counts["timer persist → MsgVote"])
				}
			case "prevote":
				if r.maxTerm != 1 || r.counts["timer tick → MsgPreVote"] < 1 || r.exec > slowestBlip[variant]+100*time.Millisecond {
					t.Errorf("prevote seed %d: terms up to %d; %d pre-campaigns; %v against a slowest blip of %v",
						seed, r.maxTerm, r.counts["timer tick → MsgPreVote"], r.exec, slowestBlip[variant])
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

package timedsim_test

import (
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// RecordStates describes each event's node after the event: the last
// state recorded for a node is its final state, the states do not change
// the execution, and without RecordStates no state is recorded.
func TestRecordStatesDescribesNodeAfterEachEvent(t *testing.T) {
	sc := gossipScenario(8)
	plain := newSim(t, sc, timedsim.Options{Record: true}).Run(timedsim.SeedPath(3))
	r := newSim(t, sc, timedsim.Options{Record: true, RecordStates: true}).Run(timedsim.SeedPath(3))
	if eventLog(t, plain) != eventLog(t, r) {
		t.Fatal("recording states changed the execution")
	}
	last := make([]string, sc.Nodes)
	seen := 0
	for i, e := range r.Events {
		if plain.Events[i].State != "" {
			t.Fatalf("step %d: a state without RecordStates", i)
		}
		if e.Node == timedsim.None {
			continue
		}
		if e.State == "" {
			t.Fatalf("step %d on %v: no state recorded", i, e.Node)
		}
		last[e.Node] = e.State
		seen++
	}
	if seen == 0 {
		t.Fatal("no event with a node")
	}
	for i, st := range r.FinalStates {
		if last[i] != st {
			t.Errorf("n%d: last recorded state %q, final state %q", i, last[i], st)
		}
	}
}

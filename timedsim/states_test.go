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
	if plain.InitialStates != nil || len(r.InitialStates) != sc.Nodes {
		t.Fatalf("initial states: %d without RecordStates, %d with it, want 0 and %d", len(plain.InitialStates), len(r.InitialStates), sc.Nodes)
	}
	last := append([]string(nil), r.InitialStates...)
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

// A delivered message's Depart is the end of the event on its sender that
// sent it.
func TestDeliveryDepartIsTheSendingEventsEnd(t *testing.T) {
	r := newSim(t, gossipScenario(8), timedsim.Options{Record: true}).Run(timedsim.SeedPath(5))
	type key struct {
		node timedsim.NodeID
		end  int64
	}
	byEnd := map[key]*timedsim.TimedEvent{}
	delivered := 0
	for i := range r.Events {
		e := &r.Events[i]
		if e.From != timedsim.None && len(e.Label) > 8 && e.Label[:8] == "deliver " {
			s := byEnd[key{e.From, int64(e.Depart)}]
			if s == nil {
				t.Fatalf("step %d %s from %v: no event of the sender ends at %v", e.Step, e.Label, e.From, e.Depart)
			}
			found := false
			for _, m := range s.Sends {
				found = found || (m.To == e.Node && "deliver "+m.Type == e.Label)
			}
			if !found {
				t.Fatalf("step %d %s: step %d of the sender sent no such message to %v", e.Step, e.Label, s.Step, e.Node)
			}
			delivered++
		}
		if e.Node != timedsim.None {
			byEnd[key{e.Node, int64(e.Start + e.Duration)}] = e
		}
	}
	if delivered == 0 {
		t.Fatal("no delivery checked")
	}
}

package randtree

import (
	"reflect"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// TestFindRace locates the Figure 1 race in a hand-written event log:
// node 0's Join opens the window at the bootstrap (node 1), node 5's Join
// is accepted inside it, node 7's after it closes.
func TestFindRace(t *testing.T) {
	ev := func(step int, node, from timedsim.NodeID, label string, sends ...timedsim.SentMessage) timedsim.TimedEvent {
		return timedsim.TimedEvent{Step: step, Node: node, From: from, Label: label, Sends: sends}
	}
	reply := func(to timedsim.NodeID) timedsim.SentMessage { return timedsim.SentMessage{To: to, Type: "JoinReply"} }
	none := timedsim.None
	events := []timedsim.TimedEvent{
		ev(0, 0, none, "app start"),
		ev(1, 5, none, "app start"),
		ev(2, 7, none, "app start"),
		ev(3, 0, none, "timer start"),
		ev(4, 5, none, "timer start"),
		ev(5, 1, 0, "deliver Join", reply(0)), // opens the window
		ev(6, 0, 1, "deliver JoinReply"),      // handshake
		ev(7, 1, 5, "deliver Join", timedsim.SentMessage{To: 3, Type: "NewRoot"}, reply(5)), // the race
		ev(8, 0, 1, "deliver Join", reply(1)),                                               // handshake: closes it
		ev(9, 7, none, "timer start"),
		ev(10, 1, 0, "deliver JoinReply"), // the window closes
		ev(11, 1, 7, "deliver Join", reply(7)),
	}
	r := FindRace(events)
	if r.Open != 5 || !reflect.DeepEqual(r.Accepts, []int{7}) || !reflect.DeepEqual(r.RacerBoots, []int{1, 4}) ||
		!reflect.DeepEqual(r.OpenerBoots, []int{0, 3}) || !reflect.DeepEqual(r.Handshake, []int{6, 8}) {
		t.Errorf("FindRace: %+v", r)
	}
	if got, want := r.Core(), []int{1, 4, 5, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("Core %v, want %v", got, want)
	}
	if got, want := r.All(), []int{0, 1, 3, 4, 5, 6, 7, 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("All %v, want %v", got, want)
	}
	// Without a Join accepted in the window there is no race.
	if r := FindRace(append(events[:7:7], events[8:]...)); r.Core() != nil || r.All() != nil {
		t.Errorf("no race: %+v", r)
	}
}

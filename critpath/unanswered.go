package critpath

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/timedsim"
)

// Unanswered is the other side of a node that waited on its own timer:
// the requests it made in its rounds that were delivered and dropped in
// silence. A node that polls (a stabilize round, a retry) on the critical
// path waits out its period whenever the node it asked had something
// to tell it and did not: Chord's notifier whose Notify the successor
// ignores learns of the nearer node only at its next stabilize round, one
// round per node it walks past. The silent handler is the cause; the
// rounds are the repair.
type Unanswered struct {
	// Node is the waiting node; Timer the label of the timer it waited
	// on ("timer stabilize").
	Node  timedsim.NodeID
	Timer string
	// Rounds is the number of that timer's waits on the critical path,
	// Silent the number of those in which a request went unanswered.
	Rounds, Silent int
	// Steps are the deliveries of the unanswered requests, ascending:
	// the events of other nodes that received a message Node sent in a
	// round and sent no message at all.
	Steps []int
}

// MinSilentRounds is the fewest rounds with an unanswered request that
// FindUnanswered reports: a node that polled in vain again and again.
// One wait with a message nobody answered is no evidence that anybody
// owed an answer (a broadcast, a notification: an election's Announce);
// what the node did in that wait is the lead-in's (LeadIn).
const MinSilentRounds = 2

// maxUnansweredText bounds the deliveries Text names.
const maxUnansweredText = 2

// Text says it in a clause: "in 13 of its 16 waits on timer stabilize,
// n3's request went unanswered: Notify to n5, delivered at step 207
// (deliver Notify at 255.7 ms), sent nothing, …".
func (u Unanswered) Text(events []timedsim.TimedEvent) string {
	t := fmt.Sprintf("in %d of its %d waits on %s, %v's request went unanswered: ", u.Silent, u.Rounds, u.Timer, u.Node)
	for i, s := range u.Steps[:min(len(u.Steps), maxUnansweredText)] {
		if i > 0 {
			t += "; "
		}
		e := events[s]
		t += fmt.Sprintf("%s to %v, delivered at step %d (%s at %s), sent nothing", strings.TrimPrefix(e.Label, "deliver "), e.Node, s, e.Label, units.Duration(e.Start))
	}
	if len(u.Steps) > maxUnansweredText {
		t += fmt.Sprintf("; %d more", len(u.Steps)-maxUnansweredText)
	}
	return t
}

// Labels are the labels of the unanswered deliveries as phase 3b counts
// them (EventLabels), sorted, without duplicates.
func (u Unanswered) Labels(events []timedsim.TimedEvent) []string {
	set := map[string]bool{}
	for _, s := range u.Steps {
		for _, l := range EventLabels(events[s]) {
			set[l] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// FindUnanswered returns the unanswered requests of the node whose timer
// the path's longest wait was, and false when fewer than MinSilentRounds
// of its rounds had one (or the wait is not a timer's). A round is a wait
// of the same timer on the same node on the path: from the event that
// armed it to the firing.
// Its requests are the messages that the arming event and the events it
// led to on the node (through messages and timers, before the firing)
// sent to other nodes, but for replies (a message to the node whose
// message the sending handler was processing). A request is unanswered
// when it was delivered before the firing and its handler sent nothing.
func FindUnanswered(events []timedsim.TimedEvent, p *Path, wait Segment) (Unanswered, bool) {
	if len(p.Steps) == 0 || wait.Kind != Timer {
		return Unanswered{}, false
	}
	u := Unanswered{Node: wait.Node, Timer: wait.Label}
	for _, s := range p.Segments {
		if s.Kind != Timer || s.Node != wait.Node || s.Label != wait.Label || s.Cause < 0 {
			continue
		}
		u.Rounds++
		if silent := unansweredIn(events, wait.Node, s.Cause, s.End); len(silent) > 0 {
			u.Silent++
			u.Steps = append(u.Steps, silent...)
		}
	}
	if u.Silent < MinSilentRounds {
		return Unanswered{}, false
	}
	return u, true
}

// unansweredIn returns the deliveries, before end, of node's requests in
// the round that the event at step arm began, which sent nothing.
func unansweredIn(events []timedsim.TimedEvent, node timedsim.NodeID, arm int, end time.Duration) []int {
	in := map[int]bool{arm: true} // the round: arm and what it led to
	var out []int
	for j := arm + 1; j < len(events) && events[j].Start < end; j++ {
		e := events[j]
		if !in[e.Cause] {
			continue
		}
		in[j] = true
		if e.CauseSend < 0 {
			continue
		}
		c := events[e.Cause]
		if c.Node != node || e.Node == node || e.Node == c.From {
			continue // not a request of node's: someone else's, or a reply
		}
		if len(e.Sends) == 0 {
			out = append(out, j)
		}
	}
	return out
}

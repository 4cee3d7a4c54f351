package chord

import (
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// Race is where the buggy variant's join race happened in a recorded
// execution (timedsim.Options.Record): a node J, joining, answers a later
// joiner's Join as if it were a one-node ring. Tests and benchmarks use it
// to check that a divergence point is a step of the race.
type Race struct {
	// Accepts are the steps at which a joining node answers a Join.
	Accepts []int
	// Steps are the race's steps: for each accept, the journeys of the two
	// Joins that meet there — the joining node's own Join from the step
	// that sent it through every node that forwarded it to the step that
	// answered it, and the later joiner's Join from its send to the
	// accept — with both nodes' boot steps ("app start", "timer boot",
	// "timer start") and the accept itself. Sorted.
	Steps []int
}

// FindRace locates the join race in a recorded execution's events.
func FindRace(events []timedsim.TimedEvent) Race {
	var r Race
	// A node is joining from the first step that sends a Join of its own
	// (not a "deliver Join" forwarding another's) until it handles a
	// JoinReply; the bootstrap never is.
	joining := map[timedsim.NodeID]bool{}
	joined := map[timedsim.NodeID]bool{}
	for _, e := range events {
		switch {
		case e.Label == "deliver JoinReply":
			joined[e.Node] = true
			continue
		case e.Label != "deliver Join" && sends(e, -1, "Join") && !joined[e.Node]:
			joining[e.Node] = true
			continue
		}
		if e.Label != "deliver Join" || !joining[e.Node] || joined[e.Node] || !sends(e, -1, "JoinReply") {
			continue
		}
		// e.Node answers a Join while its own is pending: the race. The
		// later joiner is the JoinReply's addressee; e.From is the last
		// node its Join passed.
		r.Accepts = append(r.Accepts, e.Step)
		r.Steps = append(r.Steps, e.Step)
		r.Steps = append(r.Steps, boots(events, e.Node)...)
		r.Steps = append(r.Steps, journey(events, e.Step, e.Node)...)
		if s := lastSend(events, e.Step, e.From, e.Node, "Join"); s >= 0 {
			r.Steps = append(r.Steps, s)
		}
		for _, m := range e.Sends {
			if m.Type == "JoinReply" {
				r.Steps = append(r.Steps, boots(events, m.To)...)
				if s := lastSend(events, e.Step, m.To, -1, "Join"); s >= 0 {
					r.Steps = append(r.Steps, s)
				}
			}
		}
	}
	slices.Sort(r.Steps)
	r.Steps = slices.Compact(r.Steps)
	return r
}

// journey is node j's own Join before step at: the step that sent it, the
// steps that forwarded it, and the step that answered it with a JoinReply
// to j, following the message from node to node by its arrival.
func journey(events []timedsim.TimedEvent, at int, j timedsim.NodeID) []int {
	start := lastSend(events, at, j, -1, "Join")
	if start < 0 {
		return nil
	}
	out := []int{start}
	from, msg := events[start], "Join"
	for hops := 0; hops < len(events); hops++ {
		var next *timedsim.TimedEvent
		for _, s := range from.Sends {
			if s.Type != msg || s.Status != "sent" {
				continue
			}
			next = delivery(events, from.Step, from.Node, s)
			break
		}
		if next == nil {
			return out
		}
		out = append(out, next.Step)
		switch {
		case sends(*next, j, "JoinReply"):
			return out
		case sends(*next, -1, "Join"):
			from = *next // forwarded
		default:
			return out
		}
	}
	return out
}

// delivery is the first delivery after step of the message m sent by
// node from.
func delivery(events []timedsim.TimedEvent, step int, from timedsim.NodeID, m timedsim.SentMessage) *timedsim.TimedEvent {
	for i := step + 1; i < len(events); i++ {
		e := &events[i]
		if e.Node == m.To && e.From == from && e.Label == "deliver "+m.Type && e.Start >= m.Arrive {
			return e
		}
	}
	return nil
}

// lastSend is the last step before at on node from that sent a message of
// type typ to node to (any node when to < 0), -1 if none.
func lastSend(events []timedsim.TimedEvent, at int, from, to timedsim.NodeID, typ string) int {
	for i := min(at, len(events)) - 1; i >= 0; i-- {
		if events[i].Node == from && sends(events[i], to, typ) {
			return events[i].Step
		}
	}
	return -1
}

// sends says whether e sent a message of type typ to node to (any node
// when to < 0).
func sends(e timedsim.TimedEvent, to timedsim.NodeID, typ string) bool {
	for _, s := range e.Sends {
		if s.Type == typ && (to < 0 || s.To == to) {
			return true
		}
	}
	return false
}

// boots are node n's start-up steps.
func boots(events []timedsim.TimedEvent, n timedsim.NodeID) []int {
	var out []int
	for _, e := range events {
		if e.Node == n && (e.Label == "app start" || e.Label == "timer boot" || e.Label == "timer start") {
			out = append(out, e.Step)
		}
	}
	return out
}

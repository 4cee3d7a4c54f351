package timedsim

// EventKey is what makes two steps of two executions the same event for
// FirstDifferentEvent: the node that runs it, the sender of a delivered
// message (None otherwise) and the event's label.
type EventKey struct {
	Node, From NodeID
	Label      string
}

// FirstDifferentEvent is the first step at which executions a and b (each
// step's EventKey, in step order) run different events; the length of the
// shorter when one is a prefix of the other; -1 when they run the same
// events. Times, random draws, sends and states are not compared: two
// executions that share a prefix, as an anomaly and the walk that
// recovers from its divergence point do, differ first in the divergence
// step's own draws, and what a reader asks is where they part, the first
// step at which they run different events. The report's event graph and
// explore.html both mark this step.
func FirstDifferentEvent(a, b []EventKey) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

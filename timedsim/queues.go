package timedsim

// SendQueues is implemented by contexts that can tell a handler how full
// its reliable connections' send queues are, as Mace's transports can
// (Bullet′ asks whether a block fits before sending it, and schedules a
// timer to send it later if not). The simulator's Context implements it,
// and so do a Stack's layer contexts when the context they wrap does.
// Read it through SendQueue, which copes with contexts that do not.
type SendQueues interface {
	// QueueLen is the number of messages this node sent to `to` on the
	// named transport that have not been delivered yet: what the
	// transport's QueueCap bounds. It panics on an unknown transport, as
	// SendOn does.
	QueueLen(transport string, to NodeID) int
	// QueueCap is the capacity of the named transport's send queues, in
	// messages; negative means unbounded (and for a datagram transport).
	QueueCap(transport string) int
}

// SendQueue reports how many messages the node of ctx has queued to `to`
// on transport and the queue's capacity (negative: unbounded); ok is
// false when ctx cannot tell (a test's fake context that does not
// implement SendQueues).
func SendQueue(ctx Context, transport string, to NodeID) (queued, capacity int, ok bool) {
	q, ok := unwrapLayer(ctx).(SendQueues)
	if !ok {
		return 0, -1, false
	}
	return q.QueueLen(transport, to), q.QueueCap(transport), true
}

// Fits reports whether one more message to `to` on transport fits in the
// send queue now: a Send made at once would not fail with ErrQueueFull
// (unless the handler sends more to the same peer first). A context that
// cannot tell answers true.
func Fits(ctx Context, transport string, to NodeID) bool {
	n, c, ok := SendQueue(ctx, transport, to)
	return !ok || c < 0 || n < c
}

func (c *nodeCtx) transport(name string) int {
	if i, ok := c.s.trs.Index(name); ok {
		return i
	}
	panic("timedsim: no transport " + `"` + name + `"` + " in the scenario's network config")
}

// QueueLen implements SendQueues.
func (c *nodeCtx) QueueLen(transport string, to NodeID) int {
	if to < 0 || int(to) >= len(c.s.nodes) {
		panic("timedsim: QueueLen of nonexistent node " + itoa(int(to)))
	}
	if !c.alive() {
		return 0
	}
	return c.s.net.QueueLen(c.transport(transport), int(c.node), int(to))
}

// QueueCap implements SendQueues.
func (c *nodeCtx) QueueCap(transport string) int {
	return c.s.trs.QueueCap(c.transport(transport))
}

package timedsim

import "errors"

// A Context used after its handler returned (issue 28 item 15): a goroutine
// the handler started, or a Context the service kept and called from a
// later handler, reaches into the simulator while it runs something else,
// and its sends and timers would corrupt the event queue (an index out of
// range in SetTimer, in about half of the runs).
//
// The simulator hands out its Contexts in turn from a ring of ctxRing,
// each with an atomic state word that says whether its handler is running.
// A method called on a Context whose handler is not running does nothing
// (Send says ErrAfterReturn, the others return zero values), records the
// Context's state for the execution's result, and poisons the Context: the
// simulator never hands it out again but puts a new one in its place (the
// only allocation, once per kept Context), so that the goroutine can never
// reach a later handler's state through it. The execution runs to its end
// and is then Panicked with PanicInfo.AfterReturn, which names the handler
// the Context was handed to. A call after its execution ended changes no
// result, that execution's or a later one's (a result is its path's).
//
// The cost on the hot path: a compare-and-swap and an atomic swap of the
// state per handler, and an atomic load per Context call; nothing
// allocates. What it cannot see: a goroutine that calls the Context while
// its own handler still runs (a race with that handler, as any goroutine
// is), or whose first call after its handler returned comes exactly while
// the ctxRing-th later handler, which reuses the Context, runs; and a
// Stack's layer Context, which is re-aimed at every handler's Context, so
// that a kept layer Context reaches the running handler's.

// ctxRing is the number of Contexts a Simulator hands out in turn (a power
// of two).
const ctxRing = 64

// The state of a Context: bit 0 says its handler is running (ctxLive),
// bit 1 that it was used after its handler returned (ctxPoison), then the
// node (24 bits, netmodel.MaxNodes), the step (32 bits, modulo) and the
// execution (6 bits, modulo) it was handed to.
const (
	ctxLive      = 1
	ctxPoison    = 2
	ctxNodeShift = 2
	ctxNodeMask  = 1<<24 - 1
	ctxStepShift = 26
	ctxStepMask  = 1<<32 - 1
	ctxRunShift  = 58
	runMask      = 1<<(64-ctxRunShift) - 1
)

// ErrAfterReturn is what Send and SendOn return when called on a Context
// whose handler has returned: the message is not sent. The execution ends
// as Panicked, with PanicInfo.AfterReturn.
var ErrAfterReturn = errors.New("timedsim: Context used after its handler returned")

// ctxState is the state of the Context of the step about to run on node,
// with its handler not running.
func (s *Simulator) ctxState(node int32) uint64 {
	return s.runs.Load()<<ctxRunShift | uint64(uint32(s.steps))<<ctxStepShift | uint64(node)<<ctxNodeShift
}

func stateNode(st uint64) NodeID { return NodeID(st >> ctxNodeShift & ctxNodeMask) }

// handOut returns the Context of the step about to run, live with state if
// a handler runs (timed). A Context that a goroutine poisoned since its
// last handler is replaced.
func (s *Simulator) handOut(timed bool, state uint64) *nodeCtx {
	i := s.steps & (ctxRing - 1)
	c := s.ctxs[i]
	if timed && !c.state.CompareAndSwap(c.last, state|ctxLive) {
		if len(s.poisoned) < ctxRing {
			s.poisoned = append(s.poisoned, c) // for checkLate
		}
		c = &nodeCtx{s: s}
		s.ctxs[i] = c
		c.state.Store(state | ctxLive)
	}
	return c
}

// done ends c's handler: state is c's state with the handler not running.
// A poison that came while the handler ran (from a goroutine that read the
// state of c's previous handler) stays, and handOut's compare-and-swap
// with c.last then fails: c is never handed out again.
func (c *nodeCtx) done(state uint64) {
	c.last = state
	if c.state.Swap(state)&ctxPoison != 0 {
		c.state.Store(state | ctxPoison)
	}
}

// alive reports whether c's handler is running, so that a method of c may
// act on the simulator. If not, the Context is used after its handler
// returned: alive poisons it, records it for its execution's result, and
// the method does nothing. A Context of an execution abandoned by the
// watchdog ends its goroutine (abandoned).
func (c *nodeCtx) alive() bool {
	if st := c.state.Load(); st&ctxLive == 0 {
		c.state.Or(ctxPoison)
		c.s.recordLate(st)
		return false
	}
	c.abandoned()
	return true
}

// recordLate records the state st of a Context used after its handler
// returned for the execution it belongs to, if it is that execution's
// first. Each execution (modulo 64) has its own record, so that a
// goroutine that outlived its execution cannot stand in for a later one's
// (a goroutine may be descheduled anywhere for milliseconds).
func (s *Simulator) recordLate(st uint64) {
	s.late[st>>ctxRunShift].CompareAndSwap(0, st|ctxLive)
}

// checkLate ends res as Panicked if a Context of this execution was used
// after its handler returned before the execution ended (an earlier panic
// stays what it is); the PanicInfo names the handler the Context was
// handed to. A Context used after its execution ended changes no result,
// that execution's or a later one's: a result is its path's alone.
func (s *Simulator) checkLate(res *Result) {
	st := s.late[s.runs.Load()&runMask].Swap(0)
	if st == 0 || res.Outcome == Panicked || res.Outcome == Interrupted {
		return
	}
	step := int(st >> ctxStepShift & ctxStepMask)
	info := &PanicInfo{Where: inHandler, AfterReturn: true, Step: step, Node: stateNode(st),
		Value: "Context used after its handler returned: a goroutine the handler started, or a Context the service kept, called it later, and the call did nothing (a handler must make all its effects before it returns)"}
	// The Context's label, if the simulator still knows it.
	for _, c := range append(s.ctxs[:], s.poisoned...) {
		if uint32(c.step) == uint32(step) && c.node == int32(info.Node) {
			info.Step, info.Label = c.step, s.labels[c.label].name
		}
	}
	res.Outcome, res.Panic, res.ExecTime = Panicked, info, s.sc.Timeout
}

package timedsim

import (
	"errors"
	"time"
)

// A Context used after its handler returned: a goroutine
// the handler started, or a Context the service kept and called from a
// later handler, reaches into the simulator while it runs something else,
// and its sends and timers would corrupt the event queue (an index out of
// range in SetTimer, in about half of the runs).
//
// The check rides on the handler watchdog (Options.HandlerTimeout, which
// the pipeline and the command line always set): the simulator hands out
// its Contexts in turn from a ring of ctxRing, each with an atomic state
// word that says whether its handler is running and which handler of which
// execution it was handed to. The watchdog reads these words to tell a
// hung handler (it used a counter of its own before), so the check costs
// the watched simulator nothing more: a compare-and-swap when a handler
// starts and a swap when it returns, where the watchdog's counter took two
// atomic additions and a defer. An unwatched simulator (BenchmarkSimulator,
// a library caller's Options without HandlerTimeout) pays nothing and does
// not check, as it does not catch a handler that never returns either.
//
// A method called on a Context whose handler is not running does nothing
// (Send says ErrAfterReturn, the others return zero values) and poisons
// the Context: the simulator never hands it out again but puts a new one in
// its place (the only allocation, once per kept Context), so that the
// goroutine can never reach a later handler's state through it. The first
// such call records the Context for its execution, which runs to its end
// and is then Panicked with PanicInfo.AfterReturn, naming the handler the
// Context was handed to. A call after its execution ended changes no
// result, that execution's or a later one's (a result is its path's).
//
// What it cannot see: a goroutine that calls the Context while its own
// handler still runs (a race with that handler, as any goroutine is), or
// whose first call after its handler returned comes after the ctxRing-th
// later handler has the Context again (then while that handler runs it is
// not seen, and between handlers it is that handler's finding); and a
// Stack's layer Context, which is re-aimed at every handler's Context, so
// that a kept layer Context reaches the running handler's.

// ctxRing is the number of Contexts a Simulator hands out in turn (a power
// of two).
const ctxRing = 64

// The state of a Context: bit 0 says its handler is running (ctxLive),
// bit 1 that it was used after its handler returned (ctxPoison), bit 2
// that the watchdog watches its execution (ctxWatched), the next 5 bits
// are the execution it was last handed out in (modulo 32), which indexes
// Simulator.late, and the top 32 bits the step of its handler (modulo), by
// which the watchdog tells one handler from the next. An unwatched
// simulator's Contexts are always ctxLive.
const (
	ctxLive      = 1
	ctxPoison    = 2
	ctxWatched   = 4
	ctxRunShift  = 3
	runMask      = 1<<5 - 1
	ctxStepShift = 32
)

// ErrAfterReturn is what Send and SendOn return when called on a Context
// whose handler has returned: the message is not sent. The execution ends
// as Panicked, with PanicInfo.AfterReturn.
var ErrAfterReturn = errors.New("timedsim: Context used after its handler returned")

// enterWatched hands out c, the ring's Context for the step about to run,
// to a handler of a watched execution: it fills in what the handler and
// the watchdog read, then makes it live. A Context that a goroutine
// poisoned is replaced: the simulator never writes it again.
func (s *Simulator) enterWatched(c *nodeCtx, node, label int32, start, end time.Duration) *nodeCtx {
	old := c.state.Load()
	if old&ctxPoison != 0 {
		c, old = s.replaceCtx(), 0
	}
	c.node, c.label, c.start, c.end, c.step = node, label, start, end, s.steps
	c.name = s.labels[label].name
	if s.opts.Record {
		c.events = s.events
	}
	live := s.ctxDone | uint64(uint32(s.steps))<<ctxStepShift | ctxLive
	if !c.state.CompareAndSwap(old, live) { // poisoned since the load
		n := s.replaceCtx()
		n.node, n.label, n.start, n.end, n.step, n.name, n.events = c.node, c.label, c.start, c.end, c.step, c.name, c.events
		n.state.Store(live)
		c = n
	}
	return c
}

// replaceCtx puts a new Context in the ring's place of the step about to
// run.
func (s *Simulator) replaceCtx() *nodeCtx {
	c := &nodeCtx{s: s}
	s.ctxs[s.steps&(ctxRing-1)].Store(c)
	return c
}

// done ends c's handler, with the state ctxDone (Simulator.ctxDone). A
// poison that came while the handler ran (from a goroutine that read the
// state before the handler started) stays, and enterWatched replaces c.
func (c *nodeCtx) done(ctxDone uint64) {
	if c.state.Swap(ctxDone)&ctxPoison != 0 {
		c.state.Store(ctxDone | ctxPoison)
	}
}

// running returns the Context of the handler running, if any, and its
// state: what the watchdog samples.
func (s *Simulator) running() (*nodeCtx, uint64) {
	for i := range s.ctxs {
		c := s.ctxs[i].Load()
		if st := c.state.Load(); st&ctxLive != 0 {
			return c, st
		}
	}
	return nil, 0
}

// alive reports whether c's handler is running, so that a method of c may
// act on the simulator. If not, the Context is used after its handler
// returned: alive poisons it, records it for its execution's result, and
// the method does nothing. A Context of an execution abandoned by the
// watchdog ends its goroutine (abandoned). The fast path, an unwatched
// simulator, is small enough to be inlined into every Context method.
func (c *nodeCtx) alive() bool {
	if c.state.Load()&(ctxLive|ctxWatched) == ctxLive {
		return true
	}
	return c.slowAlive()
}

// slowAlive is alive under the watchdog. The first call that poisons a
// Context records it for the execution it was handed out in, if that
// execution has no record yet: each execution (modulo 32) has its own, so
// that a goroutine that outlived its execution cannot stand in for a later
// one's.
func (c *nodeCtx) slowAlive() bool {
	if st := c.state.Load(); st&ctxLive == 0 {
		if old := c.state.Or(ctxPoison); old&ctxPoison == 0 {
			c.s.late[old>>ctxRunShift&runMask].CompareAndSwap(nil, c)
		}
		return false
	}
	c.abandoned()
	return true
}

// checkLate ends res as Panicked if a Context of this execution was used
// after its handler returned before the execution ended (an earlier panic
// stays what it is); the PanicInfo names the handler the Context was
// handed to. A Context used after its execution ended changes no result,
// that execution's or a later one's: a result is its path's alone (unless
// the goroutine's first late call comes after its Context was handed out
// again, in a later execution: it is that one's finding).
func (s *Simulator) checkLate(res *Result) {
	c := s.late[s.runs&runMask].Swap(nil)
	if c == nil || res.Outcome == Panicked || res.Outcome == Interrupted {
		return
	}
	res.Outcome, res.ExecTime = Panicked, s.sc.Timeout
	res.Panic = &PanicInfo{Where: inHandler, AfterReturn: true, Step: c.step, Node: NodeID(c.node), Label: c.name,
		Value: "Context used after its handler returned: a goroutine the handler started, or a Context the service kept, called it later, and the call did nothing (a handler must make all its effects before it returns)"}
}

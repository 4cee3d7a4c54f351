package timedsim

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/macepc/macepc/internal/units"
)

// DefaultHandlerTimeout is the command line's handler watchdog
// (Options.HandlerTimeout): far beyond any handler that returns (they
// take micro- to milliseconds), so that it never fires in a normal run.
const DefaultHandlerTimeout = 10 * time.Second

// watch is the watchdog of one execution. What it knows of the handler
// running is the handler's Context (late.go): the simulating goroutine
// fills it in before it makes its state live, and the watchdog reads it
// after loading that state, so the atomic orders them.
type watch struct {
	abandoned atomic.Bool
}

// abandoned ends the goroutine of an abandoned execution, whose handler
// overran the watchdog and came back to the simulator (a send, a timer, a
// note…): nobody waits for its result, and its state is no longer the
// simulator's.
func (c *nodeCtx) abandoned() {
	if w := c.s.watch; w != nil && w.abandoned.Load() {
		runtime.Goexit()
	}
}

// runWatched is run on a goroutine of its own, which the calling one
// watches: a handler call that lasts HandlerTimeout or more (wall clock)
// ends the execution with Outcome Hung and the path to replay it. The
// handler's goroutine cannot be stopped: it is abandoned, ends when it
// next calls the simulator through its Context, and otherwise runs until
// the process ends (a loop that never calls it keeps a CPU busy). The
// Simulator is then unusable (Hung); the Explorer replaces it.
//
// body runs the execution (run, or a snapshot's fork or prefix).
func (s *Simulator) runWatched(p Path, body func() *Result) *Result {
	s.watch = &watch{}
	w := s.watch
	done := make(chan *Result, 1)
	go func() { done <- body() }()
	t := time.NewTicker(s.opts.HandlerTimeout)
	defer t.Stop()
	var last *nodeCtx
	var lastState uint64
	for {
		select {
		case r := <-done:
			return r
		case <-t.C:
			c, st := s.running()
			if c != nil && c == last && st == lastState { // the same handler for a whole period
				w.abandoned.Store(true)
				s.hung = true
				return s.hungResult(p, c)
			}
			last, lastState = c, st
		}
	}
}

// hungResult is the result of an execution whose handler, the one of
// Context c, overran the watchdog: its counts are not kept (the handler may
// still be changing them), its event log is the events before the handler.
func (s *Simulator) hungResult(p Path, c *nodeCtx) *Result {
	r := &Result{Path: p, Outcome: Hung, ExecTime: s.sc.Timeout, Steps: c.step, Counts: map[string]int{}, Composite: map[string]int{},
		Panic: &PanicInfo{Where: inHandler, Step: c.step, Node: NodeID(c.node), Label: c.name,
			Value: "did not return within " + units.Duration(s.opts.HandlerTimeout) + " (the handler watchdog, Options.HandlerTimeout)"}}
	if s.opts.CountWindow > 0 {
		r.WindowCounts, r.WindowComposite = map[string]int{}, map[string]int{}
	}
	if s.opts.Record {
		r.Events = append([]TimedEvent(nil), c.events...)
	}
	return r
}

package timedsim

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/macepc/macepc/internal/units"
)

// DefaultHandlerTimeout is the command line's handler watchdog
// (Options.HandlerTimeout): far beyond any handler that returns (they
// take micro- to milliseconds), so that it never fires in a normal run.
const DefaultHandlerTimeout = 10 * time.Second

// watch is what the watchdog knows of the handler running: written by the
// simulating goroutine before it increments seq (odd: in a handler), read
// by the watchdog after loading seq, so the atomic orders them.
type watch struct {
	seq       atomic.Uint64
	abandoned atomic.Bool
	step      int
	node      NodeID
	label     string
	events    []TimedEvent // the log before the handler (Record)
}

// enter and leave bracket a handler call when the watchdog is on.
func (s *Simulator) enter(node int32, label int32) {
	w := s.watch
	w.step, w.node, w.label, w.events = s.steps, NodeID(node), s.labels[label].name, s.events
	w.seq.Add(1)
}

func (s *Simulator) leave() { s.watch.seq.Add(1) }

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
func (s *Simulator) runWatched(ctx context.Context, p Path) *Result {
	s.watch = &watch{}
	w := s.watch
	done := make(chan *Result, 1)
	go func() { done <- s.run(ctx, p) }()
	t := time.NewTicker(s.opts.HandlerTimeout)
	defer t.Stop()
	last := uint64(0)
	for {
		select {
		case r := <-done:
			return r
		case <-t.C:
			v := w.seq.Load()
			if v%2 == 1 && v == last { // the same handler for a whole period
				w.abandoned.Store(true)
				s.hung = true
				return s.hungResult(p, w)
			}
			last = v
		}
	}
}

// hungResult is the result of an execution whose handler overran the
// watchdog: its counts are not kept (the handler may still be changing
// them), its event log is the events before the handler.
func (s *Simulator) hungResult(p Path, w *watch) *Result {
	r := &Result{Path: p, Outcome: Hung, ExecTime: s.sc.Timeout, Steps: w.step, Counts: map[string]int{}, Composite: map[string]int{},
		Panic: &PanicInfo{Where: inHandler, Step: w.step, Node: w.node, Label: w.label,
			Value: "did not return within " + units.Duration(s.opts.HandlerTimeout) + " (the handler watchdog, Options.HandlerTimeout)"}}
	if s.opts.CountWindow > 0 {
		r.WindowCounts, r.WindowComposite = map[string]int{}, map[string]int{}
	}
	if s.opts.Record {
		r.Events = append([]TimedEvent(nil), w.events...)
	}
	return r
}

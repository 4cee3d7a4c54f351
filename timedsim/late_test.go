package timedsim_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// leaker keeps its Context past its handler. On node 0,
// its "leak" timer's handler starts a goroutine that waits until the next
// tick's handler lets it use that handler's Context, and the tick waits
// for it: the goroutine calls the Context while the simulator runs
// another handler, every time (no sleeping, no luck). keep instead stores
// the Context and calls it from the next tick, on the simulator's own
// goroutine.
type leaker struct {
	id    timedsim.NodeID
	keep  bool
	ticks int
	kept  timedsim.Context
	go1   chan struct{} // the next tick lets the goroutine go
	done  chan error    // the goroutine's Send result
}

func (l *leaker) Init(ctx timedsim.Context) {
	if l.id == 0 {
		ctx.SetTimer("leak", time.Millisecond, nil)
		ctx.SetTimer("tick", 5*time.Millisecond, nil)
	}
}

func (l *leaker) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}

func (l *leaker) Timer(ctx timedsim.Context, name string, _ any) {
	switch {
	case name == "leak" && l.keep:
		l.kept = ctx
	case name == "leak":
		l.go1, l.done = make(chan struct{}), make(chan error, 1)
		go func() {
			<-l.go1
			ctx.SetTimer("late", time.Millisecond, nil)
			ctx.Note("late: kept the Context")
			ctx.Logf("late")
			_ = ctx.Now() + time.Duration(ctx.Rand().IntN(3))
			l.done <- ctx.Send(1, ping{})
		}()
	case name == "tick":
		l.ticks++
		if l.go1 != nil {
			close(l.go1)
			if err := <-l.done; !errors.Is(err, timedsim.ErrAfterReturn) {
				panic("the late Send returned " + errorString(err))
			}
			l.go1 = nil
		}
		if l.kept != nil {
			l.kept.SetTimer("late", time.Millisecond, nil)
			l.kept = nil
		}
		if l.ticks < 5 {
			ctx.SetTimer("tick", 5*time.Millisecond, nil)
		}
	case name == "late":
		panic("a late timer fired")
	}
}

func errorString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func leakerScenario(keep bool) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes:   2,
		New:     func(id timedsim.NodeID) timedsim.Service { return &leaker{id: id, keep: keep} },
		Stop:    func(w timedsim.World) bool { return w.Node(0).(*leaker).ticks >= 5 },
		Timeout: time.Second, Network: netmodel.DefaultConfig(),
	}
}

// Under the handler watchdog (the pipeline's default), a Context called
// after its handler returned, from a goroutine the handler started or from
// a later handler that kept it, does nothing (its Send says ErrAfterReturn,
// no timer is set, no message sent), and the execution ends as Panicked
// with AfterReturn, naming the handler the Context belonged to; the
// simulator runs the next execution as if nothing had happened.
func TestContextUsedAfterItsHandlerReturned(t *testing.T) {
	for _, c := range []struct {
		name string
		keep bool
	}{{"goroutine", false}, {"kept", true}} {
		t.Run(c.name, func(t *testing.T) {
			sim, err := timedsim.NewSimulator(leakerScenario(c.keep), timedsim.Options{Record: true, HandlerTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				r := sim.Run(timedsim.SeedPath(uint64(i)))
				p := r.Panic
				if r.Outcome != timedsim.Panicked || p == nil || !p.AfterReturn || p.Where != "handler" || p.Node != 0 || p.Label != "timer leak" ||
					!strings.HasPrefix(p.Value, "Context used after its handler returned") {
					t.Fatalf("execution %d: %v, %+v", i, r.Outcome, p)
				}
				if ev := r.Events[p.Step]; ev.Label != "timer leak" || ev.Node != 0 {
					t.Errorf("execution %d: the finding's step %d is %s on %v", i, p.Step, ev.Label, ev.Node)
				}
				// It ran to its end (5 ticks), and the late calls had no
				// effect: no late timer, no message, no note.
				if r.Counts["timer tick"] != 5 || r.Counts["timer late"] != 0 || r.Counts["deliver ping"] != 0 || r.ExecTime != time.Second {
					t.Errorf("execution %d: counts %v, exec time %v", i, r.Counts, r.ExecTime)
				}
				for _, ev := range r.Events {
					if len(ev.Notes) > 0 || len(ev.Logs) > 0 || len(ev.Sends) > 0 || (ev.Label == "timer tick" && len(ev.Timers) > 1) {
						t.Errorf("execution %d: a late call took effect at step %d: %+v", i, ev.Step, ev)
					}
				}
			}
		})
	}
}

// hammer: node 0 ticks every millisecond until its 100th tick; its first
// tick starts a goroutine that, once the second tick let it go and saw its
// first call, calls the first tick's Context without pause until the test
// ends, through this and the later executions on the simulator.
type hammer struct {
	id      timedsim.NodeID
	leak    bool
	ticks   int
	release chan struct{}
	called  chan struct{}
	quit    <-chan struct{}
	wg      *sync.WaitGroup
}

func (h *hammer) Init(ctx timedsim.Context) {
	if h.id == 0 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}

func (h *hammer) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}

func (h *hammer) Timer(ctx timedsim.Context, _ string, _ any) {
	h.ticks++
	switch {
	case h.ticks == 1 && h.leak:
		h.release, h.called = make(chan struct{}), make(chan struct{})
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			<-h.release
			for i := 0; ; i++ {
				ctx.SetTimer("late", time.Millisecond, nil)
				ctx.CancelTimer("tick")
				ctx.Send(1, ping{})
				ctx.Note("late: kept the Context")
				ctx.TimerPending("tick")
				if i == 0 {
					close(h.called)
				}
				select {
				case <-h.quit:
					return
				default:
				}
			}
		}()
	case h.ticks == 2 && h.leak:
		close(h.release)
		<-h.called
	}
	if h.ticks < 100 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}

// Under the watchdog, goroutines that keep calling a handler's Context,
// during the rest of its execution and the later ones on the simulator,
// neither crash it (before: an index out of range in SetTimer in about
// half of the runs) nor change what it computes: every execution is what
// it is without them, but for the finding in the executions that started
// them.
func TestContextHammeredByGoroutinesCannotCrash(t *testing.T) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(quit); wg.Wait() }()
	leak := false // whether the next execution starts a goroutine
	scenario := func(leaks *bool) *timedsim.Scenario {
		return &timedsim.Scenario{
			Nodes: 2,
			New: func(id timedsim.NodeID) timedsim.Service {
				return &hammer{id: id, leak: *leaks, quit: quit, wg: &wg}
			},
			Stop:    func(w timedsim.World) bool { return w.Node(0).(*hammer).ticks >= 100 },
			Timeout: time.Second, Network: netmodel.DefaultConfig(),
		}
	}
	never := false
	clean, err := timedsim.NewSimulator(scenario(&never), timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(scenario(&leak), timedsim.Options{HandlerTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		want := clean.Run(timedsim.SeedPath(uint64(i)))
		leak = i%4 == 0 // a new goroutine, on a simulator whose Contexts the earlier ones keep
		r := sim.Run(timedsim.SeedPath(uint64(i)))
		if leak {
			if r.Outcome != timedsim.Panicked || !r.Panic.AfterReturn || r.Panic.Step != 2 || r.Panic.Node != 0 || r.Panic.Label != "timer tick" {
				t.Fatalf("execution %d, which started a goroutine: %v %+v", i, r.Outcome, r.Panic)
			}
			continue
		}
		if r.Outcome != want.Outcome || r.Steps != want.Steps || r.ExecTime != want.ExecTime || r.Panic != nil {
			t.Fatalf("execution %d: %v in %d steps, %v (%+v); without the goroutines %v in %d steps, %v", i, r.Outcome, r.Steps, r.ExecTime, r.Panic, want.Outcome, want.Steps, want.ExecTime)
		}
	}
}

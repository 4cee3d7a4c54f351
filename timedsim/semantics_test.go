package timedsim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

var bothSemantics = []timedsim.Semantics{timedsim.Requeue, timedsim.Paper}

// constEDD: every event takes exactly 1 ms, except the scaled labels.
func constEDD(t *testing.T, label string, factor float64) timedsim.Options {
	return timedsim.Options{EDD: slowEDD(t, label, factor), Record: true}
}

// §2.2 with Requeue: messages waiting for a busy node keep their arrival
// order, also against a message on the same connection that arrives exactly
// when the node becomes free (per-connection FIFO end to end).
func TestBusyNodeKeepsConnectionFIFO(t *testing.T) {
	net := netmodel.Config{Latency: 1} // 1 ns Pareto scale: ties at the busy node's clock are common
	for _, sem := range bothSemantics {
		for seed := uint64(1); seed <= 60; seed++ {
			var order []int
			sc := &timedsim.Scenario{
				Nodes: 2,
				New: func(id timedsim.NodeID) timedsim.Service {
					sent := 0
					return &scripted{id: id,
						onApp: func(s *scripted, ctx timedsim.Context, name string, _ any) {
							if name == "send" {
								sent++
								ctx.Send(1, Num{sent})
								ctx.SetTimer("again", 0, nil)
							}
						},
						onTimer: func(s *scripted, ctx timedsim.Context, name string) {
							sent++
							ctx.Send(1, Num{sent})
						}}
				},
				Driver: func(d *timedsim.Driver) {
					d.App(time.Millisecond, 0, "send", nil)
					d.App(time.Millisecond+1, 1, "slow", nil) // busy while the messages arrive
				},
				Stop: func(w timedsim.World) bool {
					order = w.Node(1).(*scripted).nums
					return len(order) == 2
				},
				Timeout: time.Second,
				Network: net,
			}
			opts := constEDD(t, "app slow", 2)
			opts.Semantics = sem
			r := newSim(t, sc, opts).Run(timedsim.SeedPath(seed))
			if !r.Finished || order[0] != 1 || order[1] != 2 {
				t.Fatalf("%v seed %d: %v, node 1 received %v", sem, seed, r.Outcome, order)
			}
		}
	}
}

// A node that keeps re-arming a zero-delay timer cannot starve a message
// that is waiting for it: waiting events run before events that arrive
// exactly when the node is free.
func TestZeroDelayTimerDoesNotStarveWaitingMessage(t *testing.T) {
	polls := 0
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: func(id timedsim.NodeID) timedsim.Service {
			return &scripted{id: id,
				onApp: func(s *scripted, ctx timedsim.Context, name string, _ any) {
					if name == "send" {
						ctx.Send(1, Num{1})
					} else {
						ctx.SetTimer("poll", 0, nil)
					}
				},
				onTimer: func(s *scripted, ctx timedsim.Context, name string) {
					polls++
					ctx.SetTimer("poll", 0, nil)
				}}
		},
		Driver: func(d *timedsim.Driver) {
			d.App(0, 1, "poll", nil)
			d.App(0, 0, "send", nil)
		},
		Stop:    func(w timedsim.World) bool { return len(w.Node(1).(*scripted).nums) == 1 },
		Timeout: 10 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, constEDD(t, "*", 1)).Run(timedsim.SeedPath(1))
	if !r.Finished || r.ExecTime > 20*time.Millisecond || polls > 20 {
		t.Fatalf("%v after %v and %d polls: the message waited behind the zero-delay timer", r.Outcome, r.ExecTime, polls)
	}
}

// Timers of a busy node fire in the order of their scheduled times.
func TestDeferredTimersFireInTimeOrder(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 1,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			if name == "arm" {
				for i := 9; i >= 0; i-- { // set in reverse time order
					ctx.SetTimer(string(rune('a'+i)), time.Duration(i)*time.Millisecond, nil)
				}
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "arm", nil)
			d.App(2*time.Millisecond, 0, "slow", nil) // busy 2ms..102ms: all timers wait
		},
		Stop:    func(w timedsim.World) bool { return len(w.Node(0).(*scripted).got) == 1+10 },
		Timeout: time.Second,
		Network: netmodel.DefaultConfig(),
	}
	for _, sem := range bothSemantics {
		opts := constEDD(t, "app slow", 100)
		opts.Semantics = sem
		var fired []string
		for _, e := range newSim(t, sc, opts).Run(timedsim.SeedPath(1)).Events {
			if strings.HasPrefix(e.Label, "timer ") {
				fired = append(fired, e.Label[len("timer "):])
			}
		}
		if strings.Join(fired, "") != "abcdefghij" {
			t.Fatalf("%v: timers fired in order %v", sem, fired)
		}
	}
}

// Driver faults happen at their scheduled time, whatever node is busy: a
// partition due at 100 ms while node 0 is busy until 1 s runs at 100 ms.
func TestFaultsRunAtTheirTime(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 3,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			if name == "hello" {
				ctx.Send(2, Num{1})
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 1, "hello", nil)
			d.App(10*time.Millisecond, 0, "slow", nil)
			d.Partition(100*time.Millisecond, []timedsim.NodeID{2})
			d.Heal(200 * time.Millisecond)
		},
		Stop:    func(w timedsim.World) bool { return w.Now() > 2*time.Second },
		Timeout: 5 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	for _, sem := range bothSemantics {
		opts := constEDD(t, "app slow", 1000)
		opts.Semantics = sem
		r := newSim(t, sc, opts).Run(timedsim.SeedPath(1))
		for _, e := range r.Events {
			switch e.Label {
			case "partition":
				if e.Start != 100*time.Millisecond || e.Node != timedsim.None {
					t.Fatalf("%v: partition ran at %v on %v", sem, e.Start, e.Node)
				}
			case "heal":
				if e.Start != 200*time.Millisecond {
					t.Fatalf("%v: heal ran at %v", sem, e.Start)
				}
			case "error broken":
				if e.Start > 102*time.Millisecond+time.Millisecond && e.Node == 1 {
					t.Fatalf("%v: node 1 learned of the partition at %v", sem, e.Start)
				}
			}
		}
		if r.Counts["error broken"] != 2 {
			t.Fatalf("%v: counts %v", sem, r.Counts)
		}
	}
}

// A reset of a busy node happens at its time, and the fresh service runs
// Init before any message reaches it, in both semantics.
func TestResetOfBusyNodeInitsFirst(t *testing.T) {
	for _, sem := range bothSemantics {
		var got1 []string
		sc := &timedsim.Scenario{
			Nodes: 2,
			New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
				if name == "send" {
					ctx.Send(1, Num{1})
				}
			}),
			Driver: func(d *timedsim.Driver) {
				d.App(10*time.Millisecond, 1, "slow", nil) // busy until 1.01 s
				d.Reset(100*time.Millisecond, 1)
				d.App(150*time.Millisecond, 0, "send", nil)
			},
			Stop: func(w timedsim.World) bool {
				got1 = w.Node(1).(*scripted).got
				return len(got1) == 2
			},
			Timeout: 5 * time.Second,
			Network: netmodel.DefaultConfig(),
		}
		opts := constEDD(t, "app slow", 1000)
		opts.Semantics = sem
		r := newSim(t, sc, opts).Run(timedsim.SeedPath(1))
		if !r.Finished || got1[0] != "init" || !strings.HasPrefix(got1[1], "n0:") {
			t.Fatalf("%v: %v, fresh node 1 saw %v", sem, r.Outcome, got1)
		}
		if r.ExecTime > 200*time.Millisecond {
			t.Fatalf("%v: the fresh node waited for the old incarnation's busy time (exec %v)", sem, r.ExecTime)
		}
	}
}

// Under Paper semantics too, no event starts after the timeout.
func TestPaperSemanticsRespectsTimeout(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {}),
		Driver: func(d *timedsim.Driver) {
			for i := 0; i < 100; i++ {
				d.App(time.Duration(i)*time.Millisecond, 0, "slow", nil) // 100 x 100 ms of work queued by 0.1 s
			}
		},
		Stop:    func(w timedsim.World) bool { return false },
		Timeout: time.Second,
		Network: netmodel.DefaultConfig(),
	}
	for _, sem := range bothSemantics {
		opts := constEDD(t, "app slow", 100)
		opts.Semantics = sem
		r := newSim(t, sc, opts).Run(timedsim.SeedPath(1))
		for _, e := range r.Events {
			if e.Start > time.Second {
				t.Fatalf("%v: step %d starts at %v, after the 1 s timeout", sem, e.Step, e.Start)
			}
		}
		if r.Outcome != timedsim.TimedOut || r.Counts["app slow"] != 10 {
			t.Fatalf("%v: %v with %d slow events, want timed-out after 10", sem, r.Outcome, r.Counts["app slow"])
		}
	}
}

// With CheckEvery > 1 the stopping condition is still evaluated on the
// final state before an execution is declared stalled.
func TestCheckEveryChecksTheFinalState(t *testing.T) {
	for _, k := range []int{1, 5, 7, 1000} {
		sc := pingpong.Scenario(2, 10)
		sc.CheckEvery = k
		r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
		if !r.Finished || r.ExecTime > time.Second {
			t.Fatalf("CheckEvery=%d: %v, exec %v", k, r.Outcome, r.ExecTime)
		}
	}
}

// StopTime is the end of the event after which the stopping condition held,
// not the end of an unrelated long handler running on another node.
func TestStopTimeIsTheDecisiveEventsEnd(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {}),
		Driver: func(d *timedsim.Driver) {
			d.App(5*time.Millisecond, 1, "slow", nil)  // 5 ms .. 1.005 s
			d.App(10*time.Millisecond, 0, "done", nil) // 10 ms .. 11 ms
		},
		Stop:    func(w timedsim.World) bool { return len(w.Node(0).(*scripted).got) == 1 && w.Steps() == 4 },
		Timeout: 5 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, constEDD(t, "app slow", 1000)).Run(timedsim.SeedPath(1))
	if !r.Finished || r.ExecTime != 11*time.Millisecond || r.EndTime != 1005*time.Millisecond {
		t.Fatalf("%v exec %v end %v, want exec 11ms, end 1.005s", r.Outcome, r.ExecTime, r.EndTime)
	}
}

// Panics in user code outside handlers are findings too, with the place.
func TestPanicsOutsideHandlersAreAttributed(t *testing.T) {
	base := func() *timedsim.Scenario { return pingpong.Scenario(2, 3) }
	cases := map[string]func(sc *timedsim.Scenario){
		"constructor": func(sc *timedsim.Scenario) {
			sc.New = func(id timedsim.NodeID) timedsim.Service { panic("no node for you") }
		},
		"driver": func(sc *timedsim.Scenario) {
			sc.Driver = func(d *timedsim.Driver) { d.App(-time.Second, 0, "x", nil) }
		},
		"stopping condition": func(sc *timedsim.Scenario) {
			sc.Stop = func(w timedsim.World) bool { panic("stop") }
		},
	}
	for where, mutate := range cases {
		sc := base()
		mutate(sc)
		sim := newSim(t, sc, timedsim.Options{Record: true})
		r := sim.Run(timedsim.SeedPath(1))
		wantNode := timedsim.None
		if where == "constructor" {
			wantNode = 0 // the node being constructed
		}
		if r.Outcome != timedsim.Panicked || r.Panic.Where != where || r.Panic.Node != wantNode || r.Panic.Label != "" {
			t.Fatalf("%s: outcome %v panic %+v", where, r.Outcome, r.Panic)
		}
	}
}

// A cancelled context interrupts even an execution that never ends, and an
// interrupted execution is never reported as finished — even when the
// stopping condition happens to hold at the interruption but was not yet
// evaluated (CheckEvery).
func TestRunContextInterrupts(t *testing.T) {
	cases := map[string]struct {
		cancelAt int // step at which a property cancels the context; 0: before the run
		every    int
		stopAt   int // Stop holds from this step on; 0: never
	}{
		"before the run, never ending": {0, 1, 0},
		"mid-run, stop unevaluated":    {8150, 10000, 8100},
	}
	for name, c := range cases {
		ctx, cancel := context.WithCancel(context.Background())
		sc := pingpong.Scenario(2, -1)
		sc.Timeout = 1000 * time.Hour
		sc.CheckEvery = c.every
		sc.Stop = func(w timedsim.World) bool { return c.stopAt > 0 && w.Steps() >= c.stopAt }
		sc.Safety = []timedsim.Property{{Name: "cancel", Check: func(w timedsim.World) bool {
			if w.Steps() >= c.cancelAt {
				cancel()
			}
			return true
		}}}
		if c.cancelAt == 0 {
			cancel()
		}
		r := newSim(t, sc, timedsim.Options{CheckSafety: true}).RunContext(ctx, timedsim.SeedPath(1))
		if r.Outcome != timedsim.Interrupted {
			t.Fatalf("%s: outcome %v after %d steps", name, r.Outcome, r.Steps)
		}
	}
}

// A reset node's fresh service runs Init before anything else, even events
// due at the reset instant; then (Requeue) the events that waited for the
// old incarnation, in their arrival order; then later ones. Under Paper
// semantics nothing waits: the old incarnation ran a and b.
func TestResetOrdersInitThenWaitingThenNew(t *testing.T) {
	want := map[timedsim.Semantics]string{
		timedsim.Requeue: "init,a,b,same-instant,later",
		timedsim.Paper:   "init,same-instant,later",
	}
	for _, sem := range bothSemantics {
		var seen []string
		sc := &timedsim.Scenario{
			Nodes: 2,
			New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
				s.got = append(s.got, name)
			}),
			Driver: func(d *timedsim.Driver) {
				d.App(10*time.Millisecond, 1, "slow", nil) // old incarnation busy 10..110 ms
				d.App(20*time.Millisecond, 1, "a", nil)    // waits
				d.App(30*time.Millisecond, 1, "b", nil)    // waits
				d.Reset(50*time.Millisecond, 1)
				d.App(50*time.Millisecond, 1, "same-instant", nil)
				d.App(70*time.Millisecond, 1, "later", nil)
			},
			Stop: func(w timedsim.World) bool {
				seen = w.Node(1).(*scripted).got
				return len(seen) > 0 && seen[len(seen)-1] == "later"
			},
			Timeout: time.Second,
			Network: netmodel.DefaultConfig(),
		}
		opts := constEDD(t, "app slow", 100)
		opts.Semantics = sem
		r := newSim(t, sc, opts).Run(timedsim.SeedPath(1))
		if got := strings.Join(seen, ","); !r.Finished || got != want[sem] {
			t.Fatalf("%v: %v, fresh node 1 saw %s", sem, r.Outcome, got)
		}
	}
}

// A handler still running when its node is reset does not get its sends
// out: the datagram it would send at its end, after the crash, is lost.
func TestSendsOfACrashedHandlerAreLost(t *testing.T) {
	net := netmodel.DefaultConfig()
	net.Transports = append(net.Transports, netmodel.TransportConfig{Name: "udp", Kind: netmodel.Datagram})
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			ctx.SendOn("udp", 0, Num{1})
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(10*time.Millisecond, 1, "slow", nil) // would send at 110 ms
			d.Reset(50*time.Millisecond, 1)
			d.App(200*time.Millisecond, 1, "fast", nil) // sends at 201 ms
		},
		Stop:    func(w timedsim.World) bool { return w.Now() > 500*time.Millisecond },
		Timeout: time.Second,
		Network: net,
	}
	r := newSim(t, sc, constEDD(t, "app slow", 100)).Run(timedsim.SeedPath(1))
	if got := r.Counts["deliver Num"]; got != 1 {
		t.Fatalf("%d datagrams delivered, want 1 (the crashed handler's is lost)", got)
	}
}

// Paper semantics: a node whose work runs past the timeout does not end the
// execution while other nodes can still finish the task.
func TestPaperTimeoutIsPerEvent(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) { s.got = append(s.got, name) }),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "slow", nil) // node 0 busy until 30 s
			d.App(time.Second, 0, "x", nil)
			d.App(2*time.Second, 1, "done", nil)
		},
		Stop:    func(w timedsim.World) bool { return len(w.Node(1).(*scripted).got) == 2 },
		Timeout: 20 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	for _, sem := range bothSemantics {
		opts := constEDD(t, "app slow", 30000)
		opts.Semantics = sem
		r := newSim(t, sc, opts).Run(timedsim.SeedPath(1))
		if !r.Finished || r.ExecTime != 2*time.Second+time.Millisecond {
			t.Fatalf("%v: %v at %v, want finished at 2.001s", sem, r.Outcome, r.ExecTime)
		}
	}
}

// A driver that partitions a nonexistent node is a driver bug, reported as
// such (not as a handler panic).
func TestBadPartitionIsADriverPanic(t *testing.T) {
	sc := pingpong.Scenario(2, 3)
	sc.Driver = func(d *timedsim.Driver) { d.Partition(time.Second, []timedsim.NodeID{5}) }
	r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	if r.Outcome != timedsim.Panicked || r.Panic.Where != "driver" || !strings.Contains(r.Panic.Value, "out of range") {
		t.Fatalf("outcome %v panic %+v", r.Outcome, r.Panic)
	}
}

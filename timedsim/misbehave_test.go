package timedsim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Misbehaving protocols: what the simulator does when a
// handler never returns, allocates without bound, sends a million
// messages, sends to a node that does not exist, or sets a negative or
// zero timer.

// rogue runs behave on its first timer ("go") on node 1; other nodes
// and events do nothing.
type rogue struct {
	id     timedsim.NodeID
	behave func(ctx timedsim.Context)
	got    int             // messages delivered
	fired  map[string]bool // timers fired
}

type ping struct{}

func (ping) Size() int { return 0 }

func (r *rogue) Init(ctx timedsim.Context) {
	if r.id == 1 {
		ctx.SetTimer("go", time.Millisecond, nil)
	}
}
func (r *rogue) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) { r.got++ }
func (r *rogue) Timer(ctx timedsim.Context, name string, _ any) {
	r.fired[name] = true
	if name == "go" {
		r.behave(ctx)
	}
}

// rogueScenario stops when node 1 has fired three timers or node 2 got a
// million messages.
func rogueScenario(behave func(ctx timedsim.Context)) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: 3,
		New: func(id timedsim.NodeID) timedsim.Service {
			return &rogue{id: id, behave: behave, fired: map[string]bool{}}
		},
		Stop: func(w timedsim.World) bool {
			return len(w.Node(1).(*rogue).fired) >= 3 || w.Node(2).(*rogue).got == 1_000_000
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
}

func runRogue(t *testing.T, timeout time.Duration, behave func(ctx timedsim.Context)) *timedsim.Result {
	t.Helper()
	sim, err := timedsim.NewSimulator(rogueScenario(behave), timedsim.Options{HandlerTimeout: timeout, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Run(timedsim.SeedPath(7))
}

// A handler that never returns ends the execution with Outcome Hung at
// its step, like a panic, and the explorer goes on with new simulators.
func TestHungHandlerIsAFinding(t *testing.T) {
	forever := func(ctx timedsim.Context) {
		for {
			ctx.Now() // an abandoned handler ends at its next call into the simulator
		}
	}
	r := runRogue(t, 20*time.Millisecond, forever)
	if r.Outcome != timedsim.Hung || r.Panic == nil || r.Panic.Node != 1 || r.Panic.Label != "timer go" || !strings.Contains(r.Panic.Value, "did not return within 20 ms") {
		t.Fatalf("outcome %v, panic %+v", r.Outcome, r.Panic)
	}
	if r.Panic.Step != len(r.Events) || r.Steps != r.Panic.Step || r.ExecTime != time.Minute {
		t.Errorf("step %d, %d events before it, steps %d, exec time %v", r.Panic.Step, len(r.Events), r.Steps, r.ExecTime)
	}
	// The same path hangs at the same step: the finding replays.
	if again := runRogue(t, 20*time.Millisecond, forever); again.Outcome != timedsim.Hung || again.Panic.Step != r.Panic.Step {
		t.Errorf("replay: %v at step %d", again.Outcome, again.Panic.Step)
	}
	ex := &timedsim.Explorer{Scenario: rogueScenario(forever), Options: timedsim.Options{HandlerTimeout: 20 * time.Millisecond}, Jobs: 2}
	rs, done, err := ex.Run(context.Background(), timedsim.Work{N: 5, Path: timedsim.Seeded(1), Keep: true})
	if err != nil || done != 5 {
		t.Fatalf("explorer: %d done, %v", done, err)
	}
	for i, r := range rs {
		if r.Outcome != timedsim.Hung {
			t.Errorf("execution %d: %v", i, r.Outcome)
		}
	}
}

// A handler allocating without bound is a handler that does not return:
// the watchdog ends it before it exhausts memory (at the rate it
// allocates, for the watchdog's time), and frees it when the handler
// next calls the simulator. An allocation too large for memory at once
// kills the process: Go cannot recover from running out of memory.
func TestUnboundedAllocationIsCaughtByTheWatchdog(t *testing.T) {
	r := runRogue(t, 20*time.Millisecond, func(ctx timedsim.Context) {
		var keep [][]byte
		for {
			keep = append(keep, make([]byte, 1<<16))
			if len(keep) > 1<<12 { // 256 MiB kept at most, whatever the machine's speed
				keep = keep[:0]
			}
			ctx.Now()
		}
	})
	if r.Outcome != timedsim.Hung {
		t.Fatalf("outcome %v", r.Outcome)
	}
}

// A million sends in one handler are no special case: the transport's
// send queue takes what it holds and refuses the rest with ErrQueueFull,
// as a real socket buffer would; the execution delivers what was queued
// and ends as usual.
func TestAMillionSends(t *testing.T) {
	refused := 0
	sim, err := timedsim.NewSimulator(rogueScenario(func(ctx timedsim.Context) {
		for range 1_000_000 {
			if err := ctx.Send(2, ping{}); errors.Is(err, timedsim.ErrQueueFull) {
				refused++
			}
		}
	}), timedsim.Options{HandlerTimeout: timedsim.DefaultHandlerTimeout})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(7))
	delivered := r.Counts["deliver ping"]
	if r.Outcome != timedsim.Stalled || refused == 0 || delivered+refused != 1_000_000 {
		t.Fatalf("outcome %v, %d delivered, %d refused", r.Outcome, delivered, refused)
	}
}

// A send to a node that does not exist is a bug of the protocol: a panic
// finding at that step, with the node and message named.
func TestSendToNonexistentNodeIsAPanicFinding(t *testing.T) {
	r := runRogue(t, time.Second, func(ctx timedsim.Context) { ctx.Send(99, ping{}) })
	if r.Outcome != timedsim.Panicked || r.Panic.Node != 1 || !strings.Contains(r.Panic.Value, "nonexistent node 99") {
		t.Fatalf("outcome %v, panic %+v", r.Outcome, r.Panic)
	}
}

// A negative timer is a zero timer; both fire when the handler that set
// them ends, and a zero timer set again forever still lets simulated time
// advance by the handlers' durations, so the execution times out.
func TestZeroAndNegativeTimers(t *testing.T) {
	sc := rogueScenario(func(ctx timedsim.Context) {
		ctx.SetTimer("neg", -time.Second, nil)
		ctx.SetTimer("zero", 0, nil)
	})
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(3))
	var goEnd time.Duration
	fired := map[string]time.Duration{}
	for _, e := range r.Events {
		switch e.Label {
		case "timer go":
			goEnd = e.Start + e.Duration
		case "timer neg", "timer zero":
			fired[e.Label] = e.Start
		}
	}
	if len(fired) != 2 || fired["timer neg"] < goEnd || fired["timer zero"] < goEnd {
		t.Fatalf("go ended at %v, timers fired %v", goEnd, fired)
	}

	spin := &timedsim.Scenario{Nodes: 1, Timeout: time.Second, Network: netmodel.DefaultConfig(),
		New:  func(id timedsim.NodeID) timedsim.Service { return &rearm{} },
		Stop: func(timedsim.World) bool { return false }}
	sim, err = timedsim.NewSimulator(spin, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := sim.Run(timedsim.SeedPath(1)); r.Outcome != timedsim.TimedOut || r.Steps < 2 {
		t.Fatalf("a zero timer set forever: %v after %d steps", r.Outcome, r.Steps)
	}
}

type rearm struct{}

func (*rearm) Init(ctx timedsim.Context)                                   { ctx.SetTimer("t", 0, nil) }
func (*rearm) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (*rearm) Timer(ctx timedsim.Context, _ string, _ any)                 { ctx.SetTimer("t", 0, nil) }

// The watchdog leaves every execution whose handlers return exactly as
// it is without it.
func TestWatchdogDoesNotChangeResults(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Hour} {
		ex := &timedsim.Explorer{Scenario: gossipScenario(6), Options: timedsim.Options{HandlerTimeout: timeout}, Jobs: 2}
		rs, _, err := ex.Run(context.Background(), timedsim.Work{N: 20, Path: timedsim.Seeded(5), Keep: true})
		if err != nil {
			t.Fatal(err)
		}
		ref, _, _ := (&timedsim.Explorer{Scenario: gossipScenario(6), Jobs: 1}).Run(context.Background(), timedsim.Work{N: 20, Path: timedsim.Seeded(5), Keep: true})
		for i := range rs {
			if rs[i].ExecTime != ref[i].ExecTime || rs[i].Steps != ref[i].Steps || rs[i].Outcome != ref[i].Outcome {
				t.Errorf("timeout %v, execution %d: %v/%d vs %v/%d", timeout, i, rs[i].ExecTime, rs[i].Steps, ref[i].ExecTime, ref[i].Steps)
			}
		}
	}
}

// leaky keeps a counter shared by every execution (a package variable in
// a real protocol): the executions are not pure functions of their paths.
type leaky struct{ shared *int }

func (l *leaky) Init(ctx timedsim.Context) {
	*l.shared++
	ctx.SetTimer("t", time.Duration(*l.shared%3+1)*time.Millisecond, nil)
}
func (*leaky) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (*leaky) Timer(timedsim.Context, string, any)                         {}

// CheckDeterminism runs each execution twice and fails on a difference;
// a deterministic protocol passes.
func TestCheckDeterminism(t *testing.T) {
	ex := &timedsim.Explorer{Scenario: gossipScenario(5), Jobs: 2, CheckDeterminism: true}
	if _, done, err := ex.Run(context.Background(), timedsim.Work{N: 20, Path: timedsim.Seeded(1)}); err != nil || done != 20 {
		t.Fatalf("gossip: %d done, %v", done, err)
	}
	shared := 0
	sc := &timedsim.Scenario{Nodes: 1, Timeout: time.Second, Network: netmodel.DefaultConfig(),
		New:  func(timedsim.NodeID) timedsim.Service { return &leaky{shared: &shared} },
		Stop: func(timedsim.World) bool { return false }}
	ex = &timedsim.Explorer{Scenario: sc, Jobs: 1, CheckDeterminism: true}
	_, _, err := ex.Run(context.Background(), timedsim.Work{N: 5, Path: timedsim.Seeded(1)})
	if !errors.Is(err, timedsim.ErrNondeterministic) || !strings.Contains(err.Error(), "execution 0 differs when run again") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("leaky: %v", err)
	}
}

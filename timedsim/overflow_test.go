package timedsim_test

import (
	"math"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Durations near the end of time: a what-if factor of
// 1e20 on a handler, an EDD whose durations are edd.MaxDuration, a timer
// set math.MaxInt64 ahead. Before, the node clock wrapped around to a
// negative time and the execution finished early (a 492.5 ms median where
// a factor of 1e15 gave timeouts).

type hello struct{}

func (hello) Size() int { return 10 }

type reply struct{}

func (reply) Size() int { return 10 }

// greeter: node 0 says hello to node 1 at Init and sets a timer "late"
// `after` ahead; node 1 replies. The execution finishes when node 0 has
// the reply, or when "late" fires.
type greeter struct {
	id          timedsim.NodeID
	after       time.Duration
	replied, ok bool
}

func (g *greeter) Init(ctx timedsim.Context) {
	if g.id == 0 {
		ctx.Send(1, hello{})
		ctx.SetTimer("late", g.after, nil)
	}
}

func (g *greeter) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	switch m.(type) {
	case hello:
		ctx.Send(from, reply{})
	case reply:
		g.replied = true
	}
}

func (g *greeter) Timer(timedsim.Context, string, any) { g.ok = true }

func greeterScenario(nodes int, after time.Duration) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return &greeter{id: id, after: after} },
		Stop: func(w timedsim.World) bool {
			g := w.Node(0).(*greeter)
			return g.replied || g.ok
		},
		Timeout: 300 * time.Second, Network: netmodel.DefaultConfig(),
	}
}

func TestDurationsNearTheEndOfTimeDoNotWrap(t *testing.T) {
	run := func(t *testing.T, sc *timedsim.Scenario, opts timedsim.Options) *timedsim.Result {
		t.Helper()
		sim, err := timedsim.NewSimulator(sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		return sim.Run(timedsim.SeedPath(1))
	}
	for _, factor := range []float64{1e15, 1e20, 1e300} {
		set := edd.NewSet(edd.DefaultSeed())
		if err := set.Scale("deliver hello", factor); err != nil {
			t.Fatal(err)
		}
		r := run(t, greeterScenario(2, time.Hour), timedsim.Options{EDD: set})
		if r.Outcome != timedsim.TimedOut || r.ExecTime != 300*time.Second {
			t.Errorf("deliver hello=%g: %v in %v, want a timeout: the reply leaves 100 years after the hello", factor, r.Outcome, r.ExecTime)
		}
		for _, c := range r.NodeClocks {
			if c < 0 {
				t.Errorf("deliver hello=%g: node clocks %v", factor, r.NodeClocks)
			}
		}
	}
	// A timer set beyond the end of time never fires; without it the
	// reply finishes the execution as usual.
	r := run(t, greeterScenario(2, math.MaxInt64), timedsim.Options{})
	if r.Outcome != timedsim.Finished || r.Counts["timer late"] != 0 || r.ExecTime > time.Second {
		t.Errorf("a timer math.MaxInt64 ahead: %v in %v, %v", r.Outcome, r.ExecTime, r.Counts)
	}
	// Every Init lasts edd.MaxDuration: the average of three such clocks is
	// edd.MaxDuration (their sum does not fit a Duration).
	set := edd.NewSet(edd.Uniform{Min: edd.MaxDuration, Max: edd.MaxDuration})
	sc := greeterScenario(3, time.Hour)
	sc.Timeout = edd.MaxDuration
	sc.Stop = func(w timedsim.World) bool { return w.Steps() >= 3 }
	r = run(t, sc, timedsim.Options{EDD: set, ExecTime: timedsim.AvgClock})
	if r.Outcome != timedsim.Finished || r.ExecTime != edd.MaxDuration {
		t.Errorf("three Inits of edd.MaxDuration: %v, average clock %d, want %d", r.Outcome, r.ExecTime, edd.MaxDuration)
	}
	// A time that saturated is past any timeout, even math.MaxInt64: a
	// timer set again and again math.MaxInt64 ahead does not run forever
	// at the end of time.
	sc = &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return &forever{} },
		Stop: func(timedsim.World) bool { return false }, Timeout: math.MaxInt64, Network: netmodel.DefaultConfig()}
	r = run(t, sc, timedsim.Options{MaxSteps: 1000})
	if r.Outcome != timedsim.TimedOut || r.Steps != 2 {
		t.Errorf("timers at the end of time, timeout math.MaxInt64: %v after %d steps", r.Outcome, r.Steps)
	}
}

// forever sets its timer math.MaxInt64 ahead, again and again.
type forever struct{}

func (forever) Init(ctx timedsim.Context)                                   { ctx.SetTimer("t", math.MaxInt64, nil) }
func (forever) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (forever) Timer(ctx timedsim.Context, _ string, _ any)                 { ctx.SetTimer("t", math.MaxInt64, nil) }

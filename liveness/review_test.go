package liveness

import (
	"context"
	"strings"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// Two message types that describe alike must not make two states hash
// alike: node 0 sends mA(1) or mB(1) (timers a and b cancel each other);
// the safety property "n1 never got an mB" must be found with hashing on.
type mA int
type mB int

func (mA) Size() int { return 1 }
func (mB) Size() int { return 1 }

type typeNode struct{ GotB bool }

func (n *typeNode) Init(ctx timedsim.Context) {
	if ctx.Self() == 0 {
		ctx.SetTimer("a", 0, nil)
		ctx.SetTimer("b", 0, nil)
	}
}
func (n *typeNode) Deliver(_ timedsim.Context, _ timedsim.NodeID, m timedsim.Message) {
	if _, ok := m.(mB); ok {
		n.GotB = true
	}
}
func (n *typeNode) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "a" {
		ctx.CancelTimer("b")
		ctx.Send(1, mA(1))
	} else {
		ctx.CancelTimer("a")
		ctx.Send(1, mB(1))
	}
}

func TestHashKeepsMessageTypes(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   func(timedsim.NodeID) timedsim.Service { return &typeNode{} },
		Safety: []timedsim.Property{{Name: "no-b", Check: func(w timedsim.World) bool {
			return !w.Node(1).(*typeNode).GotB
		}}},
		Liveness: []timedsim.Property{always},
	}
	rep, err := Run(context.Background(), Config{Scenario: sc, Depth: 3, MaxDepth: 3, DMax: 10, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation == nil || rep.Violation.Property != "no-b" {
		t.Fatalf("violation %+v, end %s, stats %+v", rep.Violation, rep.End, rep.Stats)
	}
}

// Init's randomness belongs to the initial state: a critical-transition
// probe at prefix 0 must not re-draw it. A node decides in Init whether it
// will ever be live; the dead path is then dead from the start (C2), not
// at step 0 with a live path that has another initial state.
type coinNode struct {
	Good  bool
	Ticks int
}

func (n *coinNode) Init(ctx timedsim.Context) {
	n.Good = ctx.Rand().IntN(2) == 1
	ctx.SetTimer("t", 0, nil)
}
func (n *coinNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *coinNode) Timer(ctx timedsim.Context, _ string, _ any) {
	n.Ticks++
	ctx.SetTimer("t", 0, nil)
}

func TestCriticalKeepsInitialState(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 1,
		New:   func(timedsim.NodeID) timedsim.Service { return &coinNode{} },
		Liveness: []timedsim.Property{{Name: "good", Check: func(w timedsim.World) bool {
			return w.Node(0).(*coinNode).Good
		}}},
	}
	dead := 0
	for seed := uint64(1); seed <= 20; seed++ {
		rep, err := Run(context.Background(), Config{Scenario: sc, Seed: seed, Depth: 2, MaxDepth: 2, DMax: 20, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Violation == nil {
			continue
		}
		dead++
		if c := rep.Critical; c == nil || c.Class != C2 {
			t.Errorf("seed %d: critical %+v, want C2 (dead from the initial state)", seed, c)
		}
	}
	if dead == 0 {
		t.Fatal("no seed drew a dead initial state")
	}
}

// A state space that only cycles, with no live state: with hashing every
// DFS sequence ends in a duplicate and no walk runs, yet the search must
// report the liveness violation (it did report "exhausted").
type toggler struct{ On bool }

func (n *toggler) Init(ctx timedsim.Context)                                   { ctx.SetTimer("t", 0, nil) }
func (n *toggler) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *toggler) Timer(ctx timedsim.Context, _ string, _ any) {
	n.On = !n.On
	ctx.SetTimer("t", 0, nil)
}

func TestCyclingDeadSpace(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes:    1,
		New:      func(timedsim.NodeID) timedsim.Service { return &toggler{} },
		Liveness: []timedsim.Property{{Name: "never", Check: func(timedsim.World) bool { return false }}},
	}
	for _, hashing := range []bool{true, false} {
		rep, err := Run(context.Background(), Config{Scenario: sc, Depth: 3, MaxDepth: 3, DMax: 10, Jobs: 1, NoHashing: !hashing})
		if err != nil {
			t.Fatal(err)
		}
		if v := rep.Violation; v == nil || v.Kind != KindLiveness || v.Property != "never" {
			t.Errorf("hashing=%v: end %s, violation %+v", hashing, rep.End, v)
		}
	}
	// A cycling space with a live state is not a violation.
	sc.Liveness = []timedsim.Property{{Name: "on", Check: func(w timedsim.World) bool { return w.Node(0).(*toggler).On }}}
	rep, err := Run(context.Background(), Config{Scenario: sc, Depth: 3, MaxDepth: 3, DMax: 10, Jobs: 1})
	if err != nil || rep.Violation != nil {
		t.Errorf("live cycle: %v %+v", err, rep.Violation)
	}
}

// When the state before the critical step is itself live, the live path
// has no alternative step to show: the diff is then of the states before
// and after the critical event, never an empty diff with the dead event
// as the "live" one.
type trapTimerNode struct {
	Dead  bool
	Ticks int
}

func (n *trapTimerNode) Init(ctx timedsim.Context) {
	ctx.SetTimer("tick", 0, nil)
	ctx.SetTimer("trap", 0, nil)
}
func (n *trapTimerNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *trapTimerNode) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "trap" {
		n.Dead = true
		return
	}
	n.Ticks++
	ctx.SetTimer("tick", 0, nil)
}

func TestCriticalDiffNeverEmpty(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 1,
		New:   func(timedsim.NodeID) timedsim.Service { return &trapTimerNode{} },
		Liveness: []timedsim.Property{{Name: "alive", Check: func(w timedsim.World) bool {
			return !w.Node(0).(*trapTimerNode).Dead
		}}},
	}
	c1 := 0
	for seed := uint64(1); seed <= 11; seed++ {
		rep, err := Run(context.Background(), Config{Scenario: sc, Seed: seed, Depth: 1, MaxDepth: 1, DMax: 30, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Critical
		if c == nil || c.Class != C1 {
			continue
		}
		c1++
		if len(c.Diff) == 0 || c.LiveEvent == c.DeadEvent || !strings.Contains(c.DeadEvent, "trap") {
			t.Errorf("seed %d: critical step %d, dead %q, live %q, diff %v", seed, c.Step, c.DeadEvent, c.LiveEvent, c.Diff)
		}
	}
	if c1 == 0 {
		t.Fatal("no C1 case")
	}
}

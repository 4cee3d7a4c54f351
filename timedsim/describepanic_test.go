package timedsim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// noState ticks five times; its Describe panics from its second tick
// on, with a line break in the panic.
type noState struct{ ticks int }

func (n *noState) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", time.Millisecond, nil) }
func (n *noState) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *noState) Timer(ctx timedsim.Context, _ string, _ any) {
	if n.ticks++; n.ticks < 5 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}

func (n *noState) Describe() string {
	if n.ticks >= 2 {
		panic("no state\n# forged")
	}
	return "fine"
}

// In the timed simulator, a Describe that panics while
// states are recorded neither crashes the run nor changes its outcome
// (the search, which records nothing, and the replay must agree), but it
// is located, Result.DescribePanic, and the event log says so on one
// line (before: only the state's text, "<Describe panicked: …>", with its
// line break as it was).
func TestDescribePanicIsLocatedNotTheOutcome(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return &noState{} }, Timeout: time.Second, Network: netmodel.DefaultConfig(),
		Stop: func(w timedsim.World) bool { return w.Node(1).(*noState).ticks == 5 }}
	plain := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	if plain.DescribePanic != nil {
		t.Fatalf("an execution that describes no state has a Describe panic: %+v", plain.DescribePanic)
	}
	for _, states := range []bool{false, true} {
		r := newSim(t, sc, timedsim.Options{Record: true, RecordStates: states}).Run(timedsim.SeedPath(1))
		p := r.DescribePanic
		if r.Outcome != plain.Outcome || r.Steps != plain.Steps || p == nil || p.Where != "Describe" || p.Value != `no state\n# forged` || p.Stack == "" {
			t.Fatalf("states %v: outcome %v (plain %v), steps %d (%d), panic %+v", states, r.Outcome, plain.Outcome, r.Steps, plain.Steps, p)
		}
		if !states && p.Step != r.Steps-1 {
			t.Errorf("final states: step %d, want %d", p.Step, r.Steps-1)
		}
		if states {
			// The first state described after a delivery.
			first := -1
			for _, e := range r.Events {
				if strings.HasPrefix(e.State, "<Describe panicked: ") {
					first = e.Step
					if e.Node != p.Node {
						t.Errorf("node %v, the event's %v", p.Node, e.Node)
					}
					break
				}
			}
			if p.Step != first || first < 0 {
				t.Errorf("step %d, first state that panicked at %d", p.Step, first)
			}
		}
		log := eventLog(t, r)
		want := "# " + p.Node.String() + "'s Describe panicked on its state after step "
		if !strings.Contains(log, want) || strings.Contains(log, "\n# forged") {
			t.Errorf("the event log lacks %q or has a forged line:\n%s", want, log)
		}
	}
}

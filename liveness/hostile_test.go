package liveness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// Issue 28, items 13 and 14: a Describe that panics or is not
// deterministic.

// ticker ticks (a timer) until it has ticked three times; its state is
// live then. Its Describe panics once Ticks reaches boom (never if boom
// is negative).
type ticker struct {
	Ticks int
	boom  int
}

func (n *ticker) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", time.Millisecond, nil) }
func (n *ticker) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *ticker) Timer(ctx timedsim.Context, _ string, _ any) {
	n.Ticks++
	if n.Ticks < 3 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}
func (n *ticker) Describe() string {
	if n.boom >= 0 && n.Ticks >= n.boom {
		var m map[string]int
		m["x"] = n.Ticks // assignment to entry in nil map
	}
	return fmt.Sprintf("ticks=%d", n.Ticks)
}

var ticked = timedsim.Property{Name: "ticked", Check: func(w timedsim.World) bool {
	for i := range w.Nodes() {
		if w.Node(timedsim.NodeID(i)).(*ticker).Ticks < 3 {
			return false
		}
	}
	return true
}}

func tickerScenario(nodes, boom int) *timedsim.Scenario {
	return &timedsim.Scenario{Nodes: nodes, New: func(timedsim.NodeID) timedsim.Service { return &ticker{boom: boom} }, Liveness: []timedsim.Property{ticked}}
}

// Item 13: a Describe that panics is a panic finding at the step whose
// state it describes, with a path whose replay and trace end in it; not
// a liveness violation because every state described alike (before: the
// ticker that panics from its first state was "dead", all its states
// duplicates of the first). The DFS finds it when hashing; without state
// hashing, nothing describes the states of the search, but a violation's
// path that passes through such a state is the Describe's panic (here
// a safety property that fails at the third tick, after the panic); so
// is a random walk's dead path that passes a state beyond the DFS's
// bound (here with a liveness property that never holds).
func TestDescribePanicIsAFinding(t *testing.T) {
	const want = "Describe panicked: assignment to entry in nil map"
	fewTicks := timedsim.Property{Name: "few ticks", Check: func(w timedsim.World) bool { return w.Node(0).(*ticker).Ticks < 3 }}
	for _, c := range []struct {
		name      string
		nodes     int
		boom      int
		noHashing bool
		depth     int
		step      int
		node      string
	}{
		{"always", 1, 0, false, 3, -1, "n0"},
		{"second tick", 2, 2, false, 3, 1, "n0"},
		{"second tick, no hashing", 2, 2, true, 3, 1, "n0"},
		{"third tick, past the bound", 1, 3, false, 2, 2, "n0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := tickerScenario(c.nodes, c.boom)
			if c.noHashing {
				sc.Safety = []timedsim.Property{fewTicks}
			}
			if c.depth < 3 {
				sc.Liveness = []timedsim.Property{{Name: "never", Check: func(timedsim.World) bool { return false }}}
			}
			cfg := Config{Scenario: sc, Depth: c.depth, MaxDepth: c.depth, DMax: 20, Jobs: 1, NoHashing: c.noHashing}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Violation
			if v == nil || v.Kind != KindPanic || !strings.Contains(v.Panic, c.node+": "+want) || v.Step != c.step || v.Path.Steps != c.step+1 {
				t.Fatalf("violation %+v", v)
			}
			lines, err := Replay(cfg, v.Path)
			if err != nil {
				t.Fatal(err)
			}
			end := fmt.Sprintf("# end after %d steps: panic: %s: %s", c.step+1, c.node, want)
			if !slices.Contains(lines, end) {
				t.Fatalf("the replay does not end in the panic %q:\n%s", end, strings.Join(lines, "\n"))
			}
			tr, err := TracePath(cfg, v.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tr.End, "panic: "+c.node+": "+want) || len(tr.Steps) != c.step+1 {
				t.Fatalf("trace end %q after %d steps", tr.End, len(tr.Steps))
			}
		})
	}
	// The level division finds it too, at the same step.
	cfg := Config{Scenario: tickerScenario(2, 2), Depth: 3, MaxDepth: 3, DMax: 20, Jobs: 2, LevelDivision: true, SplitDepth: 2}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Violation; v == nil || v.Kind != KindPanic || !strings.Contains(v.Panic, want) || v.Step != 1 {
		t.Fatalf("level division: violation %+v", v)
	}
	// A Describe that never panics leaves the search as it was.
	rep, err = Run(context.Background(), Config{Scenario: tickerScenario(2, -1), Depth: 3, MaxDepth: 3, DMax: 20, Jobs: 1})
	if err != nil || rep.Violation != nil || len(rep.Warnings) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
}

// mapped keeps a set of keys in a map and describes it in the map's
// order: Go's random iteration order.
type mapped struct {
	ticker
	Keys map[int]bool
}

func (n *mapped) Timer(ctx timedsim.Context, name string, data any) {
	n.ticker.Timer(ctx, name, data)
	n.Keys[n.Ticks] = true
}

func (n *mapped) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ticks=%d", n.Ticks)
	for k := range n.Keys {
		fmt.Fprintf(&b, " %d", k)
	}
	return b.String()
}

func mappedScenario(nodes int) *timedsim.Scenario {
	keys := map[int]bool{}
	for k := 10; k < 20; k++ {
		keys[k] = true
	}
	return &timedsim.Scenario{Nodes: nodes, Liveness: []timedsim.Property{{Name: "ticked", Check: func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if w.Node(timedsim.NodeID(i)).(*mapped).Ticks < 3 {
				return false
			}
		}
		return true
	}}}, New: func(timedsim.NodeID) timedsim.Service {
		n := &mapped{ticker: ticker{boom: -1}, Keys: map[int]bool{}}
		for k := range keys {
			n.Keys[k] = true
		}
		return n
	}}
}

// Item 14: a Describe whose text follows a map's order is not a pure
// function of the state. The search says so, once, naming the node and
// the two texts; a deterministic Describe gets no warning (above). The
// map has ten entries, so that two calls give one order with a chance of
// a few percent at most, and the search checks far more states than it
// takes to see two orders.
func TestNondeterministicDescribeIsWarned(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		rep, err := Run(context.Background(), Config{Scenario: mappedScenario(2), Depth: 3, MaxDepth: 6, DMax: 20, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "'s Describe is not deterministic: two calls on the same state gave different text (a map iterated in Go's random order?)") {
			t.Fatalf("jobs %d: warnings %q", jobs, rep.Warnings)
		}
	}
}

package liveness_test

import (
	"context"
	"fmt"
	"log"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/timedsim"
)

// trap ticks forever; its third tick arms a "trap" timer, and once the
// trap fires the node is dead.
type trap struct {
	Count int
	Dead  bool
}

func (n *trap) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", 0, nil) }
func (n *trap) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *trap) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "trap" {
		n.Dead = true
		return
	}
	n.Count++
	ctx.SetTimer("tick", 0, nil)
	if n.Count == 3 {
		ctx.SetTimer("trap", 0, nil)
	}
}

// A search for a dead state and its critical transition: the node must
// eventually have ticked 5 times without being trapped. The exhaustive
// search springs the trap (random walks, weighted away from it, never
// do), the walk from there never becomes live, and the critical-transition
// search finds the step that sprang it, with the state diff against a
// live path.
func Example() {
	sc := &timedsim.Scenario{
		Nodes: 1,
		New:   func(timedsim.NodeID) timedsim.Service { return &trap{} },
		Liveness: []timedsim.Property{{Name: "five-ticks", Check: func(w timedsim.World) bool {
			n := w.Node(0).(*trap)
			return n.Count >= 5 && !n.Dead
		}}},
	}
	rep, err := liveness.Run(context.Background(), liveness.Config{
		Scenario: sc, Depth: 5, MaxDepth: 5, DMax: 50, Jobs: 1,
		Weights: map[string]int{"timer trap": 0},
	})
	if err != nil {
		log.Fatal(err)
	}
	v, c := rep.Violation, rep.Critical
	fmt.Println(v.Kind, v.Property, "violated; DFS choices", v.Path.Choices)
	fmt.Printf("%s: critical step %d: %s (live path: %s)\n", c.Class, c.Step, c.DeadEvent, c.LiveEvent)
	for _, d := range c.Diff {
		fmt.Printf("n%d:\n", d.Node)
		for _, l := range d.Lines {
			fmt.Println(l)
		}
	}
	// Output:
	// liveness five-ticks violated; DFS choices [0 0 0 0 1]
	// C1: critical step 4: n0 timer trap (live path: n0 timer tick)
	// n0:
	// -trap{Count:4 Dead:true}
	// +trap{Count:5 Dead:false}
	//  timer tick
	// +timer trap
}

// waiter is a node of a protocol that waits forever for a crashed peer:
// node 0 pings node 1 at Init and is done when the pong comes back, with
// no timeout and no retry.
type waiter struct{ Done bool }

type pingMsg struct{}
type pongMsg struct{}

func (pingMsg) Size() int { return 1 }
func (pongMsg) Size() int { return 1 }

func (n *waiter) Init(ctx timedsim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, pingMsg{})
	}
}
func (n *waiter) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	if _, ping := m.(pingMsg); ping {
		ctx.Send(from, pongMsg{})
		return
	}
	n.Done = true
}
func (n *waiter) Timer(timedsim.Context, string, any) {}

// A crash-stop (Config.Crashes) stops a node for good. The liveness
// property is written over the nodes that are up (timedsim.Crashed): a
// crashed node 0 has nothing left to wait for. Node 0 waiting forever for
// a crashed node 1 is a dead state, and the crash is its critical
// transition.
func Example_crashStop() {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   func(timedsim.NodeID) timedsim.Service { return &waiter{} },
		Liveness: []timedsim.Property{{Name: "done", Check: func(w timedsim.World) bool {
			return timedsim.Crashed(w, 0) || w.Node(0).(*waiter).Done
		}}},
	}
	rep, err := liveness.Run(context.Background(), liveness.Config{Scenario: sc, Depth: 2, MaxDepth: 2, DMax: 20, Jobs: 1, Crashes: 1})
	if err != nil {
		log.Fatal(err)
	}
	v, c := rep.Violation, rep.Critical
	fmt.Println(v.Kind, v.Property, "violated; DFS choices", v.Path.Choices)
	fmt.Printf("%s: critical step %d: %s (live path: %s)\n", c.Class, c.Step, c.DeadEvent, c.LiveEvent)
	for _, d := range c.Diff {
		fmt.Printf("n%d:\n", d.Node)
		for _, l := range d.Lines {
			fmt.Println(l)
		}
	}
	// Output:
	// liveness done violated; DFS choices [0 2]
	// C1: critical step 1: n1 crash (live path: n0 deliver pongMsg from n1 pongMsg{})
	// n0:
	// -waiter{Done:false}
	// +waiter{Done:true}
	// n1:
	//  waiter{Done:false}
	// -crashed for good
}

// A search that stopped at a violation in its first iteration has no
// depth searched to its end, and says so instead of "depth 0".
func ExampleSearchedText() {
	fmt.Println(liveness.SearchedText(0, 5))
	fmt.Println(liveness.SearchedText(4, 5))
	// Output:
	// no depth bound searched to its end (the search stopped in the iteration to depth 5)
	// depth 4 searched to its end
}

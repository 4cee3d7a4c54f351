package liveness

import (
	"github.com/macepc/macepc/timedsim"
)

// Synthetic systems for the tests. Their state is rendered by
// timedsim.Describe's field walk.

// msg is a named message.
type msg struct{ Name string }

func (msg) Size() int { return 1 }

// logNode records the messages it receives; fifoSystem's node 0 sends A
// then B to node 1 at Init, node 1 sends C to node 0.
type logNode struct {
	Got []string
}

func (n *logNode) Init(ctx timedsim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, msg{"A"})
		ctx.Send(1, msg{"B"})
	} else {
		ctx.Send(0, msg{"C"})
	}
}
func (n *logNode) Deliver(_ timedsim.Context, _ timedsim.NodeID, m timedsim.Message) {
	n.Got = append(n.Got, m.(msg).Name)
}
func (n *logNode) Timer(timedsim.Context, string, any) {}

var always = timedsim.Property{Name: "always", Check: func(timedsim.World) bool { return true }}

// fifoSystem: 2 nodes, 3 messages, nothing else; every state is live.
func fifoSystem() *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes:    2,
		New:      func(timedsim.NodeID) timedsim.Service { return &logNode{} },
		Liveness: []timedsim.Property{always},
	}
}

// adder has two timers that never stop: "a" adds 1, "b" adds 2. The same
// sum is reached by sequences of different lengths.
type adder struct{ Sum int }

func (n *adder) Init(ctx timedsim.Context) {
	ctx.SetTimer("a", 0, nil)
	ctx.SetTimer("b", 0, nil)
}
func (n *adder) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *adder) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "a" {
		n.Sum++
	} else {
		n.Sum += 2
	}
	ctx.SetTimer(name, 0, nil)
}

func adderSystem() *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes:    1,
		New:      func(timedsim.NodeID) timedsim.Service { return &adder{} },
		Liveness: []timedsim.Property{always},
	}
}

// trapNode ticks forever; its third tick arms a "trap" timer whose firing
// makes the node dead. Live: at least Need ticks and not dead. With the
// trap's weight 0 random walks never fire it, so the dead point of a path
// is exactly the step where it fires.
type trapNode struct {
	Count int
	Dead  bool
}

func (n *trapNode) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", 0, nil) }
func (n *trapNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *trapNode) Timer(ctx timedsim.Context, name string, _ any) {
	switch name {
	case "tick":
		n.Count++
		ctx.SetTimer("tick", 0, nil)
		if n.Count == 3 {
			ctx.SetTimer("trap", 0, nil)
		}
	case "trap":
		n.Dead = true
	}
}

// trapSystem: nodes trap nodes, live when every node has ticked need
// times and none is dead.
func trapSystem(nodes, need int) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(timedsim.NodeID) timedsim.Service { return &trapNode{} },
		Liveness: []timedsim.Property{{Name: "ticked", Check: func(w timedsim.World) bool {
			for i := range w.Nodes() {
				n := trapOf(w.Node(timedsim.NodeID(i)))
				if n.Dead || n.Count < need {
					return false
				}
			}
			return true
		}}},
	}
}

// trapOf is a trap node's state, whether the node is a trapNode or a
// cloneTrap.
func trapOf(svc timedsim.Service) *trapNode {
	if c, ok := svc.(*cloneTrap); ok {
		return &c.trapNode
	}
	return svc.(*trapNode)
}

// trapWeights keeps random walks away from the trap.
func trapWeights() map[string]int { return map[string]int{"timer trap": 0} }

// rareTrap is a search of 5 trap nodes whose DFS is too shallow to fire a
// trap, and whose random walks fire one rarely: with seed 1, walk 92 (of
// 125) is the first dead one, its trap firing in the random part.
func rareTrap() Config {
	return Config{Scenario: trapSystem(5, 3), Depth: 3, MaxDepth: 3, DMax: 100, Seed: 1, NoHashing: true,
		Weights: map[string]int{"timer trap": 1, "timer tick": 1000}}
}

package realnet_test

import (
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Token is a test-only system whose bug only a global predicate sees: a
// token passes round a ring of nodes; in the buggy variant a node passing
// it keeps holding it until the receiver acknowledges, so for a while two
// nodes hold the token at once. Every node's own log is plausible ("I
// held it until I knew it had arrived"); only all nodes' states together
// show two holders, and they do in every run, whatever the timing: the
// receiver takes the token before its acknowledgement can reach the
// sender.

type tokenMsg struct{ Hops int }

func (tokenMsg) Size() int { return 64 }

type ackMsg struct{}

func (ackMsg) Size() int { return 64 }

type tokenNode struct {
	id      timedsim.NodeID
	buggy   bool
	holding bool
	hops    int
}

const tokenHops = 12

func (n *tokenNode) Init(ctx timedsim.Context) {
	if n.id == 0 {
		n.holding = true
		ctx.SetTimer("pass", time.Millisecond, nil)
	}
}

func (n *tokenNode) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case tokenMsg:
		n.holding, n.hops = true, m.Hops
		if n.buggy {
			ctx.Send(from, ackMsg{})
		}
		if m.Hops < tokenHops {
			ctx.SetTimer("pass", time.Millisecond, nil)
		}
	case ackMsg:
		n.holding = false
	}
}

func (n *tokenNode) Timer(ctx timedsim.Context, name string, _ any) {
	next := (n.id + 1) % timedsim.NodeID(ctx.Nodes())
	ctx.Send(next, tokenMsg{Hops: n.hops + 1})
	if !n.buggy {
		n.holding = false
	}
}

func tokenScenario(nodes int, buggy bool) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return &tokenNode{id: id, buggy: buggy} },
		Stop: func(w timedsim.World) bool {
			for i := range w.Nodes() {
				if w.Node(timedsim.NodeID(i)).(*tokenNode).hops >= tokenHops {
					return true
				}
			}
			return false
		},
		Safety: []timedsim.Property{{Name: "one-holder", Check: func(w timedsim.World) bool {
			k := 0
			for i := range w.Nodes() {
				if w.Node(timedsim.NodeID(i)).(*tokenNode).holding {
					k++
				}
			}
			return k <= 1
		}}},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
}

// wallNode is a test-only nondeterministic protocol: a ping-pong whose
// pinger, from its third Pong on, arms a lease timer with an absolute
// wall-clock instant where a delay was meant. A replay, which runs later,
// arms it with a later instant: it departs from the trace at the first
// such event.
type wallNode struct {
	id    timedsim.NodeID
	pongs int
}

type ping struct{}

func (ping) Size() int { return 64 }

type pong struct{}

func (pong) Size() int { return 64 }

const wallRounds = 6

func (n *wallNode) Init(ctx timedsim.Context) {
	if n.id%2 == 0 && int(n.id)+1 < ctx.Nodes() {
		ctx.Send(n.id+1, ping{})
	}
}

func (n *wallNode) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	switch msg.(type) {
	case ping:
		ctx.Send(from, pong{})
	case pong:
		n.pongs++
		if n.pongs >= 3 {
			ctx.SetTimer("lease", time.Duration(time.Now().UnixNano()), nil) // the bug: wall clock
		}
		if n.pongs < wallRounds {
			ctx.Send(from, ping{})
		}
	}
}

func (n *wallNode) Timer(timedsim.Context, string, any) {}

func wallScenario(nodes int) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return &wallNode{id: id} },
		Stop: func(w timedsim.World) bool {
			for i := 0; i+1 < w.Nodes(); i += 2 {
				if w.Node(timedsim.NodeID(i)).(*wallNode).pongs < wallRounds {
					return false
				}
			}
			return true
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
}

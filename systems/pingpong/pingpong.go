package pingpong

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// DefaultRounds is the number of ping-pong rounds per pair.
const DefaultRounds = 10

// Ping asks the peer for a Pong.
type Ping struct{}

// Size is a small control message's wire size.
func (Ping) Size() int { return 64 }

// Pong answers a Ping.
type Pong struct{}

// Size is a small control message's wire size.
func (Pong) Size() int { return 64 }

// Node is one end of a ping-pong pair.
type Node struct {
	id     timedsim.NodeID
	rounds int // rounds to play; <0 forever
	pongs  int
}

// Pongs is the number of rounds this node completed (pingers only).
func (n *Node) Pongs() int { return n.pongs }

// Init starts the game on the even node of each pair.
func (n *Node) Init(ctx timedsim.Context) {
	if n.id%2 == 0 && int(n.id)+1 < ctx.Nodes() && n.rounds != 0 {
		ctx.Send(n.id+1, Ping{})
	}
}

// Deliver answers a Ping with a Pong and a Pong with the next Ping.
func (n *Node) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	switch msg.(type) {
	case Ping:
		ctx.Send(from, Pong{})
	case Pong:
		n.pongs++
		if n.rounds < 0 || n.pongs < n.rounds {
			ctx.Send(from, Ping{})
		}
	}
}

// Timer is unused.
func (n *Node) Timer(timedsim.Context, string, any) {}

// Done holds when every pair played its rounds.
func Done(rounds int) func(w timedsim.World) bool {
	return func(w timedsim.World) bool {
		for i := 0; i+1 < w.Nodes(); i += 2 {
			if w.Node(timedsim.NodeID(i)).(*Node).pongs < rounds {
				return false
			}
		}
		return true
	}
}

// Scenario is n nodes playing rounds rounds (rounds < 0: forever).
func Scenario(n, rounds int) *timedsim.Scenario {
	stop := Done(rounds)
	if rounds < 0 {
		stop = func(timedsim.World) bool { return false }
	}
	return &timedsim.Scenario{
		Nodes:    n,
		New:      func(id timedsim.NodeID) timedsim.Service { return &Node{id: id, rounds: rounds} },
		Stop:     stop,
		Timeout:  time.Hour,
		Network:  netmodel.DefaultConfig(),
		Revision: "1",
	}
}

// System is the bundled ping-pong system.
func System() timedsim.System {
	return timedsim.System{
		Name: "pingpong",
		Doc:  "null protocol: pairs of nodes exchange Ping/Pong (benchmarks, CLI tests)",
		Variants: []timedsim.Variant{
			{Name: "default", Doc: fmt.Sprintf("every pair plays %d rounds", DefaultRounds)},
			{Name: "endless", Doc: "pairs play forever (bound it with a step limit)"},
		},
		DefaultNodes: 2,
		Build: func(variant string, nodes int) (*timedsim.Scenario, error) {
			if nodes < 2 {
				return nil, fmt.Errorf("pingpong: need at least 2 nodes, got %d", nodes)
			}
			if variant == "endless" {
				return Scenario(nodes, -1), nil
			}
			return Scenario(nodes, DefaultRounds), nil
		},
	}
}

// Clone is a copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	return &c
}

// MessageTypes lists the messages a node sends, so that a real run with
// one node per process can encode them (package realnet).
func (*Node) MessageTypes() []timedsim.Message { return []timedsim.Message{Ping{}, Pong{}} }

package elect

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	VariantCorrect      = "correct"
	VariantEarlyElected = "early-elected"
)

// DefaultTick is the anti-entropy period of a node without a leader.
const DefaultTick = 200 * time.Millisecond

// Announce says that a node takes part in the election.
type Announce struct{}

// Size is a small control message's wire size.
func (Announce) Size() int { return 64 }

// Vote tells the leader that the sender has heard everyone and votes for it;
// the leader needs a majority of them.
type Vote struct{}

// Size is a small control message's wire size.
func (Vote) Size() int { return 64 }

// Elected tells a node who the leader is.
type Elected struct{ Leader timedsim.NodeID }

// Size is a small control message's wire size.
func (Elected) Size() int { return 64 }

// Node is one participant.
type Node struct {
	id      timedsim.NodeID
	n       int
	ignore  bool // the early-elected bug
	tick    time.Duration
	heard   []bool // Announce received from node i
	nheard  int
	votes   []bool // Vote received from node i (leader only)
	nvotes  int
	voted   bool
	Leader  timedsim.NodeID
	elected bool // the leader has sent Elected
}

func newNode(id timedsim.NodeID, n int, ignore bool, tick time.Duration) *Node {
	return &Node{id: id, n: n, ignore: ignore, tick: tick, heard: make([]bool, n), votes: make([]bool, n), Leader: timedsim.None}
}

// highest is the leader every node elects: the highest ID.
func (nd *Node) highest() timedsim.NodeID { return timedsim.NodeID(nd.n - 1) }

// Init announces the node to every other node.
func (nd *Node) Init(ctx timedsim.Context) {
	nd.heard[nd.id] = true
	nd.nheard = 1
	nd.announce(ctx)
	nd.progress(ctx)
	ctx.SetTimer("tick", nd.tick, nil)
}

func (nd *Node) announce(ctx timedsim.Context) {
	for i := 0; i < nd.n; i++ {
		if timedsim.NodeID(i) != nd.id {
			ctx.Send(timedsim.NodeID(i), Announce{})
		}
	}
}

// progress votes once every Announce is in, and, on the leader, announces
// the result once every Vote is in too.
func (nd *Node) progress(ctx timedsim.Context) {
	if nd.nheard < nd.n {
		return
	}
	if !nd.voted {
		nd.voted = true
		if nd.highest() == nd.id {
			nd.votes[nd.id] = true
			nd.nvotes++
		} else {
			ctx.Send(nd.highest(), Vote{})
		}
	}
	if nd.highest() == nd.id && nd.nvotes > nd.n/2 && !nd.elected {
		nd.elected = true
		nd.Leader = nd.id
		for i := 0; i < nd.n; i++ {
			if timedsim.NodeID(i) != nd.id {
				ctx.Send(timedsim.NodeID(i), Elected{Leader: nd.id})
			}
		}
	}
}

// Deliver handles Announce, Vote and Elected.
func (nd *Node) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Announce:
		if !nd.heard[from] {
			nd.heard[from] = true
			nd.nheard++
		}
		if nd.Leader != timedsim.None {
			ctx.Send(from, Elected{Leader: nd.Leader})
			return
		}
		nd.progress(ctx)
	case Vote:
		if !nd.votes[from] {
			nd.votes[from] = true
			nd.nvotes++
		}
		nd.progress(ctx)
	case Elected:
		if nd.Leader != timedsim.None {
			ctx.Note("ignored: leader known")
			return
		}
		if nd.ignore && nd.nheard < nd.n {
			ctx.Note("ignored: still collecting")
			return
		}
		nd.Leader = m.Leader
		ctx.CancelTimer("tick")
	}
}

// Timer re-announces a node that has no leader yet.
func (nd *Node) Timer(ctx timedsim.Context, name string, _ any) {
	if name != "tick" || nd.Leader != timedsim.None {
		return
	}
	nd.announce(ctx)
	ctx.SetTimer("tick", nd.tick, nil)
}

// Describe renders the node's state for event logs and diffs.
func (nd *Node) Describe() string {
	return fmt.Sprintf("leader=%v heard=%d/%d votes=%d voted=%v", nd.Leader, nd.nheard, nd.n, nd.nvotes, nd.voted)
}

// AppendFingerprint appends the state Describe shows (leader, Announces
// heard of n, votes, voted) to b without formatting it: the liveness
// search hashes states by it (liveness.Fingerprinter), and two states
// give equal bytes exactly when their Describe texts are equal.
func (nd *Node) AppendFingerprint(b []byte) []byte {
	b = binary.AppendVarint(b, int64(nd.Leader))
	b = binary.AppendVarint(b, int64(nd.nheard))
	b = binary.AppendVarint(b, int64(nd.n))
	b = binary.AppendVarint(b, int64(nd.nvotes))
	if nd.voted {
		return append(b, 1)
	}
	return append(b, 0)
}

// AllKnowLeader is the stopping condition: every node knows the leader.
func AllKnowLeader(w timedsim.World) bool {
	for i := 0; i < w.Nodes(); i++ {
		if w.Node(timedsim.NodeID(i)).(*Node).Leader == timedsim.None {
			return false
		}
	}
	return true
}

// OneLeader is the safety property: no two nodes know different leaders.
func OneLeader(w timedsim.World) bool {
	leader := timedsim.None
	for i := 0; i < w.Nodes(); i++ {
		l := w.Node(timedsim.NodeID(i)).(*Node).Leader
		if l == timedsim.None {
			continue
		}
		if leader != timedsim.None && l != leader {
			return false
		}
		leader = l
	}
	return true
}

// System is the bundled election.
func System() timedsim.System {
	return timedsim.System{
		Name: "elect",
		Doc:  "millisecond-scale leader election on 1 ms Pareto links: announce, vote, elected; 200 ms anti-entropy",
		Variants: []timedsim.Variant{
			{Name: VariantCorrect, Doc: "Elected is taken whenever it arrives"},
			{Name: VariantEarlyElected, Doc: "Elected that arrives while a node still collects Announces is ignored: the node waits for the 200 ms anti-entropy"},
		},
		DefaultNodes: 5,
		Params: []timedsim.Param{
			{Name: "tick", Default: DefaultTick.String(), Check: timedsim.CheckDuration(time.Millisecond), Doc: "anti-entropy period of a node without a leader"},
		},
		BuildParams: func(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
			if nodes < 2 {
				return nil, fmt.Errorf("elect: need at least 2 nodes, got %d", nodes)
			}
			ignore := variant == VariantEarlyElected
			tick := p.Duration("tick")
			return &timedsim.Scenario{
				Nodes:    nodes,
				New:      func(id timedsim.NodeID) timedsim.Service { return newNode(id, nodes, ignore, tick) },
				Stop:     AllKnowLeader,
				Safety:   []timedsim.Property{{Name: "one-leader", Check: OneLeader}},
				Liveness: []timedsim.Property{{Name: "all-know-leader", Check: AllKnowLeader}},
				Timeout:  time.Minute,
				Network:  netmodel.DefaultConfig(),
				Revision: "1",
			}, nil
		},
	}
}

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.heard, c.votes = slices.Clone(n.heard), slices.Clone(n.votes)
	return &c
}

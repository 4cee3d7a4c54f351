package bamboo

import (
	"fmt"
	"slices"

	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// NodeID is the simulator's node identifier (the node's address).
type NodeID = timedsim.NodeID

// ID is a position on the ring; Peer is a node's address and ID.
type (
	ID   = dht.ID
	Peer = dht.Peer
)

// None names no node.
const None = timedsim.None

// DefaultLeafHalf is the number of predecessors and of successors kept.
const DefaultLeafHalf = 4

// The maintenance periods, timers and the application event are the
// shared ones of package dht.
const (
	DefaultLeafPeriod  = dht.DefaultLeafPeriod
	DefaultTablePeriod = dht.DefaultTablePeriod
	AppStart           = dht.AppStart
	TimerStart         = dht.TimerStart
	TimerLeafSet       = dht.TimerLeafSet
	TimerTable         = dht.TimerTable
	TimerJoin          = dht.TimerJoin
)

// The notes (timedsim.Context.Note) of package dht, made where a handler
// drops, ignores or loses something.
const (
	NoteNotJoined     = dht.NoteNotJoined
	NoteOwnRequest    = dht.NoteOwnRequest
	NoteAlreadyJoined = dht.NoteAlreadyJoined
	NoteSkipped       = dht.NoteSkipped
	NoteEvicted       = dht.NoteEvicted
)

// Start is the data of AppStart; Params are the leaf set size and the
// maintenance periods.
type (
	Start  = dht.Start
	Params = dht.Params
)

// The maintenance messages are the shared ones of package dht.
type (
	LeafSetExchange = dht.LeafSetExchange
	LeafSetReply    = dht.LeafSetReply
	RowRequest      = dht.RowRequest
	RowReply        = dht.RowReply
)

// Config configures a Node. The zero value is the buggy protocol with the
// defaults.
type Config struct {
	Params
	// FixBoundary fixes the first bug of MacePC §5.3: a node pushed out of
	// one side of the leaf set is offered to the other side before the
	// boundary moves.
	FixBoundary bool
	// FixAdjacency fixes the second: Inform carries whether the informant
	// believes it is adjacent to the informed, and a node that disagrees
	// runs leaf-set maintenance with it at once.
	FixAdjacency bool
	// JoinLoop is the bug of the "join-loop" variant: a JoinRequest is
	// routed by the leaf set and table as any message is, even to the
	// joiner itself, which a node that reset and rejoins still is in its
	// peers' state (nothing here detects failures): the joiner drops its
	// own request and asks again, for ever. It is MaceMC's Pastry bug 4
	// (the MaceMC paper's long version: "It is also possible that Bamboo
	// suffers a similar fate"), not the third bug MacePC §5.3 mentions and
	// does not describe. Otherwise the node that would route a join to the
	// joiner answers it (MaceMC's fix: "when routing a join message, we
	// avoid routing it via the routing table to the destination node").
	JoinLoop bool
}

// JoinRequest is routed from the bootstrap to the node numerically closest
// to the joiner. Unlike Pastry's it gathers nothing on the way.
type JoinRequest struct {
	Joiner Peer
}

// Size is the wire size in bytes.
func (m JoinRequest) Size() int { return dht.MessageSize([]Peer{m.Joiner}) }

// JoinReply carries the closest node's leaf set (with itself): Bamboo's
// join transfers the leaf set only.
type JoinReply struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m JoinReply) Size() int { return dht.MessageSize(m.Leaves) }

// Inform tells a node that the sender is alive and has it in its leaf set;
// the receiver adds the sender. Adjacent (sent and read only with
// FixAdjacency) says whether the sender believes it is the receiver's
// immediate neighbour.
type Inform struct {
	Adjacent bool
}

// Size is the wire size in bytes.
func (Inform) Size() int { return dht.MessageSize() + 1 }

// Node is a Bamboo node: a timedsim.Service and timedsim.AppHandler, and a
// dht.State for routing and the stopping condition.
type Node struct {
	dht.Core
	cfg    Config
	preds  []Peer   // counterclockwise side, nearest first
	succs  []Peer   // clockwise side, nearest first
	claims []NodeID // nodes that told us they are our neighbour (FixAdjacency)
}

var (
	_ timedsim.Service    = (*Node)(nil)
	_ timedsim.AppHandler = (*Node)(nil)
	_ dht.State           = (*Node)(nil)
)

// NewNode returns node self, not yet joined; ids are all nodes'
// identifiers. It panics on a negative LeafHalf.
func NewNode(self NodeID, ids []ID, cfg Config) *Node {
	if cfg.LeafHalf < 0 {
		panic(fmt.Sprintf("bamboo: LeafHalf %d is negative", cfg.LeafHalf))
	}
	cfg.Params = cfg.Params.WithDefaults(DefaultLeafHalf)
	return &Node{Core: dht.NewCore(self, ids, cfg.Params), cfg: cfg}
}

// Leaves implements dht.State: the predecessors and successors, nearest
// first.
func (n *Node) Leaves() (left, right []Peer, full bool) {
	return n.preds, n.succs, len(n.preds) == n.cfg.LeafHalf && len(n.succs) == n.cfg.LeafHalf
}

// Describe implements timedsim.Describer.
func (n *Node) Describe() string {
	return fmt.Sprintf("%v joined=%v preds=%v succs=%v table=[%v] claims=%v", n.Me, n.IsJoined, n.preds, n.succs, n.Table.String(), n.claims)
}

// members is the leaf set, predecessors first.
func (n *Node) members() []Peer { return append(slices.Clone(n.preds), n.succs...) }

func (n *Node) inLeafSet(id NodeID) bool {
	has := func(p Peer) bool { return p.Node == id }
	return slices.ContainsFunc(n.preds, has) || slices.ContainsFunc(n.succs, has)
}

func (n *Node) leavesWithSelf() []Peer { return append(n.members(), n.Me) }

// adjacent reports whether id is our nearest predecessor or successor.
func (n *Node) adjacent(id NodeID) bool {
	return (len(n.preds) > 0 && n.preds[0].Node == id) || (len(n.succs) > 0 && n.succs[0].Node == id)
}

// Init implements timedsim.Service.
func (n *Node) Init(ctx timedsim.Context) {}

// App implements timedsim.AppHandler: AppStart with a Start.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	n.Core.App(ctx, "bamboo", name, data)
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerStart, TimerJoin:
		n.Join(ctx, data, JoinRequest{Joiner: n.Me})
	case TimerLeafSet:
		// Bamboo's light maintenance: one random member per round.
		if m := n.members(); n.LeafSetRound(ctx) && len(m) > 0 {
			ctx.Send(m[ctx.Rand().IntN(len(m))].Node, LeafSetExchange{Leaves: n.leavesWithSelf()})
		}
	case TimerTable:
		n.TableRound(ctx)
	default:
		panic(fmt.Sprintf("bamboo: unknown timer %q", name))
	}
}

// Deliver implements timedsim.Service.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case JoinRequest:
		if m.Joiner.Node == n.Me.Node {
			ctx.Note(dht.NoteOwnRequest)
			return
		}
		if !n.IsJoined {
			ctx.Logf("JoinRequest of %v dropped", m.Joiner)
			ctx.Note(dht.NoteNotJoined)
			return
		}
		if next := dht.NextHop(n, m.Joiner.ID); next.Node != n.Me.Node && (next.Node != m.Joiner.Node || n.cfg.JoinLoop) {
			ctx.Send(next.Node, m)
			return
		}
		ctx.Send(m.Joiner.Node, JoinReply{Leaves: n.leavesWithSelf()})
	case JoinReply:
		if !n.BecomeJoined(ctx) {
			return
		}
		n.learn(ctx, m.Leaves, None)
	case Inform:
		n.learn(ctx, []Peer{n.Peer(from)}, from)
		if n.cfg.FixAdjacency {
			n.checkClaim(ctx, from, m.Adjacent)
		}
	case LeafSetExchange:
		n.learn(ctx, m.Leaves, from)
		ctx.Send(from, LeafSetReply{Leaves: n.leavesWithSelf()})
	case LeafSetReply:
		n.learn(ctx, m.Leaves, from)
	case RowRequest:
		n.AnswerRow(ctx, from, m)
	case RowReply:
		n.learn(ctx, m.Entries, from)
	default:
		panic(fmt.Sprintf("bamboo: unknown message %T", msg))
	}
}

// checkClaim is the adjacency fix: an informant that believes it is our
// neighbour when it is not (we know a node in between), or that does not
// believe it when it is, has a gap in its leaf set; we run maintenance
// with it now instead of at the next round. A correct claim is remembered:
// if a node later comes between us, the claimant is told then (see learn).
func (n *Node) checkClaim(ctx timedsim.Context, from NodeID, claim bool) {
	adj := n.adjacent(from)
	n.claims = slices.DeleteFunc(n.claims, func(c NodeID) bool { return c == from })
	if claim == adj {
		if claim {
			n.claims = append(n.claims, from)
		}
		return
	}
	ctx.Logf("adjacency of %v: it says %v, we say %v", from, claim, adj)
	ctx.Send(from, LeafSetExchange{Leaves: n.leavesWithSelf()})
}

// learn adds peers to the routing table and the leaf set and informs the
// ones that entered the leaf set (but the node we learned them from, which
// knows us). With FixAdjacency, a claimant that stopped being our
// neighbour is sent our leaf set.
func (n *Node) learn(ctx timedsim.Context, peers []Peer, from NodeID) {
	var added []Peer
	for _, p := range peers {
		if !n.Valid(p) {
			continue
		}
		if n.Table.Add(p) {
			n.Ver++
		}
		if n.insert(ctx, p) {
			n.Ver++
			added = append(added, p)
		}
	}
	for _, p := range added {
		if p.Node != from && n.inLeafSet(p.Node) {
			ctx.Send(p.Node, Inform{Adjacent: n.cfg.FixAdjacency && n.adjacent(p.Node)})
		}
	}
	if !n.cfg.FixAdjacency || len(added) == 0 {
		return
	}
	for _, c := range n.claims {
		if !n.adjacent(c) {
			ctx.Logf("claimant %v is no longer our neighbour", c)
			ctx.Send(c, LeafSetExchange{Leaves: n.leavesWithSelf()})
		}
	}
	n.claims = slices.DeleteFunc(n.claims, func(c NodeID) bool { return !n.adjacent(c) })
}

// insert places p on the side of the ring it lies on (clockwise half:
// successors), nearest first. A side that overflows pushes its farthest
// member out; that member may still belong on the other side (a node first
// taken for a successor can be one of the nearest predecessors when the
// identifiers are unevenly spread) and is offered to it. A member that
// leaves the leaf set is noted (dht.NoteEvicted). It reports whether p
// entered the leaf set.
func (n *Node) insert(ctx timedsim.Context, p Peer) bool {
	if n.inLeafSet(p.Node) {
		return false
	}
	succ := dht.CW(n.Me.ID, p.ID) <= dht.CW(p.ID, n.Me.ID)
	var in bool
	var out Peer
	var pushed bool
	if succ {
		n.succs, in, out, pushed = n.side(n.succs, p, true)
	} else {
		n.preds, in, out, pushed = n.side(n.preds, p, false)
	}
	if !in {
		// Not among the nearest on its own side: it may still be among the
		// nearest the other way round the ring.
		var pushed bool
		if succ {
			n.preds, in, _, pushed = n.side(n.preds, p, false)
		} else {
			n.succs, in, _, pushed = n.side(n.succs, p, true)
		}
		if pushed {
			ctx.Note(dht.NoteEvicted)
		}
		return in
	}
	if !pushed {
		return true
	}
	if !n.cfg.FixBoundary {
		// The bug: the side's boundary has already moved to its new
		// farthest member, and that is the node checked against the other
		// side (it is on this side, so nothing happens): the pushed-out
		// node is forgotten.
		boundary := n.succs
		if !succ {
			boundary = n.preds
		}
		b := boundary[len(boundary)-1]
		if !n.inLeafSet(b.Node) {
			n.other(succ, b)
		}
		ctx.Logf("pushed %v out of the leaf set and forgot it", out)
		ctx.Note(dht.NoteEvicted)
		return true
	}
	if in, pushed := n.other(succ, out); !in || pushed {
		ctx.Note(dht.NoteEvicted)
	}
	return true
}

// other offers q, pushed out of the successors (succ) or the predecessors,
// to the other side; a member that q pushes out of that side is farther
// than q both ways and is dropped. It reports whether q went in and
// whether a member was pushed out.
func (n *Node) other(succ bool, q Peer) (in, pushed bool) {
	if succ {
		n.preds, in, _, pushed = n.side(n.preds, q, false)
	} else {
		n.succs, in, _, pushed = n.side(n.succs, q, true)
	}
	return in, pushed
}

// side inserts p into one side (cw: successors, by clockwise distance) if
// it is among the LeafHalf nearest; it returns the side, whether p went in
// and the member pushed out, if any.
func (n *Node) side(s []Peer, p Peer, cw bool) ([]Peer, bool, Peer, bool) {
	dist := func(q Peer) uint32 {
		if cw {
			return dht.CW(n.Me.ID, q.ID)
		}
		return dht.CW(q.ID, n.Me.ID)
	}
	i := 0
	for i < len(s) && dist(s[i]) < dist(p) {
		i++
	}
	if i >= n.cfg.LeafHalf {
		return s, false, Peer{}, false
	}
	s = slices.Insert(s, i, p)
	if len(s) > n.cfg.LeafHalf {
		out := s[len(s)-1]
		return s[:len(s)-1], true, out, true
	}
	return s, true, Peer{}, false
}

var _ timedsim.Cloner = (*Node)(nil)

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.Core = n.Core.Clone()
	c.preds, c.succs, c.claims = slices.Clone(n.preds), slices.Clone(n.succs), slices.Clone(n.claims)
	return &c
}

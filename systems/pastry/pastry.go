package pastry

import (
	"fmt"
	"slices"

	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// NodeID is the simulator's node identifier (the node's address).
type NodeID = timedsim.NodeID

// ID is a position on Pastry's ring; Peer is a node's address and ID.
type (
	ID   = dht.ID
	Peer = dht.Peer
)

// None names no node.
const None = timedsim.None

// DefaultLeafHalf is H, the leaf set's size per side (L = 2H = 16).
const DefaultLeafHalf = 8

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
	// Fixed selects the paper's fix: a node evicted from a leaf set is sent
	// the evicting node's current leaf set (LeafSetPush).
	Fixed bool
	// FixGap is a second fix, ours (the "fixed-gap" variant, with Fixed):
	// an Announce carries the announcer's nearest neighbours, and a node
	// that knows a node between the announcer and one of them sends the
	// announcer its leaf set (LeafSetPush). It closes the gap the paper's
	// fix leaves: two adjacent nodes that join concurrently get the same
	// leaf set from the same node, announce themselves to the same nodes
	// and never learn of each other until maintenance.
	FixGap bool
}

// JoinRequest is routed from the bootstrap toward the joiner's identifier.
// Every node on the way appends the routing-table row the joiner needs
// from it (and itself) to Rows: the joiner's state transfer.
type JoinRequest struct {
	Joiner Peer
	Rows   []Peer
}

// Size is the wire size in bytes.
func (m JoinRequest) Size() int { return dht.MessageSize([]Peer{m.Joiner}, m.Rows) }

// JoinReply is sent to the joiner by the node numerically closest to it:
// that node's leaf set (with itself) and the rows gathered on the way.
type JoinReply struct {
	Leaves, Rows []Peer
}

// Size is the wire size in bytes.
func (m JoinReply) Size() int { return dht.MessageSize(m.Leaves, m.Rows) }

// Announce tells a node that the sender has joined, or has just taken it
// into its leaf set. The receiver adds the sender to its state only now: a
// joiner is not added by the nodes that route its join, only once it
// announces itself. With FixGap, Near holds the sender's nearest
// neighbours on the left and on the right (the node itself on a side it
// knows no one on); without, it is empty.
type Announce struct {
	Near []Peer
}

// Size is the wire size in bytes: without Near (buggy and fixed), a bare
// header, as before FixGap existed.
func (m Announce) Size() int {
	if m.Near == nil {
		return dht.MessageSize()
	}
	return dht.MessageSize(m.Near)
}

// LeafSetPush is the fix: the leaf set (with the sender) sent to a node the
// sender has just evicted from its leaf set.
type LeafSetPush struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetPush) Size() int { return dht.MessageSize(m.Leaves) }

// Node is a Pastry node: a timedsim.Service and timedsim.AppHandler, and a
// dht.State for routing and the stopping condition.
type Node struct {
	dht.Core
	fixed, gap bool
	leaf       dht.LeafSet
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
		panic(fmt.Sprintf("pastry: LeafHalf %d is negative", cfg.LeafHalf))
	}
	c := dht.NewCore(self, ids, cfg.Params.WithDefaults(DefaultLeafHalf))
	return &Node{Core: c, fixed: cfg.Fixed, gap: cfg.FixGap, leaf: dht.NewLeafSet(c.Me, c.Params.LeafHalf)}
}

// Leaves implements dht.State.
func (n *Node) Leaves() (left, right []Peer, full bool) {
	l, r := n.leaf.Left(), n.leaf.Right()
	return l, r, len(l) == n.Params.LeafHalf && len(r) == n.Params.LeafHalf
}

// LeafSet returns the distinct leaf set members.
func (n *Node) LeafSet() []Peer { return n.leaf.Members() }

// Describe implements timedsim.Describer.
func (n *Node) Describe() string {
	return fmt.Sprintf("%v joined=%v %v table=[%v]", n.Me, n.IsJoined, n.leaf.String(), n.Table.String())
}

// Init implements timedsim.Service.
func (n *Node) Init(ctx timedsim.Context) {}

// App implements timedsim.AppHandler: AppStart with a Start.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	n.Core.App(ctx, "pastry", name, data)
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerStart, TimerJoin:
		n.Join(ctx, data, JoinRequest{Joiner: n.Me})
	case TimerLeafSet:
		if !n.LeafSetRound(ctx) {
			return
		}
		// Exchange leaf sets with the nearest member on each side.
		leaves := n.leavesWithSelf()
		l, r := n.leaf.Left(), n.leaf.Right()
		if len(l) > 0 {
			ctx.Send(l[0].Node, LeafSetExchange{Leaves: leaves})
		}
		if len(r) > 0 && (len(l) == 0 || r[0] != l[0]) {
			ctx.Send(r[0].Node, LeafSetExchange{Leaves: leaves})
		}
	case TimerTable:
		n.TableRound(ctx)
	default:
		panic(fmt.Sprintf("pastry: unknown timer %q", name))
	}
}

// leavesWithSelf is the leaf set and the node itself, as sent in replies.
func (n *Node) leavesWithSelf() []Peer {
	return append(n.leaf.Members(), n.Me)
}

// Deliver implements timedsim.Service.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case JoinRequest:
		n.deliverJoinRequest(ctx, m)
	case JoinReply:
		if !n.BecomeJoined(ctx) {
			return
		}
		n.learn(ctx, m.Leaves, None, false)
		n.learn(ctx, m.Rows, None, false)
		// Announce ourselves to every node we know, leaf set and table.
		for _, p := range n.known() {
			ctx.Send(p.Node, n.announce())
		}
	case Announce:
		n.learn(ctx, []Peer{n.Peer(from)}, from, true)
		if n.gap && n.knowsBetween(n.Peer(from), m.Near) {
			ctx.Logf("%v does not know its neighbours", from)
			ctx.Send(from, LeafSetPush{Leaves: n.leavesWithSelf()})
		}
	case LeafSetPush:
		n.learn(ctx, m.Leaves, from, true)
	case LeafSetExchange:
		n.learn(ctx, m.Leaves, from, true)
		ctx.Send(from, LeafSetReply{Leaves: n.leavesWithSelf()})
	case LeafSetReply:
		n.learn(ctx, m.Leaves, from, true)
	case RowRequest:
		n.AnswerRow(ctx, from, m)
	case RowReply:
		n.learn(ctx, m.Entries, from, true)
	default:
		panic(fmt.Sprintf("pastry: unknown message %T", msg))
	}
}

// announce is the Announce the node sends: with FixGap, with its nearest
// neighbours.
func (n *Node) announce() Announce {
	if !n.gap {
		return Announce{}
	}
	near := []Peer{n.Me, n.Me}
	if l := n.leaf.Left(); len(l) > 0 {
		near[0] = l[0]
	}
	if r := n.leaf.Right(); len(r) > 0 {
		near[1] = r[0]
	}
	return Announce{Near: near}
}

// knowsBetween reports whether a member of the leaf set lies between the
// announcer a and the nearest neighbour it announced on either side (near:
// left, right; a itself for a side it knows no one on): a node a should
// know and does not (FixGap).
func (n *Node) knowsBetween(a Peer, near []Peer) bool {
	if len(near) != 2 {
		return false
	}
	left, right := near[0], near[1]
	for _, x := range n.leaf.Members() {
		if x.Node == a.Node {
			continue
		}
		if right.Node == a.Node || dht.CW(a.ID, x.ID) < dht.CW(a.ID, right.ID) {
			return true
		}
		if left.Node == a.Node || dht.CW(x.ID, a.ID) < dht.CW(left.ID, a.ID) {
			return true
		}
	}
	return false
}

// known is every node in the leaf set or the routing table, each once, in
// a deterministic order.
func (n *Node) known() []Peer {
	out := n.leaf.Members()
	for _, p := range n.Table.Peers() {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (n *Node) deliverJoinRequest(ctx timedsim.Context, m JoinRequest) {
	x := m.Joiner
	if x.Node == n.Me.Node {
		ctx.Note(dht.NoteOwnRequest)
		return
	}
	if !n.IsJoined {
		ctx.Logf("JoinRequest of %v dropped", x)
		ctx.Note(dht.NoteNotJoined)
		return
	}
	// State transfer: the row the joiner needs from us, and ourselves. We
	// do not add the joiner: it is added once it announces itself.
	r := dht.SharedPrefix(n.Me.ID, x.ID)
	m.Rows = append(append(slices.Clone(m.Rows), n.Table.Row(r)...), n.Me)
	next := dht.NextHop(n, x.ID)
	if next.Node == n.Me.Node || next.Node == x.Node {
		ctx.Send(x.Node, JoinReply{Leaves: n.leavesWithSelf(), Rows: m.Rows})
		return
	}
	ctx.Send(next.Node, m)
}

// learn adds peers to the routing table and the leaf set. If announce is
// set, a peer that enters the leaf set is sent an Announce unless it is the
// node we learned it from (which knows us). A member pushed out of the leaf
// set is noted (dht.NoteEvicted); in the fixed variant it is sent the leaf
// set (the paper's fix).
func (n *Node) learn(ctx timedsim.Context, peers []Peer, from NodeID, announce bool) {
	var evicted []Peer
	for _, p := range peers {
		if !n.Valid(p) {
			continue
		}
		if n.Table.Add(p) {
			n.Ver++
		}
		added, out := n.leaf.Add(p)
		if !added {
			continue
		}
		n.Ver++
		if announce && p.Node != from {
			ctx.Send(p.Node, n.announce())
		}
		for _, e := range out {
			if !slices.Contains(evicted, e) {
				evicted = append(evicted, e)
			}
		}
	}
	// A member pushed out by one peer may come back with a later one.
	evicted = slices.DeleteFunc(evicted, func(e Peer) bool { return n.leaf.Contains(e.Node) })
	if len(evicted) == 0 {
		return
	}
	ctx.Note(dht.NoteEvicted)
	if !n.fixed {
		ctx.Logf("evicted %v from the leaf set without telling them", evicted)
		return
	}
	leaves := n.leavesWithSelf()
	for _, e := range evicted {
		ctx.Send(e.Node, LeafSetPush{Leaves: leaves})
	}
}

var _ timedsim.Cloner = (*Node)(nil)

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.Core, c.leaf = n.Core.Clone(), n.leaf.Clone()
	return &c
}

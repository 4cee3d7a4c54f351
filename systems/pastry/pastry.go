package pastry

import (
	"fmt"
	"slices"
	"strings"
	"time"

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

// Defaults.
const (
	// DefaultLeafHalf is H, the leaf set's size per side (L = 2H = 16).
	DefaultLeafHalf = 8
	// DefaultLeafPeriod is the period of leaf-set maintenance.
	DefaultLeafPeriod = 20 * time.Second
	// DefaultTablePeriod is the period of routing-table maintenance.
	DefaultTablePeriod = 20 * time.Second
)

// Names of the timers and application events.
const (
	// AppStart starts a node: its data is a Start; the node draws a boot
	// delay and then joins (timer TimerStart).
	AppStart = "start"
	// TimerStart ends the boot delay.
	TimerStart = "start"
	// TimerLeafSet is the periodic leaf-set maintenance.
	TimerLeafSet = "leafset"
	// TimerTable is the periodic routing-table maintenance.
	TimerTable = "table"
)

// Start is the data of AppStart: after a boot delay drawn uniformly from
// [0, Within], join through Bootstrap (a node whose Bootstrap is itself
// starts a new ring).
type Start struct {
	Bootstrap NodeID
	Within    time.Duration
}

// Config configures a Node.
type Config struct {
	// Fixed selects the paper's fix: a node evicted from a leaf set is sent
	// the evicting node's current leaf set (LeafSetPush).
	Fixed bool
	// LeafHalf is H (0: DefaultLeafHalf).
	LeafHalf int
	// LeafPeriod and TablePeriod are the maintenance periods (0: the
	// defaults).
	LeafPeriod, TablePeriod time.Duration
}

func (c Config) withDefaults() Config {
	if c.LeafHalf == 0 {
		c.LeafHalf = DefaultLeafHalf
	}
	if c.LeafPeriod == 0 {
		c.LeafPeriod = DefaultLeafPeriod
	}
	if c.TablePeriod == 0 {
		c.TablePeriod = DefaultTablePeriod
	}
	return c
}

const headerSize = 8

func peersSize(ps []Peer) int { return 2 + len(ps)*dht.PeerSize }

// JoinRequest is routed from the bootstrap toward the joiner's identifier.
// Every node on the way appends the routing-table row the joiner needs
// from it (and itself) to Rows: the joiner's state transfer.
type JoinRequest struct {
	Joiner Peer
	Rows   []Peer
}

// Size is the wire size in bytes.
func (m JoinRequest) Size() int { return headerSize + dht.PeerSize + peersSize(m.Rows) }

// JoinReply is sent to the joiner by the node numerically closest to it:
// that node's leaf set (with itself) and the rows gathered on the way.
type JoinReply struct {
	Leaves, Rows []Peer
}

// Size is the wire size in bytes.
func (m JoinReply) Size() int { return headerSize + peersSize(m.Leaves) + peersSize(m.Rows) }

// Announce tells a node that the sender has joined, or has just taken it
// into its leaf set. The receiver adds the sender to its state only now: a
// joiner is not added by the nodes that route its join, only once it
// announces itself.
type Announce struct{}

// Size is the wire size in bytes.
func (Announce) Size() int { return headerSize }

// LeafSetPush is the fix: the leaf set (with the sender) sent to a node the
// sender has just evicted from its leaf set.
type LeafSetPush struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetPush) Size() int { return headerSize + peersSize(m.Leaves) }

// LeafSetExchange is the periodic leaf-set maintenance: the sender's leaf
// set, to every member; the receiver merges it and replies with its own.
type LeafSetExchange struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetExchange) Size() int { return headerSize + peersSize(m.Leaves) }

// LeafSetReply answers a LeafSetExchange.
type LeafSetReply struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetReply) Size() int { return headerSize + peersSize(m.Leaves) }

// RowRequest is the periodic routing-table maintenance: it asks an entry of
// row Row for its own row Row.
type RowRequest struct {
	Row int
}

// Size is the wire size in bytes.
func (RowRequest) Size() int { return headerSize + 1 }

// RowReply answers a RowRequest with the row's entries and the replier.
type RowReply struct {
	Entries []Peer
}

// Size is the wire size in bytes.
func (m RowReply) Size() int { return headerSize + peersSize(m.Entries) }

// Node is a Pastry node: a timedsim.Service and timedsim.AppHandler, and a
// dht.State for routing and the stopping condition.
type Node struct {
	self    Peer
	cfg     Config
	ids     []ID // every node's identifier (the address book: Start names a NodeID)
	joined  bool
	leaf    dht.LeafSet
	table   dht.Table
	version uint64
}

var (
	_ timedsim.Service    = (*Node)(nil)
	_ timedsim.AppHandler = (*Node)(nil)
	_ dht.State           = (*Node)(nil)
)

// NewNode returns node self, not yet joined; ids are all nodes' identifiers
// (the node reads only its own and its bootstrap's). It panics on a
// negative LeafHalf.
func NewNode(self NodeID, ids []ID, cfg Config) *Node {
	if cfg.LeafHalf < 0 {
		panic(fmt.Sprintf("pastry: LeafHalf %d is negative", cfg.LeafHalf))
	}
	cfg = cfg.withDefaults()
	p := Peer{Node: self, ID: ids[self]}
	return &Node{self: p, cfg: cfg, ids: ids, leaf: dht.NewLeafSet(p, cfg.LeafHalf), table: dht.NewTable(p.ID)}
}

// Self implements dht.State.
func (n *Node) Self() Peer { return n.self }

// Joined implements dht.State.
func (n *Node) Joined() bool { return n.joined }

// Leaves implements dht.State.
func (n *Node) Leaves() (left, right []Peer, full bool) {
	l, r := n.leaf.Left(), n.leaf.Right()
	return l, r, len(l) == n.cfg.LeafHalf && len(r) == n.cfg.LeafHalf
}

// RoutingTable implements dht.State.
func (n *Node) RoutingTable() *dht.Table { return &n.table }

// Version implements dht.State: it changes whenever the node's joined
// flag, leaf set or routing table does.
func (n *Node) Version() uint64 { return n.version }

// LeafSet returns the distinct leaf set members.
func (n *Node) LeafSet() []Peer { return n.leaf.Members() }

// Describe implements timedsim.Describer.
func (n *Node) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v joined=%v %v table=[%v]", n.self, n.joined, n.leaf.String(), n.table.String())
	return b.String()
}

// Init implements timedsim.Service.
func (n *Node) Init(ctx timedsim.Context) {}

// App implements timedsim.AppHandler: AppStart with a Start.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	st, ok := data.(Start)
	if name != AppStart || !ok || st.Within < 0 || st.Bootstrap < 0 || int(st.Bootstrap) >= len(n.ids) {
		panic(fmt.Sprintf("pastry: bad application event %q with %T %v", name, data, data))
	}
	// The maintenance timers run from the node's start, as Mace's timers
	// scheduled in maceInit do: all nodes' rounds are (nearly) in step.
	ctx.SetTimer(TimerLeafSet, n.cfg.LeafPeriod, nil)
	ctx.SetTimer(TimerTable, n.cfg.TablePeriod, nil)
	if st.Bootstrap == n.self.Node {
		n.becomeJoined(ctx) // the first node: a ring of one
		return
	}
	delay := time.Duration(ctx.Rand().Int64N(int64(st.Within) + 1))
	ctx.SetTimer(TimerStart, delay, st.Bootstrap)
}

func (n *Node) becomeJoined(ctx timedsim.Context) {
	n.joined = true
	n.version++
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerStart:
		b := data.(NodeID)
		ctx.Send(b, JoinRequest{Joiner: n.self})
	case TimerLeafSet:
		ctx.SetTimer(TimerLeafSet, n.cfg.LeafPeriod, nil)
		if !n.joined {
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
		ctx.SetTimer(TimerTable, n.cfg.TablePeriod, nil)
		if !n.joined {
			return
		}
		// Ask a random entry of a random non-empty row for its row.
		if r, p, ok := n.table.RandomEntry(ctx.Rand().IntN); ok {
			ctx.Send(p.Node, RowRequest{Row: r})
		}
	default:
		panic(fmt.Sprintf("pastry: unknown timer %q", name))
	}
}

// leavesWithSelf is the leaf set and the node itself, as sent in replies.
func (n *Node) leavesWithSelf() []Peer {
	return append(n.leaf.Members(), n.self)
}

// Deliver implements timedsim.Service.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case JoinRequest:
		n.deliverJoinRequest(ctx, m)
	case JoinReply:
		if n.joined {
			return
		}
		n.becomeJoined(ctx)
		n.learn(ctx, m.Leaves, None, false)
		n.learn(ctx, m.Rows, None, false)
		// Announce ourselves to every node we know, leaf set and table.
		for _, p := range n.known() {
			ctx.Send(p.Node, Announce{})
		}
	case Announce:
		n.learn(ctx, []Peer{n.peer(from)}, from, true)
	case LeafSetPush:
		n.learn(ctx, m.Leaves, from, true)
	case LeafSetExchange:
		n.learn(ctx, m.Leaves, from, true)
		ctx.Send(from, LeafSetReply{Leaves: n.leavesWithSelf()})
	case LeafSetReply:
		n.learn(ctx, m.Leaves, from, true)
	case RowRequest:
		if m.Row >= 0 && m.Row < dht.Digits {
			ctx.Send(from, RowReply{Entries: append(n.table.Row(m.Row), n.self)})
		}
	case RowReply:
		n.learn(ctx, m.Entries, from, true)
	default:
		panic(fmt.Sprintf("pastry: unknown message %T", msg))
	}
}

// None names no node.
const None = timedsim.None

func (n *Node) peer(id NodeID) Peer { return Peer{Node: id, ID: n.ids[id]} }

// known is every node in the leaf set or the routing table, each once, in
// a deterministic order.
func (n *Node) known() []Peer {
	out := n.leaf.Members()
	for _, p := range n.table.Peers() {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (n *Node) deliverJoinRequest(ctx timedsim.Context, m JoinRequest) {
	x := m.Joiner
	if x.Node == n.self.Node || !n.joined {
		ctx.Logf("JoinRequest of %v dropped", x)
		return
	}
	// State transfer: the row the joiner needs from us, and ourselves. We
	// do not add the joiner: it is added once it announces itself.
	r := dht.SharedPrefix(n.self.ID, x.ID)
	m.Rows = append(append(slices.Clone(m.Rows), n.table.Row(r)...), n.self)
	next := dht.NextHop(n, x.ID)
	if next.Node == n.self.Node || next.Node == x.Node {
		ctx.Send(x.Node, JoinReply{Leaves: n.leavesWithSelf(), Rows: m.Rows})
		return
	}
	ctx.Send(next.Node, m)
}

// learn adds peers to the routing table and the leaf set. If announce is
// set, a peer that enters the leaf set is sent an Announce unless it is the
// node we learned it from (which knows us); in the fixed variant every member pushed out of
// the leaf set is sent the leaf set (the paper's fix).
func (n *Node) learn(ctx timedsim.Context, peers []Peer, from NodeID, announce bool) {
	var evicted []Peer
	for _, p := range peers {
		if p.Node == n.self.Node || p.Node < 0 || int(p.Node) >= len(n.ids) {
			continue
		}
		if n.table.Add(p) {
			n.version++
		}
		added, out := n.leaf.Add(p)
		if !added {
			continue
		}
		n.version++
		if announce && p.Node != from {
			ctx.Send(p.Node, Announce{})
		}
		for _, e := range out {
			if !slices.Contains(evicted, e) {
				evicted = append(evicted, e)
			}
		}
	}
	if len(evicted) == 0 {
		return
	}
	if !n.cfg.Fixed {
		ctx.Logf("evicted %v from the leaf set without telling them", evicted)
		return
	}
	leaves := n.leavesWithSelf()
	for _, e := range evicted {
		if !n.leaf.Contains(e.Node) {
			ctx.Send(e.Node, LeafSetPush{Leaves: leaves})
		}
	}
}

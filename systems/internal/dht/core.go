package dht

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// Defaults of Params.
const (
	// DefaultLeafPeriod is the period of leaf-set maintenance.
	DefaultLeafPeriod = 20 * time.Second
	// DefaultTablePeriod is the period of routing-table maintenance.
	DefaultTablePeriod = 20 * time.Second
)

// Names of the timers and the application event both protocols use.
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
	// TimerJoin resends the join request while no JoinReply has come.
	TimerJoin = "join"
	// JoinRetry is the period of TimerJoin.
	JoinRetry = 5 * time.Second
)

// Notes (timedsim.Context.Note) both protocols make where a handler drops,
// ignores or loses something, so that phase 3b can tell these events from
// the ones handled.
const (
	// NoteNotJoined: a JoinRequest reached a node that has not joined (it
	// cannot route it; the joiner asks again JoinRetry later).
	NoteNotJoined = "dropped: not joined"
	// NoteOwnRequest: a node's own JoinRequest was routed back to it.
	NoteOwnRequest = "dropped: own request"
	// NoteAlreadyJoined: a JoinReply or a join timer reached a node that
	// has joined already (an answer to a resent request).
	NoteAlreadyJoined = "ignored: already joined"
	// NoteSkipped: a maintenance round of a node that has not joined.
	NoteSkipped = "skipped: not joined"
	// NoteEvicted: adding a node to a full side of the leaf set pushed a
	// member out of the leaf set.
	NoteEvicted = "evicted: leaf set full"
)

// Params are the settings both protocols have.
type Params struct {
	// LeafHalf is H, the leaf set's size per side (0: the protocol's
	// default).
	LeafHalf int
	// LeafPeriod and TablePeriod are the maintenance periods (0:
	// DefaultLeafPeriod, DefaultTablePeriod).
	LeafPeriod, TablePeriod time.Duration
}

// WithDefaults fills the zero fields, with leafHalf as H's default.
func (p Params) WithDefaults(leafHalf int) Params {
	if p.LeafHalf == 0 {
		p.LeafHalf = leafHalf
	}
	if p.LeafPeriod == 0 {
		p.LeafPeriod = DefaultLeafPeriod
	}
	if p.TablePeriod == 0 {
		p.TablePeriod = DefaultTablePeriod
	}
	return p
}

// Start is the data of AppStart: after a boot delay drawn uniformly from
// [0, Within], join through Bootstrap (a node whose Bootstrap is itself
// starts a new ring).
type Start struct {
	Bootstrap timedsim.NodeID
	Within    time.Duration
}

const headerSize = 8

// PeersSize is the wire size of a list of peers.
func PeersSize(ps []Peer) int { return 2 + len(ps)*PeerSize }

// MessageSize is the wire size of a message header plus its peers.
func MessageSize(ps ...[]Peer) int {
	s := headerSize
	for _, p := range ps {
		s += PeersSize(p)
	}
	return s
}

// LeafSetExchange is leaf-set maintenance: the sender's leaf set (with
// itself); the receiver merges it and answers with a LeafSetReply.
type LeafSetExchange struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetExchange) Size() int { return MessageSize(m.Leaves) }

// LeafSetReply answers a LeafSetExchange.
type LeafSetReply struct {
	Leaves []Peer
}

// Size is the wire size in bytes.
func (m LeafSetReply) Size() int { return MessageSize(m.Leaves) }

// RowRequest is routing-table maintenance: it asks an entry of row Row
// for its own row Row.
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
func (m RowReply) Size() int { return MessageSize(m.Entries) }

// Core is the node state both protocols share: the node itself, every
// node's identifier (the address book: a Start names the bootstrap by
// NodeID), whether it has joined, its routing table and a version counter
// that the protocol bumps on every change of its routing state. It
// implements State's Self, Joined, RoutingTable and Version.
type Core struct {
	Me       Peer
	IDs      []ID
	IsJoined bool
	Table    Table
	Ver      uint64
	Params   Params
}

// NewCore returns the core of node self, not joined.
func NewCore(self timedsim.NodeID, ids []ID, p Params) Core {
	return Core{Me: Peer{Node: self, ID: ids[self]}, IDs: ids, Table: NewTable(ids[self]), Params: p}
}

// Self implements State.
func (c *Core) Self() Peer { return c.Me }

// Joined implements State.
func (c *Core) Joined() bool { return c.IsJoined }

// RoutingTable implements State.
func (c *Core) RoutingTable() *Table { return &c.Table }

// Version implements State.
func (c *Core) Version() uint64 { return c.Ver }

// Peer is node id as a Peer.
func (c *Core) Peer(id timedsim.NodeID) Peer { return Peer{Node: id, ID: c.IDs[id]} }

// Valid reports whether p names one of the nodes and not the node itself.
func (c *Core) Valid(p Peer) bool {
	return p.Node != c.Me.Node && p.Node >= 0 && int(p.Node) < len(c.IDs) && c.IDs[p.Node] == p.ID
}

// App handles AppStart (anything else panics, with pkg as the prefix: a
// scenario bug). The maintenance timers run from the node's start, as Mace
// timers set in maceInit do, so the rounds of all nodes are in step; the
// bootstrap joins at once (a ring of one) and any other node sets
// TimerStart to its boot delay, with the bootstrap as data.
func (c *Core) App(ctx timedsim.Context, pkg, name string, data any) {
	st, ok := data.(Start)
	if name != AppStart || !ok || st.Within < 0 || st.Bootstrap < 0 || int(st.Bootstrap) >= len(c.IDs) {
		panic(fmt.Sprintf("%s: bad application event %q with %T %v", pkg, name, data, data))
	}
	ctx.SetTimer(TimerLeafSet, c.Params.LeafPeriod, nil)
	ctx.SetTimer(TimerTable, c.Params.TablePeriod, nil)
	if st.Bootstrap == c.Me.Node {
		c.IsJoined = true
		c.Ver++
		return
	}
	ctx.SetTimer(TimerStart, time.Duration(ctx.Rand().Int64N(int64(st.Within)+1)), st.Bootstrap)
}

// Join sends the join request req to the bootstrap (the data of
// TimerStart and TimerJoin) and arms TimerJoin, unless the node has joined
// meanwhile: a request that reached a node not yet in the ring (the
// liveness mode's scheduler may deliver it before the bootstrap starts) is
// dropped there, and the joiner asks again JoinRetry later.
func (c *Core) Join(ctx timedsim.Context, bootstrap any, req timedsim.Message) {
	if c.IsJoined {
		ctx.Note(NoteAlreadyJoined)
		return
	}
	b := bootstrap.(timedsim.NodeID)
	ctx.Send(b, req)
	ctx.SetTimer(TimerJoin, JoinRetry, b)
}

// BecomeJoined marks the node joined and cancels TimerJoin; it reports
// false (and notes NoteAlreadyJoined) if the node had joined already.
func (c *Core) BecomeJoined(ctx timedsim.Context) bool {
	if c.IsJoined {
		ctx.Note(NoteAlreadyJoined)
		return false
	}
	c.IsJoined = true
	c.Ver++
	ctx.CancelTimer(TimerJoin)
	return true
}

// LeafSetRound re-arms the leaf-set maintenance timer and reports whether
// the node takes part in the round (it has joined; otherwise it notes
// NoteSkipped).
func (c *Core) LeafSetRound(ctx timedsim.Context) bool {
	ctx.SetTimer(TimerLeafSet, c.Params.LeafPeriod, nil)
	if !c.IsJoined {
		ctx.Note(NoteSkipped)
	}
	return c.IsJoined
}

// TableRound is a round of routing-table maintenance: it re-arms the timer
// and, if the node has joined, asks a random entry of a random non-empty
// row for its row.
func (c *Core) TableRound(ctx timedsim.Context) {
	ctx.SetTimer(TimerTable, c.Params.TablePeriod, nil)
	if !c.IsJoined {
		ctx.Note(NoteSkipped)
		return
	}
	if r, p, ok := c.Table.RandomEntry(ctx.Rand().IntN); ok {
		ctx.Send(p.Node, RowRequest{Row: r})
	}
}

// AnswerRow answers a RowRequest with the row and the node itself.
func (c *Core) AnswerRow(ctx timedsim.Context, from timedsim.NodeID, m RowRequest) {
	if m.Row >= 0 && m.Row < Digits {
		ctx.Send(from, RowReply{Entries: append(c.Table.Row(m.Row), c.Me)})
	}
}

// Clone is a copy of the core for a service's timedsim.Cloner: the
// routing table is a value; the address book IDs, which no node writes,
// is shared.
func (c Core) Clone() Core { return c }

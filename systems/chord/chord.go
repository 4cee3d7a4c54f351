package chord

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// NodeID is the simulator's node identifier (the node's address); the
// node's position on the ring is its Key.
type NodeID = timedsim.NodeID

// None names no node (an unknown predecessor).
const None = timedsim.None

// Bits is the size of the identifier space, 2^Bits keys, and the number of
// fingers (Mace's Chord uses 32-bit SHA keys).
const Bits = 32

// Defaults, as in Mace's Chord.
const (
	// DefaultStabilize is the period of the stabilize timer.
	DefaultStabilize = 100 * time.Millisecond
	// DefaultFixFingers is the period of the fix-fingers timer.
	DefaultFixFingers = 200 * time.Millisecond
	// DefaultJoinTimeout is how long a joining node waits for its
	// JoinReply before it sends its Join again.
	DefaultJoinTimeout = 500 * time.Millisecond
	// DefaultRecovery is the period of the recovery timer, which looks the
	// node's own key up through its contact to merge partitioned rings.
	DefaultRecovery = 60 * time.Second
	// DefaultSuccessors is the length of the successor list.
	DefaultSuccessors = 4
)

// Names of the timers and application events.
const (
	TimerStabilize  = "stabilize"
	TimerFixFingers = "fix-fingers"
	TimerJoin       = "join"
	TimerRecovery   = "recovery"
	// TimerBoot fires i·Gap after AppStart at node i, which then draws its
	// jitter.
	TimerBoot = "boot"
	// TimerStart ends the jitter: the node draws its contact and joins.
	TimerStart = "start"
	// AppJoin is Mace's joinOverlay downcall; its data is the contact, a
	// NodeID: the node itself for the bootstrap.
	AppJoin = "join"
	// AppStart starts a node: its data is a Start. The node boots after
	// its stagger, draws its jitter, then draws its contact and calls
	// joinOverlay (Start's doc).
	AppStart = "start"
)

// Notes (timedsim.Context.Note) the handlers make where they drop, ignore
// or hold what they were given, so that phase 3b can tell these events
// from the ones handled.
const (
	// NoteStarted: joinOverlay at a node that has started already.
	NoteStarted = "ignored: already started"
	// NoteOwnJoin: a node's own Join came back to it.
	NoteOwnJoin = "dropped: own Join"
	// NoteHeld: a Join at a node not on a ring yet, held until it has
	// joined (Mace's findQueue).
	NoteHeld = "held: not on a ring"
	// NoteNotJoining: a JoinReply at a node that is no longer joining (a
	// second answer to a Join sent again; in the buggy variant, the answer
	// a node that started a ring of its own no longer waits for).
	NoteNotJoining = "dropped: not joining"
	// NoteNotJoined: a Lookup, LookupReply, GetPred, GetPredReply or
	// Notify at a node that has not joined.
	NoteNotJoined = "dropped: not joined"
	// NoteStale: a GetPredReply from a node that is no longer the
	// successor.
	NoteStale = "dropped: not from successor"
	// NoteDropped: a Notify that replaced the predecessor, whose old
	// predecessor is not told (the buggy variant, Config.SilentPred).
	NoteDropped = "lost: old predecessor not told"
	// NoteNotNearer: a Notify from a node farther than the predecessor,
	// which is not told (the buggy variant, Config.SilentPred).
	NoteNotNearer = "ignored: predecessor nearer"
)

// Start is the data of AppStart. Node i joins after a boot delay of
// i·Gap plus a jitter drawn uniformly from [0, Jitter], through a contact
// drawn uniformly from the nodes 0 … i−1 (started before it when Jitter ≤
// Gap).
type Start struct {
	Gap, Jitter time.Duration
}

// Key is node id's position on the ring: a fixed bijective mix of its
// address (Mace hashes the address with SHA; a bijection rules out
// collisions among simulated nodes).
func Key(id NodeID) uint32 {
	x := uint32(id) + 0x9e3779b9
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// dist is the clockwise distance from a to b on the ring, with a full turn
// (2^32, as a uint64) for a == b.
func dist(a, b uint32) uint64 {
	if a == b {
		return 1 << Bits
	}
	return uint64(b - a)
}

// between reports whether x lies in the open interval (a, b) going
// clockwise; (a, a) is the whole ring but a.
func between(x, a, b uint32) bool {
	return x != a && dist(a, x) < dist(a, b)
}

// upTo reports whether x lies in the half-open interval (a, b] going
// clockwise; (a, a] is the whole ring.
func upTo(x, a, b uint32) bool {
	return x == b || between(x, a, b)
}

// State is a node's protocol state.
type State uint8

// A node starts in Init, enters Joining on joinOverlay and Joined once it
// has a place on a ring.
const (
	Init State = iota
	Joining
	Joined
)

func (s State) String() string {
	switch s {
	case Init:
		return "init"
	case Joining:
		return "joining"
	case Joined:
		return "joined"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Config configures a Node. The zero value is the fixed protocol with
// Mace's timer periods; each bug is a switch.
type Config struct {
	// SilentPred is the bug of the "buggy" variant, the kind MacePC §5.4
	// reports for Chord ("similar in flavor to the Pastry bugs, with
	// similar solutions"): a node that takes a new predecessor drops the
	// old one without telling it, and ignores a notifier that is not
	// between its predecessor and itself, so the dropped or misplaced node
	// keeps a wrong successor until its next stabilize round. The
	// solution, Pastry's (§5.2: tell a node you evict the state it now
	// needs), is what the protocol does otherwise: the old predecessor, and
	// the misplaced notifier, are sent the predecessor at once (an unasked
	// GetPredReply).
	SilentPred bool
	// JoinRace is the bug of the "join-race" variant, ours: a joining node
	// that receives a Join takes itself for a one-node ring and answers
	// it, and the second ring it starts meets the others only through the
	// 60 s recovery. Otherwise a joining node holds the Joins it receives
	// and routes them once it has joined (Mace's findQueue).
	JoinRace bool
	// Periods; 0 means the default.
	Stabilize, FixFingers, JoinTimeout, Recovery time.Duration
	// Successors is the successor list's length (0 means
	// DefaultSuccessors).
	Successors int
	// SelfLoop is MaceMC's Chord bug (MaceMC paper §5, "Chord"; the
	// "self-loop" variant): a Notify updates the predecessor but does not
	// enter the notifier into the routing state, so a one-node ring that
	// is notified keeps itself as its successor: a self-loop with a
	// predecessor, which stabilize never corrects.
	SelfLoop bool
	// NoRecovery never arms the recovery timer: the buggy variant's
	// second ring then never meets the first, a liveness violation (the
	// "no-recovery" variant, for the liveness mode).
	NoRecovery bool
}

func (c Config) withDefaults() Config {
	if c.Stabilize == 0 {
		c.Stabilize = DefaultStabilize
	}
	if c.FixFingers == 0 {
		c.FixFingers = DefaultFixFingers
	}
	if c.JoinTimeout == 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.Recovery == 0 {
		c.Recovery = DefaultRecovery
	}
	if c.Successors == 0 {
		c.Successors = DefaultSuccessors
	}
	return c
}

// Wire sizes: a header (message type and length), an address and a key.
const (
	headerSize = 8
	addrSize   = 6
	keySize    = 4
)

// Join asks the ring for the joiner's place: it is routed towards the
// predecessor of Who's key, which answers Who with a JoinReply (Mace's
// find_pred with joining set).
type Join struct {
	Who NodeID
}

// Size is the wire size in bytes.
func (Join) Size() int { return headerSize + addrSize }

// JoinReply tells a joiner its place: the sender is its predecessor and
// Succs the sender's successor list, whose first member is the joiner's
// successor (Mace's find_pred_reply).
type JoinReply struct {
	Succs []NodeID
}

// Size is the wire size in bytes.
func (m JoinReply) Size() int { return headerSize + addrSize*len(m.Succs) }

// LookupKind says why a Lookup was sent.
type LookupKind uint8

const (
	// LookupFinger refreshes a finger (the fix-fingers timer).
	LookupFinger LookupKind = iota
	// LookupRecovery looks up the sender's own key through its contact
	// (the recovery timer); the node that answers learns the sender.
	LookupRecovery
)

func (k LookupKind) String() string {
	switch k {
	case LookupFinger:
		return "finger"
	case LookupRecovery:
		return "recovery"
	}
	return fmt.Sprintf("LookupKind(%d)", uint8(k))
}

// Lookup is routed towards the predecessor of Key, which answers Who with
// a LookupReply (Mace's find_pred without joining).
type Lookup struct {
	Key  uint32
	Who  NodeID
	Kind LookupKind
}

// Size is the wire size in bytes.
func (Lookup) Size() int { return headerSize + keySize + addrSize + 1 }

// LookupReply answers a Lookup: the sender is the predecessor of Key and
// Succs its successor list.
type LookupReply struct {
	Key   uint32
	Kind  LookupKind
	Succs []NodeID
}

// Size is the wire size in bytes.
func (m LookupReply) Size() int { return headerSize + keySize + 1 + addrSize*len(m.Succs) }

// GetPred asks a node for its predecessor and successor list (stabilize).
type GetPred struct{}

// Size is the wire size in bytes.
func (GetPred) Size() int { return headerSize }

// GetPredReply answers GetPred. A node also sends it unasked to its old
// predecessor when it takes a new one, so that the old predecessor learns
// its new successor at once (Mace's update_pred handler).
type GetPredReply struct {
	Pred  NodeID
	Succs []NodeID
}

// Size is the wire size in bytes.
func (m GetPredReply) Size() int { return headerSize + addrSize*(1+len(m.Succs)) }

// Notify tells the receiver that the sender believes it is the receiver's
// predecessor (Mace's update_pred).
type Notify struct{}

// Size is the wire size in bytes.
func (Notify) Size() int { return headerSize }

// Node is a Chord node: a timedsim.Service and timedsim.AppHandler. Its
// state is read through the accessors.
type Node struct {
	self    NodeID
	key     uint32
	cfg     Config
	state   State
	contact NodeID       // the node it joins through (itself: bootstrap)
	pred    NodeID       // None if unknown, self in a one-node ring
	succs   []NodeID     // successor list, nearest first, never self
	fingers [Bits]NodeID // finger i: first known node at or after key+2^i, None if self
	held    []heldJoin   // Joins received before the node joined
}

// heldJoin is a Join received while not joined, with its sender.
type heldJoin struct {
	from NodeID
	m    Join
}

var (
	_ timedsim.Service    = (*Node)(nil)
	_ timedsim.AppHandler = (*Node)(nil)
)

// NewNode returns node self in state Init. It panics on a negative
// successor list length.
func NewNode(self NodeID, cfg Config) *Node {
	if cfg.Successors < 0 {
		panic(fmt.Sprintf("chord: successor list length %d is negative", cfg.Successors))
	}
	n := &Node{self: self, key: Key(self), cfg: cfg.withDefaults(), contact: None, pred: None}
	for i := range n.fingers {
		n.fingers[i] = None
	}
	return n
}

// ID is the node's address.
func (n *Node) ID() NodeID { return n.self }

// Key is the node's position on the ring.
func (n *Node) Key() uint32 { return n.key }

// State is the node's protocol state.
func (n *Node) State() State { return n.state }

// Pred is the node's predecessor: None if unknown, itself in a one-node
// ring.
func (n *Node) Pred() NodeID { return n.pred }

// Succ is the node's successor: the first of its successor list, or itself
// if the list is empty (a one-node ring, or not joined).
func (n *Node) Succ() NodeID {
	if len(n.succs) == 0 {
		return n.self
	}
	return n.succs[0]
}

// Succs returns a copy of the successor list, nearest first.
func (n *Node) Succs() []NodeID { return slices.Clone(n.succs) }

// Finger returns finger i (the first node the node knows at or after
// Key+2^i), or the node itself if it knows none before itself.
func (n *Node) Finger(i int) NodeID {
	if f := n.fingers[i]; f != None {
		return f
	}
	return n.self
}

// String describes the node on one line, e.g.
// "n3 joined pred=n1 succs=[n7 n0]".
func (n *Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v pred=%v succs=[", n.self, n.state, n.pred)
	for i, s := range n.succs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.String())
	}
	b.WriteByte(']')
	return b.String()
}

// AppendFingerprint appends the state Describe shows (the node, its
// protocol state, predecessor, successors, contact, the fingers where
// they change, the held Joins) to b without formatting it: the liveness
// search hashes states by it (liveness.Fingerprinter), and two states
// give equal bytes exactly when their Describe texts are equal.
func (n *Node) AppendFingerprint(b []byte) []byte {
	b = binary.AppendVarint(b, int64(n.self))
	b = append(b, byte(n.state))
	b = binary.AppendVarint(b, int64(n.pred))
	b = binary.AppendUvarint(b, uint64(len(n.succs)))
	for _, s := range n.succs {
		b = binary.AppendVarint(b, int64(s))
	}
	b = binary.AppendVarint(b, int64(n.contact))
	last := NodeID(-2)
	for i, f := range n.fingers {
		if f != last {
			b = binary.AppendUvarint(b, uint64(i)+1) // 0 ends the list
			b = binary.AppendVarint(b, int64(f))
			last = f
		}
	}
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(n.held)))
	for _, h := range n.held {
		b = binary.AppendVarint(b, int64(h.from))
		b = binary.AppendVarint(b, int64(h.m.Who))
	}
	return b
}

// Describe implements timedsim.Describer: String plus the contact, the
// distinct fingers and the held Joins, all of which drive later sends.
func (n *Node) Describe() string {
	var b strings.Builder
	b.WriteString(n.String())
	fmt.Fprintf(&b, " contact=%v fingers=[", n.contact)
	last := NodeID(-2)
	for i, f := range n.fingers {
		if f != last {
			if last != -2 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d:%v", i, f)
			last = f
		}
	}
	b.WriteByte(']')
	if len(n.held) > 0 {
		b.WriteString(" held=[")
		for i, h := range n.held {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%v:%v", h.from, h.m.Who)
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Init implements timedsim.Service: a node waits for joinOverlay.
func (n *Node) Init(ctx timedsim.Context) {}

// App implements timedsim.AppHandler: AppJoin with the contact as data,
// AppStart with a Start. Anything else is a scenario bug and panics.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	switch name {
	case AppJoin:
		c, ok := data.(NodeID)
		if !ok {
			panic(fmt.Sprintf("chord: %s event data is %T, want a timedsim.NodeID", AppJoin, data))
		}
		n.joinOverlay(ctx, c)
	case AppStart:
		st, ok := data.(Start)
		if !ok || st.Gap < 0 || st.Jitter < 0 {
			panic(fmt.Sprintf("chord: %s event data is %T %v, want a chord.Start with Gap, Jitter >= 0", AppStart, data, data))
		}
		// The node draws its jitter when it boots and its contact when it
		// joins, each in its own step at that time, so that a replayed
		// prefix fixes only the draws of the nodes that got that far (see
		// Workload).
		ctx.SetTimer(TimerBoot, time.Duration(n.self)*st.Gap, st.Jitter)
	default:
		panic(fmt.Sprintf("chord: unknown application event %q", name))
	}
}

// joinOverlay starts the node. The bootstrap (contact = itself) forms a
// one-node ring; any other node sends Join to its contact and sets its
// join timer.
func (n *Node) joinOverlay(ctx timedsim.Context, contact NodeID) {
	if n.state != Init {
		ctx.Logf("joinOverlay ignored: already %v", n.state)
		ctx.Note(NoteStarted)
		return
	}
	n.contact = contact
	if contact == n.self {
		n.startRing(ctx)
		return
	}
	n.state = Joining
	ctx.Send(contact, Join{Who: n.self})
	ctx.SetTimer(TimerJoin, n.cfg.JoinTimeout, nil)
}

// startRing makes the node a one-node ring: its own predecessor, no
// successor but itself (MaceMC's invariant: in a one-node ring the
// predecessor and the successor are the node itself).
func (n *Node) startRing(ctx timedsim.Context) {
	n.pred = n.self
	n.becomeJoined(ctx)
}

// becomeJoined enters Joined, starts the maintenance timers and serves
// the Joins held while joining.
func (n *Node) becomeJoined(ctx timedsim.Context) {
	n.state = Joined
	ctx.CancelTimer(TimerJoin)
	ctx.SetTimer(TimerStabilize, n.cfg.Stabilize, nil)
	ctx.SetTimer(TimerFixFingers, n.cfg.FixFingers, nil)
	if n.contact != n.self && !n.cfg.NoRecovery {
		ctx.SetTimer(TimerRecovery, n.cfg.Recovery, nil)
	}
	held := n.held
	n.held = nil
	for _, h := range held {
		n.deliverJoin(ctx, h.from, h.m)
	}
}

// learn registers a node the node heard of (Mace's register_knowledge):
// it enters the successor list if it is among the nearest known nodes
// after the node, and every finger it is a better match for.
func (n *Node) learn(p NodeID) {
	if p == n.self || p == None {
		return
	}
	pk := Key(p)
	d := dist(n.key, pk)
	i, found := slices.BinarySearchFunc(n.succs, d, func(s NodeID, d uint64) int {
		ds := dist(n.key, Key(s))
		switch {
		case ds < d:
			return -1
		case ds > d:
			return 1
		}
		return 0
	})
	if !found && i < n.cfg.Successors {
		n.succs = slices.Insert(n.succs, i, p)
		if len(n.succs) > n.cfg.Successors {
			n.succs = n.succs[:n.cfg.Successors]
		}
		if n.pred == n.self {
			// No longer a one-node ring: the predecessor is unknown until
			// one notifies us (Mace's Chord17).
			n.pred = None
		}
	}
	for b := range Bits {
		start := n.key + 1<<b
		dp := dist(start, pk)
		if dp >= dist(start, n.key) {
			continue // the node itself comes first
		}
		if f := n.fingers[b]; f == None || dp < dist(start, Key(f)) {
			n.fingers[b] = p
		}
	}
}

func (n *Node) learnAll(ps []NodeID) {
	for _, p := range ps {
		n.learn(p)
	}
}

// succList is the successor list as sent in replies: the node's own list,
// or the node itself in a one-node ring.
func (n *Node) succList() []NodeID {
	if len(n.succs) == 0 {
		return []NodeID{n.self}
	}
	return slices.Clone(n.succs)
}

// closestPreceding is the known node closest before key (Chord's
// closest_preceding_node), or the node itself if it knows none in
// (own key, key).
func (n *Node) closestPreceding(key uint32) NodeID {
	best, bestD := n.self, uint64(0)
	try := func(p NodeID) {
		if p == None {
			return
		}
		pk := Key(p)
		if between(pk, n.key, key) {
			if d := dist(n.key, pk); d > bestD {
				best, bestD = p, d
			}
		}
	}
	for _, f := range n.fingers {
		try(f)
	}
	for _, s := range n.succs {
		try(s)
	}
	return best
}

// Deliver implements timedsim.Service.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Join:
		n.deliverJoin(ctx, from, m)
	case JoinReply:
		n.deliverJoinReply(ctx, from, m)
	case Lookup:
		n.deliverLookup(ctx, m)
	case LookupReply:
		n.deliverLookupReply(ctx, from, m)
	case GetPred:
		if n.state == Joined {
			ctx.Send(from, GetPredReply{Pred: n.pred, Succs: n.succList()})
		} else {
			ctx.Note(NoteNotJoined)
		}
	case GetPredReply:
		n.deliverGetPredReply(ctx, from, m)
	case Notify:
		n.deliverNotify(ctx, from)
	default:
		panic(fmt.Sprintf("chord: unknown message %T", msg))
	}
}

func (n *Node) deliverJoin(ctx timedsim.Context, from NodeID, m Join) {
	if m.Who == n.self {
		ctx.Logf("Join of ourselves dropped")
		ctx.Note(NoteOwnJoin)
		return
	}
	switch {
	case n.state == Init || (n.state == Joining && !n.cfg.JoinRace):
		// Not on a ring yet: hold the Join and route it once joined
		// (Mace's findQueue). Without the join race this also covers a
		// joining node.
		n.held = append(n.held, heldJoin{from, m})
		ctx.Note(NoteHeld)
		return
	case n.state == Joining:
		// The bug: a node that has no successor yet takes itself for a
		// one-node ring, as the bootstrap is, and answers the joiner.
		// Its own JoinReply, when it comes, finds it joined and is
		// dropped: the two rings only meet through recovery.
		ctx.Logf("Join of %v while joining: starting a ring of our own", m.Who)
		n.startRing(ctx)
	}
	if upTo(Key(m.Who), n.key, Key(n.Succ())) {
		// We are the joiner's predecessor.
		ctx.Send(m.Who, JoinReply{Succs: n.succList()})
		return
	}
	ctx.Send(n.closestPreceding(Key(m.Who)), m)
}

func (n *Node) deliverJoinReply(ctx timedsim.Context, from NodeID, m JoinReply) {
	if n.state != Joining {
		// A second answer to a Join sent again by the join timer, or, in
		// the buggy variant, the answer a node that started its own ring
		// no longer waits for.
		ctx.Logf("JoinReply from %v dropped in state %v", from, n.state)
		ctx.Note(NoteNotJoining)
		return
	}
	n.pred = from
	n.learn(from) // MaceMC's Chord8: the predecessor is routing state too
	n.learnAll(m.Succs)
	if s := n.Succ(); s != n.self {
		ctx.Send(s, Notify{})
	}
	n.becomeJoined(ctx)
}

func (n *Node) deliverLookup(ctx timedsim.Context, m Lookup) {
	if n.state != Joined {
		// Lookups only travel between joined nodes; one reaching a node
		// that is not is stale: the asker's timer will ask again.
		ctx.Logf("Lookup from %v dropped in state %v", m.Who, n.state)
		ctx.Note(NoteNotJoined)
		return
	}
	if upTo(m.Key, n.key, Key(n.Succ())) {
		if m.Kind == LookupRecovery {
			n.learn(m.Who) // recovery merges rings: both ends learn
		}
		if m.Who == n.self {
			return
		}
		ctx.Send(m.Who, LookupReply{Key: m.Key, Kind: m.Kind, Succs: n.succList()})
		return
	}
	ctx.Send(n.closestPreceding(m.Key), m)
}

func (n *Node) deliverLookupReply(ctx timedsim.Context, from NodeID, m LookupReply) {
	if n.state != Joined {
		ctx.Note(NoteNotJoined)
		return
	}
	n.learn(from)
	n.learnAll(m.Succs)
}

func (n *Node) deliverGetPredReply(ctx timedsim.Context, from NodeID, m GetPredReply) {
	// Only the successor's answer counts: one from a former successor is
	// stale (Mace's guard).
	switch {
	case n.state != Joined:
		ctx.Note(NoteNotJoined)
		return
	case from != n.Succ():
		ctx.Note(NoteStale)
		return
	}
	n.learnAll(m.Succs)
	if m.Pred == n.self {
		return // our successor knows us as its predecessor
	}
	n.learn(m.Pred) // a node between us and our successor becomes our successor
	ctx.Send(n.Succ(), Notify{})
}

func (n *Node) deliverNotify(ctx timedsim.Context, from NodeID) {
	if n.state != Joined {
		ctx.Note(NoteNotJoined)
		return
	}
	if n.pred != None && n.pred != n.self && !between(Key(from), Key(n.pred), n.key) {
		switch {
		case n.pred == from:
		case n.cfg.SilentPred:
			// The bug: the notifier is not told; its next stabilize round
			// asks us.
			ctx.Logf("Notify from %v ignored: %v is nearer", from, n.pred)
			ctx.Note(NoteNotNearer)
		default:
			// Our predecessor lies between the notifier and us: tell the
			// notifier at once rather than leave it to find out one
			// stabilize round (100 ms) per node between us.
			ctx.Send(from, GetPredReply{Pred: n.pred, Succs: n.succList()})
		}
		return
	}
	old := n.pred
	n.pred = from
	// Every node we learn of is routing state (the revised Chord protocol;
	// MaceMC's Chord bug was a one-node ring that took a predecessor but
	// kept itself as its successor).
	if n.cfg.SelfLoop {
		ctx.Logf("predecessor %v not entered into the routing state (self-loop bug)", from)
	} else {
		n.learn(from)
	}
	if old != None && old != n.self && old != from {
		if n.cfg.SilentPred {
			// The bug: the old predecessor is dropped silently and keeps
			// us as its successor until its next stabilize round.
			ctx.Logf("predecessor %v replaced by %v without telling it", old, from)
			ctx.Note(NoteDropped)
			return
		}
		// Tell the old predecessor about its new successor at once.
		ctx.Send(old, GetPredReply{Pred: from, Succs: n.succList()})
	}
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerBoot:
		ctx.SetTimer(TimerStart, time.Duration(ctx.Rand().Int64N(int64(data.(time.Duration))+1)), nil)
	case TimerStart:
		contact := n.self
		if n.self > 0 {
			contact = NodeID(ctx.Rand().IntN(int(n.self)))
		}
		n.joinOverlay(ctx, contact)
	case TimerJoin:
		if n.state == Joining {
			ctx.Send(n.contact, Join{Who: n.self})
			ctx.SetTimer(TimerJoin, n.cfg.JoinTimeout, nil)
		}
	case TimerStabilize:
		ctx.SetTimer(TimerStabilize, n.cfg.Stabilize, nil)
		if s := n.Succ(); s != n.self {
			ctx.Send(s, GetPred{})
		}
	case TimerFixFingers:
		ctx.SetTimer(TimerFixFingers, n.cfg.FixFingers, nil)
		n.fixFinger(ctx)
	case TimerRecovery:
		ctx.SetTimer(TimerRecovery, n.cfg.Recovery, nil)
		ctx.Send(n.contact, Lookup{Key: n.key, Who: n.self, Kind: LookupRecovery})
	default:
		panic(fmt.Sprintf("chord: unknown timer %q", name))
	}
}

// fixFinger refreshes a finger chosen at random: it looks up the
// successor of Key+2^i through the closest preceding node it knows.
func (n *Node) fixFinger(ctx timedsim.Context) {
	if n.Succ() == n.self {
		return
	}
	i := ctx.Rand().IntN(Bits)
	start := n.key + 1<<i
	if upTo(start, n.key, Key(n.Succ())) {
		n.learn(n.Succ()) // the successor is the finger
		return
	}
	ctx.Send(n.closestPreceding(start), Lookup{Key: start, Who: n.self, Kind: LookupFinger})
}

var _ timedsim.Cloner = (*Node)(nil)

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots: the fingers are an array (a value).
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.succs, c.held = slices.Clone(n.succs), slices.Clone(n.held)
	return &c
}

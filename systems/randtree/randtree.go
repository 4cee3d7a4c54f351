package randtree

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// NodeID is the simulator's node identifier; it doubles as the node's
// address, and a lower ID is "more fit" to be the root.
type NodeID = timedsim.NodeID

// None names no node (the parent of a node that is not in a tree).
const None = timedsim.None

// Defaults, as in Mace's RandTree.
const (
	// DefaultMaxChildren is the fan-out limit of a tree node.
	DefaultMaxChildren = 4
	// DefaultJoinTimeout is how long a joining node waits for a JoinReply
	// before it tries the next member of its peer set.
	DefaultJoinTimeout = 5 * time.Second
	// DefaultRecoveryPeriod is the period of the recovery timer that probes
	// peers and merges trees with different roots.
	DefaultRecoveryPeriod = 10 * time.Second
)

// Names of the node's timers and of its application event.
const (
	// TimerJoin is the join retry timer.
	TimerJoin = "join"
	// TimerRecovery is the periodic recovery (tree merging) timer.
	TimerRecovery = "recovery"
	// AppJoin is Mace's joinOverlay downcall; its data is the peer set,
	// a []NodeID.
	AppJoin = "join"
	// AppStart is the application starting the node: its data is a
	// Start; the node waits a boot delay it draws from Context.Rand, then
	// calls joinOverlay (timer TimerStart).
	AppStart = "start"
	// TimerStart ends the boot delay of AppStart.
	TimerStart = "start"
)

// Notes (timedsim.Context.Note) the handlers make where they drop, ignore
// or defer what they were given, so that phase 3b can tell these events
// from the ones handled.
const (
	// NoteStarted: joinOverlay at a node that has started already.
	NoteStarted = "ignored: already started"
	// NoteNotStarted: a Join at a node in Init, which knows no tree.
	NoteNotStarted = "ignored: not started"
	// NoteOwnJoin: a node's own Join came back to it.
	NoteOwnJoin = "dropped: own Join"
	// NoteDeferred: a Join at a joining node that knows no root (its
	// parent failed), held until it has rejoined (fixed variant).
	NoteDeferred = "deferred: root unknown"
	// NoteTieBreak: a Join from a more fit node at a joining node that
	// knows no root, which makes the joiner a root and joins under it
	// (fixed variant).
	NoteTieBreak = "root unknown: joiner made root"
	// NoteDuplicate: a second acceptance by the node's own parent.
	NoteDuplicate = "ignored: duplicate acceptance"
	// NoteNotChild: a Remove from a node that is not a child.
	NoteNotChild = "ignored: not a child"
	// NoteNotJoined: a NewRoot, Probe, ProbeReply or RootJoin at a node
	// that is not joined.
	NoteNotJoined = "ignored: not joined"
	// NoteNotParent: a Dropped from a node that is not the parent (of a
	// joined node).
	NoteNotParent = "ignored: not from parent"
	// NoteRootUnknown: a ProbeReply that a root to compare is missing on
	// one side.
	NoteRootUnknown = "ignored: root unknown"
	// NoteNotRoot: a RootJoin at a node that is not a root.
	NoteNotRoot = "ignored: not a root"
	// NoteNotFitter: a RootJoin whose target is not more fit.
	NoteNotFitter = "ignored: target not more fit"
	// NoteNotRearmed: the recovery timer fired while not joined and was
	// not re-armed (MaceMC's RT3, the liveness-bug variant).
	NoteNotRearmed = "stopped: recovery not re-armed"
	// NoteRT1: the join timer found no peer that is not a child (MaceMC's
	// RT1, the rt1 variant).
	NoteRT1 = "stuck: no peer to join"
	// NoteRT10: a Remove at a joining node, ignored (MaceMC's RT10, the
	// rt10 variant).
	NoteRT10 = "ignored: joining"
	// NoteSendFailed: a failed send that no timer repairs sooner.
	NoteSendFailed = "ignored: send failed"
)

// Start is the data of AppStart: join through Peers after a boot delay
// drawn uniformly from [0, Within].
type Start struct {
	Peers  []NodeID
	Within time.Duration
}

// State is a RandTree node's protocol state.
type State uint8

// The states of a node. A node starts in Init, enters Joining on
// joinOverlay and Joined once it has a parent (or is a root).
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

// Config configures a Node. The zero value is the buggy protocol with
// Mace's defaults.
type Config struct {
	// Fixed selects the fixed protocol: a joining node forwards a Join to
	// the root it is joining instead of accepting the joiner itself (which
	// is the bug of MacePC's Figure 1).
	Fixed bool
	// MaxChildren is the fan-out limit (0 means DefaultMaxChildren).
	MaxChildren int
	// JoinTimeout is the join retry period (0 means DefaultJoinTimeout).
	JoinTimeout time.Duration
	// RecoveryPeriod is the recovery probe period (0 means
	// DefaultRecoveryPeriod).
	RecoveryPeriod time.Duration
	// RecoveryOnlyJoined reintroduces MaceMC's RandTree bug RT3: the
	// recovery timer is re-armed only when it fires in the joined state,
	// so a recovery timer that fires while its node is joining is gone for
	// good, and two trees whose only links run through such nodes never
	// merge (the "liveness-bug" variant).
	RecoveryOnlyJoined bool
	// MaceMC is a set of MaceMC's other RandTree bugs (MaceMC paper §7.3,
	// the long version's write-ups) switched back on, each undoing the fix
	// the protocol otherwise has (the "rt1" … "rt16" variants).
	MaceMC MaceMCBugs
}

// MaceMCBugs switches MaceMC's RandTree bugs back on. Each field says what
// the bug does here; the MaceMC paper's own words are in bench/PAPER.md.
type MaceMCBugs struct {
	// RT1: a root that joins under a more fit node does not add it to its
	// peer set; if that join fails and its peers are all its children, the
	// join timer finds no peer to try. Mace's handler then looped forever;
	// here the node gives up ("stuck: no peer to join") and stays joining.
	RT1 bool
	// RT2: a root answers "parent?" with no node instead of itself, so the
	// properties, which ask (Node.Parent), never see a root.
	RT2 bool
	// RT4: NewRoot is taken from any node, not only from the parent: a
	// node accepted by two parents may take the root of the tree it is not
	// in, and then its probes see no second tree to merge.
	RT4 bool
	// RT10: a Remove that reaches a joining node is ignored, so it keeps a
	// child that left it.
	RT10 bool
	// RT11: a Probe at a node in Init makes it join the prober, without
	// arming its recovery timer (the safety property "recovery-timer").
	RT11 bool
	// RT14: a RootJoin at a node in Init makes it join under the target,
	// without arming its recovery timer ("recovery-timer"; a node reset
	// gets one, since RootJoin names a live root).
	RT14 bool
	// RT16: a node whose parent fails keeps its root.
	RT16 bool
	// NoChildCheck turns off the parent's side of the link checks
	// (a NewRoot to each child every recovery round, answered Remove by a
	// joined node whose parent is another), which MaceMC's RandTree did
	// not have: it repairs RT10's stale child within a round.
	NoChildCheck bool
}

func (c Config) withDefaults() Config {
	if c.MaxChildren == 0 {
		c.MaxChildren = DefaultMaxChildren
	}
	if c.JoinTimeout == 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.RecoveryPeriod == 0 {
		c.RecoveryPeriod = DefaultRecoveryPeriod
	}
	return c
}

// Wire sizes: a message header (Mace message type and length) and an
// address (IPv4 address and port, as Mace's MaceKey).
const (
	headerSize = 8
	addrSize   = 6
)

// Join asks to join the tree as a child. Who is the joiner (a Join is
// forwarded, so the sender is not necessarily the joiner); Down marks a
// Join pushed down from the root to a child because the root was full,
// which the child must handle itself rather than forward to the root.
type Join struct {
	Who  NodeID
	Down bool
}

// Size is the wire size in bytes.
func (Join) Size() int { return headerSize + addrSize + 1 }

// ReplyKind is the verdict of a JoinReply.
type ReplyKind uint8

const (
	// Accepted: the sender took the joiner as its child.
	Accepted ReplyKind = iota
	// ForceRoot: the joiner is more fit to be the root than the sender (a
	// root); the joiner must become the root and the sender will join
	// under it.
	ForceRoot
)

func (k ReplyKind) String() string {
	switch k {
	case Accepted:
		return "accepted"
	case ForceRoot:
		return "force-root"
	}
	return fmt.Sprintf("ReplyKind(%d)", uint8(k))
}

// JoinReply answers a Join, from the node that accepted the joiner (or
// from the root that makes it the new root). Root is the root of the
// sender's tree.
type JoinReply struct {
	Kind ReplyKind
	Root NodeID
}

// Size is the wire size in bytes.
func (JoinReply) Size() int { return headerSize + 1 + addrSize }

// Remove tells the receiver that the sender is not its child: the sender
// rejected the receiver's JoinReply.
type Remove struct{}

// Size is the wire size in bytes.
func (Remove) Size() int { return headerSize }

// Dropped tells the receiver that the sender does not list it as a child:
// the answer to a ParentCheck from a node that is not a child, and what a
// parent sends a child it dropped because their connection broke (a reset
// child may have rejoined under the same parent before that parent learned
// of the break). A receiver that still names the sender as its parent
// rejoins.
type Dropped struct{}

// Size is the wire size in bytes.
func (Dropped) Size() int { return headerSize }

// NewRoot tells a child the root of its parent's tree.
type NewRoot struct {
	Root NodeID
}

// Size is the wire size in bytes.
func (NewRoot) Size() int { return headerSize + addrSize }

// ParentCheck asks the receiver, the sender's parent, whether it lists the
// sender as a child (the recovery protocol's check of the tree links); a
// receiver that does not answers Dropped.
type ParentCheck struct{}

// Size is the wire size in bytes.
func (ParentCheck) Size() int { return headerSize }

// Probe is the recovery protocol's question to a peer: which root is your
// tree's? Root is the prober's root.
type Probe struct {
	Root NodeID
}

// Size is the wire size in bytes.
func (Probe) Size() int { return headerSize + addrSize }

// ProbeReply answers a Probe with the replier's root.
type ProbeReply struct {
	Root NodeID
}

// Size is the wire size in bytes.
func (ProbeReply) Size() int { return headerSize + addrSize }

// RootJoin asks a root to join under Target, the more fit root of another
// tree, so that the two trees merge.
type RootJoin struct {
	Target NodeID
}

// Size is the wire size in bytes.
func (RootJoin) Size() int { return headerSize + addrSize }

// Node is a RandTree node: a timedsim.Service, timedsim.AppHandler and
// timedsim.ErrorHandler. Its state is read through the accessors.
type Node struct {
	self     NodeID
	cfg      Config
	state    State
	root     NodeID   // believed root of our tree (None if unknown)
	parent   NodeID   // self if root, None if not in a tree
	children []NodeID // sorted, at most cfg.MaxChildren
	peers    []NodeID // the peer set of joinOverlay, plus roots joined since
	target   int      // index in peers of the node we are joining (round robin)
	deferred []Join   // Joins received while joining with no known root (fixed)
}

var (
	_ timedsim.Service      = (*Node)(nil)
	_ timedsim.AppHandler   = (*Node)(nil)
	_ timedsim.ErrorHandler = (*Node)(nil)
	_ timedsim.Cloner       = (*Node)(nil)
)

// Clone is a deep copy of the node (timedsim.Cloner): the divergence
// search forks its walks from a snapshot instead of replaying their
// prefixes. The handlers copy what they keep of a message or timer data.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.children, c.peers, c.deferred = slices.Clone(n.children), slices.Clone(n.peers), slices.Clone(n.deferred)
	return &c
}

// NewNode returns node self in state Init. It panics if cfg.MaxChildren is
// negative.
func NewNode(self NodeID, cfg Config) *Node {
	if cfg.MaxChildren < 0 {
		panic(fmt.Sprintf("randtree: MaxChildren %d is negative", cfg.MaxChildren))
	}
	return &Node{self: self, cfg: cfg.withDefaults(), root: None, parent: None, target: -1}
}

// ID is the node's own ID.
func (n *Node) ID() NodeID { return n.self }

// State is the node's protocol state.
func (n *Node) State() State { return n.state }

// Parent is the node's parent: itself if it is a root, None if it is not
// in a tree (with MaceMC's RT2, None for a root too). The properties ask
// it, as MaceMC's asked the service's API.
func (n *Node) Parent() NodeID {
	if n.cfg.MaceMC.RT2 && n.parent == n.self {
		return None
	}
	return n.parent
}

// Root is the root the node believes its tree has (None if unknown).
func (n *Node) Root() NodeID { return n.root }

// IsRoot reports whether the node is a joined root (its parent, as Parent
// answers, is itself).
func (n *Node) IsRoot() bool { return n.state == Joined && n.Parent() == n.self }

// Children returns a copy of the node's children, sorted.
func (n *Node) Children() []NodeID { return slices.Clone(n.children) }

// NumChildren is the number of children.
func (n *Node) NumChildren() int { return len(n.children) }

// HasChild reports whether id is one of the node's children.
func (n *Node) HasChild(id NodeID) bool {
	_, ok := slices.BinarySearch(n.children, id)
	return ok
}

// Peers returns a copy of the node's peer set.
func (n *Node) Peers() []NodeID { return slices.Clone(n.peers) }

// String describes the node's state on one line, e.g.
// "n3 joined root=n0 parent=n1 children=[n5 n9]".
func (n *Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v root=%v parent=%v children=[", n.self, n.state, n.root, n.parent)
	for i, c := range n.children {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.String())
	}
	b.WriteByte(']')
	return b.String()
}

// AppendFingerprint appends the state Describe shows (the node, its
// protocol state, root, parent, children, peer set, join target and
// deferred Joins, each list with its length) to b, without formatting
// it: the liveness search hashes states by it (liveness.Fingerprinter),
// and two states give equal bytes exactly when their Describe texts are
// equal.
func (n *Node) AppendFingerprint(b []byte) []byte {
	b = binary.AppendVarint(b, int64(n.self))
	b = append(b, byte(n.state))
	b = binary.AppendVarint(b, int64(n.root))
	b = binary.AppendVarint(b, int64(n.parent))
	b = binary.AppendUvarint(b, uint64(len(n.children)))
	for _, c := range n.children {
		b = binary.AppendVarint(b, int64(c))
	}
	b = binary.AppendUvarint(b, uint64(len(n.peers)))
	for _, p := range n.peers {
		b = binary.AppendVarint(b, int64(p))
	}
	b = binary.AppendVarint(b, int64(n.target))
	b = binary.AppendUvarint(b, uint64(len(n.deferred)))
	for _, j := range n.deferred {
		b = binary.AppendVarint(b, int64(j.Who))
		if j.Down {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// Describe implements timedsim.Describer: the whole protocol state, String
// plus the peer set, the join target and the deferred Joins, all of which
// drive later sends (the liveness mode hashes states by it, and its state
// diffs show it).
func (n *Node) Describe() string {
	var b strings.Builder
	b.WriteString(n.String())
	fmt.Fprintf(&b, " peers=%v target=%d", n.peers, n.target)
	if len(n.deferred) > 0 {
		b.WriteString(" deferred=[")
		for i, j := range n.deferred {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%+v", j)
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Init implements timedsim.Service. A node starts in Init and waits for
// joinOverlay (the AppJoin event).
func (n *Node) Init(ctx timedsim.Context) {}

// App implements timedsim.AppHandler. The events are AppJoin with the
// peer set as data, and AppStart with a Start; it panics on anything
// else, which is a scenario bug.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	switch name {
	case AppJoin:
		peers, ok := data.([]NodeID)
		if !ok {
			panic(fmt.Sprintf("randtree: %s event data is %T, want []timedsim.NodeID", AppJoin, data))
		}
		n.joinOverlay(ctx, peers)
	case AppStart:
		st, ok := data.(Start)
		if !ok || st.Within < 0 {
			panic(fmt.Sprintf("randtree: %s event data is %T %v, want a randtree.Start with Within >= 0", AppStart, data, data))
		}
		delay := time.Duration(ctx.Rand().Int64N(int64(st.Within) + 1))
		ctx.SetTimer(TimerStart, delay, slices.Clone(st.Peers))
	default:
		panic(fmt.Sprintf("randtree: unknown application event %q", name))
	}
}

// joinOverlay starts the node: it becomes the root if its peer set names
// no other node (it is the bootstrap), and otherwise joins through the
// first other peer. The recovery timer runs from now on in every state,
// so "not Init implies the recovery timer is pending" (MaceMC's RT11).
func (n *Node) joinOverlay(ctx timedsim.Context, peers []NodeID) {
	if n.state != Init {
		ctx.Logf("joinOverlay ignored: already %v", n.state)
		ctx.Note(NoteStarted)
		return
	}
	n.peers = slices.Clone(peers)
	ctx.SetTimer(TimerRecovery, n.cfg.RecoveryPeriod, nil)
	n.state = Joining
	n.target = -1
	n.joinNextPeer(ctx)
}

// joinNextPeer sends a Join to the next member of the peer set after the
// current target, round robin, skipping ourselves and our children; with no
// such peer the node becomes a root.
func (n *Node) joinNextPeer(ctx timedsim.Context) {
	for i := 1; i <= len(n.peers); i++ {
		j := (n.target + i) % len(n.peers)
		if p := n.peers[j]; p != n.self && !n.HasChild(p) {
			n.target = j
			n.sendJoin(ctx, p)
			return
		}
	}
	n.becomeRoot(ctx)
}

// hasPeerToJoin reports whether the peer set names a node other than
// ourselves and our children.
func (n *Node) hasPeerToJoin() bool {
	for _, p := range n.peers {
		if p != n.self && !n.HasChild(p) {
			return true
		}
	}
	return false
}

// joinUnder leaves the root position to join under the more fit node
// target. The node keeps its children: its whole subtree moves.
func (n *Node) joinUnder(ctx timedsim.Context, target NodeID) {
	n.state = Joining
	n.parent = None
	n.root = target
	// Remember the target as a peer so that join retries can reach it
	// (MaceMC's RT1).
	n.target = slices.Index(n.peers, target)
	if n.target < 0 && !n.cfg.MaceMC.RT1 {
		n.peers = append(n.peers, target)
		n.target = len(n.peers) - 1
	}
	n.sendJoin(ctx, target)
}

func (n *Node) sendJoin(ctx timedsim.Context, to NodeID) {
	ctx.Send(to, Join{Who: n.self})
	ctx.SetTimer(TimerJoin, n.cfg.JoinTimeout, nil)
}

// becomeRoot makes the node the root of its (sub)tree.
func (n *Node) becomeRoot(ctx timedsim.Context) {
	n.becomeJoined(ctx, n.self, n.self)
}

// becomeJoined enters Joined with the given parent and root and tells the
// children the root: while the node was joining its children were not told
// about root changes.
func (n *Node) becomeJoined(ctx timedsim.Context, parent, root NodeID) {
	n.state = Joined
	n.parent = parent
	n.root = root
	ctx.CancelTimer(TimerJoin)
	for _, c := range n.children {
		ctx.Send(c, NewRoot{Root: root})
	}
	deferred := n.deferred
	n.deferred = nil
	for _, m := range deferred {
		n.deliverJoin(ctx, m)
	}
}

func (n *Node) addChild(id NodeID) {
	i, ok := slices.BinarySearch(n.children, id)
	if !ok {
		n.children = slices.Insert(n.children, i, id)
	}
}

func (n *Node) removeChild(id NodeID) bool {
	i, ok := slices.BinarySearch(n.children, id)
	if ok {
		n.children = slices.Delete(n.children, i, i+1)
	}
	return ok
}

// Deliver implements timedsim.Service.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Join:
		n.deliverJoin(ctx, m)
	case JoinReply:
		n.deliverJoinReply(ctx, from, m)
	case Remove:
		if n.cfg.MaceMC.RT10 && n.state == Joining {
			ctx.Logf("Remove from %v ignored while joining (RT10)", from)
			ctx.Note(NoteRT10)
			return
		}
		if n.state == Joining && from == n.root {
			// The more fit node we are joining under rejected our
			// ForceRoot: it is not a root (it reset, and its new
			// incarnation had not started). We know no root any more;
			// otherwise we forward every Join, its own included, to a
			// node that holds ours (found by the liveness mode with a
			// reset and full peer sets).
			n.root = None
		}
		if !n.removeChild(from) {
			ctx.Logf("Remove from %v, not a child", from)
			ctx.Note(NoteNotChild)
		}
	case Dropped:
		if n.state == Joined && n.parent == from && from != n.self {
			n.parentLost(ctx)
		} else {
			ctx.Note(NoteNotParent)
		}
	case ParentCheck:
		if !n.HasChild(from) {
			ctx.Send(from, Dropped{})
		}
	case NewRoot:
		n.deliverNewRoot(ctx, from, m)
	case Probe:
		// Only a joined node knows its tree's root; a node in Init must
		// not be drawn into the protocol by a probe (MaceMC's RT11).
		if n.cfg.MaceMC.RT11 && n.state == Init {
			n.joinFromInit(ctx, from)
			return
		}
		if n.state == Joined {
			ctx.Send(from, ProbeReply{Root: n.root})
		} else {
			ctx.Note(NoteNotJoined)
		}
	case ProbeReply:
		n.deliverProbeReply(ctx, m)
	case RootJoin:
		n.deliverRootJoin(ctx, m)
	default:
		panic(fmt.Sprintf("randtree: unknown message %T", msg))
	}
}

func (n *Node) deliverJoin(ctx timedsim.Context, m Join) {
	who := m.Who
	if who == n.self {
		ctx.Logf("Join of ourselves dropped")
		ctx.Note(NoteOwnJoin)
		return
	}
	switch {
	case n.state == Init:
		// Not in the overlay: we know no tree to pass the joiner to. The
		// joiner retries another peer when its join timer fires.
		ctx.Logf("Join of %v ignored in state init", who)
		ctx.Note(NoteNotStarted)

	case n.state == Joining && n.cfg.Fixed:
		// The fix: we are not in a tree, but the node we are joining is
		// (or leads to) the root; let it handle the joiner. A node that
		// lost its parent knows no root: it handles the Join once it has
		// rejoined, rather than make the joiner wait for its join timer.
		// Unless the joiner is more fit: then no tree may be left to
		// rejoin (the root itself failed, and every node is joining and
		// holding the others' Joins), and the node does what a root does
		// with a more fit joiner: it makes the joiner a root and joins
		// under it. The lowest joining node is thereby never held, so
		// holding cannot deadlock, and the node's root pointer still names
		// a lower ID.
		switch {
		case n.root != None && n.root != n.self:
			ctx.Send(n.root, m)
		case who < n.self && !n.HasChild(who):
			ctx.Note(NoteTieBreak)
			ctx.Send(who, JoinReply{Kind: ForceRoot, Root: who})
			n.joinUnder(ctx, who)
		default:
			ctx.Note(NoteDeferred)
			if !slices.Contains(n.deferred, m) {
				n.deferred = append(n.deferred, m)
			}
		}

	case n.state == Joining:
		// The bug of MacePC's Figure 1: a joining node still treats its
		// own subtree as a tree. It accepts the joiner, and since it now
		// has a child it considers itself joined, and a root again. The
		// JoinReply of the node it was joining will be rejected.
		if n.HasChild(who) || len(n.children) < n.cfg.MaxChildren {
			n.becomeRoot(ctx)
			n.accept(ctx, who)
		} else {
			n.pushDown(ctx, who)
		}

	case n.parent == n.self: // joined root
		if who < n.self && !n.HasChild(who) {
			// The joiner is more fit to be the root: make it the root
			// and join under it, with our whole subtree.
			ctx.Send(who, JoinReply{Kind: ForceRoot, Root: who})
			n.joinUnder(ctx, who)
			return
		}
		n.acceptOrPushDown(ctx, who)

	case m.Down: // joined, not root: the root pushed the joiner to us
		n.acceptOrPushDown(ctx, who)

	default: // joined, not root: joins are decided by the root
		to := n.root
		if to == None || to == n.self {
			to = n.parent
		}
		ctx.Send(to, m)
	}
}

// acceptOrPushDown takes who as a child if there is room (or if it is
// already a child whose JoinReply may have been lost), and otherwise
// passes it down to a child chosen uniformly at random (as Mace's
// RandTree does; a random choice keeps the tree balanced in expectation
// without tracking subtree sizes).
func (n *Node) acceptOrPushDown(ctx timedsim.Context, who NodeID) {
	if n.HasChild(who) || len(n.children) < n.cfg.MaxChildren {
		n.accept(ctx, who)
		return
	}
	n.pushDown(ctx, who)
}

func (n *Node) accept(ctx timedsim.Context, who NodeID) {
	n.addChild(who)
	ctx.Send(who, JoinReply{Kind: Accepted, Root: n.root})
}

func (n *Node) pushDown(ctx timedsim.Context, who NodeID) {
	c := n.children[ctx.Rand().IntN(len(n.children))]
	ctx.Send(c, Join{Who: who, Down: true})
}

func (n *Node) deliverJoinReply(ctx timedsim.Context, from NodeID, m JoinReply) {
	if n.state == Joined && from == n.parent && from != n.self && m.Kind == Accepted {
		// A second acceptance by our own parent: our join timer fired
		// before its first JoinReply arrived and we asked again. Rejecting
		// it would make the parent drop us while we keep it as parent
		// (kids-match violated for good; found by the liveness search).
		ctx.Note(NoteDuplicate)
		return
	}
	if n.state != Joining || n.HasChild(from) {
		// We are already in a tree (or the sender is in our subtree):
		// tell the sender we are not its child. In the buggy protocol
		// this is where Figure 1's race shows, as the event
		// "deliver JoinReply → Remove" of MacePC's Figure 4.
		ctx.Send(from, Remove{})
		return
	}
	switch m.Kind {
	case ForceRoot:
		n.becomeRoot(ctx)
	case Accepted:
		n.becomeJoined(ctx, from, m.Root)
	default:
		panic(fmt.Sprintf("randtree: unknown JoinReply kind %v", m.Kind))
	}
}

func (n *Node) deliverNewRoot(ctx timedsim.Context, from NodeID, m NewRoot) {
	// Only our parent tells us our root (MaceMC's RT4): a node that
	// accepted us but whose JoinReply we rejected must not. It still
	// lists us as its child, which a joined node tells it (Remove), as it
	// tells a parent that a broken connection made it leave. A node that
	// is not joined cannot tell: the sender's JoinReply may be on its way
	// behind this message, and the sender asks again next round.
	switch {
	case n.state != Joined:
		ctx.Note(NoteNotJoined)
		return
	case n.cfg.MaceMC.RT4:
		// The bug: no check of the sender.
	case from != n.parent || n.parent == n.self:
		if n.cfg.MaceMC.NoChildCheck {
			ctx.Note(NoteNotParent)
			return
		}
		ctx.Send(from, Remove{})
		return
	case m.Root == n.root:
		return
	}
	n.root = m.Root
	for _, c := range n.children {
		ctx.Send(c, NewRoot{Root: m.Root})
	}
}

func (n *Node) deliverProbeReply(ctx timedsim.Context, m ProbeReply) {
	switch {
	case n.state != Joined:
		ctx.Note(NoteNotJoined)
		return
	case m.Root == None || n.root == None:
		ctx.Note(NoteRootUnknown)
		return
	case m.Root == n.root:
		return
	}
	// Two trees: ask the less fit root to join under the more fit one.
	small, large := min(m.Root, n.root), max(m.Root, n.root)
	if large == n.self {
		n.deliverRootJoin(ctx, RootJoin{Target: small})
		return
	}
	ctx.Send(large, RootJoin{Target: small})
}

func (n *Node) deliverRootJoin(ctx timedsim.Context, m RootJoin) {
	if n.cfg.MaceMC.RT14 && n.state == Init {
		n.joinFromInit(ctx, m.Target)
		return
	}
	switch {
	case n.state != Joined:
		ctx.Note(NoteNotJoined)
	case n.parent != n.self:
		ctx.Note(NoteNotRoot)
	case m.Target >= n.self:
		ctx.Note(NoteNotFitter)
	default:
		n.joinUnder(ctx, m.Target)
		return
	}
	ctx.Logf("RootJoin under %v ignored", m.Target)
}

// joinFromInit is MaceMC's RT11 and RT14: a node in Init drawn into the
// protocol by a message joins through to, without the recovery timer that
// joinOverlay arms.
func (n *Node) joinFromInit(ctx timedsim.Context, to NodeID) {
	ctx.Logf("joining %v from init, no recovery timer (RT11/RT14)", to)
	n.state = Joining
	n.peers = []NodeID{to}
	n.target = 0
	n.sendJoin(ctx, to)
}

// parentLost sends a joined node whose parent failed or dropped it back to
// its peer set to rejoin, with its subtree. It forgets the root too: it was
// reached through the parent (MaceMC's RT16).
func (n *Node) parentLost(ctx timedsim.Context) {
	n.state = Joining
	n.parent = None
	if !n.cfg.MaceMC.RT16 {
		n.root = None
	}
	n.joinNextPeer(ctx)
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerStart:
		n.joinOverlay(ctx, data.([]NodeID))
	case TimerJoin:
		if n.state != Joining {
			break
		}
		if n.cfg.MaceMC.RT1 && !n.hasPeerToJoin() {
			// Mace looped here for ever looking for a peer that is not a
			// child; we give up.
			ctx.Logf("join timer: every peer is a child (RT1)")
			ctx.Note(NoteRT1)
			break
		}
		n.joinNextPeer(ctx)
	case TimerRecovery:
		// Re-armed in every state (MaceMC's RT3 is a recovery timer that
		// stopped when it fired in the joining state).
		if n.cfg.RecoveryOnlyJoined && n.state != Joined {
			ctx.Logf("recovery timer fired while %v: not re-armed (RT3)", n.state)
			ctx.Note(NoteNotRearmed)
			return
		}
		ctx.SetTimer(TimerRecovery, n.cfg.RecoveryPeriod, nil)
		if n.state == Joined {
			n.probe(ctx)
			n.checkKids(ctx)
		}
	default:
		panic(fmt.Sprintf("randtree: unknown timer %q", name))
	}
}

// checkKids is the recovery protocol's check of the tree links
// (MaceMC's kids-match): the node asks its parent whether it is its child
// (ParentCheck; a parent that does not list it answers Dropped, and it
// rejoins), and tells each child its root (NewRoot; a child that does not
// name it as its parent answers Remove, and it drops the child). A reset
// can leave links that no single message repairs: a broken-connection
// upcall about a node's former incarnation can arrive after the new one
// has rejoined, and messages of a join before the reset can arrive after
// the Remove of the join after it.
func (n *Node) checkKids(ctx timedsim.Context) {
	if n.parent != n.self && n.parent != None {
		ctx.Send(n.parent, ParentCheck{})
	}
	if n.cfg.MaceMC.NoChildCheck {
		return
	}
	for _, c := range n.children {
		ctx.Send(c, NewRoot{Root: n.root})
	}
}

// probe asks a random member of the peer set for its root.
func (n *Node) probe(ctx timedsim.Context) {
	others := 0
	for _, p := range n.peers {
		if p != n.self {
			others++
		}
	}
	if others == 0 {
		return
	}
	k := ctx.Rand().IntN(others)
	for _, p := range n.peers {
		if p == n.self {
			continue
		}
		if k == 0 {
			ctx.Send(p, Probe{Root: n.root})
			return
		}
		k--
	}
}

// Error implements timedsim.ErrorHandler. A broken connection to the parent
// sends the node back to its peer set to rejoin (with its subtree); one to
// a child drops the child. A lost JoinReply that accepted a child drops the
// child too (the joiner retries on its join timer); other lost messages
// are left to the join and recovery timers.
func (n *Node) Error(ctx timedsim.Context, err *timedsim.TransportError) {
	peer := err.Peer
	if err.Err == timedsim.ErrConnectionBroken {
		if n.removeChild(peer) {
			// The upcall may be about a connection of the child's former
			// incarnation, and the child may have rejoined under us since:
			// tell it, or it keeps us as its parent for good.
			ctx.Send(peer, Dropped{})
		}
		switch {
		case n.state == Joined && n.parent == peer && peer != n.self:
			// Likewise the upcall may be about the parent's former
			// incarnation, under which we have rejoined since: tell it we
			// are not its child, or it keeps us as one for good.
			ctx.Send(peer, Remove{})
			n.parentLost(ctx)
		case n.state == Joining && n.target >= 0 && n.peers[n.target] == peer:
			if n.root == peer {
				// The more fit node we were joining under failed: we know
				// no root any more (as RT16 forgets the root with the
				// parent), or we would forward every Join to a node that
				// has lost its tree.
				n.root = None
			}
			n.joinNextPeer(ctx)
		}
		return
	}
	if m, ok := err.Msg.(JoinReply); ok && m.Kind == Accepted {
		n.removeChild(peer)
		return
	}
	ctx.Logf("lost %T to %v: %v", err.Msg, peer, err.Err)
	ctx.Note(NoteSendFailed)
}

// MessageTypes lists the messages a node sends, so that a real run with
// one node per process can encode them (package realnet).
func (*Node) MessageTypes() []timedsim.Message {
	return []timedsim.Message{Join{}, JoinReply{}, Remove{}, Dropped{}, NewRoot{}, ParentCheck{}, Probe{}, ProbeReply{}, RootJoin{}}
}

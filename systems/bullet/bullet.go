package bullet

import (
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// NodeID is timedsim's node identifier.
type NodeID = timedsim.NodeID

// Source is the node that publishes the file.
const Source NodeID = 0

// Transport names of the scenario's network configuration.
const (
	// Control is unbounded: joins, requests and (fixed) Diffs.
	Control = "control"
	// Data buffers one block's worth: blocks and (buggy) Diffs.
	Data = "data"
)

// Timer and application event names.
const (
	// TimerDiff sends the Diffs of the blocks received since the last one.
	TimerDiff = "diff"
	// TimerSend retries blocks that did not fit in a data connection.
	TimerSend = "send"
	// TimerBoot starts a receiver after its boot delay.
	TimerBoot = "boot"
	// AppStart starts a node: the source publishes, a receiver contacts
	// the source.
	AppStart = "start"
)

// Notes the handlers make (timedsim.Context.Note), named by the paper's
// bugs.
const (
	NoteDiffLost     = "lost Diff: data queue full"
	NoteRejectEmpty  = "rejected: no peers offered"
	NoteRejectPeers  = "rejected: peers offered"
	NoteNoCandidates = "idle: no candidate left, waiting for RanSub"
	NoteFull         = "rejected a join: peer limit"
	NoteStalled      = "stalled: replaced a peer"
	NoteDone         = timedsim.NoteDone
)

// Config configures a Bullet′ node.
type Config struct {
	// Blocks is the number of blocks of the file, of BlockSize bytes.
	Blocks, BlockSize int
	// MaxPeers bounds a node's peers: a node with MaxPeers peers answers
	// a Join with JoinReject.
	MaxPeers int
	// Target is how many peers a receiver seeks by joining candidates.
	Target int
	// Candidates is how many candidate peers the source hands a new node.
	Candidates int
	// MaxOutstanding bounds the block requests outstanding at one peer.
	MaxOutstanding int
	// DiffInterval is the time between a node's Diffs.
	DiffInterval time.Duration
	// RetryInterval is how long a block that does not fit waits to be
	// sent again.
	RetryInterval time.Duration
	// DiffsOverData sends Diffs over the data transport, where a full
	// queue drops them (the paper's first bug); otherwise over control.
	DiffsOverData bool
	// RejectWithoutPeers sends JoinReject without the rejecting node's
	// peers (the paper's second bug); otherwise it lists them.
	RejectWithoutPeers bool
}

// Messages. Sizes are a 16-byte header plus their payload.
type (
	// Hello asks the source for candidate peers.
	Hello struct{}
	// Candidates answers Hello.
	Candidates struct{ Peers []NodeID }
	// Join asks to become a peer.
	Join struct{}
	// JoinAccept accepts a Join.
	JoinAccept struct{}
	// JoinReject refuses a Join from a node with MaxPeers peers; the fix
	// lists the rejecting node's peers.
	JoinReject struct{ Peers []NodeID }
	// Leave ends a peering.
	Leave struct{}
	// Diff tells a peer of blocks the sender holds (all of them in the
	// first Diff of a peering, the new ones afterwards).
	Diff struct {
		Blocks []int32
		// Bitmap is the file's size in blocks: a Diff is sent as a
		// bitmap when that is smaller than the list.
		Bitmap int
	}
	// Request asks a peer for blocks.
	Request struct{ Blocks []int32 }
	// Block carries one block.
	Block struct {
		Index int32
		Bytes int
	}
)

func (Hello) Size() int        { return 16 }
func (m Candidates) Size() int { return 16 + 4*len(m.Peers) }
func (Join) Size() int         { return 16 }
func (JoinAccept) Size() int   { return 16 }
func (m JoinReject) Size() int { return 16 + 4*len(m.Peers) }
func (Leave) Size() int        { return 16 }
func (m Diff) Size() int       { return 16 + min(4*len(m.Blocks), (m.Bitmap+7)/8) }
func (m Request) Size() int    { return 16 + 4*len(m.Blocks) }
func (m Block) Size() int      { return 16 + m.Bytes }

// bitset is a set of blocks.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) unset(i int32)    { b[i>>6] &^= 1 << (uint(i) & 63) }

type peer struct {
	id    NodeID
	has   bitset  // blocks the peer told us of
	asked []int32 // blocks requested from it, not yet received
	queue []int32 // blocks it requested from us, not yet sent
	news  []int32 // blocks we got since our last Diff to it
}

// Node is Bullet′ on one node.
type Node struct {
	id      NodeID
	cfg     Config
	started bool
	have    bitset
	nHave   int
	doneAt  time.Duration // when the node got the whole file (receivers)
	wanted  bitset        // requested, not yet received
	peers   []*peer
	joining []NodeID // Joins sent, not answered
	cands   []NodeID // candidates not tried yet
	hellos  []NodeID // source: nodes that asked for candidates
	cursor  int      // source: the first block of the next peer's share
}

// NewNode returns node id; the source holds the whole file.
func NewNode(id NodeID, cfg Config) *Node {
	n := &Node{id: id, cfg: cfg, have: newBitset(cfg.Blocks), wanted: newBitset(cfg.Blocks)}
	if id == Source {
		for i := range int32(cfg.Blocks) {
			n.have.set(i)
		}
		n.nHave = cfg.Blocks
	}
	return n
}

// Complete reports whether the node holds the whole file.
func (n *Node) Complete() bool { return n.nHave == n.cfg.Blocks }

// Blocks is the number of blocks the node holds.
func (n *Node) Blocks() int { return n.nHave }

// DoneAt is when a receiver got the whole file (0 before, and for the
// source).
func (n *Node) DoneAt() time.Duration { return n.doneAt }

// Peers lists the node's peers.
func (n *Node) Peers() []NodeID {
	out := make([]NodeID, len(n.peers))
	for i, p := range n.peers {
		out[i] = p.id
	}
	return out
}

// Describe renders the node's state for event logs and state diffs.
func (n *Node) Describe() string {
	return fmt.Sprintf("bullet{blocks:%d/%d peers:%v joining:%v cands:%v}", n.nHave, n.cfg.Blocks, n.Peers(), n.joining, n.cands)
}

func (n *Node) peer(id NodeID) *peer {
	for _, p := range n.peers {
		if p.id == id {
			return p
		}
	}
	return nil
}

// Init does nothing: a node starts with the application event AppStart.
func (n *Node) Init(timedsim.Context) {}

// App handles AppStart, whose data is the window (a time.Duration) within
// which a receiver starts: it draws its boot delay uniformly from it, in
// its own step, so that a replayed prefix fixes the boot delays of the
// nodes it started and no others.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	if name != AppStart || n.started {
		return
	}
	if within, _ := data.(time.Duration); within > 0 && n.id != Source {
		ctx.SetTimer(TimerBoot, time.Duration(ctx.Rand().Int64N(int64(within)+1)), nil)
		return
	}
	n.start(ctx)
}

func (n *Node) start(ctx timedsim.Context) {
	if n.started {
		return
	}
	n.started = true
	if n.id == Source {
		ctx.Note(NoteDone) // it has the file: its part is serving it
		ctx.SetTimer(TimerDiff, n.cfg.DiffInterval, nil)
	}
	if n.id != Source {
		ctx.SendOn(Control, Source, Hello{})
	}
}

// Subset takes RanSub's new random subset as candidates: a receiver short
// of peers joins some, and a stalled one (no peer holds a block it lacks)
// leaves a peer for one of them.
func (n *Node) Subset(ctx timedsim.Context, epoch int, peers []NodeID) {
	if n.id == Source || !n.started || n.Complete() {
		return
	}
	n.cands = n.cands[:0]
	for _, c := range peers {
		if c != n.id && n.peer(c) == nil && !slices.Contains(n.joining, c) {
			n.cands = append(n.cands, c)
		}
	}
	if n.stalled() && len(n.peers) > 0 && len(n.cands) > 0 {
		// A stalled node needs a peer that holds what it lacks, however
		// many peers it has: it leaves one and seeks up to MaxPeers.
		p := n.peers[ctx.Rand().IntN(len(n.peers))]
		ctx.SendOn(Control, p.id, Leave{})
		n.drop(p.id)
		ctx.Note(NoteStalled)
		n.tryJoinUpTo(ctx, n.cfg.MaxPeers)
		return
	}
	n.tryJoin(ctx)
}

// stalled reports whether no peer is known to hold a block the node lacks
// and no request is outstanding.
func (n *Node) stalled() bool {
	for _, p := range n.peers {
		if len(p.asked) > 0 {
			return false
		}
		for w := range n.have {
			if p.has[w]&^n.have[w] != 0 {
				return false
			}
		}
	}
	return true
}

// tryJoin sends Joins to untried candidates while the node has fewer than
// Target peers and joins in progress.
func (n *Node) tryJoin(ctx timedsim.Context) { n.tryJoinUpTo(ctx, n.cfg.Target) }

// tryJoinUpTo is tryJoin with a limit other than Target.
func (n *Node) tryJoinUpTo(ctx timedsim.Context, limit int) {
	for len(n.peers)+len(n.joining) < limit && len(n.cands) > 0 {
		c := n.cands[0]
		n.cands = n.cands[1:]
		if c == n.id || n.peer(c) != nil || slices.Contains(n.joining, c) {
			continue
		}
		n.joining = append(n.joining, c)
		ctx.SendOn(Control, c, Join{})
	}
	if len(n.peers) == 0 && len(n.joining) == 0 && !n.Complete() {
		ctx.Note(NoteNoCandidates)
	}
}

// Deliver handles the protocol's messages.
func (n *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Hello:
		n.hello(ctx, from)
	case Candidates:
		for _, c := range m.Peers {
			if !slices.Contains(n.cands, c) {
				n.cands = append(n.cands, c)
			}
		}
		n.tryJoin(ctx)
	case Join:
		n.join(ctx, from)
	case JoinAccept:
		n.joining = slices.DeleteFunc(n.joining, func(c NodeID) bool { return c == from })
		if n.peer(from) != nil {
			return
		}
		if len(n.peers) >= n.cfg.MaxPeers {
			ctx.SendOn(Control, from, Leave{})
			return
		}
		n.addPeer(ctx, from)
	case JoinReject:
		n.joining = slices.DeleteFunc(n.joining, func(c NodeID) bool { return c == from })
		if len(m.Peers) == 0 {
			ctx.Note(NoteRejectEmpty)
		} else {
			ctx.Note(NoteRejectPeers)
			for _, c := range m.Peers {
				if c != n.id && n.peer(c) == nil && !slices.Contains(n.cands, c) {
					n.cands = append(n.cands, c)
				}
			}
		}
		n.tryJoin(ctx)
	case Leave:
		n.drop(from)
		n.tryJoin(ctx)
	case Diff:
		p := n.peer(from)
		if p == nil {
			ctx.Note("ignored: not a peer")
			return
		}
		for _, b := range m.Blocks {
			p.has.set(b)
		}
		n.request(ctx, p)
	case Request:
		p := n.peer(from)
		if p == nil {
			ctx.Note("ignored: not a peer")
			return
		}
		p.queue = append(p.queue, m.Blocks...)
		n.serve(ctx, p)
	case Block:
		n.block(ctx, from, m)
	default:
		panic(fmt.Sprintf("bullet: unexpected message %T", msg))
	}
}

func (n *Node) hello(ctx timedsim.Context, from NodeID) {
	if n.id != Source {
		ctx.Note("ignored: not the source")
		return
	}
	r := ctx.Rand()
	pool := slices.Clone(n.hellos)
	k := min(n.cfg.Candidates, len(pool))
	for i := 0; i < k; i++ {
		j := i + r.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	peers := pool[:k]
	if len(n.peers) < n.cfg.MaxPeers {
		peers = append([]NodeID{Source}, peers...)
	}
	ctx.SendOn(Control, from, Candidates{Peers: peers})
	if !slices.Contains(n.hellos, from) {
		n.hellos = append(n.hellos, from)
	}
}

func (n *Node) join(ctx timedsim.Context, from NodeID) {
	if n.peer(from) != nil {
		ctx.SendOn(Control, from, JoinAccept{})
		return
	}
	if len(n.peers) >= n.cfg.MaxPeers {
		ctx.Note(NoteFull)
		var peers []NodeID
		if !n.cfg.RejectWithoutPeers {
			peers = n.Peers()
		}
		ctx.SendOn(Control, from, JoinReject{Peers: peers})
		return
	}
	n.joining = slices.DeleteFunc(n.joining, func(c NodeID) bool { return c == from })
	ctx.SendOn(Control, from, JoinAccept{})
	n.addPeer(ctx, from)
}

// addPeer makes id a peer and tells it of every block held (a first Diff,
// on the Diffs' transport).
func (n *Node) addPeer(ctx timedsim.Context, id NodeID) {
	p := &peer{id: id, has: newBitset(n.cfg.Blocks)}
	n.peers = append(n.peers, p)
	if n.id == Source {
		n.share(ctx, id)
		return
	}
	if n.nHave > 0 {
		all := make([]int32, 0, n.nHave)
		for w, x := range n.have {
			for x != 0 {
				all = append(all, int32(w*64+bits.TrailingZeros64(x)))
				x &= x - 1
			}
		}
		n.sendDiff(ctx, id, all)
	}
}

// share tells a peer of the source's next few blocks, round robin over
// the file: the source's peers then fetch different blocks from it and
// spread them through the mesh, instead of all fetching the same ones at
// the source's expense. The source tells a peer of a share when it joins,
// whenever it has served all that the peer asked for, and at its Diff
// timer if it has nothing queued for the peer.
func (n *Node) share(ctx timedsim.Context, id NodeID) {
	k := min(2*n.cfg.MaxOutstanding, n.cfg.Blocks)
	blocks := make([]int32, k)
	for i := range blocks {
		blocks[i] = int32((n.cursor + i) % n.cfg.Blocks)
	}
	if n.sendDiff(ctx, id, blocks) == nil {
		// A share lost to a full queue is offered again (to the next
		// peer served): otherwise its blocks would reach the mesh only
		// when the cursor came round, and every node would wait for them.
		n.cursor = (n.cursor + k) % n.cfg.Blocks
	}
}

// drop ends the peering with id; blocks asked of it may be asked again.
func (n *Node) drop(id NodeID) {
	i := slices.IndexFunc(n.peers, func(p *peer) bool { return p.id == id })
	if i < 0 {
		return
	}
	for _, b := range n.peers[i].asked {
		n.wanted.unset(b)
	}
	n.peers = slices.Delete(n.peers, i, i+1)
}

// sendDiff sends a Diff on the transport the variant uses; on the data
// transport a full queue drops it, and the blocks it listed are not told
// again.
func (n *Node) sendDiff(ctx timedsim.Context, to NodeID, blocks []int32) error {
	tr := Control
	if n.cfg.DiffsOverData {
		tr = Data
	}
	err := ctx.SendOn(tr, to, Diff{Blocks: blocks, Bitmap: n.cfg.Blocks})
	if err != nil {
		ctx.Note(NoteDiffLost)
	}
	return err
}

// request asks p for blocks it holds that the node lacks and has not
// asked for, up to MaxOutstanding, starting at a random block.
func (n *Node) request(ctx timedsim.Context, p *peer) {
	room := n.cfg.MaxOutstanding - len(p.asked)
	if room <= 0 || n.Complete() {
		return
	}
	var buf [8]int32
	ask := buf[:0] // on the stack unless more than 8 are asked
	words := len(n.have)
	start := ctx.Rand().IntN(words)
	// Two passes: first the blocks no other peer is known to hold (a
	// local rarest-first, which keeps the source from sending the same
	// block to all its peers), then any.
	for pass := 0; pass < 2 && len(ask) < room; pass++ {
		for i := 0; i < words && len(ask) < room; i++ {
			w := (start + i) % words
			x := p.has[w] &^ n.have[w] &^ n.wanted[w]
			if pass == 0 {
				for _, o := range n.peers {
					if o != p {
						x &^= o.has[w]
					}
				}
			}
			for x != 0 && len(ask) < room {
				b := int32(w*64 + bits.TrailingZeros64(x))
				x &= x - 1
				ask = append(ask, b)
				n.wanted.set(b)
			}
		}
	}
	if len(ask) == 0 {
		return
	}
	p.asked = append(p.asked, ask...)
	ctx.SendOn(Control, p.id, Request{Blocks: slices.Clone(ask)})
}

// serve sends p's next requested block if it fits in the data connection
// (one block's worth: the connection must be empty); otherwise the send
// timer retries.
func (n *Node) serve(ctx timedsim.Context, p *peer) {
	if len(p.queue) == 0 {
		return
	}
	if q, _, ok := timedsim.SendQueue(ctx, Data, p.id); ok && q > 0 {
		if !ctx.TimerPending(TimerSend) {
			ctx.SetTimer(TimerSend, n.cfg.RetryInterval, nil)
		}
		return
	}
	b := p.queue[0]
	p.queue = p.queue[1:]
	ctx.SendOn(Data, p.id, Block{Index: b, Bytes: n.cfg.BlockSize})
	if n.id == Source && len(p.queue) == 0 {
		n.share(ctx, p.id)
	}
	if len(p.queue) > 0 && !ctx.TimerPending(TimerSend) {
		ctx.SetTimer(TimerSend, n.cfg.RetryInterval, nil)
	}
}

func (n *Node) block(ctx timedsim.Context, from NodeID, m Block) {
	p := n.peer(from)
	if p != nil {
		p.asked = slices.DeleteFunc(p.asked, func(b int32) bool { return b == m.Index })
	}
	n.wanted.unset(m.Index)
	if n.have.has(m.Index) {
		ctx.Note("ignored: duplicate block")
	} else {
		n.have.set(m.Index)
		n.nHave++
		for _, q := range n.peers {
			if q.id != from {
				q.news = append(q.news, m.Index)
			}
		}
		if !ctx.TimerPending(TimerDiff) {
			ctx.SetTimer(TimerDiff, n.cfg.DiffInterval, nil)
		}
		if n.Complete() {
			n.doneAt = ctx.Now()
			ctx.Note(NoteDone)
		}
	}
	if p != nil {
		n.request(ctx, p)
	}
}

// Timer handles the Diff and send timers.
func (n *Node) Timer(ctx timedsim.Context, name string, data any) {
	switch name {
	case TimerDiff:
		if n.id == Source {
			// The source has no news; it tells its idle peers of their
			// next share, so that a share lost on the way (its peer left)
			// does not stop the supply.
			for _, p := range n.peers {
				if len(p.queue) == 0 {
					n.share(ctx, p.id)
				}
			}
			ctx.SetTimer(TimerDiff, n.cfg.DiffInterval, nil)
			return
		}
		for _, p := range n.peers {
			if len(p.news) > 0 {
				// The Diff gets its own exact copy; the buffer is reused.
				n.sendDiff(ctx, p.id, slices.Clone(p.news))
				p.news = p.news[:0]
			}
		}
	case TimerSend:
		for _, p := range n.peers {
			n.serve(ctx, p)
		}
	case TimerBoot:
		n.start(ctx)
	default:
		panic("bullet: unexpected timer " + name)
	}
}

// Error notes a Diff that a full data queue dropped.
func (n *Node) Error(ctx timedsim.Context, err *timedsim.TransportError) {
	if _, ok := err.Msg.(Diff); ok {
		ctx.Note(NoteDiffLost)
	}
}

var _ timedsim.Cloner = (*Node)(nil)

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.have, c.wanted = slices.Clone(n.have), slices.Clone(n.wanted)
	c.peers = make([]*peer, len(n.peers))
	for i, p := range n.peers {
		q := *p
		q.has, q.asked, q.queue, q.news = slices.Clone(p.has), slices.Clone(p.asked), slices.Clone(p.queue), slices.Clone(p.news)
		c.peers[i] = &q
	}
	c.joining, c.cands, c.hellos = slices.Clone(n.joining), slices.Clone(n.cands), slices.Clone(n.hellos)
	return &c
}

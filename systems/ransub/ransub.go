package ransub

import (
	"fmt"
	"slices"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// NodeID is timedsim's node identifier.
type NodeID = timedsim.NodeID

// Defaults of Config.
const (
	DefaultEpoch      = 5 * time.Second
	DefaultSubsetSize = 10
	DefaultFanout     = 4
)

// TimerEpoch is the root's epoch timer.
const TimerEpoch = "epoch"

// Config configures every node of a RanSub tree.
type Config struct {
	// Epoch is the time between two distribute phases (default 5 s).
	Epoch time.Duration
	// SubsetSize is the size of the subsets sent up and down the tree
	// (default 10).
	SubsetSize int
	// Fanout is the number of children of a node of the fixed tree: node
	// i's parent is (i-1)/Fanout, node 0 is the root (default 4).
	Fanout int
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if c.Epoch == 0 {
		c.Epoch = DefaultEpoch
	}
	if c.SubsetSize == 0 {
		c.SubsetSize = DefaultSubsetSize
	}
	if c.Fanout == 0 {
		c.Fanout = DefaultFanout
	}
	return c
}

// Handler is the layer above RanSub: it gets each epoch's random subset of
// the participants (never the node itself).
type Handler interface {
	Subset(ctx timedsim.Context, epoch int, peers []NodeID)
}

// HandlerFunc is a function that is a Handler.
type HandlerFunc func(ctx timedsim.Context, epoch int, peers []NodeID)

// Subset implements Handler.
func (f HandlerFunc) Subset(ctx timedsim.Context, epoch int, peers []NodeID) { f(ctx, epoch, peers) }

// Collect carries a random subset of a subtree, and the subtree's size, up
// the tree.
type Collect struct {
	Epoch int
	Set   []NodeID
	Count int
}

// Distribute carries a random subset of the participants down the tree.
type Distribute struct {
	Epoch int
	Set   []NodeID
}

// Size implements timedsim.Message: a header and 4 bytes per node.
func (m Collect) Size() int { return 16 + 4*len(m.Set) }

// Size implements timedsim.Message.
func (m Distribute) Size() int { return 12 + 4*len(m.Set) }

// Owns reports whether msg is a RanSub message (timedsim.Layer.Owns).
func Owns(msg timedsim.Message) bool {
	switch msg.(type) {
	case Collect, Distribute:
		return true
	}
	return false
}

// Node is RanSub on one node of the fixed tree.
type Node struct {
	id       NodeID
	n        int
	cfg      Config
	up       Handler
	epoch    int    // epoch of the last distribute seen (0: none yet)
	got      []bool // per child: collected in the current round
	sets     [][]NodeID
	counts   []int
	pending  int      // children yet to collect this round
	pool     []NodeID // root: what the last complete collect gathered
	last     []NodeID // what this node's subtree gathered in its last collect
	received int      // subsets handed up
}

// NewNode returns node id of an n-node tree; up (may be nil) gets the
// subsets.
func NewNode(id NodeID, n int, cfg Config, up Handler) *Node {
	cfg = cfg.WithDefaults()
	if cfg.Epoch <= 0 || cfg.SubsetSize < 1 || cfg.Fanout < 1 {
		panic(fmt.Sprintf("ransub: invalid config %+v", cfg))
	}
	nd := &Node{id: id, n: n, cfg: cfg, up: up}
	k := len(nd.Children())
	nd.got, nd.sets, nd.counts = make([]bool, k), make([][]NodeID, k), make([]int, k)
	nd.pending = k
	return nd
}

// SetHandler sets the layer above (for constructors that build it later).
func (nd *Node) SetHandler(up Handler) { nd.up = up }

// Parent is the node's parent in the fixed tree (None for the root).
func (nd *Node) Parent() NodeID {
	if nd.id == 0 {
		return timedsim.None
	}
	return (nd.id - 1) / NodeID(nd.cfg.Fanout)
}

// Children lists the node's children in the fixed tree.
func (nd *Node) Children() []NodeID {
	var out []NodeID
	for c := nd.id*NodeID(nd.cfg.Fanout) + 1; c <= nd.id*NodeID(nd.cfg.Fanout)+NodeID(nd.cfg.Fanout) && int(c) < nd.n; c++ {
		out = append(out, c)
	}
	return out
}

// Epoch is the last epoch whose subset the node received (0: none yet).
func (nd *Node) Epoch() int { return nd.epoch }

// Received is the number of subsets handed to the layer above.
func (nd *Node) Received() int { return nd.received }

// Init starts the first collect at the leaves and the root's epoch timer.
func (nd *Node) Init(ctx timedsim.Context) {
	if nd.id == 0 {
		ctx.SetTimer(TimerEpoch, nd.cfg.Epoch, nil)
	}
	nd.maybeCollect(ctx)
}

// Deliver handles Collect and Distribute.
func (nd *Node) Deliver(ctx timedsim.Context, from NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Collect:
		i := slices.Index(nd.Children(), from)
		if i < 0 || m.Epoch != nd.epoch || nd.got[i] {
			ctx.Note("ignored: stale collect")
			return
		}
		nd.got[i], nd.sets[i], nd.counts[i] = true, m.Set, m.Count
		nd.pending--
		nd.maybeCollect(ctx)
	case Distribute:
		if from != nd.Parent() || m.Epoch <= nd.epoch {
			ctx.Note("ignored: stale distribute")
			return
		}
		nd.newEpoch(m.Epoch)
		nd.distribute(ctx, m.Set)
		peers := make([]NodeID, 0, len(m.Set))
		for _, p := range m.Set {
			if p != nd.id {
				peers = append(peers, p)
			}
		}
		nd.received++
		if nd.up != nil {
			nd.up.Subset(ctx, m.Epoch, peers)
		}
		nd.maybeCollect(ctx)
	default:
		panic(fmt.Sprintf("ransub: unexpected message %T", msg))
	}
}

// Timer handles the root's epoch timer: a new distribute phase from what
// the last collect gathered.
func (nd *Node) Timer(ctx timedsim.Context, name string, data any) {
	if name != TimerEpoch || nd.id != 0 {
		panic("ransub: unexpected timer " + name)
	}
	ctx.SetTimer(TimerEpoch, nd.cfg.Epoch, nil)
	pool := nd.pool
	nd.newEpoch(nd.epoch + 1)
	nd.distribute(ctx, pool)
	nd.maybeCollect(ctx)
}

func (nd *Node) newEpoch(e int) {
	nd.epoch = e
	clear(nd.got)
	clear(nd.sets)
	clear(nd.counts)
	nd.pending = len(nd.got)
}

// distribute sends each child a random subset of what came from above
// mixed with the node itself and what its children collected last round
// (RanSub-all: a subset of all participants, not only nondescendants).
func (nd *Node) distribute(ctx timedsim.Context, from []NodeID) {
	kids := nd.Children()
	if len(kids) == 0 {
		return
	}
	pool := append([]NodeID{nd.id}, from...)
	pool = append(pool, nd.last...)
	pool = dedup(pool)
	for _, c := range kids {
		ctx.Send(c, Distribute{Epoch: nd.epoch, Set: sample(ctx, pool, nd.cfg.SubsetSize)})
	}
}

// maybeCollect sends the subtree's subset up once every child has
// collected in this round (at once for a leaf).
func (nd *Node) maybeCollect(ctx timedsim.Context) {
	if nd.pending != 0 {
		return
	}
	nd.pending = -1 // sent for this round
	pool, count := []NodeID{nd.id}, 1
	for i := range nd.sets {
		pool = append(pool, nd.sets[i]...)
		count += nd.counts[i]
	}
	pool = dedup(pool)
	nd.last = pool
	if nd.id == 0 {
		nd.pool = pool
		return
	}
	ctx.Send(nd.Parent(), Collect{Epoch: nd.epoch, Set: sample(ctx, pool, nd.cfg.SubsetSize), Count: count})
}

// dedup sorts ids and removes duplicates, in place.
func dedup(ids []NodeID) []NodeID {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// sample returns k members of pool drawn uniformly without replacement
// from ctx's randomness (all of them, in order, if k ≥ len(pool)).
func sample(ctx timedsim.Context, pool []NodeID, k int) []NodeID {
	out := slices.Clone(pool)
	if k >= len(out) {
		return out
	}
	r := ctx.Rand()
	for i := 0; i < k; i++ {
		j := i + r.IntN(len(out)-i)
		out[i], out[j] = out[j], out[i]
	}
	out = out[:k]
	slices.Sort(out)
	return out
}

var _ timedsim.Cloner = (*Node)(nil)

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots. The layer above is the original's: a stack that
// links one (SetHandler) re-links the clone (timedsim.Stack.OnClone).
// The collected sets are messages' own slices, which nothing writes.
func (nd *Node) Clone() timedsim.Service {
	c := *nd
	c.got, c.sets, c.counts = slices.Clone(nd.got), slices.Clone(nd.sets), slices.Clone(nd.counts)
	c.pool, c.last = slices.Clone(nd.pool), slices.Clone(nd.last)
	return &c
}

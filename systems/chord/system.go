package chord

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantBuggy is the kind of bug MacePC §5.4 reports for Chord,
	// Pastry's (Config.SilentPred): a node drops its old predecessor, or
	// ignores a farther notifier, without telling it, and stabilize
	// repairs it a round later.
	VariantBuggy = "buggy"
	// VariantFixed has neither bug: a node tells the old predecessor and a
	// farther notifier at once, and a joining node holds the Joins it
	// receives until it has joined.
	VariantFixed = "fixed"
	// VariantJoinRace is our RandTree-style bug (Config.JoinRace): a
	// joining node that receives a Join takes itself for a one-node ring
	// and answers it; the ring it starts meets the others only through the
	// 60 s recovery.
	VariantJoinRace = "join-race"
	// VariantNoRecovery is the join-race protocol without the recovery
	// timer (Config.NoRecovery): the race leaves two rings for good, a
	// liveness violation of all-nodes whose critical transition the
	// liveness mode finds (the joining node's delivery of a Join).
	VariantNoRecovery = "no-recovery"
	// VariantSelfLoop is the fixed protocol with MaceMC's Chord bug
	// (Config.SelfLoop): a notified one-node ring keeps itself as its
	// successor. It has no recovery timer (Config.NoRecovery): our 60 s
	// recovery, a fail safe for partitions, would repair the self-loop
	// (the answering node learns the looked-up node), which MaceMC's Chord
	// did not.
	VariantSelfLoop = "self-loop"
)

// Property names of the bundled scenario.
const (
	// PropRing is Ring, a liveness property (and the stopping condition).
	PropRing = "ring"
	// PropAllJoined is AllJoined (Mace's nodesJoined), a liveness property.
	PropAllJoined = "all-joined"
	// PropAllNodes is AllNodes (Mace's allNodes, MaceMC Table 1), a
	// liveness property.
	PropAllNodes = "all-nodes"
	// PropPredNonNull is PredNonNull (Mace's predecessorNonNull), a
	// liveness property.
	PropPredNonNull = "pred-non-null"
	// PropSuccReflexive is SuccReflexive (Mace's successorReflexive), a
	// liveness property.
	PropSuccReflexive = "succ-reflexive"
	// PropSelfPred is SelfPred (Mace's successorAndPredecessor), a safety
	// property.
	PropSelfPred = "self-pred"
)

// Defaults of the bundled workload.
const (
	// DefaultGap is the stagger between the starts of consecutive nodes.
	DefaultGap = 15 * time.Millisecond
	// DefaultJitter is the largest extra boot delay a node draws.
	DefaultJitter = 15 * time.Millisecond
)

// System is the bundled Chord system: its variants and a staggered start
// of many nodes, each joining through a node started before it.
func System() timedsim.System {
	return timedsim.System{
		Name: "chord",
		Doc:  "Mace Chord ring (successor list, fingers, stabilize); nodes join through nodes started just before them",
		Variants: []timedsim.Variant{
			{Name: VariantBuggy, Doc: "a node drops its old predecessor, or a farther notifier, without telling it: stabilize repairs it a round later (MacePC §5.4's Pastry-like bug)"},
			{Name: VariantFixed, Doc: "the old predecessor and a farther notifier are told at once; a joining node holds the Joins it receives until it has joined"},
			{Name: VariantJoinRace, Doc: "a joining node answers a Join as a one-node ring: a second ring that only the 60 s recovery merges (ours, RandTree-style)"},
			{Name: VariantNoRecovery, Doc: "join-race without the recovery timer: the second ring never merges (a liveness bug)"},
			{Name: VariantSelfLoop, Doc: "fixed without the recovery timer, with MaceMC's Chord bug: a Notify sets the predecessor but not the successor, so a notified one-node ring stays a self-loop"},
		},
		DefaultVariant: VariantBuggy,
		DefaultNodes:   32,
		Build:          Build,
	}
}

// Build returns the bundled scenario (DefaultWorkload) of a variant with
// the given number of nodes.
func Build(variant string, nodes int) (*timedsim.Scenario, error) {
	w := DefaultWorkload(nodes)
	switch variant {
	case VariantBuggy:
		w.Config.SilentPred = true
	case VariantFixed:
	case VariantJoinRace:
		w.Config.JoinRace = true
	case VariantNoRecovery:
		w.Config.JoinRace, w.Config.NoRecovery = true, true
	case VariantSelfLoop:
		w.Config.SelfLoop, w.Config.NoRecovery = true, true
	default:
		return nil, fmt.Errorf("chord: unknown variant %q (variants: %s)", variant, strings.Join(System().VariantNames(), ", "))
	}
	return NewScenario(w)
}

// Workload describes the scenario: node 0, the bootstrap, forms a ring at
// time 0; every other node i is started at time 0 (AppStart), boots at
// i·Gap, draws a jitter from [0, Jitter], and when it has passed draws a
// contact uniformly from the nodes 0 … i−1 and joins through it.
//
// The nodes draw their jitters and contacts in their own steps, at the
// time they boot and join, rather than the driver drawing them up front: a
// driver's draws belong to the whole path, so any replayed prefix would fix
// every join time, and the divergence search (which replays prefixes and
// re-draws the rest) could only ever answer "step 0". Drawn at time 0 by
// each node they would all be fixed by step 63 of 32 nodes, and the
// divergence point would be that step whichever pair of nodes raced. A
// prefix fixes the draws of the nodes that have booted or joined in it
// and no others.
type Workload struct {
	Nodes       int
	Config      Config // of every node
	Gap, Jitter time.Duration
}

// DefaultWorkload is the bundled workload for n nodes: Mace's timer
// periods, DefaultGap and DefaultJitter. With Jitter = Gap nodes start in
// index order, so a node's contact has always started; it may still be
// joining, though, when its start was close to the joiner's: node i−1 is
// the contact with probability 1/i and starts within a join's few
// milliseconds of node i with probability about (w/Gap)²/2. That is the
// window of the bug, open in roughly one execution in ten.
func DefaultWorkload(n int) Workload {
	return Workload{Nodes: n, Gap: DefaultGap, Jitter: DefaultJitter}
}

// NewScenario returns the scenario of a workload. The stopping condition
// is Ring; the liveness properties are MaceMC's Chord properties
// (AllJoined, AllNodes, PredNonNull, SuccReflexive) and Ring; the safety
// property is SelfPred; the timeout is 300 s (recovery merges the buggy
// variant's rings after 60 s).
func NewScenario(w Workload) (*timedsim.Scenario, error) {
	switch {
	case w.Nodes < 1:
		return nil, fmt.Errorf("chord: %d nodes, need at least 1", w.Nodes)
	case w.Gap < 0 || w.Jitter < 0:
		return nil, fmt.Errorf("chord: negative gap %v or jitter %v", w.Gap, w.Jitter)
	case w.Config.Successors < 0:
		return nil, fmt.Errorf("chord: negative successor list length %d", w.Config.Successors)
	}
	cfg, st := w.Config, Start{Gap: w.Gap, Jitter: w.Jitter}
	r := NewRingOrder(w.Nodes)
	return &timedsim.Scenario{
		Nodes: w.Nodes,
		New:   func(id NodeID) timedsim.Service { return NewNode(id, cfg) },
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, AppJoin, NodeID(0))
			for id := NodeID(1); int(id) < d.Nodes(); id++ {
				d.App(0, id, AppStart, st)
			}
		},
		Stop:    r.Ring,
		NewStop: r.NewRing,
		Safety:  []timedsim.Property{{Name: PropSelfPred, Check: SelfPred}},
		// The specific properties first: a violation is reported under the
		// first one that fails; ring (all of them and more) last.
		Liveness: []timedsim.Property{
			{Name: PropAllJoined, Check: AllJoined},
			{Name: PropAllNodes, Check: AllNodes},
			{Name: PropPredNonNull, Check: PredNonNull},
			{Name: PropSuccReflexive, Check: SuccReflexive},
			{Name: PropRing, Check: r.Ring},
		},
		Timeout:  300 * time.Second,
		Network:  netmodel.DefaultConfig(),
		Revision: "3",
	}, nil
}

// node returns node id of a Chord world; any other service is a caller
// bug.
func node(w timedsim.World, id NodeID) *Node {
	n, ok := w.Node(id).(*Node)
	if !ok {
		panic(fmt.Sprintf("chord: node %v is a %T, not a *chord.Node", id, w.Node(id)))
	}
	return n
}

// RingOrder is the correct ring of n nodes: every node's successor and
// predecessor in key order.
type RingOrder struct {
	succ, pred []NodeID
}

// NewRingOrder computes the correct ring of nodes 0 … n−1.
func NewRingOrder(n int) *RingOrder {
	ids := make([]NodeID, n)
	for i := range ids {
		ids[i] = NodeID(i)
	}
	slices.SortFunc(ids, func(a, b NodeID) int {
		ka, kb := Key(a), Key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	r := &RingOrder{succ: make([]NodeID, n), pred: make([]NodeID, n)}
	for i, id := range ids {
		r.succ[id] = ids[(i+1)%n]
		r.pred[id] = ids[(i+n-1)%n]
	}
	return r
}

// Succ is id's successor on the correct ring.
func (r *RingOrder) Succ(id NodeID) NodeID { return r.succ[id] }

// Pred is id's predecessor on the correct ring.
func (r *RingOrder) Pred(id NodeID) NodeID { return r.pred[id] }

// ok reports whether node id is joined with its correct successor and
// predecessor.
func (r *RingOrder) ok(w timedsim.World, id NodeID) bool {
	n := node(w, id)
	return n.state == Joined && n.Succ() == r.succ[id] && n.pred == r.pred[id]
}

// Ring is the stopping condition: every node is joined, and its successor
// and predecessor are the next and previous nodes in key order, so the
// successor pointers form a single ring of all nodes and the predecessor
// pointers the same ring backwards. It takes O(n) time. A one-node world
// holds once its node is joined (a one-node ring: successor and
// predecessor itself). It panics if w has more nodes than r.
func (r *RingOrder) Ring(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		if !r.ok(w, id) {
			return false
		}
	}
	return true
}

// NewRing returns a stopping condition equal to Ring that remembers the
// node its last check failed at and checks it first (timedsim.Scenario's
// NewStop): while that node is wrong the check takes O(1), so a whole
// execution costs about n node checks per change of the failing node
// rather than n per event.
func (r *RingOrder) NewRing() func(timedsim.World) bool {
	var hint NodeID
	return func(w timedsim.World) bool {
		nodes := w.Nodes()
		if int(hint) >= nodes {
			hint = 0
		}
		for i := range nodes {
			id := NodeID((int(hint) + i) % nodes)
			if !r.ok(w, id) {
				hint = id
				return false
			}
		}
		return true
	}
}

// AllJoined is Mace's nodesJoined: every node is in state Joined.
func AllJoined(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		if node(w, id).state != Joined {
			return false
		}
	}
	return true
}

// AllNodes is Mace's allNodes (MaceMC Table 1): from every node,
// following successor pointers reaches every node. It holds exactly when
// the successor pointers form one cycle through all nodes, which it checks
// from node 0 in O(n).
func AllNodes(w timedsim.World) bool {
	nodes := w.Nodes()
	id := NodeID(0)
	for range nodes {
		id = node(w, id).Succ()
		if id < 0 || int(id) >= nodes {
			return false
		}
		if id == 0 {
			break
		}
	}
	if id != 0 {
		return false
	}
	// Back at node 0: count the cycle's length.
	k := 1
	for id = node(w, 0).Succ(); id != 0; id = node(w, id).Succ() {
		k++
	}
	return k == nodes
}

// PredNonNull is Mace's predecessorNonNull: every node knows a
// predecessor.
func PredNonNull(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		if node(w, id).pred == None {
			return false
		}
	}
	return true
}

// SuccReflexive is Mace's successorReflexive: every node is its
// successor's predecessor.
func SuccReflexive(w timedsim.World) bool {
	nodes := w.Nodes()
	for id := range NodeID(nodes) {
		s := node(w, id).Succ()
		if s < 0 || int(s) >= nodes || node(w, s).pred != id {
			return false
		}
	}
	return true
}

// SelfPred is Mace's safety property successorAndPredecessor, written
// after MaceMC's Chord bug: a node that is its own predecessor is also its
// own successor (a one-node ring).
func SelfPred(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		n := node(w, id)
		if n.pred == id && n.Succ() != id {
			return false
		}
	}
	return true
}

// Rings counts the cycles of successor pointers (nodes on no cycle, which
// lead into one, are not counted). More than one means the nodes formed
// separate rings.
func Rings(w timedsim.World) int {
	nodes := w.Nodes()
	color := make([]uint8, nodes) // 0 unvisited, 1 on this walk, 2 done
	k := 0
	for start := range NodeID(nodes) {
		id, open := start, false
		for color[id] == 0 {
			color[id] = 1
			s := node(w, id).Succ()
			if s < 0 || int(s) >= nodes {
				open = true
				break
			}
			id = s
		}
		if !open && color[id] == 1 {
			k++ // the walk closed a new cycle
		}
		for id = start; color[id] == 1; {
			color[id] = 2
			s := node(w, id).Succ()
			if s < 0 || int(s) >= nodes {
				break
			}
			id = s
		}
	}
	return k
}

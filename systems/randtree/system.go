package randtree

import (
	"fmt"
	"strings"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantBuggy is Mace's RandTree with the race of MacePC's Figure 1.
	VariantBuggy = "buggy"
	// VariantFixed forwards a Join received while joining to the root.
	VariantFixed = "fixed"
	// VariantLivenessBug is the buggy protocol with MaceMC's RandTree bug
	// RT3 as well (Config.RecoveryOnlyJoined): the trees that Figure 1's
	// race splits never merge if the recovery timers that could merge them
	// fired while their nodes were joining. It is the liveness mode's
	// bundled dead-state bug; its scenario leaves the safety property that
	// catches RT3 early ("recovery-timer", RecoveryTimerProperty) out.
	VariantLivenessBug = "liveness-bug"
)

// MaceMCVariants are MaceMC's other RandTree bugs (MaceMC paper §7.3), each
// switched back on in the fixed protocol (Config.MaceMC): "rt1", "rt2",
// "rt4", "rt10", "rt11", "rt14", "rt16". Their docs say what each does;
// bench/PAPER.md sets the critical transition the liveness mode finds
// beside MaceMC's description.
var MaceMCVariants = []timedsim.Variant{
	{Name: "rt1", Doc: "fixed, with MaceMC's RT1: a root joining under a more fit node does not add it to its peers; if the join fails and every peer is a child, the node is stuck"},
	{Name: "rt2", Doc: "fixed, with MaceMC's RT2: a root says it has no parent, so no node claims to be the root"},
	{Name: "rt4", Doc: "fixed, with MaceMC's RT4: NewRoot is taken from any node, not only from the parent"},
	{Name: "rt10", Doc: "fixed without macepc's check of a node's children, with MaceMC's RT10: a joining node ignores a Remove and keeps the child for good"},
	{Name: "rt11", Doc: "fixed, with MaceMC's RT11: a Probe draws a node in init into joining without its recovery timer"},
	{Name: "rt14", Doc: "fixed, every node with all nodes as peers, with MaceMC's RT14: a RootJoin draws a node in init into joining without its recovery timer"},
	{Name: "rt16", Doc: "fixed, with MaceMC's RT16: a node whose parent fails keeps its root"},
}

// maceMCBugs is the Config.MaceMC of a MaceMC variant.
func maceMCBugs(variant string) (MaceMCBugs, bool) {
	var b MaceMCBugs
	switch variant {
	case "rt1":
		b.RT1 = true
	case "rt2":
		b.RT2 = true
	case "rt4":
		b.RT4 = true
	case "rt10":
		b.RT10, b.NoChildCheck = true, true
	case "rt11":
		b.RT11 = true
	case "rt14":
		b.RT14 = true
	case "rt16":
		b.RT16 = true
	default:
		return b, false
	}
	return b, true
}

// Property names of the bundled scenario.
const (
	// PropSpanningTree is SpanningTree, a liveness property (and the
	// stopping condition).
	PropSpanningTree = "spanning-tree"
	// PropAllJoined is AllJoined, a liveness property.
	PropAllJoined = "all-joined"
	// PropOneRoot is OneRoot, a liveness property.
	PropOneRoot = "one-root"
	// PropKidsMatch is KidsMatch, a liveness property.
	PropKidsMatch = "kids-match"
	// PropNoLoops is NoLoops, a safety property.
	PropNoLoops = "no-loops"
	// PropRecoveryTimer is RecoveryTimerArmed, a safety property.
	PropRecoveryTimer = "recovery-timer"
)

// DefaultSpread is the window in which the non-bootstrap nodes join in the
// bundled scenario of up to 500 nodes; larger scenarios spread the joins
// over SpreadPerNode per node (see DefaultWorkload).
const DefaultSpread = 500 * time.Millisecond

// SpreadPerNode bounds the join rate of large bundled scenarios to one per
// millisecond.
const SpreadPerNode = time.Millisecond

// System is the bundled RandTree system: its variants and the scenario of
// MacePC §5.4, many nodes joining at once.
func System() timedsim.System {
	return timedsim.System{
		Name: "randtree",
		Doc:  "Mace RandTree overlay tree; many nodes join at one bootstrap node (MacePC Figure 1)",
		Variants: append([]timedsim.Variant{
			{Name: VariantBuggy, Doc: "a joining node accepts a Join and becomes a root again (the Figure 1 race)"},
			{Name: VariantFixed, Doc: "a joining node forwards a Join to the root it is joining"},
			{Name: VariantLivenessBug, Doc: "buggy, and a recovery timer that fires while joining is not re-armed (MaceMC RT3): split trees never merge"},
		}, MaceMCVariants...),
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
	case VariantFixed:
		w.Config.Fixed = true
	case VariantLivenessBug:
		w.Config.RecoveryOnlyJoined = true
	default:
		bugs, ok := maceMCBugs(variant)
		if !ok {
			return nil, fmt.Errorf("randtree: unknown variant %q (variants: %s)", variant, strings.Join(System().VariantNames(), ", "))
		}
		w.Config.Fixed, w.Config.MaceMC = true, bugs
		// RT14 needs a RootJoin sent after its target reset, on a
		// ProbeReply from another node than the target: with the peer
		// sets {bootstrap} every ProbeReply that names a root comes from
		// that root, and a reset loses it.
		w.AllPeers = bugs.RT14
	}
	sc, err := NewScenario(w)
	if err != nil || variant != VariantLivenessBug {
		return sc, err
	}
	// RT3 is a liveness bug for the liveness mode to find; the safety
	// property written after it (RT11, RT14) is optional here.
	for i := range sc.Safety {
		if sc.Safety[i].Name == PropRecoveryTimer {
			sc.Safety[i].Optional = true
		}
	}
	return sc, nil
}

// Workload describes the scenario: a bootstrap node joins alone at time 0;
// every other node is started at time 0 (AppStart) and joins after a boot
// delay it draws uniformly from [0, Spread], all of them with the peer set
// {Bootstrap}.
//
// The nodes draw their boot delays in their own steps rather than the
// driver drawing every join time up front: a driver's draws belong to the
// whole path, so any replayed prefix would fix every join time, and the
// divergence search (which replays prefixes and re-draws the rest) could
// only ever answer "step 0". With the delays drawn at steps 32 to 62, a
// prefix fixes the boot delays of the nodes it started and no others.
type Workload struct {
	Nodes     int
	Config    Config // of every node
	Bootstrap NodeID
	Spread    time.Duration
	// AllPeers gives every node but the bootstrap the peer set of all
	// nodes, bootstrap first, instead of {Bootstrap}: probes then reach
	// nodes that are not roots (the rt14 variant needs one).
	AllPeers bool
}

// DefaultWorkload is the bundled workload for n nodes: Mace's defaults,
// bootstrap node 1 and DefaultSpread, or SpreadPerNode·n when that is
// longer: thousands of nodes joining within 500 ms overload the root (its
// bounded send queues overflow, joins are lost and retried after the 5 s
// join timeout), which is a different experiment from the join race. With bootstrap 1, exactly one joiner
// (node 0) is more fit than the root and displaces it, which opens the
// window of Figure 1's race once per execution: while node 1 is joining
// under node 0, any Join that reaches it triggers the bug. A higher
// bootstrap would open the window at every new most-fit joiner and make
// the bug the common case rather than a latent one.
func DefaultWorkload(n int) Workload {
	b := NodeID(1)
	if n < 2 {
		b = 0
	}
	return Workload{Nodes: n, Bootstrap: b, Spread: max(DefaultSpread, time.Duration(n)*SpreadPerNode)}
}

// NewScenario returns the scenario of a workload. The stopping condition
// is SpanningTree; the liveness properties are SpanningTree and MaceMC's
// four RandTree properties, of which three are liveness properties here
// (AllJoined, OneRoot, KidsMatch: SpanningTree implies them) and one a
// safety property (NoLoops); the safety properties are RecoveryTimerArmed
// and NoLoops; the timeout is 300 s (the recovery protocol repairs the
// buggy variant's split trees after 10 to 20 s). The timed simulator
// ignores the liveness properties and checks the safety properties only
// when asked (timedsim.Options.CheckSafety); the liveness mode checks
// both.
func NewScenario(w Workload) (*timedsim.Scenario, error) {
	switch {
	case w.Nodes < 1:
		return nil, fmt.Errorf("randtree: %d nodes, need at least 1", w.Nodes)
	case w.Bootstrap < 0 || int(w.Bootstrap) >= w.Nodes:
		return nil, fmt.Errorf("randtree: bootstrap %v is not one of the %d nodes", w.Bootstrap, w.Nodes)
	case w.Spread < 0:
		return nil, fmt.Errorf("randtree: negative join spread %v", w.Spread)
	case w.Config.MaxChildren < 0:
		return nil, fmt.Errorf("randtree: negative MaxChildren %d", w.Config.MaxChildren)
	}
	cfg, b, spread := w.Config, w.Bootstrap, w.Spread
	peers := []NodeID{b}
	if w.AllPeers {
		for id := range NodeID(w.Nodes) {
			if id != b {
				peers = append(peers, id)
			}
		}
	}
	return &timedsim.Scenario{
		Nodes: w.Nodes,
		New:   func(id NodeID) timedsim.Service { return NewNode(id, cfg) },
		Driver: func(d *timedsim.Driver) {
			d.App(0, b, AppJoin, []NodeID{b})
			for id := range NodeID(d.Nodes()) {
				if id != b {
					d.App(0, id, AppStart, Start{Peers: peers, Within: spread})
				}
			}
		},
		Stop:    SpanningTree,
		NewStop: NewSpanningTree,
		Safety:  []timedsim.Property{RecoveryTimerProperty(), {Name: PropNoLoops, Check: NoLoops}},
		// The specific properties first: a violation is reported under the
		// first one that fails; spanning-tree (all of them and more) last.
		Liveness: []timedsim.Property{
			{Name: PropAllJoined, Check: AllJoined},
			{Name: PropOneRoot, Check: OneRoot},
			{Name: PropKidsMatch, Check: KidsMatch},
			{Name: PropSpanningTree, Check: SpanningTree},
		},
		Timeout:  300 * time.Second,
		Network:  netmodel.DefaultConfig(),
		Revision: "4",
	}, nil
}

// node returns node id of a RandTree world; any other service is a caller
// bug.
func node(w timedsim.World, id NodeID) *Node {
	n, ok := w.Node(id).(*Node)
	if !ok {
		panic(fmt.Sprintf("randtree: node %v is a %T, not a *randtree.Node", id, w.Node(id)))
	}
	return n
}

// SpanningTree reports whether the nodes form one spanning tree: every node
// is joined, exactly one node is a root (its parent is itself), parent and
// child pointers agree (a non-root's parent lists it as a child, and every
// child's parent is the node listing it), and every node is reachable from
// the root along child pointers, so following parents from any node
// reaches the root without a loop. It takes O(n) time and allocates
// nothing.
func SpanningTree(w timedsim.World) bool {
	nodes := w.Nodes()
	root := None
	for id := range NodeID(nodes) {
		n := node(w, id)
		if n.state != Joined {
			return false
		}
		if n.Parent() == id {
			if root != None {
				return false
			}
			root = id
		}
	}
	if root == None {
		return false
	}
	for id := range NodeID(nodes) {
		n := node(w, id)
		if n.Parent() != id {
			if n.Parent() < 0 || int(n.Parent()) >= nodes || !node(w, n.Parent()).HasChild(id) {
				return false
			}
		}
		for _, c := range n.children {
			if c == id || c < 0 || int(c) >= nodes || node(w, c).Parent() != id {
				return false
			}
		}
	}
	// Child pointers now agree with parent pointers, so each node is
	// listed by at most one node (its parent) and the walk below visits
	// each node at most once; nodes on a parent loop are not reachable.
	return reachable(w, root) == nodes
}

// reachable counts the nodes reachable from id along child pointers, id
// included. The recursion is as deep as the tree.
func reachable(w timedsim.World, id NodeID) int {
	k := 1
	for _, c := range node(w, id).children {
		k += reachable(w, c)
	}
	return k
}

// Roots lists the joined roots (nodes whose parent is themselves), in
// increasing order. More than one root means the nodes form several trees.
func Roots(w timedsim.World) []NodeID {
	var roots []NodeID
	for id := range NodeID(w.Nodes()) {
		if node(w, id).IsRoot() {
			roots = append(roots, id)
		}
	}
	return roots
}

// NumJoined counts the nodes in state Joined.
func NumJoined(w timedsim.World) int {
	k := 0
	for id := range NodeID(w.Nodes()) {
		if node(w, id).state == Joined {
			k++
		}
	}
	return k
}

// RecoveryTimerArmed is MaceMC's timers property (RT11, RT14): a node not
// in Init has its recovery timer scheduled. It is a safety property,
// written after the liveness bug RT3.
func RecoveryTimerArmed(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		if node(w, id).state != Init && !w.TimerPending(id, TimerRecovery) {
			return false
		}
	}
	return true
}

// RecoveryTimerProperty is RecoveryTimerArmed as the safety property
// "recovery-timer". The buggy and fixed scenarios list it; the
// liveness-bug scenario does not, so that the liveness mode finds RT3 as
// the liveness bug it is: add this property to catch it as a safety
// violation instead, a few steps after joinOverlay.
func RecoveryTimerProperty() timedsim.Property {
	return timedsim.Property{Name: PropRecoveryTimer, Check: RecoveryTimerArmed}
}

// AllJoined is the liveness property "every node is in state Joined".
func AllJoined(w timedsim.World) bool {
	return NumJoined(w) == w.Nodes()
}

// OneRoot is MaceMC's liveness property "there is exactly one root" (a
// joined node whose parent is itself; RandTree property iii, Table 1 of
// the MaceMC paper).
func OneRoot(w timedsim.World) bool {
	roots := 0
	for id := range NodeID(w.Nodes()) {
		if node(w, id).IsRoot() {
			roots++
		}
	}
	return roots == 1
}

// KidsMatch is MaceMC's liveness property "each node's parent lists it as
// a child, and its children name it as their parent" (RandTree property
// iv). A node without a parent (None) or that is its own parent has no
// parent to check; a node listing itself as a child is a mismatch.
func KidsMatch(w timedsim.World) bool {
	nodes := w.Nodes()
	for id := range NodeID(nodes) {
		n := node(w, id)
		if p := n.Parent(); p != None && p != id {
			if p < 0 || int(p) >= nodes || !node(w, p).HasChild(id) {
				return false
			}
		}
		for _, c := range n.children {
			if c == id || c < 0 || int(c) >= nodes || node(w, c).Parent() != id {
				return false
			}
		}
	}
	return true
}

// NoLoops is MaceMC's safety property "following parent pointers never
// loops" (RandTree property i): from any node the walk up the parent
// pointers ends at a root (a node that is its own parent, the one loop
// allowed) or at a node without a parent. It takes O(n) time.
func NoLoops(w timedsim.World) bool {
	nodes := w.Nodes()
	// color: 0 unvisited, 1 on the current walk, 2 known to end well.
	var buf [64]uint8
	var color []uint8
	if nodes <= len(buf) {
		color = buf[:nodes]
	} else {
		color = make([]uint8, nodes)
	}
	for start := range NodeID(nodes) {
		for id := start; color[id] != 2; {
			if color[id] == 1 {
				return false // back at a node of this walk: a loop
			}
			color[id] = 1
			p := node(w, id).Parent()
			if p == id || p < 0 || int(p) >= nodes {
				break
			}
			id = p
		}
		for id := start; color[id] == 1; {
			color[id] = 2
			p := node(w, id).Parent()
			if p == id || p < 0 || int(p) >= nodes {
				break
			}
			id = p
		}
	}
	return true
}

// NewSpanningTree returns a stopping condition equivalent to SpanningTree
// that keeps hints between calls (timedsim.Scenario.NewStop): the node
// where its last scan found a node not yet in a tree, and two roots it last
// saw. While the hinted node still fails, or both roots are still roots, it
// answers false in O(1); it scans on from the hint otherwise, so a whole
// execution costs about n·log n node visits instead of n per event (a
// 100,000-node execution spent 95% of its time in SpanningTree). It answers
// true only through SpanningTree itself.
func NewSpanningTree() func(timedsim.World) bool {
	var hint NodeID
	rootA, rootB := None, None
	isRoot := func(w timedsim.World, id NodeID) bool {
		n := node(w, id)
		return n.state == Joined && n.Parent() == id
	}
	// inTree: joined, with a parent that lists it (or itself as parent).
	inTree := func(w timedsim.World, id NodeID, nodes int) bool {
		n := node(w, id)
		if n.state != Joined {
			return false
		}
		return n.Parent() == id || (n.Parent() >= 0 && int(n.Parent()) < nodes && node(w, n.Parent()).HasChild(id))
	}
	return func(w timedsim.World) bool {
		nodes := w.Nodes()
		if rootB != None && int(rootA) < nodes && int(rootB) < nodes && isRoot(w, rootA) && isRoot(w, rootB) {
			return false
		}
		rootA, rootB = None, None
		if int(hint) >= nodes {
			hint = 0
		}
		for i := 0; i < nodes; i++ {
			id := NodeID((int(hint) + i) % nodes)
			if !inTree(w, id, nodes) {
				hint = id
				return false
			}
			if isRoot(w, id) {
				if rootA == None {
					rootA = id
				} else if rootB == None {
					rootB = id
				}
			}
		}
		if rootB != None {
			return false
		}
		rootA = None
		return SpanningTree(w)
	}
}

package bamboo

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantBuggy has both bugs of MacePC §5.3.
	VariantBuggy = "buggy"
	// VariantFixed has both fixes.
	VariantFixed = "fixed"
	// VariantJoinLoop is the fixed protocol that routes a join to the
	// joiner itself (Config.JoinLoop): a node that reset never rejoins.
	// MaceMC's long paper suspects this bug in Bamboo; it is not the third
	// bug MacePC §5.3 mentions, which the paper does not describe.
	VariantJoinLoop = "join-loop"
)

// PropStable is the stopping condition as a liveness property.
const PropStable = dht.PropStable

// Defaults of the bundled scenario.
const (
	// DefaultNodes is the number of nodes of the bundled scenario.
	DefaultNodes = 40
	// DefaultSpread is the window in which the non-bootstrap nodes start.
	// With 2 s (Pastry's) about 40% of buggy executions wait for
	// maintenance, the profile's Q3 is then 20 s and the divergence search
	// asks only which executions need a second round; with 8 s about 20%
	// do, Q3 is the join spread and every slow execution is an anomaly.
	DefaultSpread = 8 * time.Second
	// RouteSlack is added to ⌈log_{2^b} n⌉ in the routing check. Bamboo's
	// join transfers no routing-table rows, so its tables fill only from
	// leaf sets and the 20 s table maintenance; with Pastry's slack of 1 (3
	// hops for 40 nodes) even the fixed protocol needs minutes of table
	// maintenance, while routes of 6 hops need only correct leaf sets and
	// the entries a join teaches (TestTune).
	RouteSlack = 4
	// IDSalt seeds the identifier assignment (dht.NodeIDs).
	IDSalt = 0xba3b00
)

// System is the bundled Bamboo system.
func System() timedsim.System {
	s := dht.NewSystem("bamboo",
		"Bamboo DHT (Pastry with a leaf-set-only join); 40 nodes join within 8 s through one bootstrap node (MacePC §5.3)",
		"a node pushed out of one side of the leaf set is forgotten; Inform has no adjacency field",
		"the pushed-out node is offered to the other side; a node that disagrees with an informant's adjacency runs maintenance at once",
		DefaultNodes, Build)
	s.Variants = append(s.Variants, timedsim.Variant{Name: VariantJoinLoop,
		Doc: "fixed, but a join is routed to the joiner itself: a node that reset never rejoins (MaceMC's Pastry bug 4, which MaceMC suspects in Bamboo; not MacePC's undescribed third Bamboo bug)"})
	return s
}

// Build returns the bundled scenario of a variant (DefaultWorkload).
func Build(variant string, nodes int) (*timedsim.Scenario, error) {
	var cfg Config
	switch variant {
	case VariantBuggy:
	case VariantFixed:
		cfg.FixBoundary, cfg.FixAdjacency = true, true
	case VariantJoinLoop:
		cfg.FixBoundary, cfg.FixAdjacency, cfg.JoinLoop = true, true, true
	default:
		return nil, fmt.Errorf("bamboo: unknown variant %q (variants: %s, %s, %s)", variant, VariantBuggy, VariantFixed, VariantJoinLoop)
	}
	return NewScenario(DefaultWorkload(nodes), cfg)
}

// Workload is the shared DHT workload (see dht.Workload).
type Workload = dht.Workload

// DefaultWorkload is the bundled workload for n nodes: bootstrap node 0,
// DefaultSpread, identifiers from IDSalt, routing slack RouteSlack.
func DefaultWorkload(n int) Workload {
	return Workload{Nodes: n, Spread: DefaultSpread, Salt: IDSalt, Slack: RouteSlack}
}

// NewScenario returns the scenario of a workload with every node
// configured by cfg; the stopping condition (and liveness property
// "stable") is dht.Ring.Stable, the timeout 600 s.
func NewScenario(w Workload, cfg Config) (*timedsim.Scenario, error) {
	return dht.Scenario(w, dht.NewProtocol("bamboo", "2", cfg.LeafHalf, func(id NodeID, ids []ID) *Node { return NewNode(id, ids, cfg) }))
}

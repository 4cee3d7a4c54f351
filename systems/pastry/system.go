package pastry

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantBuggy evicts nodes from a leaf set without telling them.
	VariantBuggy = "buggy"
	// VariantFixed sends an evicted node the current leaf set (the paper's
	// fix).
	VariantFixed = "fixed"
	// VariantFixedGap is the paper's fix and a second one, ours: a node
	// that knows a node between an announcer and the neighbours it
	// announces sends it its leaf set (Config.FixGap).
	VariantFixedGap = "fixed-gap"
)

// PropStable is the stopping condition as a liveness property.
const PropStable = dht.PropStable

// Defaults of the bundled scenario.
const (
	// DefaultNodes is the paper's 40 nodes.
	DefaultNodes = 40
	// DefaultSpread is the window in which the non-bootstrap nodes start
	// (see Workload).
	DefaultSpread = 2 * time.Second
	// RouteSlack is added to ⌈log_{2^b} n⌉ in the routing check.
	RouteSlack = 1
	// IDSalt seeds the identifier assignment (dht.NodeIDs).
	IDSalt = 0x9a57
)

// System is the bundled Pastry system.
func System() timedsim.System {
	s := dht.NewSystem("pastry",
		"Pastry DHT; 40 nodes join within 2 s through one bootstrap node (MacePC §5.2)",
		"a node evicted from a leaf set is not told: only the 20 s maintenance repairs it",
		"an evicted node is sent the evicting node's current leaf set (the paper's fix)",
		DefaultNodes, Build)
	s.Variants = append(s.Variants, timedsim.Variant{Name: VariantFixedGap,
		Doc: "fixed, and a node that knows a node between an announcer and its announced neighbours sends it its leaf set (ours: closes the gap of adjacent concurrent joiners)"})
	return s
}

// Build returns the bundled scenario of a variant (DefaultWorkload).
func Build(variant string, nodes int) (*timedsim.Scenario, error) {
	var cfg Config
	switch variant {
	case VariantBuggy:
	case VariantFixed:
		cfg.Fixed = true
	case VariantFixedGap:
		cfg.Fixed, cfg.FixGap = true, true
	default:
		return nil, fmt.Errorf("pastry: unknown variant %q (variants: %s, %s, %s)", variant, VariantBuggy, VariantFixed, VariantFixedGap)
	}
	return NewScenario(DefaultWorkload(nodes), cfg)
}

// Workload is the shared DHT workload (see dht.Workload): node Bootstrap
// starts the ring at time 0, the others join through it after a boot delay
// each draws from [0, Spread].
type Workload = dht.Workload

// DefaultWorkload is the bundled workload for n nodes: bootstrap node 0,
// DefaultSpread, identifiers from IDSalt, routing slack RouteSlack.
func DefaultWorkload(n int) Workload {
	return Workload{Nodes: n, Spread: DefaultSpread, Salt: IDSalt, Slack: RouteSlack}
}

// NewScenario returns the scenario of a workload with every node
// configured by cfg. The stopping condition (and liveness property
// "stable") is dht.Ring.Stable; the timeout 600 s.
func NewScenario(w Workload, cfg Config) (*timedsim.Scenario, error) {
	return dht.Scenario(w, dht.NewProtocol("pastry", "2", cfg.LeafHalf, func(id NodeID, ids []ID) *Node { return NewNode(id, ids, cfg) }))
}

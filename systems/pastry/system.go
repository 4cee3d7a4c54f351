package pastry

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantBuggy evicts nodes from a leaf set without telling them.
	VariantBuggy = "buggy"
	// VariantFixed sends an evicted node the current leaf set.
	VariantFixed = "fixed"
)

// PropStable is the stopping condition as a liveness property.
const PropStable = "stable"

// Defaults of the bundled scenario.
const (
	// DefaultNodes is the paper's 40 nodes.
	DefaultNodes = 40
	// DefaultSpread is the window in which the non-bootstrap nodes start.
	DefaultSpread = 2 * time.Second
	// RouteSlack is added to ⌈log_{2^b} n⌉ in the routing check.
	RouteSlack = 1
	// IDSalt seeds the identifier assignment (dht.NodeIDs).
	IDSalt = 0x9a57
)

// System is the bundled Pastry system.
func System() timedsim.System {
	return timedsim.System{
		Name: "pastry",
		Doc:  "Pastry DHT; nodes join at once through one bootstrap node (MacePC §5.2)",
		Variants: []timedsim.Variant{
			{Name: VariantBuggy, Doc: "a node evicted from a leaf set is not told: only the 20 s maintenance repairs it"},
			{Name: VariantFixed, Doc: "an evicted node is sent the evicting node's current leaf set"},
		},
		DefaultVariant: VariantBuggy,
		DefaultNodes:   DefaultNodes,
		Build:          Build,
	}
}

// Build returns the bundled scenario of a variant (DefaultWorkload).
func Build(variant string, nodes int) (*timedsim.Scenario, error) {
	w := DefaultWorkload(nodes)
	switch variant {
	case VariantBuggy:
	case VariantFixed:
		w.Config.Fixed = true
	default:
		return nil, fmt.Errorf("pastry: unknown variant %q (variants: %s, %s)", variant, VariantBuggy, VariantFixed)
	}
	return NewScenario(w)
}

// Workload describes a scenario: node Bootstrap starts a ring at time 0;
// every other node is started at time 0 and, after a boot delay it draws
// uniformly from [0, Spread] in its own step, joins through the bootstrap.
// The nodes draw their delays themselves (rather than the driver drawing
// them all up front) so that a replayed prefix fixes only the delays
// already drawn, which lets the divergence search answer anything but
// step 0.
type Workload struct {
	Nodes     int
	Config    Config
	Bootstrap NodeID
	Spread    time.Duration
	Salt      uint64 // identifier assignment (dht.NodeIDs)
}

// DefaultWorkload is the bundled workload for n nodes.
func DefaultWorkload(n int) Workload {
	return Workload{Nodes: n, Spread: DefaultSpread, Salt: IDSalt}
}

// NewScenario returns the scenario of a workload. The stopping condition
// is Stable; the timeout 600 s.
func NewScenario(w Workload) (*timedsim.Scenario, error) {
	switch {
	case w.Nodes < 1:
		return nil, fmt.Errorf("pastry: %d nodes, need at least 1", w.Nodes)
	case w.Bootstrap < 0 || int(w.Bootstrap) >= w.Nodes:
		return nil, fmt.Errorf("pastry: bootstrap %v is not one of the %d nodes", w.Bootstrap, w.Nodes)
	case w.Spread < 0:
		return nil, fmt.Errorf("pastry: negative join spread %v", w.Spread)
	case w.Config.LeafHalf < 0:
		return nil, fmt.Errorf("pastry: negative leaf set size %d", w.Config.LeafHalf)
	}
	ids := dht.NodeIDs(w.Nodes, w.Salt)
	ring := dht.NewRing(ids, RouteSlack)
	cfg, b, spread := w.Config, w.Bootstrap, w.Spread
	stable := func(wd timedsim.World) bool { return ring.Stable(func(id NodeID) dht.State { return node(wd, id) }) }
	return &timedsim.Scenario{
		Nodes: w.Nodes,
		New:   func(id NodeID) timedsim.Service { return NewNode(id, ids, cfg) },
		Driver: func(d *timedsim.Driver) {
			for id := range NodeID(d.Nodes()) {
				d.App(0, id, AppStart, Start{Bootstrap: b, Within: spread})
			}
		},
		Stop: stable,
		NewStop: func() func(timedsim.World) bool {
			return ring.NewStable(func(wd timedsim.World, id NodeID) dht.State { return node(wd, id) })
		},
		Liveness: []timedsim.Property{{Name: PropStable, Check: stable}},
		Timeout:  600 * time.Second,
		Network:  netmodel.DefaultConfig(),
		Revision: "1",
	}, nil
}

// Ring returns the true ring of the bundled scenario with n nodes: the
// identifiers, each node's neighbours and the routing hop bound.
func Ring(n int) *dht.Ring { return dht.NewRing(dht.NodeIDs(n, IDSalt), RouteSlack) }

func node(w timedsim.World, id NodeID) *Node {
	n, ok := w.Node(id).(*Node)
	if !ok {
		panic(fmt.Sprintf("pastry: node %v is a %T, not a *pastry.Node", id, w.Node(id)))
	}
	return n
}

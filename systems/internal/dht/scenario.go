package dht

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Workload is the scenario the bundled Pastry and Bamboo systems share:
// node Bootstrap starts a ring at time 0; every other node is started at
// time 0 and, after a boot delay it draws uniformly from [0, Spread] in
// its own step, joins through the bootstrap.
//
// The nodes draw their delays themselves (rather than the driver drawing
// them all up front, which would make them part of every replayed prefix)
// so that a replayed prefix fixes only the delays already drawn, and the
// divergence search can answer anything but step 0.
type Workload struct {
	Nodes     int
	Bootstrap timedsim.NodeID
	Spread    time.Duration
	// Salt seeds the identifier assignment (NodeIDs).
	Salt uint64
	// Slack is added to ⌈log_{2^B} n⌉ in the routing check.
	Slack int
}

// Protocol is what Scenario needs of a protocol package.
type Protocol struct {
	// Name prefixes errors.
	Name string
	// App is the application event that starts a node; Start builds its
	// data from the bootstrap and the spread.
	App   string
	Start func(bootstrap timedsim.NodeID, within time.Duration) any
	// New builds node id given every node's identifier.
	New func(id timedsim.NodeID, ids []ID) timedsim.Service
	// State reads a node's State (a type assertion).
	State func(timedsim.Service) State
	// Property names the stopping condition as a liveness property.
	Property string
	// Revision of the protocol code (timedsim.Scenario.Revision).
	Revision string
	// LeafHalf is the configured leaf set half size (0: the default; a
	// negative one is refused).
	LeafHalf int
}

// Check reports what is wrong with a workload.
func (w Workload) Check(name string) error {
	switch {
	case w.Nodes < 1:
		return fmt.Errorf("%s: %d nodes, need at least 1", name, w.Nodes)
	case w.Bootstrap < 0 || int(w.Bootstrap) >= w.Nodes:
		return fmt.Errorf("%s: bootstrap %v is not one of the %d nodes", name, w.Bootstrap, w.Nodes)
	case w.Spread < 0:
		return fmt.Errorf("%s: negative join spread %v", name, w.Spread)
	case w.Slack < 0:
		return fmt.Errorf("%s: negative routing slack %d", name, w.Slack)
	}
	return nil
}

// Ring is the true ring of the workload.
func (w Workload) Ring() *Ring { return NewRing(NodeIDs(w.Nodes, w.Salt), w.Slack) }

// Scenario returns the timed scenario of a workload: the stopping
// condition is Ring.Stable (with Ring.NewStable as NewStop), also the one
// liveness property; the timeout is 600 s and the network Mace's default.
func Scenario(w Workload, p Protocol) (*timedsim.Scenario, error) {
	if err := w.Check(p.Name); err != nil {
		return nil, err
	}
	if p.LeafHalf < 0 {
		return nil, fmt.Errorf("%s: negative leaf set size %d", p.Name, p.LeafHalf)
	}
	ids := NodeIDs(w.Nodes, w.Salt)
	ring := NewRing(ids, w.Slack)
	get := func(wd timedsim.World, id timedsim.NodeID) State { return p.State(wd.Node(id)) }
	stable := func(wd timedsim.World) bool {
		return ring.Stable(func(id timedsim.NodeID) State { return get(wd, id) })
	}
	b, spread := w.Bootstrap, w.Spread
	return &timedsim.Scenario{
		Nodes: w.Nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return p.New(id, ids) },
		Driver: func(d *timedsim.Driver) {
			for id := range timedsim.NodeID(d.Nodes()) {
				d.App(0, id, p.App, p.Start(b, spread))
			}
		},
		Stop:     stable,
		NewStop:  func() func(timedsim.World) bool { return ring.NewStable(get) },
		Liveness: []timedsim.Property{{Name: p.Property, Check: stable}},
		Timeout:  600 * time.Second,
		Network:  netmodel.DefaultConfig(),
		Revision: p.Revision,
	}, nil
}

// PropStable is the name of the stopping condition as a liveness property.
const PropStable = "stable"

// NewProtocol describes a protocol whose nodes, of type N, are built by
// newNode with a leaf set half size of leafHalf (0: the default), start with AppStart and are read as States by a type
// assertion (a node of another type is a caller bug: it panics).
func NewProtocol[N interface {
	timedsim.Service
	State
}](name, revision string, leafHalf int, newNode func(id timedsim.NodeID, ids []ID) N) Protocol {
	return Protocol{
		Name:  name,
		App:   AppStart,
		Start: func(b timedsim.NodeID, within time.Duration) any { return Start{Bootstrap: b, Within: within} },
		New:   func(id timedsim.NodeID, ids []ID) timedsim.Service { return newNode(id, ids) },
		State: func(s timedsim.Service) State {
			n, ok := s.(N)
			if !ok {
				panic(fmt.Sprintf("%s: node is a %T, not a %T", name, s, n))
			}
			return n
		},
		Property: PropStable,
		Revision: revision,
		LeafHalf: leafHalf,
	}
}

// NewSystem is the timedsim.System of a DHT protocol whose variants are
// "buggy" (the default) and "fixed", with nodes nodes by default.
func NewSystem(name, doc, buggy, fixed string, nodes int, build func(variant string, nodes int) (*timedsim.Scenario, error)) timedsim.System {
	return timedsim.System{
		Name:           name,
		Doc:            doc,
		Variants:       []timedsim.Variant{{Name: "buggy", Doc: buggy}, {Name: "fixed", Doc: fixed}},
		DefaultVariant: "buggy",
		DefaultNodes:   nodes,
		Build:          build,
	}
}

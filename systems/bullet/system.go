package bullet

import (
	"fmt"
	"strings"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/ransub"
	"github.com/macepc/macepc/timedsim"
)

// Variant names.
const (
	// VariantDiffDrop sends Diffs over the data transport (the first bug).
	VariantDiffDrop = "diff-drop"
	// VariantJoinReject sends JoinReject without peers (the second bug).
	VariantJoinReject = "join-reject"
	// VariantBuggy has both bugs.
	VariantBuggy = "buggy"
	// VariantFixed sends Diffs over control and lists peers in JoinReject.
	VariantFixed = "fixed"
)

// Scenario names (the parameter "scenario").
const (
	// Scenario20MB is the paper's first experiment: 100 nodes, a 20 MB
	// file.
	Scenario20MB = "20mb"
	// Scenario2MB is the paper's second experiment: 100 nodes, a 2 MB
	// file, the receivers starting within a second.
	Scenario2MB = "2mb"
	// ScenarioAuto is 2mb for the join-reject variant and 20mb otherwise:
	// each bug's experiment.
	ScenarioAuto = "auto"
)

// Layer names of a node's timedsim.Stack.
const (
	LayerRanSub = "ransub"
	LayerBullet = "bullet"
)

// Defaults of the scenarios.
const (
	DefaultNodes     = 100
	DefaultBlockSize = 128 << 10
	DefaultBandwidth = 45_000 // kbit/s
)

// System is the bundled Bullet′ system: its variants and the paper's two
// experiments.
func System() timedsim.System {
	return timedsim.System{
		Name: "bullet",
		Doc:  "Bullet′ file distribution over RanSub; Diffs lost to a full data queue, JoinReject without peers (MacePC §5.1)",
		Variants: []timedsim.Variant{
			{Name: VariantDiffDrop, Doc: "Diffs go over the data transport and a full queue drops them: a node may never learn of its last blocks until RanSub brings new peers"},
			{Name: VariantJoinReject, Doc: "JoinReject carries no peers: a node rejected by all its candidates waits for RanSub's next epoch"},
			{Name: VariantBuggy, Doc: "both bugs"},
			{Name: VariantFixed, Doc: "Diffs over the control transport, JoinReject lists the rejecting node's peers"},
		},
		DefaultVariant: VariantDiffDrop,
		DefaultNodes:   DefaultNodes,
		Params: []timedsim.Param{
			{Name: "scenario", Default: ScenarioAuto, Values: []string{ScenarioAuto, Scenario20MB, Scenario2MB},
				Doc: "the paper's experiment: 20mb (the Diff bug's), 2mb (the JoinReject bug's), auto = the variant's"},
			{Name: "block", Default: "131072", Check: timedsim.CheckInt(1024, 16<<20), Doc: "block size in bytes"},
			{Name: "epoch", Default: "5s", Check: timedsim.CheckDuration(time.Millisecond), Doc: "RanSub's epoch"},
			{Name: "data-queue", Default: "2", Check: timedsim.CheckInt(1, 1000), Doc: "messages the data transport buffers per connection (a block is only sent onto an empty one)"},
			{Name: "retry", Default: "20ms", Check: timedsim.CheckDuration(time.Microsecond), Doc: "how long a block that does not fit in the data queue waits to be sent again"},
			{Name: "bandwidth", Default: "45000", Check: timedsim.CheckInt(100, 10_000_000), Doc: "every node's uplink, kbit/s"},
			{Name: "diff-interval", Default: "100ms", Check: timedsim.CheckDuration(time.Millisecond), Doc: "time between a node's Diffs"},
		},
		BuildParams: BuildParams,
	}
}

// BuildParams returns the scenario of a variant with n nodes.
func BuildParams(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
	w, err := NewWorkload(variant, p.Get("scenario"), nodes)
	if err != nil {
		return nil, err
	}
	w.Config.BlockSize = p.Int("block")
	w.Config.Blocks = (w.FileSize + w.Config.BlockSize - 1) / w.Config.BlockSize
	w.RanSub.Epoch = p.Duration("epoch")
	w.Config.DiffInterval = p.Duration("diff-interval")
	w.DataQueue = p.Int("data-queue")
	w.Config.RetryInterval = p.Duration("retry")
	w.BandwidthKbps = float64(p.Int("bandwidth"))
	return NewScenario(w)
}

// Workload is a scenario's description.
type Workload struct {
	Nodes    int
	FileSize int // bytes
	Config   Config
	RanSub   ransub.Config
	// Spread: the receivers start at times drawn uniformly from
	// [0, Spread], each in its own step.
	Spread time.Duration
	// BandwidthKbps is every node's uplink.
	BandwidthKbps float64
	// DataQueue is the data transport's queue capacity in messages.
	DataQueue int
}

// NewWorkload returns the workload of a variant and scenario (before the
// block size is chosen: Config.Blocks is set from FileSize and the default
// block size).
func NewWorkload(variant, scenario string, nodes int) (Workload, error) {
	cfg := Config{
		BlockSize:      DefaultBlockSize,
		MaxPeers:       8,
		Target:         5,
		Candidates:     5,
		MaxOutstanding: 3,
		DiffInterval:   100 * time.Millisecond,
		RetryInterval:  20 * time.Millisecond,
	}
	switch variant {
	case VariantDiffDrop:
		cfg.DiffsOverData = true
	case VariantJoinReject:
		cfg.RejectWithoutPeers = true
	case VariantBuggy:
		cfg.DiffsOverData, cfg.RejectWithoutPeers = true, true
	case VariantFixed:
	default:
		return Workload{}, fmt.Errorf("bullet: unknown variant %q (variants: %s)", variant, strings.Join(System().VariantNames(), ", "))
	}
	if scenario == ScenarioAuto {
		scenario = Scenario20MB
		if variant == VariantJoinReject {
			scenario = Scenario2MB
		}
	}
	w := Workload{Nodes: nodes, Config: cfg, BandwidthKbps: DefaultBandwidth, DataQueue: 2}
	switch scenario {
	case Scenario20MB:
		w.FileSize = 20 << 20
	case Scenario2MB:
		w.FileSize = 2 << 20
		w.Spread = time.Second
	default:
		return Workload{}, fmt.Errorf("bullet: unknown scenario %q (scenarios: %s, %s, %s)", scenario, ScenarioAuto, Scenario20MB, Scenario2MB)
	}
	w.Config.Blocks = (w.FileSize + cfg.BlockSize - 1) / cfg.BlockSize
	return w, nil
}

// NewScenario returns the scenario of a workload: a Stack of RanSub and
// Bullet′ on every node, the source (node 0) publishing at time 0 and the
// receivers starting within Spread; the stopping condition is that every
// receiver holds the whole file.
func NewScenario(w Workload) (*timedsim.Scenario, error) {
	switch {
	case w.Nodes < 2:
		return nil, fmt.Errorf("bullet: %d nodes, need a source and a receiver", w.Nodes)
	case w.Config.Blocks < 1 || w.Config.BlockSize < 1:
		return nil, fmt.Errorf("bullet: a file of %d blocks of %d bytes", w.Config.Blocks, w.Config.BlockSize)
	case w.DataQueue < 1:
		return nil, fmt.Errorf("bullet: data queue of %d messages, need at least 1", w.DataQueue)
	case w.Config.MaxPeers < 1 || w.Config.Target < 1 || w.Config.MaxOutstanding < 1:
		return nil, fmt.Errorf("bullet: peer limit %d, target %d and outstanding requests %d must be positive", w.Config.MaxPeers, w.Config.Target, w.Config.MaxOutstanding)
	}
	cfg, rcfg, n, spread := w.Config, w.RanSub, w.Nodes, w.Spread
	return &timedsim.Scenario{
		Nodes: n,
		New: func(id NodeID) timedsim.Service {
			// link hands RanSub's subsets to the Bullet′ layer of the
			// same stack.
			link := func(st *timedsim.Stack) {
				r, b := st.Layer(LayerRanSub).(*ransub.Node), st.Layer(LayerBullet).(*Node)
				r.SetHandler(ransub.HandlerFunc(func(ctx timedsim.Context, e int, peers []NodeID) {
					b.Subset(st.Context(ctx, LayerBullet), e, peers)
				}))
			}
			b := NewNode(id, cfg)
			r := ransub.NewNode(id, n, rcfg, nil)
			st := timedsim.NewStack(
				timedsim.Layer{Name: LayerRanSub, Service: r, Owns: ransub.Owns},
				timedsim.Layer{Name: LayerBullet, Service: b},
			)
			link(st)
			st.OnClone(link) // a snapshot's copy of the stack: link the copies
			return st
		},
		Driver: func(d *timedsim.Driver) {
			for id := range NodeID(d.Nodes()) {
				d.App(0, id, LayerBullet+"."+AppStart, spread)
			}
		},
		Stop:    AllComplete,
		NewStop: NewAllComplete,
		Timeout: 120 * time.Second,
		Network: netmodel.Config{
			BandwidthKbps: w.BandwidthKbps,
			Transports: []netmodel.TransportConfig{
				{Name: Control, Kind: netmodel.Reliable, QueueCap: -1},
				{Name: Data, Kind: netmodel.Reliable, QueueCap: w.DataQueue},
			},
		},
		Revision: "1",
	}, nil
}

// Of returns node id's Bullet′ layer; any other service is a caller bug.
func Of(w timedsim.World, id NodeID) *Node {
	st, ok := w.Node(id).(*timedsim.Stack)
	if ok {
		if b, ok := st.Layer(LayerBullet).(*Node); ok {
			return b
		}
	}
	panic(fmt.Sprintf("bullet: node %v is a %T, not a Bullet′ stack", id, w.Node(id)))
}

// AllComplete is the stopping condition: every receiver holds the whole
// file.
func AllComplete(w timedsim.World) bool {
	for id := range NodeID(w.Nodes()) {
		if !Of(w, id).Complete() {
			return false
		}
	}
	return true
}

// NewAllComplete returns AllComplete with a hint: the node its last scan
// found incomplete is checked first, so most calls cost O(1). The hint's
// Bullet′ layer is kept with the service it came from, so that the check
// is a comparison and a field read while the world still holds that
// service (a new execution has new services, and is looked up afresh).
func NewAllComplete() func(timedsim.World) bool {
	var (
		hint NodeID
		svc  timedsim.Service // w.Node(hint) when node was found
		node *Node
	)
	return func(w timedsim.World) bool {
		n := w.Nodes()
		if int(hint) >= n {
			hint, svc, node = 0, nil, nil
		}
		if node != nil && w.Node(hint) == svc && !node.Complete() {
			return false
		}
		for i := 0; i < n; i++ {
			id := NodeID((int(hint) + i) % n)
			if b := Of(w, id); !b.Complete() {
				hint, svc, node = id, w.Node(id), b
				return false
			}
		}
		return true
	}
}

package etcdraft

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"go.etcd.io/raft/v3"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/raftsim"
	"github.com/macepc/macepc/timedsim"
)

// Variants.
const (
	// VariantPreVote runs raft with PreVote and CheckQuorum on (etcd's
	// configuration since v3.4 and the default here).
	VariantPreVote = "prevote"
	// VariantNoPreVote runs raft with both off: a node cut off from the
	// cluster inflates its term and disrupts the leader when it returns.
	VariantNoPreVote = "no-prevote"
)

// Scenarios (the "scenario" parameter).
const (
	ScenarioElection    = "election"
	ScenarioRejoin      = "rejoin"
	ScenarioLeaderCrash = "leader-crash"
)

// Parameter names.
const (
	ParamScenario      = "scenario"
	ParamProposals     = "proposals"
	ParamTick          = "tick"
	ParamElectionTick  = "election-tick"
	ParamHeartbeatTick = "heartbeat-tick"
	ParamBootJitter    = "boot-jitter"
	ParamPartition     = "partition"
	ParamBlip          = "blip"
	ParamPartitionRate = "partition-rate"
	ParamInterval      = "interval"
)

// Liveness property names (the safety ones are raftsim's).
const (
	PropOneLeader  = raftsim.PropOneLeader
	PropAllApplied = "all-applied"
)

// Revision enters the config hash: bump it when a change here makes old
// paths replay differently.
const Revision = "4"

// System returns the etcdraft system: unmodified etcd raft with a
// key-value state machine, under the scenarios of the "scenario"
// parameter.
func System() timedsim.System {
	return timedsim.System{
		Name: "etcdraft",
		Doc:  "unmodified etcd raft (go.etcd.io/raft/v3) with a key-value state machine; --param scenario=election|rejoin|leader-crash",
		Variants: []timedsim.Variant{
			{Name: VariantPreVote, Doc: "PreVote and CheckQuorum on (etcd's configuration)"},
			{Name: VariantNoPreVote, Doc: "PreVote and CheckQuorum off: a returning node's inflated term disrupts the leader"},
		},
		DefaultNodes: 5,
		Params: []timedsim.Param{
			{Name: ParamScenario, Default: ScenarioElection, Doc: "the hazard", Values: []string{ScenarioElection, ScenarioRejoin, ScenarioLeaderCrash}},
			{Name: ParamProposals, Default: "200", Doc: "client proposals; the run stops when every node has applied all of them", Check: timedsim.CheckInt(1, 10_000_000)},
			{Name: ParamInterval, Default: "auto", Doc: "time between two client proposals (auto: 5ms for election, 20ms for leader-crash; rejoin spreads the proposals over the longest outage and the catch-up after it)", Check: optionalDuration},
			{Name: ParamTick, Default: "100ms", Doc: "interval between RawNode.Tick calls", Check: timedsim.CheckDuration(time.Millisecond)},
			{Name: ParamElectionTick, Default: "10", Doc: "raft ElectionTick", Check: timedsim.CheckInt(2, 1000)},
			{Name: ParamHeartbeatTick, Default: "1", Doc: "raft HeartbeatTick (less than election-tick)", Check: timedsim.CheckInt(1, 999)},
			{Name: ParamBootJitter, Default: "auto", Doc: "each node boots after a delay drawn uniformly from [0, boot-jitter) (auto: 1s; 0 for rejoin, whose cluster is up when it starts)", Check: optionalDuration0},
			{Name: ParamPartition, Default: "auto", Doc: "rejoin: how long a long outage cuts the follower off (auto: 2*election-tick ticks, past raft's largest randomized election timeout)", Check: optionalDuration},
			{Name: ParamBlip, Default: "auto", Doc: "rejoin: a short outage lasts up to this, uniformly (auto: election-tick-heartbeat-tick-1 ticks, the longest a follower surely sits out without campaigning)", Check: optionalDuration0},
			{Name: ParamPartitionRate, Default: "0.02", Doc: "rejoin: the share of outages that are long", Check: timedsim.CheckFloat(0, 1)},
		},
		BuildParams: build,
	}
}

func optionalDuration(v string) error {
	if v == "auto" {
		return nil
	}
	return timedsim.CheckDuration(time.Microsecond)(v)
}

func optionalDuration0(v string) error {
	if v == "auto" {
		return nil
	}
	return timedsim.CheckDuration(0)(v)
}

// auto returns parameter name as a duration, or def when it is "auto".
func auto(p timedsim.Params, name string, def time.Duration) time.Duration {
	if p.Get(name) == "auto" {
		return def
	}
	return p.Duration(name)
}

// Options are a scenario's settings, from the parameters.
type Options struct {
	Scenario      string
	Variant       string
	Nodes         int
	Proposals     int
	Interval      time.Duration
	Tick          time.Duration
	ElectionTick  int
	HeartbeatTick int
	BootJitter    time.Duration
	// rejoin: the long outage's length, the short outages' bound and the
	// share of outages that are long.
	Partition     time.Duration
	Blip          time.Duration
	PartitionRate float64
}

func build(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
	o := Options{Scenario: p.Get(ParamScenario), Variant: variant, Nodes: nodes, Proposals: p.Int(ParamProposals),
		Tick: p.Duration(ParamTick), ElectionTick: p.Int(ParamElectionTick), HeartbeatTick: p.Int(ParamHeartbeatTick),
		PartitionRate: p.Float(ParamPartitionRate)}
	ticks := func(k int) time.Duration { return time.Duration(max(k, 0)) * o.Tick }
	o.BootJitter = auto(p, ParamBootJitter, time.Second)
	if o.Scenario == ScenarioRejoin {
		o.BootJitter = auto(p, ParamBootJitter, 0)
	}
	// A follower campaigns when election-tick to 2*election-tick-1 ticks
	// have passed since it last heard from its leader, who is heard from
	// every heartbeat-tick ticks.
	o.Partition = auto(p, ParamPartition, ticks(2*o.ElectionTick))
	o.Blip = auto(p, ParamBlip, ticks(o.ElectionTick-o.HeartbeatTick-1))
	switch o.Scenario {
	case ScenarioElection:
		o.Interval = 5 * time.Millisecond
	case ScenarioRejoin:
		o.Interval = rejoinStream(o) / time.Duration(o.Proposals)
	default:
		o.Interval = 20 * time.Millisecond
	}
	if v := p.Get(ParamInterval); v != "auto" {
		o.Interval, _ = time.ParseDuration(v)
	}
	return Scenario(o)
}

// kv is the state machine: "key=value" puts.
type kv struct {
	m map[string]string
}

// Apply implements raftsim.StateMachine.
func (s *kv) Apply(_ uint64, data []byte) {
	k, v, _ := bytes.Cut(data, []byte("="))
	s.m[string(k)] = string(v)
}

// Describe renders the store: every pair while there are few, else their
// number, the first and last keys and a digest of the whole.
func (s *kv) Describe() string {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, keyCompare)
	if len(keys) <= 8 {
		var b strings.Builder
		b.WriteString("kv{")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(k + "=" + s.m[k])
		}
		return b.String() + "}"
	}
	h := xxhash.New()
	for _, k := range keys {
		h.WriteString(k + "=" + s.m[k] + "\n")
	}
	return fmt.Sprintf("kv{%d keys %s..%s digest %016x}", len(keys), keys[0], keys[len(keys)-1], h.Sum64())
}

// keyCompare orders "k2" before "k10".
func keyCompare(a, b string) int {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "k"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "k"))
	if ea == nil && eb == nil && na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

// Len is the number of keys in node id's store (0 before it started).
func Len(w timedsim.World, id timedsim.NodeID) int {
	if s, ok := raftsim.NodeOf(w, id).StateMachine().(*kv); ok {
		return len(s.m)
	}
	return 0
}

// proposal i's payload: key k<i>.
func proposal(i int) []byte { return fmt.Appendf(nil, "k%d=%d", i, i) }

// leader returns the node that leads the highest term, or None.
func leader(w timedsim.World) timedsim.NodeID {
	best, top := timedsim.None, uint64(0)
	for i := range w.Nodes() {
		n, ok := w.Node(timedsim.NodeID(i)).(*raftsim.Node)
		if !ok {
			return timedsim.None
		}
		if st := n.Status(); st.Role == raft.StateLeader && st.Term >= top {
			best, top = timedsim.NodeID(i), st.Term
		}
	}
	return best
}

// Scenario builds the scenario of o.
func Scenario(o Options) (*timedsim.Scenario, error) {
	if o.Nodes < 1 {
		return nil, fmt.Errorf("etcdraft: need at least 1 node, got %d", o.Nodes)
	}
	if o.Scenario == ScenarioRejoin && o.Nodes < 3 {
		return nil, fmt.Errorf("etcdraft: the rejoin scenario needs at least 3 nodes (a follower cut off from a majority), got %d", o.Nodes)
	}
	cfg := &raftsim.Config{
		Tick:            o.Tick,
		BootJitter:      o.BootJitter,
		NewStateMachine: func(timedsim.NodeID) raftsim.StateMachine { return &kv{m: map[string]string{}} },
	}
	cfg.Raft.ElectionTick, cfg.Raft.HeartbeatTick = o.ElectionTick, o.HeartbeatTick
	switch o.Variant {
	case VariantPreVote:
		cfg.Raft.PreVote, cfg.Raft.CheckQuorum = true, true
	case VariantNoPreVote:
	default:
		return nil, fmt.Errorf("etcdraft: unknown variant %q", o.Variant)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("etcdraft: %w", err)
	}
	n, total := o.Nodes, o.Proposals
	// Proposals start when the cluster has had time to elect a leader
	// (election: at once, the election is part of the task; rejoin: one
	// tick after node 0 campaigned, when every node is up).
	start := o.BootJitter + 2*time.Duration(o.ElectionTick)*o.Tick
	switch o.Scenario {
	case ScenarioElection:
		start = 0
	case ScenarioRejoin:
		start = o.BootJitter + o.Tick
	}
	stream := time.Duration(total) * o.Interval
	sc := &timedsim.Scenario{
		Nodes: n,
		New:   func(id timedsim.NodeID) timedsim.Service { return raftsim.New(id, cfg) },
		Driver: func(d *timedsim.Driver) {
			if o.Scenario == ScenarioRejoin {
				rejoin(d, o, start)
				return
			}
			for i := range total {
				raftsim.Propose(d, start+time.Duration(i)*o.Interval, timedsim.NodeID(d.Rand().IntN(n)), proposal(i))
			}
			if o.Scenario == ScenarioLeaderCrash {
				// Nine tenths into the stream, so that finishing it
				// measures the recovery: detection, re-election and the
				// clients' retries of what the old leader had not
				// committed.
				d.ResetChosen(start+stream*9/10, leader)
			}
		},
		Timeout:  start + stream + 120*time.Second,
		Network:  netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 4096}}},
		Safety:   raftsim.Safety(),
		Liveness: []timedsim.Property{raftsim.OneLeader(), {Name: PropAllApplied, Check: allApplied(total)}},
		Revision: Revision,
	}
	sc.Stop = allApplied(total)
	return sc, nil
}

// rejoinStream is how long rejoin's proposals flow from the cut on: the
// long outage, then heartbeat-tick ticks for the returning follower to hear
// from its leader and catch up, and one tick of slack. With PreVote no
// outage then delays the end: the execution time is the stream's.
func rejoinStream(o Options) time.Duration {
	return o.Partition + time.Duration(o.HeartbeatTick+1)*o.Tick
}

// rejoin drives the rejoin scenario: node 0 campaigns when every node is
// up, and at start the last node is cut off for an outage drawn then —
// long (Partition) with probability PartitionRate, else a blip up to Blip —
// while clients send proposals to the other nodes (the cut-off node's
// clients are cut off with it).
func rejoin(d *timedsim.Driver, o Options, start time.Duration) {
	n := o.Nodes
	raftsim.Campaign(d, o.BootJitter, 0)
	for i := range o.Proposals {
		raftsim.Propose(d, start+time.Duration(i)*o.Interval, timedsim.NodeID(d.Rand().IntN(n-1)), proposal(i))
	}
	cut := []timedsim.NodeID{timedsim.NodeID(n - 1)}
	d.Outage(start, func(_ timedsim.World, r *rand.Rand) ([][]timedsim.NodeID, time.Duration) {
		long, u := r.Float64() < o.PartitionRate, r.Float64()
		switch {
		case long:
			return [][]timedsim.NodeID{cut}, o.Partition
		case o.Blip > 0:
			return [][]timedsim.NodeID{cut}, max(time.Duration(u*float64(o.Blip)), 1)
		}
		return nil, 0
	})
}

// allApplied holds when every node's store has every proposal; a node
// stopped for good by a crash-stop of the liveness mode (timedsim.Crashed)
// is not asked to.
func allApplied(total int) func(timedsim.World) bool {
	return func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if Len(w, timedsim.NodeID(i)) < total && !timedsim.Crashed(w, timedsim.NodeID(i)) {
				return false
			}
		}
		return true
	}
}

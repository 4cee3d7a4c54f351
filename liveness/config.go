package liveness

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/macepc/macepc/timedsim"
)

// Defaults of Config's zero fields.
const (
	// DefaultDepth is the first bound of the iterative-deepening DFS.
	DefaultDepth = 5
	// DefaultDepthStep is the iterative-deepening increment.
	DefaultDepthStep = 5
	// DefaultMaxDepth is the last DFS bound searched.
	DefaultMaxDepth = 10
	// DefaultDMax is the length of the random walks (MaceMC's dmax).
	DefaultDMax = 1000
	// DefaultWalks is k, the random walks per critical-transition probe.
	DefaultWalks = 20
)

// Config configures a liveness search (Run), a critical-transition search
// (FindCritical) or a replay (Replay).
type Config struct {
	// Scenario is the system under test: its constructor, its driver (run
	// once, seeded with Seed, to collect the application events), its
	// network's transports, and its Safety and Liveness properties.
	Scenario *timedsim.Scenario
	// Depth is the first bound of the exhaustive search, DepthStep the
	// increment of iterative deepening, MaxDepth the last bound searched
	// (defaults DefaultDepth, DefaultDepthStep, DefaultMaxDepth, and
	// MaxDepth is raised to Depth if lower).
	Depth, DepthStep, MaxDepth int
	// DMax bounds every execution: a random walk from the periphery of the
	// exhaustive search runs until step DMax (counted from the start) or a
	// live state; a critical-transition walk runs DMax steps past its
	// prefix (default DefaultDMax; must exceed MaxDepth).
	DMax int
	// Walks is k, the random walks of each critical-transition probe
	// (default DefaultWalks).
	Walks int
	// RandomWalks, if positive, ends the search after that many random
	// walks from the periphery.
	RandomWalks int
	// Jobs is the number of workers (prefix tasks of the DFS, random
	// walks of the critical-transition search); 0 means GOMAXPROCS.
	// Results do not depend on it.
	Jobs int
	// Seed seeds everything random: the driver, the handlers' randomness,
	// the random walks.
	Seed uint64
	// Weights overrides the random walks' event weights: by kind ("app",
	// "message", "timer", "error", "reset", "break", "drop", "crash",
	// "partition"; Mace's defaults 40, 8, 1, and 8 for transport errors, 1
	// for each chosen fault; the driver's faults weigh as "app") or by
	// label ("timer recovery", "deliver Join", "app join", "driver
	// partition"), a label taking precedence. A weight must not be
	// negative; 0 means never chosen while another enabled event has a
	// positive weight.
	Weights map[string]int
	// Unbiased makes random walks choose uniformly among enabled events.
	Unbiased bool
	// Faults is the number of node resets allowed per execution (0: none).
	// While some are left, a reset of every node that is up is an enabled
	// event.
	Faults int
	// Breaks is the number of connection breaks allowed per execution:
	// while some are left, breaking the reliable connections between each
	// pair of nodes that has one (every transport, both directions: their
	// messages in flight are lost and both ends get an ErrConnectionBroken
	// upcall) is an enabled event, one per pair. Drops is the number of
	// datagram losses allowed per execution: while some are left, losing
	// each datagram in flight is an enabled event. Each break, drop and
	// reset uses one from its own count; the counts left are part of the
	// state.
	Breaks, Drops int
	// Crashes is the number of crash-stops allowed per execution: while
	// some are left, stopping each node that is up for good is an enabled
	// event (see the package doc, "Crash-stops and lasting partitions").
	// Partitions is the number of lasting partitions allowed per
	// execution: while some are left, cutting each node that is up off
	// from the others, until the end of the execution, is an enabled
	// event. Each uses one from its own count; the counts left, the
	// crashed nodes and the partition's sides are part of the state.
	Crashes, Partitions int
	// Prefix, if set, is replayed first and the search starts from its
	// end state (MaceMC's prefix-based search).
	Prefix *Path
	// LivePrefix, if positive and Prefix is not set, makes the prefix a
	// random walk from the initial state (seeded with Seed) up to its
	// first live state, within LivePrefix steps: the search starts from a
	// live steady state, as MaceMC's prefix-based search of a correct
	// system does. The prefix is in Report.Settings.Prefix (the search
	// prefix MaceMC prints), and a later search can be given it as Prefix.
	LivePrefix int
	// Safety and Liveness, if not nil, replace the scenario's properties
	// (Select picks some of them by name). At least one liveness property
	// is needed. A state is live when all the liveness properties hold.
	Safety, Liveness []timedsim.Property
	// NoHashing turns off state hashing: the DFS enumerates every choice
	// sequence.
	NoHashing bool
	// SplitDepth is the depth of the prefix division of every iteration
	// (0: the bound minus SplitGap, at least 1). Prefixes are
	// searched in parallel and each has its own visited set; the result
	// depends on SplitDepth, never on Jobs or on sharding.
	SplitDepth int
	// LevelDivision makes the prefix division a level-synchronous search
	// on all the workers with one shared, pruning visited set (every state
	// explored once, at its lowest level, from its first sequence in DFS
	// order at that level) instead of the sequential DFS. It changes the
	// tree searched, never with Jobs or sharding. Ignored with NoHashing.
	LevelDivision bool
	// MaxMemory, if positive, caps the memory in bytes of the search's
	// visited sets and of the level division's tree of states: a division
	// whose next level would pass it (by an estimate from the levels so
	// far, Config.LevelDivision), whose visited set passes it (the
	// sequential division, checked every 256 sequences) or a search whose
	// sets pass it between chunks of tasks stops there, with End
	// EndMemory and the depths searched to their end in Stats.DepthDone.
	// The point where it stops depends on the configuration alone, not on
	// Jobs. It does not count the prefix tasks' own visited sets (a split
	// above the bound), nor the runtime's overhead.
	MaxMemory int64
	// NoCritical skips the critical-transition search after a liveness
	// violation.
	NoCritical bool
	// Replay makes every execution that would fork from a snapshot of the
	// world replay its prefix from step 0 instead: the level division's
	// successors and the critical-transition walks. The results are the
	// same either way (the tests check it); it is there to compare the two.
	// Without it, the executions fork where every node's service
	// implements Clone (timedsim.Cloner) and replay elsewhere.
	Replay bool
	// Progress, if not nil, sees the search's statistics so far now and
	// then (every 256 paths of a division and after each prefix task),
	// from the search's goroutine; it must return quickly. It does not
	// change the search.
	Progress func(Stats)

	// visit, a test hook, sees every DFS choice sequence (relative to the
	// prefix) with how it ended.
	visit func(seq []int, end pathEnd)
	// chunk, a test hook, is the number of tasks made and run at a time
	// and of frontier entries expanded at a time by the level division
	// (0: chunkTasks and lvChunk).
	chunk int
	// describeOnly, a test hook, hashes every node by its Describe text,
	// ignoring Fingerprinter.
	describeOnly bool
}

// pathEnd says how a DFS path ended.
type pathEnd uint8

const (
	endDepth     pathEnd = iota // reached the depth bound
	endQuiescent                // no event enabled
	endDuplicate                // reached a state seen before at no greater depth
)

// resolved is a Config with its defaults filled in and checked.
type resolved struct {
	Config
	set  *settings
	jobs int
}

func (c Config) resolve() (*resolved, error) {
	sc := c.Scenario
	if sc == nil {
		return nil, fmt.Errorf("liveness: no scenario")
	}
	if sc.Nodes < 1 || sc.New == nil {
		return nil, fmt.Errorf("liveness: scenario needs nodes and a constructor")
	}
	if err := sc.Network.WithDefaults().Validate(sc.Nodes); err != nil {
		return nil, fmt.Errorf("liveness: %w", err)
	}
	r := &resolved{Config: c}
	if r.Depth == 0 {
		r.Depth = DefaultDepth
	}
	if r.DepthStep == 0 {
		r.DepthStep = DefaultDepthStep
	}
	if r.MaxDepth == 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	r.MaxDepth = max(r.MaxDepth, r.Depth)
	if r.DMax == 0 {
		r.DMax = DefaultDMax
	}
	if r.Walks == 0 {
		r.Walks = DefaultWalks
	}
	switch {
	case r.Depth < 0 || r.DepthStep < 0:
		return nil, fmt.Errorf("liveness: negative depth %d or depth step %d", r.Depth, r.DepthStep)
	case r.DMax <= r.MaxDepth:
		return nil, fmt.Errorf("liveness: dmax %d must exceed the maximum search depth %d", r.DMax, r.MaxDepth)
	case r.Walks < 0 || r.RandomWalks < 0 || r.Faults < 0 || r.Breaks < 0 || r.Drops < 0 || r.Jobs < 0 || r.SplitDepth < 0 || r.LivePrefix < 0:
		return nil, fmt.Errorf("liveness: negative walks, random walks, faults, breaks, drops, jobs, split depth or live prefix")
	case r.MaxMemory < 0:
		return nil, fmt.Errorf("liveness: negative MaxMemory %d", r.MaxMemory)
	case r.Crashes < 0:
		return nil, fmt.Errorf("liveness: negative Crashes %d", r.Crashes)
	case r.Partitions < 0:
		return nil, fmt.Errorf("liveness: negative Partitions %d", r.Partitions)
	}
	r.jobs = r.Jobs
	if r.jobs == 0 {
		r.jobs = runtime.GOMAXPROCS(0)
	}
	set := &settings{sc: sc, trs: timedsim.NewTransports(sc.Network), unbiased: c.Unbiased, faults: c.Faults, breaks: c.Breaks, drops: c.Drops,
		crashes: c.Crashes, parts: c.Partitions, kindW: defaultWeights(), describeOnly: c.describeOnly}
	for k, v := range c.Weights {
		if v < 0 {
			return nil, fmt.Errorf("liveness: negative weight %d for %q", v, k)
		}
		names := kindNames()
		if i := slices.Index(names[:], k); i >= 0 {
			set.kindW[i] = v
			continue
		}
		if set.weights == nil {
			set.weights = map[string]int{}
		}
		set.weights[k] = v
	}
	set.safety, set.liveness = timedsim.Required(sc.Safety), timedsim.Required(sc.Liveness)
	if c.Safety != nil {
		set.safety = c.Safety
	}
	if c.Liveness != nil {
		set.liveness = c.Liveness
	}
	if len(set.liveness) == 0 {
		return nil, fmt.Errorf("liveness: no liveness property to check")
	}
	for _, p := range append(slices.Clone(set.safety), set.liveness...) {
		if p.Check == nil {
			return nil, fmt.Errorf("liveness: property %q has no Check", p.Name)
		}
	}
	if c.Prefix != nil {
		if err := c.Prefix.Validate(); err != nil {
			return nil, err
		}
	}
	r.set = set
	return r, nil
}

// settingsReport is the Settings of the report. Its Weights list every
// kind's weight, but those of crash-stops and partitions only when their
// counts are positive or Config.Weights sets them: a search without them
// reports the settings it did before they existed.
func (r *resolved) settingsReport() Settings {
	w := map[string]int{}
	for i, k := range kindNames() {
		if kind(i) == kindCrash && r.Crashes == 0 || kind(i) == kindPartition && r.Partitions == 0 {
			if _, set := r.Weights[k]; !set {
				continue
			}
		}
		w[k] = r.set.kindW[i]
	}
	maps.Copy(w, r.set.weights)
	s := Settings{
		Nodes: r.Scenario.Nodes, Depth: r.Depth, DepthStep: r.DepthStep, MaxDepth: r.MaxDepth, DMax: r.DMax,
		Walks: r.Walks, RandomWalks: r.RandomWalks, Seed: r.Seed, Weights: w, Unbiased: r.Unbiased,
		Faults: r.Faults, Breaks: r.Breaks, Drops: r.Drops, Crashes: r.Crashes, Partitions: r.Partitions,
		Hashing: !r.NoHashing, SplitDepth: r.SplitDepth, LevelDivision: r.LevelDivision && !r.NoHashing, LivePrefix: r.LivePrefix, Prefix: r.Prefix,
	}
	for _, p := range r.set.safety {
		s.Safety = append(s.Safety, p.Name)
	}
	for _, p := range r.set.liveness {
		s.Liveness = append(s.Liveness, p.Name)
	}
	return s
}

// Select returns the properties of ps named in names, in the order of
// names, for Config.Safety and Config.Liveness; an unknown name is an
// error that lists the known ones. nil names select none (an empty,
// non-nil list).
func Select(ps []timedsim.Property, names ...string) ([]timedsim.Property, error) {
	out := []timedsim.Property{}
	for _, n := range names {
		i := slices.IndexFunc(ps, func(p timedsim.Property) bool { return p.Name == n })
		if i < 0 {
			known := make([]string, len(ps))
			for j, p := range ps {
				known[j] = p.Name
			}
			return nil, fmt.Errorf("liveness: no property %q (have: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, ps[i])
	}
	return out, nil
}

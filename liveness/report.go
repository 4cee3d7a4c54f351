package liveness

import "fmt"

// EndMemory is Report.End for a search stopped at Config.MaxMemory.
const EndMemory = "memory-cap"

// Report is the outcome of Run. It is JSON-serialisable and a pure
// function of the Config (whatever Jobs): no wall-clock times.
type Report struct {
	// Settings are the effective settings, defaults filled in.
	Settings Settings `json:"settings"`
	// Stats count the work done up to the reported violation (or in all).
	Stats Stats `json:"stats"`
	// End says why the search ended: "violation", "max-depth" (every
	// depth up to MaxDepth searched), "exhausted" (no choice sequence
	// reached the depth bound: the whole state space was searched),
	// "walk-budget" (RandomWalks reached), EndMemory (Config.MaxMemory
	// reached: Stats.DepthDone is the last depth searched to its end,
	// Stats.Depth the one that did not fit) or "interrupted".
	End string `json:"end"`
	// Violation is the first violation found, in search order.
	Violation *Violation `json:"violation,omitempty"`
	// Critical is the critical-transition analysis of a liveness
	// violation (unless Config.NoCritical).
	Critical *Critical `json:"critical,omitempty"`
	// Warnings are about the services rather than the search's result:
	// a Describe that is not deterministic (its node, and two texts it
	// gave for one state), which makes one state count as several.
	Warnings []string `json:"warnings,omitempty"`
}

// Settings are a search's effective settings. Replaying a reported path
// needs the same scenario (system, variant, nodes), Weights, Unbiased,
// Faults, Breaks, Drops, Crashes and Partitions (the last two absent
// from files written before they existed: 0).
type Settings struct {
	Nodes       int            `json:"nodes"`
	Depth       int            `json:"depth"`
	DepthStep   int            `json:"depth_step"`
	MaxDepth    int            `json:"max_depth"`
	DMax        int            `json:"dmax"`
	Walks       int            `json:"walks"`
	RandomWalks int            `json:"random_walks,omitempty"`
	Seed        uint64         `json:"seed"`
	Weights     map[string]int `json:"weights"`
	Unbiased    bool           `json:"unbiased,omitempty"`
	Faults      int            `json:"faults,omitempty"`
	Breaks      int            `json:"breaks,omitempty"`
	Drops       int            `json:"drops,omitempty"`
	Crashes     int            `json:"crashes,omitempty"`
	Partitions  int            `json:"partitions,omitempty"`
	Hashing     bool           `json:"hashing"`
	SplitDepth  int            `json:"split_depth,omitempty"`
	// LevelDivision: the division is the level-synchronous search
	// (Config.LevelDivision).
	LevelDivision bool     `json:"level_division,omitempty"`
	Safety        []string `json:"safety"`
	Liveness      []string `json:"liveness"`
	LivePrefix    int      `json:"live_prefix,omitempty"`
	Prefix        *Path    `json:"prefix,omitempty"`
}

// Stats count a search's work.
type Stats struct {
	// Depth is the depth bound of the last DFS iteration started.
	Depth int `json:"depth"`
	// Paths is the number of DFS choice sequences executed, States the
	// number of distinct states they reached (by hash, per iteration),
	// Duplicates the number of sequences cut short at a state already
	// reached at no greater depth.
	Paths      int64 `json:"paths"`
	States     int64 `json:"states"`
	Duplicates int64 `json:"duplicates"`
	// Walks is the number of random walks from the periphery, Steps the
	// number of steps executed by the DFS and the walks.
	Walks int64 `json:"walks"`
	Steps int64 `json:"steps"`
	// DepthDone is the largest depth bound whose iteration was searched
	// to its end; Split is the last iteration's split depth and Prefixes
	// the number of prefix tasks folded (the parallel and sharded DFS).
	DepthDone int   `json:"depth_done"`
	Split     int   `json:"split"`
	Prefixes  int64 `json:"prefixes"`
	// Distinct is the number of distinct states (fingerprints) reached by
	// the whole search, across prefixes and iterations; States counts them
	// once per prefix task's visited set, so States − Distinct (of a
	// one-iteration search) is what not sharing the visited set across
	// prefixes cost. A merged sharded search has no Distinct (0).
	Distinct int64 `json:"distinct,omitempty"`
	// Collision is TLC's estimate of the probability that some visited
	// set took a new state for a visited one (a fingerprint collision,
	// which would prune a sequence that was not a duplicate): the sum over
	// the visited sets of n·(t−n)/2^64, n distinct fingerprints looked up
	// t times.
	Collision float64 `json:"collision_probability"`
}

// Violation kinds.
const (
	KindSafety   = "safety"
	KindLiveness = "liveness"
	KindPanic    = "panic"
)

// Violation is a safety violation, a panic in user code, or a suspected
// liveness violation (a dead path: no live state from past the search
// depth up to DMax).
type Violation struct {
	// Kind is KindSafety, KindLiveness or KindPanic.
	Kind string `json:"kind"`
	// Property is the violated safety property, or the first liveness
	// property that does not hold at the end of the dead path.
	Property string `json:"property,omitempty"`
	// Failed lists every liveness property that does not hold at the end
	// of the dead path.
	Failed []string `json:"failed,omitempty"`
	// Panic is the panic value, with the node or property.
	Panic string `json:"panic,omitempty"`
	// Step is the 0-based step after which the safety property failed or
	// in which the panic happened (-1: the initial state); for a liveness
	// violation it is the dead path's length.
	Step int `json:"step"`
	// Depth is the DFS bound of the iteration that found it.
	Depth int `json:"depth"`
	// Quiescent: the dead path ended because no event was enabled.
	Quiescent bool `json:"quiescent,omitempty"`
	// Path replays the violating execution.
	Path Path `json:"path"`
}

// What says what was violated, for notes and marks: "safety violation of
// P", "liveness violation of P", or "panic: n1: boom" (the panic's own
// text: a handler's, a property's or a Describe's).
func (v *Violation) What() string {
	if v.Kind == KindPanic {
		return "panic: " + v.Panic
	}
	return v.Kind + " violation of " + v.Property
}

// Critical-transition classes (MaceMC §3.2).
const (
	// C1: a dead-state liveness violation; Step is the critical
	// transition.
	C1 = "C1"
	// C2: no dead state was isolated; raise DMax and search again.
	C2 = "C2"
)

// Critical is the outcome of the critical-transition search.
type Critical struct {
	// Class is C1 or C2; Reason explains a C2.
	Class  string `json:"class"`
	Reason string `json:"reason,omitempty"`
	// Step is the critical transition: the 0-based step of the dead path
	// after which no random walk reaches a live state, while some walk
	// from the state before it does. For C2 it is -1 (no walk becomes live
	// even from the initial state) or the dead path's length (walks from
	// its very end become live).
	Step int `json:"step"`
	// Dead is the dead path; Live the live path sharing its longest
	// prefix (its first Step steps), ending at its first live state.
	Dead Path  `json:"dead"`
	Live *Path `json:"live,omitempty"`
	// DeadEvent and LiveEvent are step Step of the two paths.
	DeadEvent string `json:"dead_event,omitempty"`
	LiveEvent string `json:"live_event,omitempty"`
	// Diff lists the nodes whose canonical state differs between the two
	// paths right after step Step (C1 only).
	Diff []NodeDiff `json:"diff,omitempty"`
	// Probes are the prefix search's probes, in call order; Walks counts
	// their random walks.
	Probes []Probe `json:"probes"`
	Walks  int     `json:"walks"`
	// Rechecks are the searches a C2 led to, each with dmax doubled
	// (MaceMC: "raise dmax"), in order.
	Rechecks []Recheck `json:"rechecks,omitempty"`
	// WalksFrom says how the probes' walks reached their prefix:
	// WalksSnapshot (forked from a snapshot of the dead path's state
	// there) or WalksReplay (each replayed the prefix from step 0: a
	// node's service does not implement Clone, or Config.Replay).
	// Replayed counts the probes that replayed although WalksFrom is
	// WalksSnapshot (their prefix could not be snapshot). The walks and
	// the result are the same either way.
	WalksFrom string `json:"walks_from"`
	Replayed  int    `json:"replayed_probes,omitempty"`
	// DeadFromStart says a C2 is a violation all the same: with dmax
	// raised, no walk from the initial state becomes live (the initial
	// state is dead, as in MaceMC's Chord bug).
	DeadFromStart bool `json:"dead_from_start,omitempty"`
}

// The values of Critical.WalksFrom.
const (
	WalksSnapshot = "snapshot"
	WalksReplay   = "replay"
)

// Recheck is one re-check of a C2 with a longer dmax: the class it found
// (empty when the dead walk, continued, became live or met another
// violation) and why.
type Recheck struct {
	DMax   int    `json:"dmax"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Inconclusive reports whether the report's liveness violation is not a
// verdict: no critical transition was isolated even with dmax raised
// (C2), and the walks are not dead from the initial state, so the dead
// path may be a slow one. A command exits 0 on it.
func (r *Report) Inconclusive() bool {
	return r != nil && r.Violation != nil && r.Violation.Kind == KindLiveness && r.Critical != nil && r.Critical.Class == C2 && !r.Critical.DeadFromStart
}

// NodeDiff is one node's state diff: lines only on the dead path start
// with "-", lines only on the live path with "+", common lines with " "
// (MaceMC Mdb's filediff).
type NodeDiff struct {
	Node  int      `json:"node"`
	Lines []string `json:"lines"`
}

// Probe is one critical-transition probe: whether one of its walks from
// the first Prefix steps of the dead path reached a live state, and how
// many walks it ran (up to and including the first live one).
type Probe struct {
	Prefix    int  `json:"prefix"`
	Recovered bool `json:"recovered"`
	Walks     int  `json:"walks"`
}

// SearchedText says how far a search's iterative deepening got, from
// Stats.DepthDone and Stats.Depth: "depth 4 searched to its end", or,
// when no iteration ended (a violation found in the first one), that none
// did and in which depth bound the search stopped. The CLI and the report
// both say it this way.
func SearchedText(depthDone, depth int) string {
	if depthDone == 0 {
		return fmt.Sprintf("no depth bound searched to its end (the search stopped in the iteration to depth %d)", depth)
	}
	return fmt.Sprintf("depth %d searched to its end", depthDone)
}

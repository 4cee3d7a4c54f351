package liveness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

type visit struct {
	seq string
	end pathEnd
}

func (v visit) String() string { return fmt.Sprintf("%s/%d", v.seq, v.end) }

// dfsVisits runs the search and returns the DFS paths it executed.
func dfsVisits(t *testing.T, cfg Config) ([]visit, *Report) {
	t.Helper()
	var got []visit
	cfg.visit = func(seq []int, end pathEnd) { got = append(got, visit{fmt.Sprint(seq), end}) }
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return got, rep
}

// TestDFSSequences is MaceMC_Search (Algorithm 1) on 2 nodes and 3
// messages: node 0 sends A then B to node 1, node 1 sends C to node 0.
// The enabled list puts the message to n0 (C) first, and per-connection
// FIFO never offers B before A, so the choice sequences are exactly the
// three interleavings C·A·B = [0 0 0], A·C·B = [1 0 0] and A·B·C = [1 1 0],
// each ending with no event enabled.
func TestDFSSequences(t *testing.T) {
	// SplitDepth at the bound: the division is the sequential DFS, with
	// one visited set (the prefix tasks are its sequences).
	cfg := Config{Scenario: fifoSystem(), Depth: 5, MaxDepth: 5, DMax: 10, Jobs: 1, NoHashing: true, SplitDepth: 5}
	got, rep := dfsVisits(t, cfg)
	want := []visit{{"[0 0 0]", endQuiescent}, {"[1 0 0]", endQuiescent}, {"[1 1 0]", endQuiescent}}
	if !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
	if rep.End != "exhausted" || rep.Violation != nil || rep.Stats.Paths != 3 || rep.Stats.Walks != 3 {
		t.Fatalf("report %+v", rep)
	}

	// With state hashing: A·C reaches the state of C·A (each node's log is
	// its own), and A·B·C that of C·A·B, at the same depths: both are cut.
	cfg.NoHashing = false
	got, rep = dfsVisits(t, cfg)
	want = []visit{{"[0 0 0]", endQuiescent}, {"[1 0]", endDuplicate}, {"[1 1 0]", endDuplicate}}
	if !slices.Equal(got, want) {
		t.Fatalf("hashed sequences %v, want %v", got, want)
	}
	// States: C, CA, CAB, A, AB (the initial state is not counted).
	if s := rep.Stats; s.Paths != 3 || s.Duplicates != 2 || s.States != 5 || s.Walks != 1 {
		t.Fatalf("hashed stats %+v, want 3 paths, 2 duplicates, 5 states, 1 walk", s)
	}

	// Iterative deepening: depths 1, 2, 3, then depth 4 finds no sequence
	// reaching its bound.
	cfg = Config{Scenario: fifoSystem(), Depth: 1, DepthStep: 1, MaxDepth: 6, DMax: 10, Jobs: 1, SplitDepth: 6}
	got, rep = dfsVisits(t, cfg)
	want = []visit{
		{"[0]", endDepth}, {"[1]", endDepth},
		{"[0 0]", endDepth}, {"[1 0]", endDuplicate}, {"[1 1]", endDepth},
		{"[0 0 0]", endDepth}, {"[1 0]", endDuplicate}, {"[1 1 0]", endDuplicate},
		{"[0 0 0]", endQuiescent}, {"[1 0]", endDuplicate}, {"[1 1 0]", endDuplicate},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("deepening sequences %v, want %v", got, want)
	}
	if rep.End != "exhausted" || rep.Stats.Depth != 4 {
		t.Fatalf("deepening: end %q at depth %d, want exhausted at 4", rep.End, rep.Stats.Depth)
	}
}

// TestDFSDuplicateDepth: a state first reached deep in one sequence and
// later at a smaller depth in another is explored again from there, so the
// bounded search stays complete. Timer a adds 1, timer b adds 2, forever:
// sum 3 is reached by a·a·a at depth 3 and later by a·b at depth 2.
func TestDFSDuplicateDepth(t *testing.T) {
	got, rep := dfsVisits(t, Config{Scenario: adderSystem(), Depth: 3, MaxDepth: 3, DMax: 10, Jobs: 1, SplitDepth: 3})
	want := []visit{
		{"[0 0 0]", endDepth}, // sums 1 2 3
		{"[0 0 1]", endDepth}, // 4
		{"[0 1 0]", endDuplicate},
		{"[0 1 1]", endDepth}, // 3 again, at depth 2; then 5
		{"[1 0]", endDuplicate},
		{"[1 1 0]", endDuplicate},
		{"[1 1 1]", endDepth}, // 2 again at depth 1, 4 at depth 2; then 6
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
	// Sums 1..6 are new states; 3, 2 and 4 are reached again at smaller
	// depths (not duplicates, not new).
	if s := rep.Stats; s.States != 6 || s.Duplicates != 3 || s.Paths != 7 {
		t.Fatalf("stats %+v", s)
	}
}

// TestSafetyViolation: a safety property that fails after the second
// delivery is reported at once, with the path that reaches it.
func TestSafetyViolation(t *testing.T) {
	sc := fifoSystem()
	sc.Safety = []timedsim.Property{{Name: "b-before-c", Check: func(w timedsim.World) bool {
		n1 := w.Node(1).(*logNode)
		return !slices.Contains(n1.Got, "B") || len(w.Node(0).(*logNode).Got) > 0
	}}}
	rep, err := Run(context.Background(), Config{Scenario: sc, Depth: 5, MaxDepth: 5, DMax: 10, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Violation
	if v == nil || v.Kind != KindSafety || v.Property != "b-before-c" || v.Step != 1 || !slices.Equal(v.Path.Choices, []int{1, 1}) || v.Path.Steps != 2 {
		t.Fatalf("violation %+v", v)
	}
	lines, err := Replay(Config{Scenario: sc}, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# end after 2 steps: safety property b-before-c violated"; !slices.Contains(lines, want) {
		t.Fatalf("replay lacks %q:\n%s", want, strings.Join(lines, "\n"))
	}
}

// panicker panics on its first timer.
type panicker struct{}

func (panicker) Init(ctx timedsim.Context)                                   { ctx.SetTimer("boom", 0, nil) }
func (panicker) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (panicker) Timer(timedsim.Context, string, any)                         { panic("boom") }

// TestPanic: a panicking handler is a violation, not a crash.
func TestPanic(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 1, New: func(timedsim.NodeID) timedsim.Service { return panicker{} }, Liveness: []timedsim.Property{always}}
	rep, err := Run(context.Background(), Config{Scenario: sc, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Violation; v == nil || v.Kind != KindPanic || v.Step != 0 || !strings.Contains(v.Panic, "n0: boom") {
		t.Fatalf("violation %+v", v)
	}
}

// TestConfigErrors: bad configurations are errors naming the package.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no scenario"},
		{Config{Scenario: &timedsim.Scenario{Nodes: 1, New: fifoSystem().New}}, "no liveness property"},
		{Config{Scenario: fifoSystem(), DMax: 10, MaxDepth: 10}, "must exceed"},
		{Config{Scenario: fifoSystem(), Weights: map[string]int{"timer": -1}}, "negative weight"},
		{Config{Scenario: fifoSystem(), Prefix: &Path{}}, "no segments"},
		{Config{Scenario: fifoSystem(), Crashes: -1}, "negative Crashes -1"},
		{Config{Scenario: fifoSystem(), Partitions: -2}, "negative Partitions -2"},
	} {
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.HasPrefix(err.Error(), "liveness: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := Select(fifoSystem().Liveness, "nope"); err == nil || !strings.Contains(err.Error(), `no property "nope" (have: always)`) {
		t.Errorf("Select: %v", err)
	}
	// A stale path: more choices than events.
	_, err := Replay(Config{Scenario: fifoSystem()}, Path{Choices: []int{5}, Segments: startPath(1).Segments, Steps: 1})
	if err == nil || !strings.Contains(err.Error(), "only 2 are enabled") {
		t.Errorf("stale path: %v", err)
	}
}

// TestReplayDeterministic: the same path gives the same event log.
func TestReplayDeterministic(t *testing.T) {
	cfg := Config{Scenario: trapSystem(2, 5)}
	p := startPath(7)
	p.Steps = 40
	a, err := Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Replay(cfg, p)
	if !slices.Equal(a, b) || len(a) < 40 {
		t.Fatalf("replays differ or are short:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if !slices.Contains(a, "# live") && !slices.Contains(a, "# not live: ticked") {
		t.Fatalf("no liveness line:\n%s", strings.Join(a, "\n"))
	}
}

// TestWorkersIdentical: 1, 2 and 8 workers give the same report, through
// many prefix tasks searched in parallel, a critical-transition search,
// and a walk budget.
func TestWorkersIdentical(t *testing.T) {
	noTrap := trapSystem(3, 2)
	noTrap.Liveness = []timedsim.Property{{Name: "two-ticks", Check: func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if w.Node(timedsim.NodeID(i)).(*trapNode).Count < 2 {
				return false
			}
		}
		return true
	}}}
	for _, cfg := range []Config{
		// A dead path found by walk 92 (a rare trap), and its critical
		// transition.
		rareTrap(),
		// No violation; the walk budget ends the search in the second
		// batch.
		{Scenario: noTrap, Depth: 8, MaxDepth: 8, DMax: 60, Seed: 3, RandomWalks: 80, Weights: trapWeights()},
		// The DFS's last level in parallel (25 prefix tasks, each with its
		// own visited set); the walks find no trap.
		func() Config { c := rareTrap(); c.SplitDepth = 2; return c }(),
	} {
		var reps []*Report
		for _, jobs := range []int{1, 2, 8} {
			cfg.Jobs = jobs
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, rep)
		}
		for i, jobs := range []int{2, 8} {
			if !reflect.DeepEqual(reps[0], reps[i+1]) {
				t.Fatalf("1 vs %d workers:\n%+v\n%+v", jobs, reps[0], reps[i+1])
			}
		}
		t.Logf("end %s, stats %+v, violation %v, critical %v", reps[0].End, reps[0].Stats, reps[0].Violation != nil, reps[0].Critical != nil)
		if reps[0].Stats.Prefixes < 8 {
			t.Errorf("only %d prefix tasks: not a test of the parallel DFS", reps[0].Stats.Prefixes)
		}
	}
}

// TestPrefixSearch is MaceMC's prefix-based search: the search starts
// from the end of a given path (here three ticks, which arm the trap),
// and the violation's path begins with it.
func TestPrefixSearch(t *testing.T) {
	// The prefix's choices are random (tick is the only event with a
	// positive weight); the search makes them explicit.
	prefix := Path{Driver: 9, Segments: []timedsim.Segment{{From: 0, Seed: 9}}, Steps: 3}
	cfg := Config{Scenario: trapSystem(1, 5), Depth: 1, MaxDepth: 1, DMax: 20, Weights: trapWeights(), Prefix: &prefix, Jobs: 1}
	got, rep := dfsVisits(t, cfg)
	// From the prefix's end both timers are enabled: tick (0) and trap (1).
	if want := []visit{{"[0]", endDepth}, {"[1]", endDepth}}; !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
	v := rep.Violation
	if v == nil || v.Kind != KindLiveness || !slices.Equal(v.Path.Choices, []int{0, 0, 0, 1}) || v.Path.Driver != 9 || v.Path.Steps != 3+20 {
		t.Fatalf("violation %+v", v)
	}
	if c := rep.Critical; c == nil || c.Class != C1 || c.Step != 3 || c.DeadEvent != "n0 timer trap" {
		t.Fatalf("critical %+v", c)
	}
	if rep.Settings.Prefix == nil || rep.Settings.Prefix.Steps != 3 {
		t.Fatalf("settings %+v", rep.Settings)
	}
}

// TestReportJSON: a report with a violation and a critical transition
// survives a JSON round trip.
func TestReportJSON(t *testing.T) {
	rep, err := Run(context.Background(), Config{Scenario: trapSystem(1, 5), Depth: 5, MaxDepth: 5, DMax: 50, Weights: trapWeights(), Jobs: 1})
	if err != nil || rep.Critical == nil {
		t.Fatalf("%v %+v", err, rep)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Fatalf("round trip:\n%+v\n%+v", &back, rep)
	}
	for _, key := range []string{`"kind":"liveness"`, `"class":"C1"`, `"dead_event":"n0 timer trap"`, `"choices":[0,0,0,0,1]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

// TestInterrupted: a cancelled search returns what it has and the
// context's error.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Run(ctx, Config{Scenario: adderSystem(), Jobs: 2})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "liveness: ") || rep == nil || rep.End != "interrupted" {
		t.Fatalf("report %+v, error %v", rep, err)
	}
}

// TestLivePrefix: with LivePrefix the search starts from the first live
// state of a random walk (MaceMC's prefix-based search of a correct
// system from steady state); the prefix is reported and replays to a
// live state; a walk too short to become live is an error.
func TestLivePrefix(t *testing.T) {
	sc := adderSystem()
	sc.Liveness = []timedsim.Property{{Name: "sum-5", Check: func(w timedsim.World) bool { return w.Node(0).(*adder).Sum >= 5 }}}
	cfg := Config{Scenario: sc, Depth: 1, MaxDepth: 1, DMax: 10, Seed: 4, LivePrefix: 20, Jobs: 1}
	got, rep := dfsVisits(t, cfg)
	p := rep.Settings.Prefix
	if p == nil || p.Steps < 3 || p.Steps > 5 || rep.Settings.LivePrefix != 20 {
		t.Fatalf("prefix %+v (sum 5 needs 3 to 5 steps)", p)
	}
	lines, err := Replay(cfg, *p)
	if err != nil || !slices.Contains(lines, "# live") || !slices.Contains(lines, fmt.Sprintf("# end after %d steps", p.Steps)) {
		t.Fatalf("the prefix does not replay to a live state: %v\n%s", err, strings.Join(lines, "\n"))
	}
	// From its end both timers are enabled: the DFS's two sequences.
	if want := []visit{{"[0]", endDepth}, {"[1]", endDepth}}; !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
	// The same search given the reported prefix is the same search.
	again := cfg
	again.LivePrefix, again.Prefix = 0, p
	rep2, err := Run(context.Background(), again)
	if err != nil || !reflect.DeepEqual(rep2.Stats, rep.Stats) {
		t.Fatalf("from the reported prefix: %v %+v, want %+v", err, rep2.Stats, rep.Stats)
	}
	cfg.LivePrefix = 1
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "reaches no live state") {
		t.Fatalf("a 1-step walk: %v", err)
	}
}

// leaseNode's timer "check" expires its lease once 1 s has elapsed since
// Init, asking timedsim.Elapsed; its timer "tick" does not look at the
// clock.
type leaseNode struct{ Expired, Ticks int }

func (n *leaseNode) Init(ctx timedsim.Context) {
	ctx.SetTimer("check", time.Second, nil)
	ctx.SetTimer("tick", time.Second, nil)
}
func (n *leaseNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *leaseNode) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "tick" {
		n.Ticks++
	} else if timedsim.Elapsed(ctx, 0, time.Second) {
		n.Expired++
	}
	ctx.SetTimer(name, time.Second, nil)
}

// TestClockChoices: a clock comparison (timedsim.Elapsed) is a choice
// point. With one millisecond per step the lease could never expire
// within the search; the DFS tries both answers — choice c of n enabled
// events is event c mod n with the answers c div n — and skips the
// answers of a comparison a step did not make. The violating path
// replays with the answer in its log.
func TestClockChoices(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 1, New: func(timedsim.NodeID) timedsim.Service { return &leaseNode{} }, Liveness: []timedsim.Property{always}}
	cfg := Config{Scenario: sc, Depth: 1, MaxDepth: 1, DMax: 10, Jobs: 1, NoHashing: true}
	got, rep := dfsVisits(t, cfg)
	// check (not elapsed), tick, check (elapsed); tick with an answer is
	// redundant.
	if want := []visit{{"[0]", endDepth}, {"[1]", endDepth}, {"[2]", endDepth}}; !slices.Equal(got, want) || rep.Stats.Paths != 3 {
		t.Fatalf("sequences %v (%d paths), want %v", got, rep.Stats.Paths, want)
	}
	sc.Safety = []timedsim.Property{{Name: "lease-held", Check: func(w timedsim.World) bool { return w.Node(0).(*leaseNode).Expired == 0 }}}
	// The walks from [0] and [1] come first in search order: keep them
	// from checking.
	cfg.Weights = map[string]int{"timer check": 0}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Violation
	if v == nil || v.Property != "lease-held" || v.Step != 0 || !slices.Equal(v.Path.Choices, []int{2}) {
		t.Fatalf("violation %+v", v)
	}
	lines, err := Replay(cfg, v.Path)
	if err != nil || !slices.Contains(lines, "    n0: clock choice: 1 s elapsed since 0 s: true") {
		t.Fatalf("replay: %v\n%s", err, strings.Join(lines, "\n"))
	}
	// Random walks answer by a fair coin: some walk expires the lease.
	sc.Safety, cfg.Weights = nil, nil
	lines, err = Replay(cfg, Path{Driver: 1, Segments: startPath(3).Segments, Steps: 40})
	if err != nil || !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, "elapsed since 0 s: true") }) {
		t.Fatalf("a 40-step walk never answered yes: %v\n%s", err, strings.Join(lines, "\n"))
	}
}

// TestPrefixDivision: with SplitDepth 2 the iteration with bound 3 is
// divided at depth 2. The division cuts [1 0] (sum 3, reached at depth
// 2 by [0 1]) once for all; the prefixes [0 0], [0 1] and [1 1] each
// search their last step with their own visited set, so [0 1 0] (sum 4,
// which prefix [0 0] reached) is not a duplicate in its task: States
// counts such a state once per task, Distinct once.
func TestPrefixDivision(t *testing.T) {
	got, rep := dfsVisits(t, Config{Scenario: adderSystem(), Depth: 3, MaxDepth: 3, DMax: 10, Jobs: 2, SplitDepth: 2})
	want := []visit{
		{"[0 0 0]", endDepth}, {"[0 0 1]", endDepth}, // prefix 0: sums 3, 4
		{"[0 1 0]", endDepth}, {"[0 1 1]", endDepth}, // prefix 1: sums 4, 5
		{"[1 0]", endDuplicate},                      // cut by the division
		{"[1 1 0]", endDepth}, {"[1 1 1]", endDepth}, // prefix 2: sums 5, 6
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sequences %v, want %v", got, want)
	}
	if s := rep.Stats; s.Split != 2 || s.Prefixes != 3 || s.Distinct != 6 || s.States <= s.Distinct || s.Collision <= 0 {
		t.Fatalf("stats %+v: want split 2, 3 prefixes, 6 distinct states counted more than once, a collision estimate", s)
	}
}

package randtree_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// TestLivenessFaults: the liveness mode with one node
// reset (`macepc run --liveness --faults 1`, 3 nodes, depth 5 then 10)
// finds no violation in the fixed and buggy variants. It used to find
// all-joined violated at the root's reset in the fixed variant (every
// node joining, each holding the others' Joins), and kids-match in both:
// a broken-connection upcall about a node's former incarnation, taken
// after the new one had rejoined.
func TestLivenessFaults(t *testing.T) {
	for _, v := range []string{randtree.VariantFixed, randtree.VariantBuggy} {
		for seed := uint64(1); seed <= 2; seed++ {
			sc, err := randtree.System().Scenario(v, 3)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := liveness.Run(context.Background(), liveness.Config{Scenario: sc, Faults: 1, Seed: seed, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Violation != nil || rep.End != "max-depth" || rep.Stats.Walks < 1000 {
				t.Fatalf("%s seed %d: ended %s, %+v, violation %+v", v, seed, rep.End, rep.Stats, rep.Violation)
			}
		}
	}
}

// TestLivenessRootReset: MaceMC's prefix-based search from a whole tree.
// A random walk without resets builds the tree of 3 nodes (rooted at n0);
// from its end the search may reset any node at any step, the root
// included (depth 5, walks of 400 steps), and finds no violation in the
// fixed variant (before the
// tie-break for joining nodes that know no root, it found all-joined
// violated right at "n0 reset").
func TestLivenessRootReset(t *testing.T) {
	sc, err := randtree.System().Scenario(randtree.VariantFixed, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Resets only in the exhaustive search: weight 0 keeps them out of the
	// prefix's walk and of the random walks after the search.
	cfg := liveness.Config{Scenario: sc, Faults: 1, Depth: 5, MaxDepth: 5, DMax: 400, Seed: 1, Jobs: 2, Weights: map[string]int{"reset": 0}}
	prefix := liveness.Path{Driver: 1, Segments: []timedsim.Segment{{From: 0, Seed: 7}}, Steps: 80}
	lines, err := liveness.Replay(cfg, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lines, "# live") || !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "n0 joined root=n0 parent=n0") }) {
		t.Fatalf("the prefix does not end in a tree rooted at n0:\n%s", strings.Join(lines, "\n"))
	}
	cfg.Prefix = &prefix
	rep, err := liveness.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation != nil || rep.End != "max-depth" {
		t.Fatalf("ended %s, %+v, violation %+v", rep.End, rep.Stats, rep.Violation)
	}
}

// TestLivenessFullPeerSets: the fixed protocol with every node's peer set
// holding all nodes (Workload.AllPeers, the rt14 variant's workload) and
// one reset has no violation either. It had one: a root that stepped down
// for a stale Join of a node that had reset, whose new incarnation
// rejected the ForceRoot (Remove), kept that node as its root and sent it
// every Join, its own included.
func TestLivenessFullPeerSets(t *testing.T) {
	w := randtree.DefaultWorkload(3)
	w.Config.Fixed, w.AllPeers = true, true
	sc, err := randtree.NewScenario(w)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 2; seed++ {
		rep, err := liveness.Run(context.Background(), liveness.Config{Scenario: sc, Faults: 1, Seed: seed, Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Violation != nil || rep.End != "max-depth" {
			t.Fatalf("seed %d: ended %s, %+v, violation %+v", seed, rep.End, rep.Stats, rep.Violation)
		}
	}
}

// TestMaceMCBugs: the liveness mode finds each of MaceMC's RandTree bugs
// that a variant switches back on (MaceMC paper §7.3; the critical
// transitions are in bench/PAPER.md), as `macepc run --liveness --system
// randtree --variant V [--faults 1] --seed 1` does, and the dead path
// shows the bug's own mechanism. The fixed variant has none of these
// violations (TestLivenessFaults, TestLivenessFullPeerSets).
func TestMaceMCBugs(t *testing.T) {
	states := func(lines []string) []string { // the dead path's final node states
		var out []string
		for i, l := range lines {
			if strings.HasPrefix(l, "# state ") && i+1 < len(lines) {
				out = append(out, lines[i+1])
			}
		}
		return out
	}
	has := func(lines []string, sub string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, sub) })
	}
	for _, c := range []struct {
		variant  string
		faults   int
		kind     string
		property string
		class    string // for a liveness violation
		// mechanism checks the dead path's event log.
		mechanism func(lines []string) bool
	}{
		{"rt1", 1, liveness.KindLiveness, randtree.PropAllJoined, liveness.C1,
			func(l []string) bool { return has(l, "note: "+randtree.NoteRT1) }},
		{"rt2", 0, liveness.KindLiveness, randtree.PropOneRoot, liveness.C2,
			// a root (parent itself) that Parent() does not call one
			func(l []string) bool { return has(states(l), "root=n0 parent=n0") }},
		{"rt4", 1, liveness.KindLiveness, randtree.PropOneRoot, liveness.C1,
			// a root whose root pointer names another node
			func(l []string) bool {
				return slices.ContainsFunc(states(l), func(s string) bool {
					f := strings.Fields(s)
					return len(f) > 3 && f[1] == "joined" && f[3] == "parent="+f[0] && f[2] != "root="+f[0]
				})
			}},
		{"rt10", 0, liveness.KindLiveness, randtree.PropKidsMatch, liveness.C1,
			func(l []string) bool { return has(l, "note: "+randtree.NoteRT10) }},
		{"rt11", 1, liveness.KindSafety, randtree.PropRecoveryTimer, "",
			func(l []string) bool { return has(l, "deliver Probe") && has(l, "from init, no recovery timer") }},
		{"rt14", 1, liveness.KindSafety, randtree.PropRecoveryTimer, "",
			func(l []string) bool { return has(l, "deliver RootJoin") && has(l, "from init, no recovery timer") }},
		{"rt16", 1, liveness.KindLiveness, randtree.PropAllJoined, liveness.C1,
			// a joining node that still names a root after losing its parent
			func(l []string) bool {
				return slices.ContainsFunc(states(l), func(s string) bool {
					return strings.Contains(s, " joining root=n") && strings.Contains(s, "parent=none")
				})
			}},
	} {
		t.Run(c.variant, func(t *testing.T) {
			sc, err := randtree.System().Scenario(c.variant, 3)
			if err != nil {
				t.Fatal(err)
			}
			cfg := liveness.Config{Scenario: sc, Faults: c.faults, Seed: 1, Jobs: 2}
			rep, err := liveness.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Violation
			if v == nil || v.Kind != c.kind || v.Property != c.property {
				t.Fatalf("violation %+v, want %s %s (ended %s)", v, c.kind, c.property, rep.End)
			}
			if c.kind == liveness.KindLiveness && (rep.Critical == nil || rep.Critical.Class != c.class) {
				t.Fatalf("critical transition %+v, want class %v", rep.Critical, c.class)
			}
			lines, err := liveness.Replay(cfg, v.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !c.mechanism(lines) {
				t.Errorf("the dead path does not show the bug:\n%s", strings.Join(lines, "\n"))
			}
			if cr := rep.Critical; cr != nil && cr.Class == liveness.C1 {
				t.Logf("%s: %s at step %d; critical step %d: %s (live path: %s)", c.variant, v.Property, v.Step, cr.Step, cr.DeadEvent, cr.LiveEvent)
			} else {
				t.Logf("%s: %s %s at step %d", c.variant, v.Kind, v.Property, v.Step)
			}
		})
	}
}

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

// TestLivenessFaults (issue 17 item 1): the liveness mode with one node
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

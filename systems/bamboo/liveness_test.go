package bamboo_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/systems/bamboo"
)

// TestJoinLoop: the liveness mode with one reset (3 nodes, seed 1) finds
// the join-loop variant's bug, MaceMC's Pastry bug 4 in Bamboo: a node
// that joined and reset asks the bootstrap to join again, the bootstrap,
// which still has it in its leaf set, routes the request to it, and it
// drops its own request ("dropped: own request") and asks again, for
// ever: "stable" never holds. The fixed variant, whose bootstrap answers a
// joiner it would route a join to, has no violation with the same search.
func TestJoinLoop(t *testing.T) {
	for _, v := range []string{bamboo.VariantJoinLoop, bamboo.VariantFixed} {
		sc, err := bamboo.System().Scenario(v, 3)
		if err != nil {
			t.Fatal(err)
		}
		cfg := liveness.Config{Scenario: sc, Faults: 1, Seed: 1, Jobs: 2}
		rep, err := liveness.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if v == bamboo.VariantFixed {
			if rep.Violation != nil || rep.End != "max-depth" {
				t.Fatalf("fixed: ended %s, violation %+v", rep.End, rep.Violation)
			}
			continue
		}
		viol, c := rep.Violation, rep.Critical
		if viol == nil || viol.Property != bamboo.PropStable || c == nil || c.Class != liveness.C1 {
			t.Fatalf("join-loop: violation %+v, critical %+v", viol, c)
		}
		lines, err := liveness.Replay(cfg, viol.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, ": note: "+bamboo.NoteOwnRequest) }) {
			t.Errorf("no node dropped its own request on the dead path")
		}
		t.Logf("join-loop: %s at step %d; critical step %d: %s (live path: %s)", viol.Property, viol.Step, c.Step, c.DeadEvent, c.LiveEvent)
	}
}

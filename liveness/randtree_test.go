package liveness

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
)

// randtreeConfig is the search for RandTree's split trees on 3 nodes:
// liveness is "all joined, one root" (RT3's signature), the rest MaceMC's defaults here: depth 5 then 10, dmax
// 1000, k = 20.
func randtreeConfig(t testing.TB, variant string, seed uint64) Config {
	t.Helper()
	sc, err := randtree.System().Scenario(variant, 3)
	if err != nil {
		t.Fatal(err)
	}
	live, err := Select(sc.Liveness, randtree.PropAllJoined, randtree.PropOneRoot)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Scenario: sc, Liveness: live, Seed: seed, Jobs: 2}
}

// deadSide is a node diff's lines of the dead path.
func deadSide(d NodeDiff) []string {
	var out []string
	for _, l := range d.Lines {
		if l[0] != '+' {
			out = append(out, l[1:])
		}
	}
	return out
}

// TestRandTreeRT3 is MaceMC's RandTree bug RT3 (variant liveness-bug): a
// recovery timer that fires while its node is joining is not re-armed, so
// the two trees of Figure 1's race never merge. The search finds a
// one-root violation, the critical transition is C1, and the state diff
// at the critical step shows a node in a tree without its recovery timer.
// Which step is critical depends on the path: the last of "the race splits
// the tree" and "the last recovery timer that could merge the trees fires
// while joining"; in the second case the live path keeps the timer
// ("+timer recovery").
func TestRandTreeRT3(t *testing.T) {
	timerCritical := 0
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := randtreeConfig(t, randtree.VariantLivenessBug, seed)
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		v, c := rep.Violation, rep.Critical
		if v == nil || v.Kind != KindLiveness || v.Property != randtree.PropOneRoot || c == nil {
			t.Fatalf("seed %d: report %+v", seed, rep)
		}
		if c.Class != C1 || c.Step < 0 || c.Step >= v.Path.Steps || c.Live == nil {
			t.Fatalf("seed %d: critical %+v", seed, c)
		}
		missing := false
		for _, d := range c.Diff {
			dead := deadSide(d)
			if len(dead) > 0 && !strings.Contains(dead[0], " init ") && !slices.Contains(dead, "timer recovery") {
				missing = true
			}
			if strings.HasSuffix(c.DeadEvent, "timer recovery") && strings.HasPrefix(c.DeadEvent, dead[0][:2]) && slices.Contains(d.Lines, "+timer recovery") {
				timerCritical++
			}
		}
		if !missing {
			t.Errorf("seed %d: no node without a recovery timer in the diff %v", seed, c.Diff)
		}
		t.Logf("seed %d: %s violation at depth %d after %d walks; critical step %d of %d: %q, live path: %q; %d probes, %d walks",
			seed, v.Property, v.Depth, rep.Stats.Walks, c.Step, v.Path.Steps, c.DeadEvent, c.LiveEvent, len(c.Probes), c.Walks)
		for _, d := range c.Diff {
			t.Logf("  n%d:\n    %s", d.Node, strings.Join(d.Lines, "\n    "))
		}

		// The dead path ends with two roots (and no recovery timer on one
		// of them at least).
		lines, err := Replay(cfg, v.Path)
		if err != nil {
			t.Fatal(err)
		}
		roots := 0
		for _, l := range lines {
			for _, id := range []string{"n0", "n1", "n2"} {
				if strings.HasPrefix(l, id+" joined root="+id+" parent="+id) {
					roots++
				}
			}
		}
		if roots != 2 || !slices.Contains(lines, "# not live: one-root") {
			t.Errorf("seed %d: dead path ends with %d roots:\n%s", seed, roots, strings.Join(lines[len(lines)-12:], "\n"))
		}
	}
	if timerCritical == 0 {
		t.Errorf("no seed's critical transition was a recovery timer firing while joining")
	}
}

// TestRandTreeNoRT3: with the same budget, the fixed variant and the
// buggy one (whose split trees the recovery timers merge) show no
// violation of "all joined, one root".
func TestRandTreeNoRT3(t *testing.T) {
	for _, variant := range []string{randtree.VariantFixed, randtree.VariantBuggy} {
		for seed := uint64(1); seed <= 2; seed++ {
			rep, err := Run(context.Background(), randtreeConfig(t, variant, seed))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Violation != nil || rep.End != "max-depth" || rep.Stats.Walks < 500 {
				t.Fatalf("%s seed %d: %s, %+v, violation %+v", variant, seed, rep.End, rep.Stats, rep.Violation)
			}
		}
	}
}

// TestRandTreeRT3Safety: with the optional safety property "not init ⇒
// recovery timer scheduled" (RT11/RT14's timers property, written after
// RT3), the search reports RT3 as a safety violation, at an earlier step
// than the liveness violation's critical transition: right where a
// recovery timer fires while its node is joining.
func TestRandTreeRT3Safety(t *testing.T) {
	cfg := randtreeConfig(t, randtree.VariantLivenessBug, 1)
	live, err := Run(context.Background(), cfg)
	if err != nil || live.Critical == nil {
		t.Fatalf("liveness run: %v, %+v", err, live)
	}
	cfg.Safety = append(slices.Clone(cfg.Scenario.Safety), randtree.RecoveryTimerProperty())
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Violation
	if v == nil || v.Kind != KindSafety || v.Property != randtree.PropRecoveryTimer || v.Step >= live.Critical.Step {
		t.Fatalf("violation %+v; the liveness run's critical step is %d", v, live.Critical.Step)
	}
	lines, err := Replay(cfg, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, " ") && strings.Contains(l, " [choice ") {
			last = l
		}
	}
	if !strings.Contains(last, "timer recovery") || !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "not re-armed (RT3)") }) {
		t.Fatalf("last event %q:\n%s", last, strings.Join(lines, "\n"))
	}
	t.Logf("safety violation at step %d (%s); liveness critical step %d", v.Step, last, live.Critical.Step)
}

// TestRandTreeWorkers: the RandTree search and its critical transition
// give the same report on 1 and 2 workers.
func TestRandTreeWorkers(t *testing.T) {
	for _, variant := range []string{randtree.VariantLivenessBug, randtree.VariantFixed} {
		var reps []*Report
		for _, jobs := range []int{1, 2} {
			cfg := randtreeConfig(t, variant, 1)
			cfg.Jobs = jobs
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, rep)
		}
		if !reflect.DeepEqual(reps[0], reps[1]) {
			t.Fatalf("%s: 1 vs 2 workers differ:\n%+v\n%+v", variant, reps[0], reps[1])
		}
	}
}

// TestRandTreeDefaultProperties: with all of the scenario's liveness
// properties (kids-match and spanning-tree included), RT3 is reported as
// a one-root violation and the buggy and fixed variants show none. This
// test found the duplicate-JoinReply bug that randtree Revision 3 fixed.
func TestRandTreeDefaultProperties(t *testing.T) {
	for _, v := range []string{randtree.VariantFixed, randtree.VariantBuggy, randtree.VariantLivenessBug} {
		sc, err := randtree.System().Scenario(v, 3)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), Config{Scenario: sc, Seed: 1, Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if v == randtree.VariantLivenessBug {
			if rep.Violation == nil || rep.Violation.Property != randtree.PropOneRoot || rep.Critical == nil || rep.Critical.Class != C1 {
				t.Errorf("%s: %+v", v, rep.Violation)
			}
		} else if rep.Violation != nil {
			t.Errorf("%s: %s violation at step %d: %v", v, rep.Violation.Property, rep.Violation.Step, rep.Violation.Failed)
		}
	}
}

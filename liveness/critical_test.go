package liveness

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// trapStep is the step of the first "timer trap" of path p.
func trapStep(t *testing.T, cfg Config, p Path) int {
	t.Helper()
	lines, err := Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		var step int
		if strings.Contains(l, " timer trap ") {
			if _, err := fmt.Sscan(l, &step); err != nil {
				t.Fatal(err)
			}
			return step
		}
	}
	t.Fatalf("no trap in the path:\n%s", strings.Join(lines, "\n"))
	return -1
}

// TestCriticalTransitionDFS: the trap fires in the DFS part of the dead
// path (its first sequence with a trap is tick×4, trap); random walks never
// fire it, so every prefix up to the trap recovers and none after it: C1
// at the trap's step, with the tick as the live alternative and the state
// diff showing the trap.
func TestCriticalTransitionDFS(t *testing.T) {
	cfg := Config{Scenario: trapSystem(1, 5), Depth: 5, MaxDepth: 5, DMax: 50, Weights: trapWeights(), Seed: 2, Jobs: 2}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Violation
	if v == nil || v.Kind != KindLiveness || v.Property != "ticked" || v.Step != 50 || !slices.Equal(v.Path.Choices, []int{0, 0, 0, 0, 1}) {
		t.Fatalf("violation %+v", v)
	}
	c := rep.Critical
	if c == nil || c.Class != C1 || c.Step != 4 || c.DeadEvent != "n0 timer trap" || c.LiveEvent != "n0 timer tick" {
		t.Fatalf("critical %+v", c)
	}
	want := []NodeDiff{{Node: 0, Lines: []string{
		"-trapNode{Count:4 Dead:true}",
		"+trapNode{Count:5 Dead:false}",
		" timer tick",
		"+timer trap",
	}}}
	if !reflect.DeepEqual(c.Diff, want) {
		t.Fatalf("diff %v, want %v", c.Diff, want)
	}
	for _, p := range c.Probes {
		if p.Recovered != (p.Prefix <= 4) || (!p.Recovered && p.Walks != DefaultWalks) {
			t.Errorf("probe %+v", p)
		}
	}
	// The live path shares the first 4 steps, then ticks to liveness.
	if c.Live == nil || !slices.Equal(c.Live.Choices, []int{0, 0, 0, 0}) || c.Live.Steps != 5 {
		t.Fatalf("live path %+v", c.Live)
	}
	lines, err := Replay(cfg, *c.Live)
	if err != nil || !slices.Contains(lines, "# live") {
		t.Fatalf("live path replay (%v):\n%s", err, strings.Join(lines, "\n"))
	}
	lines, err = Replay(cfg, c.Dead)
	if err != nil || !slices.Contains(lines, "# not live: ticked") {
		t.Fatalf("dead path replay (%v):\n%s", err, strings.Join(lines, "\n"))
	}
}

// TestCriticalTransitionWalk: the trap fires in the random part of a dead
// path (rareTrap); the critical transition is that step.
func TestCriticalTransitionWalk(t *testing.T) {
	cfg := rareTrap()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation == nil || rep.Critical == nil {
		t.Fatalf("report %+v", rep)
	}
	want := trapStep(t, cfg, rep.Violation.Path)
	if c := rep.Critical; c.Class != C1 || c.Step != want || want < cfg.MaxDepth || !strings.HasSuffix(c.DeadEvent, "timer trap") {
		t.Fatalf("critical %+v, want C1 at the trap's step %d", c, want)
	}
	t.Logf("trap at step %d of %d; %d probes, %d walks", want, rep.Violation.Path.Steps, len(rep.Critical.Probes), rep.Critical.Walks)
}

// TestFindCritical on a hand-made dead path: nine ticks, the trap at step
// 9, ticks to step 30. The path was live before the trap; the search finds
// the trap with the exponential phase (1, 2, 4, 8, 16) and the binary one.
func TestFindCritical(t *testing.T) {
	cfg := Config{Scenario: trapSystem(1, 5), Weights: trapWeights(), DMax: 40, Seed: 5, Jobs: 1}
	dead := Path{Driver: 5, Choices: []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, Segments: startPath(5).Segments, Steps: 30}
	c, err := FindCritical(context.Background(), cfg, dead)
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []int
	for _, p := range c.Probes {
		prefixes = append(prefixes, p.Prefix)
	}
	if c.Class != C1 || c.Step != 9 || !slices.Equal(prefixes, []int{1, 2, 4, 8, 16, 12, 10, 9}) {
		t.Fatalf("critical %+v (probes %v)", c, prefixes)
	}
	// A recovering probe stops at its first live walk; the others run k.
	if c.Walks != 5+3*DefaultWalks {
		t.Fatalf("%d walks, want %d", c.Walks, 5+3*DefaultWalks)
	}
}

// TestCriticalC2: when dmax is too small for the system to become live,
// the search says so (C2) instead of naming a critical transition, and
// re-checks with dmax doubled: the dead walk, continued,
// becomes live, so the violation is inconclusive, not a verdict. The DFS
// (depth 3) cannot reach the trap and walks never fire it: the dead paths
// are merely slow, one tick per step.
func TestCriticalC2(t *testing.T) {
	for _, c := range []struct {
		need, step int
		live       bool
		rechecks   int // re-checks until the continued walk is live
	}{
		// 50 ticks never fit in 20 or 40 steps, even from the initial
		// state; the walk continued to 80 steps is live at step 50.
		{50, -1, false, 2},
		// 21 ticks fit in 20 steps from any state but the initial one:
		// walks from the end of the 20-step dead path become live, and
		// so does the dead walk continued to 40 steps.
		{21, 20, true, 1},
	} {
		cfg := Config{Scenario: trapSystem(1, c.need), Depth: 3, MaxDepth: 3, DMax: 20, Weights: trapWeights(), Jobs: 2}
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if v := rep.Violation; v == nil || v.Kind != KindLiveness || v.Path.Steps != 20 {
			t.Fatalf("need %d: violation %+v", c.need, v)
		}
		cr := rep.Critical
		if cr == nil || cr.Class != C2 || cr.Diff != nil || !rep.Inconclusive() || len(cr.Rechecks) != c.rechecks {
			t.Fatalf("need %d: critical %+v", c.need, cr)
		}
		last := cr.Rechecks[len(cr.Rechecks)-1]
		if want := fmt.Sprintf("reaches a live state at step %d", c.need); last.DMax != 20<<len(cr.Rechecks) || !strings.Contains(last.Reason, want) || !strings.Contains(cr.Reason, "inconclusive") {
			t.Fatalf("need %d: last re-check %+v, reason %q (want %q)", c.need, last, cr.Reason, want)
		}
		if c.rechecks > 1 && (cr.Rechecks[0].Class != C2 || cr.Step != c.step || (cr.Live != nil) != c.live) {
			t.Fatalf("need %d: the re-check with dmax 40 %+v, critical step %d", c.need, cr.Rechecks[0], cr.Step)
		}
	}
}

// TestLineDiff: Mdb-style diff, "-" first.
func TestLineDiff(t *testing.T) {
	got := lineDiff([]string{"a", "b", "c", "d"}, []string{"a", "x", "c", "d", "e"})
	want := []string{" a", "-b", "+x", " c", " d", "+e"}
	if !slices.Equal(got, want) {
		t.Fatalf("diff %q, want %q", got, want)
	}
}

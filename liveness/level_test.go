package liveness

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
)

// TestLevelDivision: the adder's sums (choice 0 adds 1, choice 1 adds 2)
// divided level by level to depth 3. Level 1 reaches sums 1 and 2; at
// level 2, [0 0] reaches sum 2, already reached at level 1, and [1 0]
// sum 3, which [0 1] reached first in DFS order at the same level: both
// are cut; at level 3, [0 1 0] and [1 1 0] reach sums of level 2 and 3's
// [0 1 1]. Every state is explored once, so States equals Distinct: the
// shared visited set prunes (the sequential DFS reaches sum 4 twice,
// TestPrefixDivision). Duplicates go with the task before them in DFS
// order (the first two with an empty one).
func TestLevelDivision(t *testing.T) {
	for _, jobs := range []int{1, 2, 8} {
		got, rep := dfsVisits(t, Config{Scenario: adderSystem(), Depth: 3, MaxDepth: 3, DMax: 10, Jobs: jobs, LevelDivision: true})
		want := []visit{
			{"[0 0]", endDuplicate}, {"[0 1 0]", endDuplicate},
			{"[0 1 1]", endDepth}, {"[1 0]", endDuplicate}, {"[1 1 0]", endDuplicate},
			{"[1 1 1]", endDepth},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d workers: sequences %v, want %v", jobs, got, want)
		}
		if s := rep.Stats; s.Prefixes != 3 || s.Paths != 6 || s.Duplicates != 4 || s.States != 6 || s.Distinct != 6 || !rep.Settings.LevelDivision {
			t.Fatalf("%d workers: stats %+v: want 3 prefixes, 6 paths, 4 duplicates, 6 states, all distinct", jobs, s)
		}
	}
}

// TestLevelDivisionRandTree: RandTree divided level by level gives the
// same report on 1, 2 and 8 workers (RT3's violation and critical
// transition included), the shared set prunes (every state of an
// iteration counted once: States == Distinct, with duplicates cut), and 3 shards merged give the
// unsharded report.
func TestLevelDivisionRandTree(t *testing.T) {
	for _, variant := range []string{randtree.VariantLivenessBug, randtree.VariantFixed} {
		var reps []*Report
		for _, jobs := range []int{1, 2, 8} {
			cfg := randtreeConfig(t, variant, 1)
			cfg.Jobs, cfg.LevelDivision = jobs, true
			if variant == randtree.VariantFixed {
				cfg.Depth, cfg.MaxDepth = 8, 8
			}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, rep)
		}
		for i, jobs := range []int{2, 8} {
			if !reflect.DeepEqual(reps[0], reps[i+1]) {
				t.Fatalf("%s: 1 vs %d workers:\n%+v\n%+v", variant, jobs, reps[0], reps[i+1])
			}
		}
		rep := reps[0]
		t.Logf("%s: end %s, stats %+v", variant, rep.End, rep.Stats)
		// One iteration (fixed) counts every state once; RT3's search
		// divides its two iterations, each from the initial state.
		if s := rep.Stats; (variant == randtree.VariantFixed && s.States != s.Distinct) || s.Duplicates == 0 || s.Prefixes < 8 {
			t.Errorf("%s: stats %+v: want every state once (States == Distinct), duplicates cut, 8 prefixes or more", variant, s)
		}
		if variant == randtree.VariantLivenessBug {
			if v := rep.Violation; v == nil || v.Property != randtree.PropOneRoot || rep.Critical == nil || rep.Critical.Class != C1 {
				t.Fatalf("%s: violation %+v: want one-root with a C1 critical transition", variant, v)
			}
		} else if rep.Violation != nil {
			t.Fatalf("%s: violation %+v", variant, rep.Violation)
		}
		cfg := randtreeConfig(t, variant, 1)
		cfg.LevelDivision = true
		if variant == randtree.VariantFixed {
			cfg.Depth, cfg.MaxDepth = 8, 8
		}
		want := *rep
		want.Stats.Distinct = 0
		if got := shardAndMerge(t, cfg, 3); !reflect.DeepEqual(got, &want) {
			t.Fatalf("%s in 3 shards, merged:\n%+v\nunsharded:\n%+v", variant, got, &want)
		}
	}
}

// TestLevelDivisionGoesOn: a level division that goes on from the levels
// of earlier bounds (2, then 3, then 6) gives the tasks of one started at
// bound 6, but for the steps, which count only what it executed.
func TestLevelDivisionGoesOn(t *testing.T) {
	cfg := randtreeConfig(t, randtree.VariantFixed, 1)
	cfg.LevelDivision = true
	divide := func(depths ...int) []*task {
		_, s, v, err := start(cfg)
		if err != nil || v != nil {
			t.Fatal(err, v)
		}
		var tasks []*task
		leaves := 0
		for _, d := range depths {
			src, _, err := s.divide(context.Background(), d, &leaves, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tasks, err = allTasks(src); err != nil {
				t.Fatal(err)
			}
		}
		return tasks
	}
	fresh, goneOn := divide(6), divide(2, 3, 6)
	if len(fresh) < 8 || len(fresh) != len(goneOn) {
		t.Fatalf("%d tasks started at 6, %d gone on", len(fresh), len(goneOn))
	}
	var steps [2]int64
	for i := range fresh {
		a, b := *fresh[i], *goneOn[i]
		steps[0] += a.steps + a.cuts.st.Steps
		steps[1] += b.steps + b.cuts.st.Steps
		a.steps, b.steps, a.cuts.st.Steps, b.cuts.st.Steps = 0, 0, 0, 0
		a.cuts.collision, b.cuts.collision = 0, 0
		a.seed, b.seed = 0, 0 // numbered on from the earlier iterations' leaves
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("task %d: started at 6 %+v, gone on %+v", i, a, b)
		}
	}
	if steps[1] >= steps[0] {
		t.Errorf("steps %d gone on, %d started at 6: want fewer", steps[1], steps[0])
	}
}

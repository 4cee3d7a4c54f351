package liveness

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
)

// TestLevelDivisionChunks: the level division's levels expanded and its
// tasks made and run a few at a time (1 and 7 a chunk) give the report,
// the sequences and the shards' merge of all at once, on RandTree fixed (no violation, with
// duplicates after tasks that end chunks) and liveness-bug (RT3's
// violation, whose task ends the walk of the tree).
func TestLevelDivisionChunks(t *testing.T) {
	for _, variant := range []string{randtree.VariantFixed, randtree.VariantLivenessBug} {
		cfg := randtreeConfig(t, variant, 1)
		cfg.LevelDivision, cfg.NoCritical = true, true
		if variant == randtree.VariantFixed {
			cfg.Depth, cfg.DepthStep, cfg.MaxDepth = 3, 3, 9
		}
		want, wantRep := dfsVisits(t, cfg)
		if wantRep.Stats.Prefixes < 20 {
			t.Fatalf("%s: %d tasks: too few to cut in chunks", variant, wantRep.Stats.Prefixes)
		}
		for _, chunk := range []int{1, 7} {
			c := cfg
			c.chunk = chunk
			got, rep := dfsVisits(t, c)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, chunks of %d: %d sequences, want %d", variant, chunk, len(got), len(want))
			}
			if !reflect.DeepEqual(rep, wantRep) {
				t.Fatalf("%s, chunks of %d:\n%+v\nwant\n%+v", variant, chunk, rep, wantRep)
			}
			c.visit = nil
			merged := *wantRep
			merged.Stats.Distinct = 0
			if got := shardAndMerge(t, c, 3); !reflect.DeepEqual(got, &merged) {
				t.Fatalf("%s, chunks of %d, 3 shards merged:\n%+v\nwant\n%+v", variant, chunk, got, &merged)
			}
		}
	}
}

// TestMaxMemory: a search capped at Config.MaxMemory stops cleanly
// (End EndMemory, no error) at the same point on 1 and 2 workers, having
// searched some depths to their end; its statistics are those of the
// uncapped search to those depths, and a larger cap lets it go deeper.
// Both divisions: the level division stops before a level, the
// sequential one in its DFS.
func TestMaxMemory(t *testing.T) {
	for _, levels := range []bool{true, false} {
		cfg := randtreeConfig(t, randtree.VariantFixed, 1)
		cfg.Depth, cfg.DepthStep, cfg.MaxDepth = 1, 1, 40
		cfg.LevelDivision, cfg.MaxMemory = levels, 128<<10
		var reps []*Report
		for _, jobs := range []int{1, 2} {
			cfg.Jobs = jobs
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, rep)
		}
		if !reflect.DeepEqual(reps[0], reps[1]) {
			t.Fatalf("level division %v: 1 vs 2 workers:\n%+v\n%+v", levels, reps[0], reps[1])
		}
		rep := reps[0]
		s := rep.Stats
		t.Logf("level division %v: cap 128 KB: %s, %+v", levels, rep.End, s)
		if rep.End != EndMemory || s.DepthDone < 5 || s.Depth != s.DepthDone+1 {
			t.Fatalf("level division %v: end %q, depth %d done, depth %d: want %q after depth 5 or more", levels, rep.End, s.DepthDone, s.Depth, EndMemory)
		}
		full := cfg
		full.MaxMemory, full.MaxDepth = 0, s.DepthDone
		frep, err := Run(context.Background(), full)
		if err != nil {
			t.Fatal(err)
		}
		fs := frep.Stats
		fs.Depth = s.Depth
		if frep.End != "max-depth" || fs != s {
			t.Fatalf("level division %v: to depth %d uncapped: %s %+v, capped %+v", levels, s.DepthDone, frep.End, frep.Stats, s)
		}
		more := cfg
		more.MaxMemory = 512 << 10
		mrep, err := Run(context.Background(), more)
		if err != nil {
			t.Fatal(err)
		}
		if mrep.Stats.DepthDone <= s.DepthDone {
			t.Fatalf("level division %v: cap 512 KB: depth %d done, 128 KB: %d", levels, mrep.Stats.DepthDone, s.DepthDone)
		}
	}
}

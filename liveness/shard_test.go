package liveness

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
)

// shardAndMerge runs cfg as count shards, puts their records back in
// global order up to the first violation (as the merge of shard files
// does) and merges them.
func shardAndMerge(t *testing.T, cfg Config, count int) *Report {
	t.Helper()
	byIndex := map[int]*PrefixResult{}
	total, first := -1, -1
	for i := range count {
		run, err := RunShard(context.Background(), cfg, i, count)
		if err != nil {
			t.Fatal(err)
		}
		if total >= 0 && run.Total != total {
			t.Fatalf("shard %d counts %d tasks, another %d", i, run.Total, total)
		}
		total = run.Total
		for j, rec := range run.Records {
			g := i + j*count
			// Through JSON, as in a shard file.
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			var back PrefixResult
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			byIndex[g] = &back
			if back.Violation != nil && (first < 0 || g < first) {
				first = g
			}
		}
	}
	limit := total
	if first >= 0 {
		limit = first + 1
	}
	recs := make([]*PrefixResult, limit)
	for g := range recs {
		if recs[g] = byIndex[g]; recs[g] == nil {
			t.Fatalf("task %d of %d is in no shard", g, limit)
		}
	}
	rep, err := MergeShards(context.Background(), cfg, recs, total)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestShardMergeEqualsUnsharded: RandTree's liveness-bug (RT3) searched
// in 1, 3 and 8 shards and merged gives the unsharded search's report:
// the same violation, the same critical transition, the same summed
// statistics (Distinct aside, which shards cannot know), divided at the
// bound (the default) or above it. With the fixed variant, no violation
// and the same statistics.
func TestShardMergeEqualsUnsharded(t *testing.T) {
	for _, c := range []struct {
		variant string
		split   int
	}{{randtree.VariantLivenessBug, 0}, {randtree.VariantLivenessBug, 4}, {randtree.VariantFixed, 0}, {randtree.VariantFixed, 4}} {
		variant := c.variant
		cfg := randtreeConfig(t, variant, 1)
		cfg.SplitDepth = c.split
		if variant == randtree.VariantFixed {
			cfg.Depth, cfg.MaxDepth = 6, 6
		}
		want, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if variant == randtree.VariantLivenessBug && (want.Violation == nil || want.Critical == nil || want.Critical.Class != C1) {
			t.Fatalf("%s: unsharded report %+v: want a liveness violation with a C1 critical transition", variant, want)
		}
		if want.Stats.Prefixes < 8 {
			t.Fatalf("%s: %d prefix tasks: not a test of sharding", variant, want.Stats.Prefixes)
		}
		t.Logf("%s split %d: end %s, stats %+v", variant, c.split, want.End, want.Stats)
		want.Stats.Distinct = 0
		for _, n := range []int{1, 3, 8} {
			got := shardAndMerge(t, cfg, n)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s in %d shards, merged:\n%+v\nunsharded:\n%+v", variant, n, got, want)
			}
		}
	}
}

package liveness

import (
	"context"
	"fmt"
)

// ShardRun is what one shard of a sharded search ran (RunShard).
type ShardRun struct {
	// Settings are the search's effective settings: every shard of one
	// search has the same.
	Settings Settings
	// Records are the shard's prefix tasks in global task order, up to
	// and including its first violation.
	Records []*PrefixResult
	// Total is the number of prefix tasks of the whole search, over all
	// its iterations: the global indices are 0..Total-1.
	Total int
	// Stopped: the shard ended at a violation (its later tasks were not
	// run).
	Stopped bool
}

// RunShard runs shard index of count of the search cfg describes (paper
// 002's division of the search by prefix): the prefix tasks, over every
// iteration from Depth to MaxDepth in order, whose global index is ≡ index
// (mod count), up to its first violation. The prefix division is the same
// in every shard (it depends on the configuration alone), and dealing the
// tasks round robin gives every shard the same number of prefixes, give or
// take one, from every part of the tree. Shards do not share visited
// states: each prefix task has its own visited set, as in the unsharded
// search, so n shards explore exactly the states of one. A shard runs
// every iteration (it cannot know that another shard's violation, or the
// whole iteration's exhaustion, ends the search earlier); MergeShards
// takes what the unsharded search would have.
func RunShard(ctx context.Context, cfg Config, index, count int) (*ShardRun, error) {
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("liveness: shard %d/%d: want 0 <= index < count", index, count)
	}
	r, s, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	out := &ShardRun{Settings: r.settingsReport()}
	leaves := 0
	for depth := r.Depth; depth <= r.MaxDepth; depth += r.DepthStep {
		src, split, err := s.divide(ctx, depth, &leaves, 0)
		if err != nil {
			return nil, fmt.Errorf("liveness: shard interrupted: %w", err)
		}
		g0 := out.Total
		for off := 0; ; {
			tasks, err := src.next(r.chunkSize())
			if err != nil {
				return nil, fmt.Errorf("liveness: shard: %w", err)
			}
			if len(tasks) == 0 {
				break
			}
			out.Total += len(tasks)
			if !out.Stopped {
				var idx []int
				for i := range tasks {
					if (g0+off+i)%count == index {
						idx = append(idx, i)
					}
				}
				recs, err := s.runTasks(ctx, tasks, idx, off, depth, split, func(i int) int { return g0 + i }, nil)
				if err != nil {
					return nil, fmt.Errorf("liveness: shard interrupted: %w", err)
				}
				for _, rec := range recs {
					out.Records = append(out.Records, rec)
					if rec.Violation != nil {
						out.Stopped = true
						break
					}
				}
			}
			off += len(tasks)
		}
		if r.DepthStep == 0 {
			break
		}
	}
	if ws := s.warnings(nil); len(ws) > 0 && len(out.Records) > 0 {
		out.Records[0].Warnings = ws // the shard's, for the merge
	}
	return out, nil
}

// prepare resolves cfg and replays its prefix: a searcher ready to
// search. A prefix that already violates a property is an error here.
func prepare(cfg Config) (*resolved, *searcher, error) {
	r, s, v, err := start(cfg)
	if err == nil && v != nil {
		err = fmt.Errorf("liveness: the prefix path itself ends in a %s violation at step %d: search it unsharded", v.Kind, v.Step)
	}
	return r, s, err
}

// MergeShards is the report of the search cfg describes from its prefix
// tasks' results in global order (the shards' records, from index 0 up
// to at least the first violation, or all total of them): the fold of the
// unsharded search, so the same violation, End and statistics (summed
// over the tasks; Distinct is not known), then the critical-transition
// search of a liveness violation, as Run does.
func MergeShards(ctx context.Context, cfg Config, recs []*PrefixResult, total int) (*Report, error) {
	r, s, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Settings: r.settingsReport()}
	defer func() { rep.Warnings = s.warnings(rep.Warnings) }()
	for _, rec := range recs {
		rep.Warnings = append(rep.Warnings, rec.Warnings...)
	}
	f := &fold{r: r}
	var v *Violation
	end := ""
	for i, rec := range recs {
		if i == 0 || rec.Depth != recs[i-1].Depth {
			if i > 0 {
				if v, end = f.finish(); end != "" {
					break
				}
			}
			f.begin(rec.Depth, rec.Split)
		}
		if v, end = f.add(rec); end != "" {
			break
		}
	}
	if end == "" {
		if len(recs) < total || len(recs) == 0 {
			return nil, fmt.Errorf("liveness: merge: %d of %d prefix tasks and no end of the search among them", len(recs), total)
		}
		if v, end = f.finish(); end == "" {
			end = "max-depth"
		}
	}
	rep.Violation, rep.End, rep.Stats = s.confirm(s.dfs, v), end, f.stats
	return s.finish(ctx, rep)
}

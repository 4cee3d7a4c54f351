package pipeline

import (
	"context"
	"fmt"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// The liveness search's shards: shard i of n runs the prefix tasks whose
// global index is ≡ i (mod n) (liveness.RunShard) and writes
// DIR/liveness.shard-i-of-n.jsonl, one record per task; the merge folds
// the records as the unsharded search does and runs the
// critical-transition search, writing what Liveness writes.

// PhaseLivenessShard is the phase name of liveness shard files.
const PhaseLivenessShard = "liveness"

// livenessShardParams are a liveness shard's parameters: what the merge
// needs to rebuild the search.
type livenessShardParams struct {
	Params   timedsim.Params   `json:"params,omitempty"`
	Settings liveness.Settings `json:"settings"`
}

// livenessHash fingerprints a liveness search's configuration: the
// scenario's (timedsim.ConfigHash) and the search's settings.
func livenessHash(system, variant string, sc *timedsim.Scenario, set liveness.Settings) string {
	h := xxhash.New()
	h.WriteString(timedsim.ConfigHash(system, variant, sc, timedsim.Options{}))
	h.Write(rawJSON(set))
	return strconv.FormatUint(h.Sum64(), 16)
}

// LivenessShard runs shard sh of the liveness search and writes its shard
// file; it removes no other file. Interrupted, it writes nothing.
func LivenessShard(ctx context.Context, cfg LivenessConfig, sh ShardConfig) (res *ShardResult, err error) {
	defer wrapErr(&err)
	d, sc, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	sp := sh.Spec
	run, err := liveness.RunShard(ctx, cfg.Search, sp.Index, sp.Count)
	if err != nil {
		return nil, err
	}
	name := cfg.System.Name
	h := shard.Header{Phase: PhaseLivenessShard, ConfigHash: livenessHash(name, cfg.Variant, sc, run.Settings), System: name, Variant: cfg.Variant,
		Nodes: sc.Nodes, Seed: cfg.Search.Seed, Shard: sp.Index, Shards: sp.Count, Source: sh.Source, Runs: run.Total, Planned: sp.Len(run.Total),
		Params: rawJSON(livenessShardParams{Params: sc.Params, Settings: run.Settings})}
	sf := &shard.File{Header: h}
	for j, r := range run.Records {
		sf.Records = append(sf.Records, shard.Record{Index: sp.Global(j), Data: rawJSON(r)})
	}
	if run.Stopped && len(sf.Records) < h.Planned {
		sf.Footer.Stop = "violation"
	}
	return writeShard(d, sf)
}

// mergeLiveness writes the liveness search of a merged set of liveness
// shards.
func mergeLiveness(ctx context.Context, env Env, set *shard.Set, res *MergeResult) error {
	h := set.Header()
	name := set.Files[0].Name
	var par livenessShardParams
	if err := decodeStrict(name, -1, h.Params, &par); err != nil {
		return fmt.Errorf("%s: malformed liveness parameters: %w", name, err)
	}
	sys, sc, err := pathScenario(env.Systems, h.System, h.Variant, h.Nodes, par.Params)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	st := par.Settings
	if got := livenessHash(sys.Name, h.Variant, sc, st); got != h.ConfigHash {
		return fmt.Errorf("%s: config hash %s does not match its system and settings (%s here): the system changed since the shards ran", name, h.ConfigHash, got)
	}
	cfg := liveness.Config{Scenario: sc, Depth: st.Depth, DepthStep: st.DepthStep, MaxDepth: st.MaxDepth, DMax: st.DMax, Walks: st.Walks,
		RandomWalks: st.RandomWalks, Seed: st.Seed, Weights: st.Weights, Unbiased: st.Unbiased, Faults: st.Faults, Breaks: st.Breaks, Drops: st.Drops,
		Crashes: st.Crashes, Partitions: st.Partitions, NoHashing: !st.Hashing,
		SplitDepth: st.SplitDepth, LevelDivision: st.LevelDivision, LivePrefix: st.LivePrefix, Prefix: st.Prefix}
	if cfg.Safety, err = liveness.Select(sc.Safety, st.Safety...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if cfg.Liveness, err = liveness.Select(sc.Liveness, st.Liveness...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Every shard ran its tasks up to its own first violation: all tasks
	// before the first violation of the whole search are there.
	recs := map[int]*liveness.PrefixResult{}
	limit := h.Runs
	for _, f := range set.Files {
		for _, r := range f.Records {
			var pr liveness.PrefixResult
			if err := decodeStrict(f.Name, r.Index, r.Data, &pr); err != nil {
				return err
			}
			recs[r.Index] = &pr
			if pr.Violation != nil && r.Index < limit {
				limit = r.Index + 1
			}
		}
	}
	upto, err := set.Upto(limit)
	if err != nil {
		return unprefixed(err)
	}
	ordered := make([]*liveness.PrefixResult, len(upto))
	for i, r := range upto {
		ordered[i] = recs[r.Index]
	}
	rep, err := liveness.MergeShards(ctx, cfg, ordered, h.Runs)
	if err != nil {
		return err
	}
	if err := env.Dir.remove(livenessFiles()...); err != nil {
		return err
	}
	lf, err := writeLiveness(env.Dir, sys.Name, h.Variant, cfg, rep)
	if err != nil {
		return err
	}
	res.Liveness = &LivenessResult{File: lf}
	return nil
}

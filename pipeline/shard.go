package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// Sharding (package shard): Simulate, Profile and Search have a sharded
// form that runs the executions with index ≡ i (mod n), with the seeds of
// the unsharded run, and writes only DIR/<phase>.shard-i-of-n.jsonl;
// Merge checks the n files (one configuration, all n shards, each
// complete and given once) and writes exactly what the unsharded function
// would have written, through the same code. A shard's executions may
// hold an anomaly: the run's answer is the merge's.

// ShardConfig says which shard to run.
type ShardConfig struct {
	Spec shard.Spec
	// Source says where Spec came from ("--shard 1/4", a batch engine's
	// environment: shard.Resolve); the shard file records it.
	Source string
}

// ShardResult is a written shard file.
type ShardResult struct {
	Path string
	File *shard.File
}

// writeShard writes f into d atomically.
func writeShard(d *Dir, f *shard.File) (*ShardResult, error) {
	path := d.File(shard.FileName(f.Header.Phase, f.Header.Spec()))
	if err := atomicfile.Write(path, func(w io.Writer) error { return shard.Write(w, f) }); err != nil {
		return nil, err
	}
	return &ShardResult{Path: path, File: f}, nil
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("pipeline: " + err.Error()) // plain structs: cannot fail
	}
	return b
}

// decodeStrict decodes one record's data into v, refusing unknown fields.
func decodeStrict(name string, index int, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: execution %d: %w", name, index, err)
	}
	return nil
}

// unprefixed is a shard error without its package prefix (this package
// adds its own).
func unprefixed(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "shard: "))
}

func shardHeader(phase string, t *Target, seed uint64, runs int, sh ShardConfig, params any) shard.Header {
	sp := sh.Spec
	return shard.Header{Phase: phase, ConfigHash: t.Hash, System: t.System.Name, Variant: t.Variant, Nodes: t.Scenario.Nodes, Seed: seed,
		Shard: sp.Index, Shards: sp.Count, Source: sh.Source, Runs: runs, Planned: sp.Len(runs), Params: rawJSON(params)}
}

// ---- profile ----

type profileShardParams struct {
	Thresholds
	EDDSource string             `json:"edd_source"`
	Template  *timedsim.PathFile `json:"template"`
}

type labelsSummary struct {
	Labels []string `json:"labels"`
}

// ProfileShard runs shard sh of phase 1b (Profile) and writes its shard
// file; it removes no other file.
func ProfileShard(ctx context.Context, cfg ProfileConfig, sh ShardConfig) (res *ShardResult, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	t, seed := cfg.Target, cfg.Seed
	th := cfg.Thresholds.resolve(t)
	lines, seen, err := profileExecs(ctx, cfg.Env, t, seed, sh.Spec, cfg.Runs)
	if err != nil {
		return nil, err
	}
	tmpl, err := t.pathFile(timedsim.Seeded(seed)(0), fmt.Sprintf("profile seed=%d execution 0", seed))
	if err != nil {
		return nil, err
	}
	sf := &shard.File{Header: shardHeader(string(PhaseProfile), t, seed, cfg.Runs, sh, profileShardParams{Thresholds: th, EDDSource: cfg.EDDSource, Template: tmpl})}
	for _, l := range lines {
		sf.Records = append(sf.Records, shard.Record{Index: l.Index, Data: rawJSON(l)})
	}
	sf.Footer.Summary = rawJSON(labelsSummary{Labels: slices.Sorted(maps.Keys(seen))})
	return writeShard(cfg.Dir, sf)
}

// mergeProfile writes the profile of a merged set of profile shards.
func mergeProfile(env Env, set *shard.Set, res *MergeResult) error {
	h := set.Header()
	var par profileShardParams
	if err := decodeStrict(set.Files[0].Name, -1, h.Params, &par); err != nil || par.Template == nil {
		return fmt.Errorf("%s: malformed profile parameters", set.Files[0].Name)
	}
	t, err := fromPathFile(env.Systems, par.Template)
	if err != nil {
		return fmt.Errorf("%s: %w", set.Files[0].Name, err)
	}
	if t.Hash != h.ConfigHash {
		return fmt.Errorf("%s: config hash %s does not match its template's %s", set.Files[0].Name, h.ConfigHash, t.Hash)
	}
	recs, err := set.Upto(h.Runs)
	if err != nil {
		return err
	}
	lines := make([]results.ExecLine, len(recs))
	for i, r := range recs {
		if err := decodeStrict(set.Files[r.Index%len(set.Files)].Name, r.Index, r.Data, &lines[i]); err != nil {
			return err
		}
		if lines[i].Index != r.Index {
			return fmt.Errorf("%s: execution %d holds the line of execution %d", set.Files[r.Index%len(set.Files)].Name, r.Index, lines[i].Index)
		}
	}
	seen := map[string]bool{}
	for _, f := range set.Files {
		var ls labelsSummary
		if err := decodeStrict(f.Name, -1, f.Footer.Summary, &ls); err != nil {
			return fmt.Errorf("%s: malformed footer summary: %w", f.Name, err)
		}
		for _, l := range ls.Labels {
			seen[l] = true
		}
	}
	pf, err := newProfileFile(t, h.Seed, h.Runs, par.Thresholds, par.EDDSource, lines, seen)
	if err != nil {
		return err
	}
	if err := env.Dir.clearAfter(PhaseProfile); err != nil {
		return err
	}
	if err := env.Dir.writeJSON(results.FileProfile, pf); err != nil {
		return err
	}
	res.Profile = pf
	res.Summary, err = env.Dir.writeSummary(pf)
	return err
}

// ---- search ----

type searchShardParams struct {
	PhaseSeed   uint64  `json:"phase_seed"`
	ThresholdNS int64   `json:"threshold_ns"`
	WindowNS    int64   `json:"window_ns"`
	TriageRuns  int     `json:"triage_runs"`
	Verdict     Verdict `json:"verdict"`
}

func searchParams(pf *results.Profile, triageRuns int, v Verdict) searchShardParams {
	return searchShardParams{PhaseSeed: PhaseSeed(pf.Seed, PhaseSearch), ThresholdNS: pf.Threshold, WindowNS: int64(pf.CountWindow()), TriageRuns: triageRuns, Verdict: v}
}

// SearchShard runs shard sh of phase 2 (Search) and writes its shard
// file; it removes no other file. With the fence alone, the shard
// explores its executions until its first anomalous one k plus the triage
// runs: every execution of the shard with a global index up to k +
// TriageRuns. Whichever shard holds the first anomaly g of the whole
// search, every shard has then explored its executions up to g +
// TriageRuns (its own first anomaly is at g or later), which is what the
// merge needs. With the significance test, whether the search goes on
// after the first look depends on every shard's executions, so each shard
// explores all of its share and the merge keeps what the unsharded search
// explored. Interrupted, it writes nothing.
func SearchShard(ctx context.Context, cfg SearchConfig, sh ShardConfig) (res *ShardResult, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	t, err := cfg.target()
	if err != nil {
		return nil, err
	}
	pf, sp := cfg.Profile, sh.Spec
	par := searchParams(pf, cfg.TriageRuns, cfg.Verdict.resolved())
	sf := &shard.File{Header: shardHeader(string(PhaseSearch), t, pf.Seed, cfg.MaxRuns, sh, par)}
	n := sp.Len(cfg.MaxRuns)
	if n == 0 {
		// More shards than executions: an empty, complete shard.
		return writeShard(cfg.Dir, sf)
	}
	opts := t.Options
	opts.CountWindow = pf.CountWindow()
	ex := cfg.explorer(t, opts)
	path := timedsim.Seeded(par.PhaseSeed)
	prog := start(cfg.Progress, PhaseSearch, n)
	// Global indexes k + TriageRuns of this shard are its local ones up
	// to k's + ⌊TriageRuns/count⌋.
	triage := cfg.TriageRuns / sp.Count
	if !par.Verdict.FenceOnly {
		triage = n
	}
	found, err := anomaly.Search(ctx, ex, func(j int) timedsim.Path { return path(sp.Global(j)) }, anomaly.SearchConfig{MaxRuns: n, Triage: triage},
		searchPredicate(pf), func(j int, r *timedsim.Result) {
			g := sp.Global(j)
			sf.Records = append(sf.Records, shard.Record{Index: g, Data: rawJSON(newCountsLine(PhaseSearch, g, 0, r.Path.Segments[0].Seed, r))})
			prog.Add(1, "")
		})
	prog.Done()
	if err != nil {
		return nil, interruption(ctx, "interrupted in phase search after %d of %d executions of shard %s: no shard file written", found.Explored, n, sp)
	}
	if found.Found && found.Explored < n {
		sf.Footer.Stop = "anomaly"
	}
	return writeShard(cfg.Dir, sf)
}

// mergeSearch writes the search of a merged set of search shards.
func mergeSearch(env Env, set *shard.Set, res *MergeResult) error {
	d := env.Dir
	pf, t, err := d.loadProfile(env.Systems)
	if err != nil {
		return fmt.Errorf("merging search shards needs the profile they searched against: %w", err)
	}
	res.Profile = pf
	h := set.Header()
	name := set.Files[0].Name
	var par searchShardParams
	if err := decodeStrict(name, -1, h.Params, &par); err != nil {
		return fmt.Errorf("%s: malformed search parameters", name)
	}
	if h.ConfigHash != pf.ConfigHash || h.Seed != pf.Seed || !bytes.Equal(h.Params, rawJSON(searchParams(pf, par.TriageRuns, par.Verdict))) {
		return fmt.Errorf("%s was searched against another profile than %s (config hash %s seed %d %s; the profile has %s seed %d %s): merge into the directory of the profile the shards used",
			name, d.File(results.FileProfile), h.ConfigHash, h.Seed, h.Params, pf.ConfigHash, pf.Seed, rawJSON(searchParams(pf, par.TriageRuns, par.Verdict)))
	}
	if err := par.Verdict.check(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Decode every record; the first anomalous execution of the whole
	// search bounds what the merged search explored.
	lines := map[int]results.CountsLine{}
	first := -1
	for _, f := range set.Files {
		for _, r := range f.Records {
			var l results.CountsLine
			if err := decodeStrict(f.Name, r.Index, r.Data, &l); err != nil {
				return err
			}
			if l.Index != r.Index || l.Phase != string(PhaseSearch) {
				return fmt.Errorf("%s: execution %d holds a %s line of execution %d", f.Name, r.Index, l.Phase, l.Index)
			}
			lines[r.Index] = l
			if isAnomalous(pf, l) && (first < 0 || r.Index < first) {
				first = r.Index
			}
		}
	}
	limit, looks := planLooks(first, h.Runs, par.TriageRuns)
	upto := limit
	if looks == 2 && !par.Verdict.FenceOnly {
		upto = h.Runs // the shards explored everything: look 2 may need it
	}
	recs, err := set.Upto(upto)
	if err != nil {
		return err
	}
	execs := make([]results.CountsLine, 0, len(recs))
	for _, r := range recs {
		execs = append(execs, lines[r.Index])
	}
	var sig *anomaly.SignificanceResult
	var sigFile *SignificanceFile
	if first >= 0 && !par.Verdict.FenceOnly {
		sig, sigFile = judge(pf, t, execs, limit, par.Verdict.Alpha, 1, looks)
		if looks == 2 && sig.Cut == 0 && !hasFinding(execs[:limit]) {
			limit = h.Runs
			sig, sigFile = judge(pf, t, execs, limit, par.Verdict.Alpha, 2, looks)
		}
	}
	execs = execs[:limit]
	var out jsonLines
	for _, r := range recs[:limit] {
		out.buf = append(append(out.buf, r.Data...), '\n') // the shard's bytes, as the search wrote them
	}
	sf := &SearchFile{Format: results.FormatSearch, Version: 1, ConfigHash: pf.ConfigHash, Seed: par.PhaseSeed, MaxRuns: h.Runs, TriageRuns: par.TriageRuns,
		Explored: limit, Complete: true, ThresholdNS: pf.Threshold, WindowNS: int64(pf.CountWindow()), Verdict: results.Verdict(par.Verdict), Significance: sigFile,
		FirstIndex: -1, Classes: []Class{}, Tail: []Class{}}
	files := d.newPhaseWrite() // the search's files appear together
	defer files.abort()
	if err := triage(context.Background(), env, t, pf, sf, execs, sig, files); err != nil {
		return err
	}
	if err := files.writeLines(results.FileSearchExecs, &out); err != nil {
		return err
	}
	if err := files.writeJSON(results.FileSearch, sf); err != nil {
		return err
	}
	if err := files.commit(PhaseProfile); err != nil {
		return err
	}
	res.Search = sf
	res.Summary, err = d.writeSummary(pf)
	return err
}

// ---- simulate ----

type simulateShardParams struct {
	Template *timedsim.PathFile `json:"template"`
}

// SimulateShard runs shard sh of Simulate and writes its shard file; it
// removes no other file. Interrupted, it writes nothing.
func SimulateShard(ctx context.Context, cfg SimulateConfig, sh ShardConfig) (res *ShardResult, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	t, seed, sp := cfg.Target, cfg.Seed, sh.Spec
	tmpl, err := t.pathFile(timedsim.Seeded(seed)(0), fmt.Sprintf("simulate seed=%d execution 0", seed))
	if err != nil {
		return nil, err
	}
	lines, err := simulateExecs(ctx, cfg.Env, t, seed, sp, cfg.Runs, nil)
	if err != nil || len(lines) < sp.Len(cfg.Runs) {
		return nil, interruption(ctx, "interrupted after %d of %d executions of shard %s: no shard file written", len(lines), sp.Len(cfg.Runs), sp)
	}
	sf := &shard.File{Header: shardHeader("simulate", t, seed, cfg.Runs, sh, simulateShardParams{Template: tmpl})}
	for _, l := range lines {
		sf.Records = append(sf.Records, shard.Record{Index: l.Index, Data: rawJSON(l)})
	}
	return writeShard(cfg.Dir, sf)
}

// mergeSimulate writes what Simulate would have of a merged set of
// simulate shards.
func mergeSimulate(env Env, set *shard.Set, res *MergeResult) error {
	h := set.Header()
	name := set.Files[0].Name
	var par simulateShardParams
	if err := decodeStrict(name, -1, h.Params, &par); err != nil || par.Template == nil {
		return fmt.Errorf("%s: malformed simulate parameters", name)
	}
	t, err := fromPathFile(env.Systems, par.Template)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if t.Hash != h.ConfigHash {
		return fmt.Errorf("%s: config hash %s does not match its template's %s", name, h.ConfigHash, t.Hash)
	}
	recs, err := set.Upto(h.Runs)
	if err != nil {
		return err
	}
	lines := make([]SimLine, len(recs))
	for i, r := range recs {
		fname := set.Files[r.Index%len(set.Files)].Name
		if err := decodeStrict(fname, r.Index, r.Data, &lines[i]); err != nil {
			return err
		}
		if lines[i].Index != r.Index {
			return fmt.Errorf("%s: execution %d holds the line of execution %d", fname, r.Index, lines[i].Index)
		}
	}
	if err := clearSimulate(env.Dir); err != nil {
		return err
	}
	res.Simulate, err = writeSimulate(env.Dir, t, h.Seed, h.Runs, lines)
	return err
}

// ---- merge ----

// ReadShards reads the shard files of phase ("simulate", "profile",
// "search", "liveness"; "": whichever the directories hold, which must be one) in
// dirs and checks that they make one whole run (shard.Merge).
func ReadShards(phase string, dirs []string) (set *shard.Set, err error) {
	defer wrapErr(&err)
	paths, err := shard.Find(phase, dirs)
	if err != nil {
		return nil, unprefixed(err)
	}
	var files []*shard.File
	phases := map[string]bool{}
	for _, path := range paths {
		f, err := shard.ReadFile(path)
		if err != nil {
			return nil, unprefixed(err)
		}
		files = append(files, f)
		phases[f.Header.Phase] = true
	}
	if len(phases) > 1 {
		return nil, configErr("ReadShards.phase", nil, "%s hold shards of phases %s: pass {ReadShards.phase}", strings.Join(dirs, " "), strings.Join(slices.Sorted(maps.Keys(phases)), " and "))
	}
	set, err = shard.Merge(files)
	if err != nil {
		return nil, unprefixed(err)
	}
	return set, nil
}

// MergeConfig configures Merge.
type MergeConfig struct {
	// Env.Dir receives the merged files: for search shards, it must hold
	// the profile.json they searched against.
	Env
	// Set are the shards (ReadShards).
	Set *shard.Set
}

// MergeResult is what Merge wrote: the profile (with the summary), the
// search (with the profile it was searched against and the summary) or
// the simulation.
type MergeResult struct {
	Result
	Simulate *SimulateResult
	Liveness *LivenessResult
}

// Merge writes into cfg.Dir what the unsharded Profile, Search,
// Simulate or Liveness would have written, from their shards; a merged profile or
// search also rewrites summary.json. Whatever it wrote before an error is
// in the result. Merging liveness shards runs the critical-transition
// search, which ctx can interrupt.
func Merge(ctx context.Context, cfg MergeConfig) (res *MergeResult, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.Env.check(); err != nil {
		return nil, err
	}
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	res = &MergeResult{}
	phase := cfg.Set.Header().Phase
	if p, ok := PhaseOf(Phase(phase)); ok && p.merge != nil {
		return res, p.merge(cfg.Env, cfg.Set, res)
	}
	switch phase {
	case "simulate":
		return res, mergeSimulate(cfg.Env, cfg.Set, res)
	case PhaseLivenessShard:
		return res, mergeLiveness(ctx, cfg.Env, cfg.Set, res)
	default:
		return res, fmt.Errorf("%s: unknown phase %q", cfg.Set.Files[0].Name, phase)
	}
}

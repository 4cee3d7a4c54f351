package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// Sharding (package shard): simulate, profile and search with --shard i/n
// (or a batch engine's environment) run the executions with index ≡ i
// (mod n) and write only DIR/<phase>.shard-i-of-n.jsonl; `macepc merge`
// checks the n files and writes exactly what the unsharded command would
// have written, with the same output and exit status. A shard itself
// exits 0 once its file is written (an anomaly in one shard is not the
// run's answer, and a batch engine must not retry or cancel on it).

const shardUsage = "run shard i of n (from 0): the executions with index i mod n, into DIR/<phase>.shard-i-of-n.jsonl for 'macepc merge'; default: from JOB_COMPLETION_INDEX+MACEPC_SHARD_COUNT or SLURM_ARRAY_TASK_*; off: ignore the environment"

func withShard(f *pipelineFlags, fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", shardUsage)
}

// shardOf resolves --shard against the environment.
func (a *app) shardOf(flag string) (shard.Spec, string, bool, error) {
	getenv := a.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s, src, ok, err := shard.Resolve(flag, getenv)
	if err != nil {
		return s, src, ok, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "shard: "))
	}
	return s, src, ok, nil
}

// writeShard writes f into dir atomically and says so.
func (a *app) writeShard(dir string, f *shard.File) error {
	sp := f.Header.Spec()
	path := filepath.Join(dir, shard.FileName(f.Header.Phase, sp))
	if err := atomicfile.Write(path, func(w io.Writer) error { return shard.Write(w, f) }); err != nil {
		return err
	}
	what := fmt.Sprintf("%d of %d executions", len(f.Records), f.Header.Runs)
	if f.Footer.Stop != "" {
		what += fmt.Sprintf(", stopped at execution %d (%s)", f.Records[len(f.Records)-1].Index, f.Footer.Stop)
	}
	fmt.Fprintf(a.stdout, "wrote %s (%s)\nwhen all %d shards are written: macepc merge --out DIR SHARD-DIRS...\n", path, what, sp.Count)
	return nil
}

func (a *app) printShardStart(cmd string, rs *resolved, seed uint64, runs int, sp shard.Spec, source string) {
	idx := "none"
	if sp.Len(runs) > 0 {
		idx = fmt.Sprintf("%d", sp.Global(0))
	}
	if sp.Len(runs) > 1 {
		idx += fmt.Sprintf(", %d", sp.Global(1))
	}
	if sp.Len(runs) > 2 {
		idx += ", …"
	}
	fmt.Fprintf(a.stdout, "macepc %s: shard %s from %s: executions %s (%d of %d); system=%s variant=%s nodes=%d seed=%d config=%s\n",
		cmd, sp, source, idx, sp.Len(runs), runs, rs.sys.Name, rs.variant, rs.sc.Nodes, seed, rs.hash)
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("cli: " + err.Error()) // plain structs: cannot fail
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

// ---- profile ----

type profileShardParams struct {
	thresholds
	EDDSource string             `json:"edd_source"`
	Template  *timedsim.PathFile `json:"template"`
}

type labelsSummary struct {
	Labels []string `json:"labels"`
}

func (a *app) profileShard(f *pipelineFlags, sp shard.Spec, source, eddSource string) (int, error) {
	rs, err := a.resolve(&f.sim)
	if err != nil {
		return ExitError, err
	}
	p, err := a.newPipeline(f)
	if err != nil {
		return ExitError, err
	}
	th, err := f.thresholds(rs)
	if err != nil {
		return ExitError, err
	}
	seed := f.sim.seed
	a.printShardStart("profile", rs, seed, f.profileRuns, sp, source)
	lines, seen, err := p.profileExecs(rs, seed, sp, f.profileRuns)
	if err != nil {
		return ExitError, err
	}
	tmpl, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, timedsim.Seeded(seed)(0), fmt.Sprintf("profile seed=%d execution 0", seed))
	if err != nil {
		return ExitError, err
	}
	sf := &shard.File{Header: shardHeader("profile", rs, seed, f.profileRuns, sp, source,
		profileShardParams{thresholds: th, EDDSource: eddSource, Template: tmpl})}
	for _, l := range lines {
		sf.Records = append(sf.Records, shard.Record{Index: l.Index, Data: rawJSON(l)})
	}
	sf.Footer.Summary = rawJSON(labelsSummary{Labels: slices.Sorted(maps.Keys(seen))})
	if err := a.writeShard(p.dir, sf); err != nil {
		return ExitError, err
	}
	return ExitOK, nil
}

func shardHeader(phase string, rs *resolved, seed uint64, runs int, sp shard.Spec, source string, params any) shard.Header {
	return shard.Header{Phase: phase, ConfigHash: rs.hash, System: rs.sys.Name, Variant: rs.variant, Nodes: rs.sc.Nodes, Seed: seed,
		Shard: sp.Index, Shards: sp.Count, Source: source, Runs: runs, Planned: sp.Len(runs), Params: rawJSON(params)}
}

func (a *app) mergeProfile(p *pipeline, set *shard.Set) (int, error) {
	h := set.Header()
	var par profileShardParams
	if err := decodeStrict(set.Files[0].Name, -1, h.Params, &par); err != nil || par.Template == nil {
		return ExitError, fmt.Errorf("%s: malformed profile parameters", set.Files[0].Name)
	}
	rs, err := a.fromPathFile(par.Template)
	if err != nil {
		return ExitError, fmt.Errorf("%s: %w", set.Files[0].Name, err)
	}
	if rs.hash != h.ConfigHash {
		return ExitError, fmt.Errorf("%s: config hash %s does not match its template's %s", set.Files[0].Name, h.ConfigHash, rs.hash)
	}
	recs, err := set.Upto(h.Runs)
	if err != nil {
		return ExitError, err
	}
	lines := make([]execLine, len(recs))
	for i, r := range recs {
		if err := decodeStrict(set.Files[r.Index%len(set.Files)].Name, r.Index, r.Data, &lines[i]); err != nil {
			return ExitError, err
		}
		if lines[i].Index != r.Index {
			return ExitError, fmt.Errorf("%s: execution %d holds the line of execution %d", set.Files[r.Index%len(set.Files)].Name, r.Index, lines[i].Index)
		}
	}
	seen := map[string]bool{}
	for _, f := range set.Files {
		var ls labelsSummary
		if err := decodeStrict(f.Name, -1, f.Footer.Summary, &ls); err != nil {
			return ExitError, fmt.Errorf("%s: malformed footer summary: %w", f.Name, err)
		}
		for _, l := range ls.Labels {
			seen[l] = true
		}
	}
	pf, err := newProfileFile(rs, h.Seed, h.Runs, par.thresholds, par.EDDSource, lines, seen)
	if err != nil {
		return ExitError, err
	}
	if err := clearAfter(p.dir, "profile"); err != nil {
		return ExitError, err
	}
	if err := writeJSON(p.path(fileProfile), pf); err != nil {
		return ExitError, err
	}
	a.printProfile(pf)
	return a.finish(p, pf)
}

// ---- search ----

type searchShardParams struct {
	PhaseSeed   uint64 `json:"phase_seed"`
	ThresholdNS int64  `json:"threshold_ns"`
	WindowNS    int64  `json:"window_ns"`
	TriageRuns  int    `json:"triage_runs"`
}

func searchParams(pf *profileFile, triageRuns int) searchShardParams {
	return searchShardParams{PhaseSeed: phaseSeed(pf.Seed, "search"), ThresholdNS: pf.Threshold, WindowNS: int64(pf.countWindow()), TriageRuns: triageRuns}
}

// searchShard explores shard sp's executions until its first anomalous
// one k plus the triage runs: every execution of the shard with a global
// index up to k + triageRuns. Whichever shard holds the first anomaly g
// of the whole search, every shard has then explored its executions up to
// g + triageRuns (its own first anomaly is at g or later), which is what
// the merge needs.
func (a *app) searchShard(p *pipeline, pf *profileFile, rs *resolved, maxRuns, triageRuns int, sp shard.Spec, source string) (int, error) {
	a.printShardStart("search", rs, pf.Seed, maxRuns, sp, source)
	par := searchParams(pf, triageRuns)
	sf := &shard.File{Header: shardHeader("search", rs, pf.Seed, maxRuns, sp, source, par)}
	n := sp.Len(maxRuns)
	if n == 0 {
		// More shards than executions: an empty, complete shard.
		if err := a.writeShard(p.dir, sf); err != nil {
			return ExitError, err
		}
		return ExitOK, nil
	}
	opts := rs.opts
	opts.CountWindow = pf.countWindow()
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: opts, Jobs: p.jobs}
	path := timedsim.Seeded(par.PhaseSeed)
	prog := a.startProgress(p.progress, "search", n)
	// Global indexes k + triageRuns of this shard are its local ones up
	// to k's + ⌊triageRuns/count⌋.
	res, err := anomaly.Search(a.ctx, ex, func(j int) timedsim.Path { return path(sp.Global(j)) }, anomaly.SearchConfig{MaxRuns: n, Triage: triageRuns / sp.Count},
		searchPredicate(pf), func(j int, r *timedsim.Result) {
			g := sp.Global(j)
			sf.Records = append(sf.Records, shard.Record{Index: g, Data: rawJSON(newCountsLine("search", g, 0, r.Path.Segments[0].Seed, r))})
			prog.add(1, "")
		})
	prog.done()
	if err != nil {
		return ExitError, fmt.Errorf("interrupted in phase search after %d of %d executions of shard %s: no shard file written", res.Explored, n, sp)
	}
	if res.Found && res.Explored < n {
		sf.Footer.Stop = "anomaly"
	}
	if err := a.writeShard(p.dir, sf); err != nil {
		return ExitError, err
	}
	return ExitOK, nil
}

func (a *app) mergeSearch(p *pipeline, set *shard.Set) (int, error) {
	pf, rs, err := p.loadProfile()
	if err != nil {
		return ExitError, fmt.Errorf("merging search shards needs the profile they searched against: %w", err)
	}
	h := set.Header()
	name := set.Files[0].Name
	var par searchShardParams
	if err := decodeStrict(name, -1, h.Params, &par); err != nil {
		return ExitError, fmt.Errorf("%s: malformed search parameters", name)
	}
	if h.ConfigHash != pf.ConfigHash || h.Seed != pf.Seed || !bytes.Equal(h.Params, rawJSON(searchParams(pf, par.TriageRuns))) {
		return ExitError, fmt.Errorf("%s was searched against another profile than %s (config hash %s seed %d %s; the profile has %s seed %d %s): merge into the directory of the profile the shards used",
			name, p.path(fileProfile), h.ConfigHash, h.Seed, h.Params, pf.ConfigHash, pf.Seed, rawJSON(searchParams(pf, par.TriageRuns)))
	}
	// Decode every record; the first anomalous execution of the whole
	// search bounds what the merged search explored.
	lines := map[int]countsLine{}
	first := -1
	for _, f := range set.Files {
		for _, r := range f.Records {
			var l countsLine
			if err := decodeStrict(f.Name, r.Index, r.Data, &l); err != nil {
				return ExitError, err
			}
			if l.Index != r.Index || l.Phase != "search" {
				return ExitError, fmt.Errorf("%s: execution %d holds a %s line of execution %d", f.Name, r.Index, l.Phase, l.Index)
			}
			lines[r.Index] = l
			if isAnomalous(pf, l) && (first < 0 || r.Index < first) {
				first = r.Index
			}
		}
	}
	limit := h.Runs
	if first >= 0 && first < h.Runs-par.TriageRuns {
		limit = first + par.TriageRuns + 1
	}
	recs, err := set.Upto(limit)
	if err != nil {
		return ExitError, err
	}
	var out jsonLines
	execs := make([]countsLine, 0, len(recs))
	for _, r := range recs {
		out.buf.Write(r.Data)
		out.buf.WriteByte('\n')
		execs = append(execs, lines[r.Index])
	}
	sf := &searchFile{Format: "macepc-search", Version: 1, ConfigHash: pf.ConfigHash, Seed: par.PhaseSeed, MaxRuns: h.Runs, TriageRuns: par.TriageRuns,
		Explored: limit, Complete: true, ThresholdNS: pf.Threshold, WindowNS: int64(pf.countWindow()), FirstIndex: -1, Classes: []classRec{}}
	if err := clearAfter(p.dir, "profile"); err != nil {
		return ExitError, err
	}
	if err := p.triage(rs, pf, sf, execs); err != nil {
		return ExitError, err
	}
	if err := out.write(p.path(fileSearchExecs)); err != nil {
		return ExitError, err
	}
	if err := writeJSON(p.path(fileSearch), sf); err != nil {
		return ExitError, err
	}
	a.printSearch(p, sf)
	return a.finish(p, pf)
}

// ---- simulate ----

type simulateShardParams struct {
	Template *timedsim.PathFile `json:"template"`
}

func (a *app) simulateShard(out string, rs *resolved, f *simFlags, runs int, sp shard.Spec, source string) (int, error) {
	a.printShardStart("simulate", rs, f.seed, runs, sp, source)
	tmpl, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, timedsim.Seeded(f.seed)(0), fmt.Sprintf("simulate seed=%d execution 0", f.seed))
	if err != nil {
		return ExitError, err
	}
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: rs.opts, Jobs: f.jobs}
	lines, err := simulateExecs(a, ex, f.seed, sp, runs)
	if err != nil || len(lines) < sp.Len(runs) {
		return ExitError, fmt.Errorf("interrupted after %d of %d executions of shard %s: no shard file written", len(lines), sp.Len(runs), sp)
	}
	sf := &shard.File{Header: shardHeader("simulate", rs, f.seed, runs, sp, source, simulateShardParams{Template: tmpl})}
	for _, l := range lines {
		sf.Records = append(sf.Records, shard.Record{Index: l.Index, Data: rawJSON(l)})
	}
	if err := a.writeShard(out, sf); err != nil {
		return ExitError, err
	}
	return ExitOK, nil
}

func (a *app) mergeSimulate(out string, set *shard.Set) (int, error) {
	h := set.Header()
	name := set.Files[0].Name
	var par simulateShardParams
	if err := decodeStrict(name, -1, h.Params, &par); err != nil || par.Template == nil {
		return ExitError, fmt.Errorf("%s: malformed simulate parameters", name)
	}
	rs, err := a.fromPathFile(par.Template)
	if err != nil {
		return ExitError, fmt.Errorf("%s: %w", name, err)
	}
	if rs.hash != h.ConfigHash {
		return ExitError, fmt.Errorf("%s: config hash %s does not match its template's %s", name, h.ConfigHash, rs.hash)
	}
	recs, err := set.Upto(h.Runs)
	if err != nil {
		return ExitError, err
	}
	lines := make([]simLine, len(recs))
	for i, r := range recs {
		fname := set.Files[r.Index%len(set.Files)].Name
		if err := decodeStrict(fname, r.Index, r.Data, &lines[i]); err != nil {
			return ExitError, err
		}
		if lines[i].Index != r.Index {
			return ExitError, fmt.Errorf("%s: execution %d holds the line of execution %d", fname, r.Index, lines[i].Index)
		}
	}
	if err := clearSimulate(out); err != nil {
		return ExitError, err
	}
	return a.writeSimulate(out, rs, h.Seed, h.Runs, lines)
}

// ---- merge ----

func (a *app) merge(args []string) (int, error) {
	fs := a.flags("merge")
	out := fs.String("out", "macepc-out", "results directory: the unsharded command's files are written here (search shards: the directory of their profile.json)")
	phase := fs.String("phase", "", "merge only this phase's shards (simulate, profile or search) when the directories hold several")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	switch *phase {
	case "", "simulate", "profile", "search":
	default:
		return ExitError, fmt.Errorf("--phase must be simulate, profile or search, got %q", *phase)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		if _, err := os.Stat(*out); errors.Is(err, os.ErrNotExist) {
			return ExitError, fmt.Errorf("no shard directories given, and --out %s, where merge then looks for them, does not exist", *out)
		}
		dirs = []string{*out}
	}
	paths, err := shard.Find(*phase, dirs)
	if err != nil {
		return ExitError, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "shard: "))
	}
	var files []*shard.File
	phases := map[string]bool{}
	for _, path := range paths {
		f, err := shard.ReadFile(path)
		if err != nil {
			return ExitError, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "shard: "))
		}
		files = append(files, f)
		phases[f.Header.Phase] = true
	}
	if len(phases) > 1 {
		return ExitError, fmt.Errorf("%s hold shards of phases %s: pass --phase", strings.Join(dirs, " "), strings.Join(slices.Sorted(maps.Keys(phases)), " and "))
	}
	set, err := shard.Merge(files)
	if err != nil {
		return ExitError, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "shard: "))
	}
	h := set.Header()
	fmt.Fprintf(a.stdout, "macepc merge: %d %s shards of %d executions (system=%s variant=%s nodes=%d seed=%d config=%s) -> %s\n",
		h.Shards, h.Phase, h.Runs, h.System, h.Variant, h.Nodes, h.Seed, h.ConfigHash, *out)
	p, err := a.newPipeline(&pipelineFlags{out: *out, progress: "never"})
	if err != nil {
		return ExitError, err
	}
	switch h.Phase {
	case "profile":
		return a.mergeProfile(p, set)
	case "search":
		return a.mergeSearch(p, set)
	case "simulate":
		return a.mergeSimulate(*out, set)
	}
	return ExitError, fmt.Errorf("%s: unknown phase %q", set.Files[0].Name, h.Phase)
}

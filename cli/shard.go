package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/shard"
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
func (a *app) shardOf(flag string) (pipeline.ShardConfig, bool, error) {
	getenv := a.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s, src, ok, err := shard.Resolve(flag, getenv)
	if err != nil {
		return pipeline.ShardConfig{}, ok, errors.New(strings.TrimPrefix(err.Error(), "shard: "))
	}
	return pipeline.ShardConfig{Spec: s, Source: src}, ok, nil
}

// printShardWritten says that a shard file is written and what comes next.
func (a *app) printShardWritten(r *pipeline.ShardResult) {
	f := r.File
	unit := "executions"
	if f.Header.Phase == pipeline.PhaseLivenessShard {
		unit = "prefix tasks"
	}
	what := fmt.Sprintf("%d of %d %s", len(f.Records), f.Header.Runs, unit)
	if f.Footer.Stop != "" {
		what += fmt.Sprintf(", stopped at execution %d (%s)", f.Records[len(f.Records)-1].Index, f.Footer.Stop)
	}
	fmt.Fprintf(a.stdout, "wrote %s (%s)\nwhen all %d shards are written: macepc merge --out DIR SHARD-DIRS...\n", r.Path, what, f.Header.Shards)
}

func (a *app) printShardStart(cmd string, t *pipeline.Target, seed uint64, runs int, sh pipeline.ShardConfig) {
	sp := sh.Spec
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
	fmt.Fprintf(a.stdout, "%s %s: shard %s from %s: executions %s (%d of %d); system=%s variant=%s nodes=%d seed=%d config=%s\n",
		a.name, cmd, sp, sh.Source, idx, sp.Len(runs), runs, t.System.Name, t.Variant, t.Scenario.Nodes, seed, t.Hash)
}

// shardDone prints a written shard; a shard exits 0 whatever its
// executions hold.
func (a *app) shardDone(r *pipeline.ShardResult, err error) (int, error) {
	if err != nil {
		return ExitError, err
	}
	a.printShardWritten(r)
	return ExitOK, nil
}

func (a *app) profileShard(f *pipelineFlags, env pipeline.Env, t *pipeline.Target, sh pipeline.ShardConfig, eddSource string) (int, error) {
	th, err := f.thresholds()
	if err != nil {
		return ExitError, err
	}
	a.printShardStart("profile", t, f.sim.seed, f.profileRuns, sh)
	return a.shardDone(pipeline.ProfileShard(a.ctx, pipeline.ProfileConfig{Env: env, Target: t, EDDSource: eddSource, Seed: f.sim.seed, Runs: f.profileRuns, Thresholds: th}, sh))
}

func (a *app) searchShard(cfg pipeline.SearchConfig, sh pipeline.ShardConfig) (int, error) {
	a.printShardStart("search", cfg.Target, cfg.Profile.Seed, cfg.MaxRuns, sh)
	return a.shardDone(pipeline.SearchShard(a.ctx, cfg, sh))
}

func (a *app) merge(args []string) (int, error) {
	fs := a.flags("merge")
	out := fs.String("out", "macepc-out", "results directory: the unsharded command's files are written here (search shards: the directory of their profile.json)")
	phase := fs.String("phase", "", "merge only this phase's shards ("+orList(pipeline.ShardPhases())+") when the directories hold several")
	progress := fs.String("progress", "auto", progressUsage)
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if *phase != "" && !slices.Contains(pipeline.ShardPhases(), *phase) {
		return ExitError, fmt.Errorf("--phase must be %s, got %q", orList(pipeline.ShardPhases()), *phase)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		if _, err := os.Stat(*out); errors.Is(err, os.ErrNotExist) {
			return ExitError, fmt.Errorf("no shard directories given, and --out %s, where merge then looks for them, does not exist", *out)
		}
		dirs = []string{*out}
	}
	prog, err := a.progress(*progress, 0)
	if err != nil {
		return ExitError, err
	}
	set, err := pipeline.ReadShards(*phase, dirs)
	if err != nil {
		return ExitError, err
	}
	h := set.Header()
	unit := "executions"
	if h.Phase == pipeline.PhaseLivenessShard {
		unit = "prefix tasks"
	}
	fmt.Fprintf(a.stdout, "%s merge: %d %s shards of %d %s (system=%s variant=%s nodes=%d seed=%d config=%s) -> %s\n",
		a.name, h.Shards, h.Phase, h.Runs, unit, h.System, h.Variant, h.Nodes, h.Seed, h.ConfigHash, *out)
	d, err := pipeline.OpenDir(*out)
	if err != nil {
		return ExitError, err
	}
	if err := a.lockDir(d); err != nil {
		return ExitError, err
	}
	res, err := pipeline.Merge(a.ctx, pipeline.MergeConfig{Env: pipeline.Env{Dir: d, Systems: a.reg, Progress: prog}, Set: set})
	if res != nil { // what was written, even before an error
		switch {
		case res.Liveness != nil:
			rep := res.Liveness.Report()
			printLiveness(a.stdout, *out, rep)
			a.writeReport(*out)
			switch {
			case err != nil:
				return ExitError, err
			case rep.Violation != nil && !rep.Inconclusive():
				return ExitFinding, nil
			}
			return ExitOK, nil
		case res.Simulate != nil:
			return a.printSimulate(d, res.Simulate), err
		default:
			if pc, ok := phaseCommands()[pipeline.Phase(h.Phase)]; ok {
				pc.print(a, d, &pipeline.Result{Profile: res.Profile, Search: res.Search})
			}
		}
	}
	if err != nil {
		return ExitError, err
	}
	return a.finished(d, res.Summary)
}

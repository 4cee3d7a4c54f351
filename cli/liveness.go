package cli

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// livenessNodes is run --liveness's default node count: small, so that
// the search is exhaustive up to its depth.
const livenessNodes = 3

// isLiveness reports whether run was asked for the liveness mode.
func isLiveness(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--liveness" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--liveness="); ok {
			b, err := strconv.ParseBool(v)
			return err != nil || b // a bad value: let the liveness flag set report it
		}
	}
	return false
}

// runLiveness is `macepc run --liveness`: MaceMC's search and critical
// transition (package liveness).
func (a *app) runLiveness(args []string) (int, error) {
	flags := a.flags("run --liveness")
	var sf simFlags
	flags.StringVar(&sf.system, "system", a.defaultSystem(), "system to check (see 'macepc systems')")
	flags.StringVar(&sf.variant, "variant", "", "variant of the system (default: the system's default)")
	flags.StringArrayVar(&sf.params, "param", nil, "system parameter, name=value (repeatable; see 'macepc systems')")
	flags.IntVar(&sf.nodes, "nodes", livenessNodes, "number of nodes (small: the search is exhaustive up to --max-depth)")
	flags.Uint64Var(&sf.seed, "seed", 1, "seed of the random walks and the driver")
	flags.IntVar(&sf.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	flags.Bool("liveness", true, "the liveness mode (this command)")
	flags.MarkHidden("liveness") // it is how this command was chosen, not an option of it
	out := flags.String("out", "macepc-out", "results directory")
	progress := flags.String("progress", "auto", progressUsage)
	depth := flags.Int("depth", liveness.DefaultDepth, "first depth of the iterative-deepening DFS")
	step := flags.Int("depth-step", liveness.DefaultDepthStep, "depth increment")
	maxDepth := flags.Int("max-depth", liveness.DefaultMaxDepth, "last DFS depth")
	dmax := flags.Int("dmax", liveness.DefaultDMax, "length of the random walks: a walk that is not live by then is dead")
	walks := flags.Int("walks", liveness.DefaultWalks, "random walks per prefix in the critical-transition search (k)")
	randomWalks := flags.Int("random-walks", 0, "budget of random walks from the DFS periphery (0: one per sequence)")
	weights := flags.StringArray("weight", nil, "choice weight, kind=w or 'label=w' (repeatable; kinds app, message, timer, error, reset, break, drop, crash, partition; defaults app 40, message 8, timer 1, error 8, each fault 1; the driver's scripted faults weigh as app)")
	unbiased := flags.Bool("unbiased", false, "choose uniformly among enabled events after the DFS prefix")
	faults := flags.Int("faults", 0, "node resets the scheduler may choose per execution (the node restarts at once: a fresh service, its durable state, Init, its application events again)")
	breaks := flags.Int("breaks", 0, "connection breaks (a pair of nodes' reliable connections, messages in flight lost) the scheduler may choose per execution")
	drops := flags.Int("drops", 0, "datagram losses the scheduler may choose per execution")
	crashes := flags.Int("crashes", 0, "crash-stops the scheduler may choose per execution: a node stops for good (no restart); write liveness properties over the nodes that are up")
	partitions := flags.Int("partitions", 0, "lasting partitions the scheduler may choose per execution: a node is cut off from all others until the execution ends")
	split := flags.Int("split-depth", 0, "depth of the prefix division that workers and shards share (0: the depth bound, the sequential DFS with its walks in parallel; lower: the levels below it in parallel too, each prefix with its own visited set); results depend on it, not on --jobs or --shard")
	levels := flags.Bool("level-division", false, "divide level by level on all --jobs workers with one shared visited set that prunes (every state explored once, at its lowest level) instead of the sequential DFS; results depend on it, not on --jobs or --shard")
	maxMemory := flags.Int64("max-memory", 0, "memory cap in MB of the search's visited sets and the level division's tree of states (0: none): the search stops cleanly before passing it, with the depths searched to their end so far; it depends on the configuration, not on --jobs. The Go runtime's soft memory limit is set to 1.25 times the cap plus 64 MB for the rest of the process (unless GOMEMLIMIT is set), so that the garbage collector keeps the whole process near it")
	shardFlag := flags.String("shard", "", "run shard i of n (from 0): the DFS's prefix tasks with index i mod n, into DIR/liveness.shard-i-of-n.jsonl for 'macepc merge'; default: from JOB_COMPLETION_INDEX+MACEPC_SHARD_COUNT or SLURM_ARRAY_TASK_*; off: ignore the environment")
	prefix := flags.String("prefix", "", "start from the end of this liveness path file (e.g. live.path.json or prefix.path.json): bugs of steady state")
	livePrefix := flags.Int("live-prefix", 0, "start from the first live state of a random walk of at most this many steps (written to DIR/prefix.path.json): a correct system's steady state")
	safety := flags.StringArray("safety", nil, "safety property to check (repeatable; default: the system's required ones; names an optional one to switch it on)")
	props := flags.StringArray("property", nil, "liveness property to check (repeatable; default: all of the system's)")
	if err := flags.Parse(args); err != nil {
		return ExitError, err
	}
	if flags.NArg() > 0 {
		return ExitError, fmt.Errorf("run --liveness takes no arguments, got %q", flags.Args())
	}
	if *maxMemory < 0 || *maxMemory > 1<<40 {
		return ExitError, fmt.Errorf("--max-memory must be between 0 and %d MB, got %d", int64(1<<40), *maxMemory)
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"faults", *faults}, {"breaks", *breaks}, {"drops", *drops}, {"crashes", *crashes}, {"partitions", *partitions}} {
		if c.n < 0 {
			return ExitError, fmt.Errorf("--%s must be at least 0, got %d", c.flag, c.n)
		}
	}
	sys, err := a.lookupSystem(sf.system)
	if err != nil {
		return ExitError, err
	}
	if sf.nodes < 1 {
		return ExitError, fmt.Errorf("--nodes must be at least 1, got %d", sf.nodes)
	}
	variant, err := resolveVariant(sys, sf.variant)
	if err != nil {
		return ExitError, err
	}
	params, err := parseParams(sf.params)
	if err != nil {
		return ExitError, err
	}
	if err := checkParams(sys, params); err != nil {
		return ExitError, err
	}
	sc, err := sys.ScenarioParams(variant, sf.nodes, params)
	if err != nil {
		return ExitError, err
	}
	cfg := liveness.Config{Scenario: sc, Depth: *depth, DepthStep: *step, MaxDepth: *maxDepth, DMax: *dmax, Walks: *walks,
		RandomWalks: *randomWalks, Jobs: sf.jobs, Seed: sf.seed, Unbiased: *unbiased, Faults: *faults, Breaks: *breaks, Drops: *drops,
		Crashes: *crashes, Partitions: *partitions, SplitDepth: *split, LevelDivision: *levels, LivePrefix: *livePrefix,
		MaxMemory: *maxMemory << 20}
	if lim := goMemoryLimit(cfg.MaxMemory, os.Getenv("GOMEMLIMIT")); lim > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(lim))
	}
	if cfg.Weights, err = parseWeights(*weights); err != nil {
		return ExitError, err
	}
	if len(*safety) > 0 {
		if cfg.Safety, err = liveness.Select(sc.Safety, *safety...); err != nil {
			return ExitError, fmt.Errorf("--safety: %w", err)
		}
	}
	if len(*props) > 0 {
		if len(sc.Liveness) == 0 {
			return ExitError, fmt.Errorf("--property: system %s defines no liveness properties", sys.Name)
		}
		if cfg.Liveness, err = liveness.Select(sc.Liveness, *props...); err != nil {
			return ExitError, fmt.Errorf("--property: %w", err)
		}
	}
	if *prefix != "" && *livePrefix > 0 {
		return ExitError, fmt.Errorf("--prefix and --live-prefix both give the search's prefix: pass one")
	}
	if *prefix != "" {
		pf, err := pipeline.ReadLivenessPath(*prefix)
		if err != nil {
			return ExitError, err
		}
		if pf.System != sys.Name || pf.Variant != variant || pf.Nodes != sc.Nodes {
			return ExitError, fmt.Errorf("--prefix %s is a path of %s/%s with %d nodes, not %s/%s with %d", *prefix, pf.System, pf.Variant, pf.Nodes, sys.Name, variant, sc.Nodes)
		}
		if !maps.Equal(pf.Params, sc.Params) {
			return ExitError, fmt.Errorf("--prefix %s is a path with parameters %q, not %q", *prefix, pf.Params.String(), sc.Params.String())
		}
		// The prefix means what it meant under its own choice settings.
		for _, c := range []struct {
			flag string
			same bool
		}{{"weight", maps.Equal(cfg.Weights, pf.Weights) || len(cfg.Weights) == 0}, {"unbiased", cfg.Unbiased == pf.Unbiased}, {"faults", cfg.Faults == pf.Faults}, {"breaks", cfg.Breaks == pf.Breaks}, {"drops", cfg.Drops == pf.Drops},
			{"crashes", cfg.Crashes == pf.Crashes}, {"partitions", cfg.Partitions == pf.Partitions}} {
			if flags.Changed(c.flag) && !c.same {
				return ExitError, fmt.Errorf("--%s differs from the settings of --prefix %s, whose path only means the same under them", c.flag, *prefix)
			}
		}
		cfg.Weights, cfg.Unbiased, cfg.Faults, cfg.Breaks, cfg.Drops = pf.Weights, pf.Unbiased, pf.Faults, pf.Breaks, pf.Drops
		cfg.Crashes, cfg.Partitions = pf.Crashes, pf.Partitions
		cfg.Prefix = &pf.Path
	}
	sh, sharded, err := a.shardOf(*shardFlag)
	if err != nil {
		return ExitError, err
	}
	prog, err := a.progress(*progress, sf.jobs)
	if err != nil {
		return ExitError, err
	}
	d, err := pipeline.OpenDir(*out)
	if err != nil {
		return ExitError, err
	}
	if !sharded { // shards write their own files into a shared directory, at once
		if err := a.lockDir(d); err != nil {
			return ExitError, err
		}
	}
	lc := pipeline.LivenessConfig{Dir: d, System: sys, Variant: variant, Search: cfg, Progress: prog}
	if sharded {
		fmt.Fprintf(a.stdout, "%s run --liveness: shard %s from %s: prefix tasks with index %d mod %d; system=%s variant=%s%s nodes=%d seed=%d depth=%d..%d step %d dmax=%d\n",
			a.name, sh.Spec, sh.Source, sh.Spec.Index, sh.Spec.Count, sys.Name, variant, paramsNote(sc.Params), sc.Nodes, sf.seed, *depth, *maxDepth, *step, *dmax)
		a.livenessCost(cfg) // every shard runs the whole division
		return a.shardDone(pipeline.LivenessShard(a.ctx, lc, sh))
	}
	fmt.Fprintf(a.stdout, "%s run --liveness: system=%s variant=%s%s nodes=%d seed=%d depth=%d..%d step %d dmax=%d walks=%d\n",
		a.name, sys.Name, variant, paramsNote(sc.Params), sc.Nodes, sf.seed, *depth, *maxDepth, *step, *dmax, *walks)
	a.livenessCost(cfg)
	res, err := pipeline.Liveness(a.ctx, lc)
	if res == nil {
		return ExitError, err
	}
	printLiveness(a.stdout, *out, res.Report())
	a.writeReport(*out)
	if err != nil {
		return ExitError, err
	}
	if rep := res.Report(); rep.Violation != nil && !rep.Inconclusive() {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

func parseWeights(specs []string) (map[string]int, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]int{}
	for _, s := range specs {
		i := strings.LastIndexByte(s, '=')
		if i <= 0 {
			return nil, fmt.Errorf("--weight %q: want kind=w or label=w", s)
		}
		w, err := strconv.Atoi(strings.TrimSpace(s[i+1:]))
		if err != nil || w < 0 {
			return nil, fmt.Errorf("--weight %q: the weight must be an integer >= 0", s)
		}
		m[strings.TrimSpace(s[:i])] = w
	}
	return m, nil
}

func printLiveness(w io.Writer, dir string, rep *liveness.Report) {
	s := rep.Stats
	if st := rep.Settings; st.LivePrefix > 0 && st.Prefix != nil {
		fmt.Fprintf(w, "search prefix: a random walk to a live state, %d steps -> %s\n", st.Prefix.Steps, filepath.Join(dir, results.FilePrefix))
	}
	fmt.Fprintf(w, "search: depth %d, %d paths, %d states, %d duplicates pruned, %d random walks, %d steps; ended: %s\n",
		s.Depth, s.Paths, s.States, s.Duplicates, s.Walks, s.Steps, rep.End)
	distinct := "not known (merged shards)"
	if s.Distinct > 0 {
		distinct = fmt.Sprint(s.Distinct)
	}
	fmt.Fprintf(w, "  %s; %d prefix tasks (split depth %d); distinct states %s; fingerprint collision probability (TLC estimate) %.2g\n",
		liveness.SearchedText(s.DepthDone, s.Depth), s.Prefixes, s.Split, distinct, s.Collision)
	if rep.End == liveness.EndMemory {
		fmt.Fprintf(w, "  stopped at the memory cap (--max-memory): the search of depth %d would not fit; %s\n", s.Depth, liveness.SearchedText(s.DepthDone, s.Depth))
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	v := rep.Violation
	if v == nil {
		fmt.Fprintf(w, "no violation\n")
		return
	}
	what := v.Property
	if v.Kind == liveness.KindPanic {
		what = v.Panic
	}
	if len(v.Failed) > 0 {
		what += " (failing: " + strings.Join(v.Failed, ", ") + ")"
	}
	verdict := "VIOLATION"
	if rep.Inconclusive() {
		verdict = "INCONCLUSIVE (no dead state isolated: not a violation, exit 0)"
	}
	fmt.Fprintf(w, "%s (%s): %s at step %d -> %s, %s\n", verdict, v.Kind, what, v.Step, filepath.Join(dir, results.FileDeadPath), filepath.Join(dir, results.FileDeadLog))
	c := rep.Critical
	if c == nil {
		return
	}
	for _, r := range c.Rechecks {
		class := r.Class
		if class == "" {
			class = "no search"
		}
		fmt.Fprintf(w, "  re-checked with dmax %d: %s: %s\n", r.DMax, class, r.Reason)
	}
	switch c.Class {
	case liveness.C1:
		fmt.Fprintf(w, "critical transition (C1): step %d: %s\n  after it no random walk of %d steps becomes live; the live path with the longest common prefix took: %s\n",
			c.Step, c.DeadEvent, rep.Settings.DMax, c.LiveEvent)
		fmt.Fprintf(w, "  state diff of %d node(s): %s; live path: %s\n", len(c.Diff), filepath.Join(dir, results.FileStateDiff), filepath.Join(dir, results.FileLivePath))
	default:
		fmt.Fprintf(w, "no critical transition (C2): %s\n", c.Reason)
	}
	fmt.Fprintf(w, "  critical-transition walks: %d, %s\n", c.Walks, report.WalksFrom(c.WalksFrom))
}

// replayLiveness re-runs a liveness path and writes its event log.
func (a *app) replayLiveness(name, logFile string) (int, error) {
	r, err := pipeline.ReplayLiveness(a.reg, name)
	if err != nil {
		return ExitError, err
	}
	text := strings.Join(r.Lines, "\n") + "\n"
	status := ExitOK
	if r.Finding {
		status = ExitFinding
	}
	if logFile == "" {
		_, werr := io.WriteString(a.stdout, text)
		return status, werr
	}
	if err := atomicfile.WriteBytes(logFile, []byte(text)); err != nil {
		return ExitError, err
	}
	pf := r.Path
	fmt.Fprintf(a.stdout, "replayed the liveness path %s (%s/%s%s, %d nodes, %d steps); event log in %s\n", name, pf.System, pf.Variant, paramsNote(pf.Params), pf.Nodes, pf.Path.Steps, logFile)
	return status, nil
}

// goMemoryLimit is the Go runtime's soft memory limit (debug.SetMemoryLimit)
// for a liveness search capped at maxMemory bytes (0: no cap, no limit):
// the cap counts the search's visited sets and tree only, and without a
// limit the garbage collector let the whole process grow to nearly twice
// the cap (bench/RESULTS.md, "Liveness depth: fingerprints without fmt").
// A GOMEMLIMIT the user set (gomemlimit, its value) wins: then it is 0.
func goMemoryLimit(maxMemory int64, gomemlimit string) int64 {
	if maxMemory <= 0 || gomemlimit != "" {
		return 0
	}
	return maxMemory + maxMemory/4 + 64<<20
}

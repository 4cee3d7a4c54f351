package cli

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
	"github.com/macepc/macepc/traceevent"
)

// namedFile is a file a command reads or writes, with the flag that
// names it.
type namedFile struct{ flag, path string }

// checkOutputs refuses an output file that names an input file (the
// same file, also through a symbolic or a hard link: pipeline.SameFile),
// which writing the output would destroy, or that names another output.
// An empty path is no file.
func checkOutputs(outputs, inputs []namedFile) error {
	for i, o := range outputs {
		if o.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && (o.path == in.path || pipeline.SameFile(o.path, in.path)) {
				return fmt.Errorf("%s %s is the file %s %s: writing it would destroy what it reads (choose another file)", o.flag, o.path, in.flag, in.path)
			}
		}
		for _, o2 := range outputs[:i] {
			if o2.path != "" && (o.path == o2.path || pipeline.SameFile(o.path, o2.path)) {
				return fmt.Errorf("%s %s and %s %s are the same file (choose two)", o2.flag, o2.path, o.flag, o.path)
			}
		}
	}
	return nil
}

func (a *app) replay(args []string) (int, error) {
	fs := a.flags("replay")
	pathFile := fs.String("path", "", "path file to replay (written by simulate and the search phases)")
	runDir := fs.String("run", "", "instead of --path: a simulate results directory, with --index")
	index := fs.Int("index", -1, "with --run: the execution index to replay")
	logFile := fs.String("log", "", "write the event log here (default: standard output)")
	branch := fs.Int("branch-at", -1, "replay the first N steps of the path, then continue with --branch-seed")
	branchSeed := fs.Uint64("branch-seed", 0, "seed of the continuation after --branch-at")
	savePath := fs.String("save-path", "", "write the replayed (possibly branched) path to this path file")
	traceDir := fs.String("trace", "", "instead of --path: replay the real runs recorded by 'live' in this directory (a run-NNN directory or the directory of them), checking the system's safety properties after every event")
	traceSteps := fs.Int("steps", 0, "with --trace: replay only the first N events")
	traceStates := fs.Bool("states", false, "with --trace: print every node's state after the last event replayed")
	traceOptional := fs.StringArray("safety", nil, "with --trace: also check this optional property (repeatable)")
	traceOut := fs.String("out", "", "with --trace: write the explore.html of a run with a finding under this directory, as DIR/run-NNN/explore.html (default: in the run's trace directory)")
	traceFile := fs.String("trace-events", "", "also write the execution as Chrome trace-event JSON to this file, for ui.perfetto.dev or chrome://tracing (a track per node, handlers as slices, messages as flows)")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("replay takes no arguments, got %q", fs.Args())
	}
	if *traceDir != "" {
		for _, f := range []string{"path", "run", "index", "log", "branch-at", "branch-seed", "save-path", "trace-events"} {
			if fs.Changed(f) {
				return ExitError, fmt.Errorf("--trace replays real runs; --%s goes with --path or --run", f)
			}
		}
		if *traceSteps < 0 {
			return ExitError, fmt.Errorf("--steps must be positive, got %d", *traceSteps)
		}
		return a.replayTrace(*traceDir, *traceSteps, *traceOptional, *traceStates, *traceOut)
	}
	for _, f := range []string{"steps", "states", "safety", "out"} {
		if fs.Changed(f) {
			return ExitError, fmt.Errorf("--%s goes with --trace DIR", f)
		}
	}
	if *index >= 0 && *runDir == "" {
		return ExitError, fmt.Errorf("--index goes with --run DIR")
	}
	if *runDir != "" && *index < 0 {
		return ExitError, fmt.Errorf("--run %s needs --index I, the execution to replay (its index in %s)", *runDir, filepath.Join(*runDir, results.FileExecutions))
	}
	if fs.Changed("branch-at") && *branch < 0 {
		return ExitError, fmt.Errorf("--branch-at must be a step >= 0, got %d", *branch)
	}
	if fs.Changed("branch-seed") && *branch < 0 {
		return ExitError, fmt.Errorf("--branch-seed goes with --branch-at STEP")
	}
	inputs := []namedFile{{"--path", *pathFile}}
	if *runDir != "" {
		inputs = append(inputs, namedFile{"--run", filepath.Join(*runDir, results.FileSimulate)})
	}
	if err := checkOutputs([]namedFile{{"--log", *logFile}, {"--save-path", *savePath}}, inputs); err != nil {
		return ExitError, err
	}
	if *pathFile != "" && *runDir == "" && pipeline.IsLivenessPath(*pathFile) {
		if *branch >= 0 || *savePath != "" || *traceFile != "" {
			return ExitError, fmt.Errorf("%s is a liveness path: --branch-at, --save-path and --trace-events replay the paths of the performance pipeline only (a liveness path has steps, not times)", *pathFile)
		}
		return a.replayLiveness(*pathFile, *logFile)
	}
	var pf *timedsim.PathFile
	var err error
	switch {
	case *pathFile != "" && *runDir != "":
		return ExitError, fmt.Errorf("give --path or --run, not both")
	case *pathFile != "":
		pf, err = pipeline.ReadPathFile(*pathFile)
	case *runDir != "":
		pf, err = pipeline.PathFromRun(*runDir, *index)
	default:
		return ExitError, fmt.Errorf("replay needs --path FILE (or --run DIR --index I)")
	}
	if err != nil {
		return ExitError, err
	}
	r, err := pipeline.Replay(a.ctx, a.reg, pf, *branch, *branchSeed)
	if err != nil {
		return ExitError, err
	}
	res := r.Result
	branched := ""
	if *branch >= 0 {
		branched = fmt.Sprintf("; the path's first %d steps, then a branch with --branch-seed %d", *branch, *branchSeed)
	}
	if *logFile != "" {
		if err := atomicfile.Write(*logFile, func(w io.Writer) error { return timedsim.WriteEventLog(w, r.Header, res) }); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "replayed %s variant=%s nodes=%d%s: %s, exec time %s, %d steps; event log in %s\n",
			pf.System, pf.Variant, pf.Nodes, branched, res.Outcome, units.Duration(res.ExecTime), res.Steps, *logFile)
	} else {
		if err := timedsim.WriteEventLog(a.stdout, r.Header, res); err != nil {
			return ExitError, err
		}
		if branched != "" { // stdout is the event log: say it on stderr
			fmt.Fprintf(a.stderr, "%s: replayed %s%s: %s, exec time %s, %d steps\n", a.name, pf.System, branched, res.Outcome, units.Duration(res.ExecTime), res.Steps)
		}
	}
	if *savePath != "" {
		if err := pipeline.WritePathFile(*savePath, r.Target, r.Path, "replay of "+pf.Note); err != nil {
			return ExitError, err
		}
	}
	if *traceFile != "" {
		m := traceevent.Meta{Title: fmt.Sprintf("%s %s, %d nodes, path %s%s", pf.System, pf.Variant, pf.Nodes, r.Header.Path, branched), Nodes: pf.Nodes}
		if err := atomicfile.Write(*traceFile, func(w io.Writer) error { return traceevent.Write(w, m, res.Events) }); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stderr, "%s: trace events in %s (open it in ui.perfetto.dev or chrome://tracing)\n", a.name, *traceFile)
	}
	if f := pipeline.Finding(res); f != "" {
		fmt.Fprintf(a.stderr, "%s: FINDING: %s\n", a.name, f)
		if p := cmp.Or(res.Panic, res.DescribePanic); p != nil {
			fmt.Fprint(a.stderr, p.Stack)
		}
		return ExitFinding, nil
	}
	return ExitOK, nil
}

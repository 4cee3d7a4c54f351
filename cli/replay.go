package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/timedsim"
)

func (a *app) replay(args []string) (int, error) {
	fs := a.flags("replay")
	pathFile := fs.String("path", "", "path file to replay (written by simulate and the search phases)")
	runDir := fs.String("run", "", "instead of --path: a simulate results directory, with --index")
	index := fs.Int("index", -1, "with --run: the execution index to replay")
	logFile := fs.String("log", "", "write the event log here (default: standard output)")
	branch := fs.Int("branch-at", -1, "replay the first N steps of the path, then continue with --branch-seed")
	branchSeed := fs.Uint64("branch-seed", 0, "seed of the continuation after --branch-at")
	savePath := fs.String("save-path", "", "write the replayed (possibly branched) path to this path file")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("replay takes no arguments, got %q", fs.Args())
	}
	if *index >= 0 && *runDir == "" {
		return ExitError, fmt.Errorf("--index goes with --run DIR")
	}
	if fs.Changed("branch-seed") && *branch < 0 {
		return ExitError, fmt.Errorf("--branch-seed goes with --branch-at STEP")
	}
	if *pathFile != "" && *runDir == "" && isLivenessPath(*pathFile) {
		return a.replayLiveness(*pathFile, *logFile)
	}
	var pf *timedsim.PathFile
	var err error
	switch {
	case *pathFile != "" && *runDir != "":
		return ExitError, fmt.Errorf("give --path or --run, not both")
	case *pathFile != "":
		pf, err = readPathFile(*pathFile)
	case *runDir != "":
		pf, err = a.pathFromRun(*runDir, *index)
	default:
		return ExitError, fmt.Errorf("replay needs --path FILE (or --run DIR --index I)")
	}
	if err != nil {
		return ExitError, err
	}
	sys, sc, err := a.pathScenario(pf.System, pf.Variant, pf.Nodes, pf.Params)
	if err != nil {
		return ExitError, err
	}
	opts, err := pf.Options()
	if err != nil {
		return ExitError, err
	}
	if err := pf.Check(sc, opts); err != nil {
		return ExitError, err
	}
	p := pf.Path()
	if *branch >= 0 {
		p = p.Branch(*branch, *branchSeed)
	}
	opts.Record = true
	sim, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		return ExitError, err
	}
	res := sim.RunContext(a.ctx, p)
	if res.Outcome == timedsim.Interrupted {
		return ExitError, fmt.Errorf("replay interrupted at step %d; nothing written", res.Steps)
	}
	h := timedsim.LogHeader{System: pf.System, Variant: pf.Variant, Nodes: pf.Nodes, ConfigHash: pf.ConfigHash, Params: pf.Params, Path: p}
	if *logFile != "" {
		if err := atomicfile.Write(*logFile, func(w io.Writer) error { return timedsim.WriteEventLog(w, h, res) }); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "replayed %s variant=%s nodes=%d: %s, exec time %s, %d steps; event log in %s\n",
			pf.System, pf.Variant, pf.Nodes, res.Outcome, timedsim.FormatTime(res.ExecTime), res.Steps, *logFile)
	} else if err := timedsim.WriteEventLog(a.stdout, h, res); err != nil {
		return ExitError, err
	}
	if *savePath != "" {
		rs := &resolved{sys: sys, variant: pf.Variant, sc: sc, opts: opts}
		rs.opts.Record = false
		if err := a.writePath(*savePath, rs, p, "replay of "+pf.Note); err != nil {
			return ExitError, err
		}
	}
	if f := finding(res); f != "" {
		fmt.Fprintf(a.stderr, "macepc: FINDING: %s\n", f)
		if res.Panic != nil {
			fmt.Fprint(a.stderr, res.Panic.Stack)
		}
		return ExitFinding, nil
	}
	return ExitOK, nil
}

func readPathFile(name string) (*timedsim.PathFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--path: %w", err)
	}
	defer f.Close()
	pf, err := timedsim.ReadPathFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pf, nil
}

// pathFromRun rebuilds execution index's path file from a simulate
// results directory.
func (a *app) pathFromRun(dir string, index int) (*timedsim.PathFile, error) {
	b, err := os.ReadFile(filepath.Join(dir, "simulate.json"))
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	var m simulateMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("--run: malformed simulate.json: %w", err)
	}
	if m.Format != "macepc-simulate" || m.Version != 1 {
		return nil, fmt.Errorf("--run: %s is not a version-1 simulate.json", dir)
	}
	if index < 0 || index >= m.Completed {
		return nil, fmt.Errorf("--index %d out of range: the run has executions 0..%d", index, m.Completed-1)
	}
	if m.Template == nil {
		return nil, fmt.Errorf("--run: %s/simulate.json has no path template", dir)
	}
	pf := *m.Template
	pf.Segments = timedsim.Seeded(m.Seed)(index).Segments
	pf.Note = fmt.Sprintf("simulate seed=%d execution %d", m.Seed, index)
	return &pf, nil
}

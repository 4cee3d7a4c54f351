package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

func summarize(lines []SimLine) *TimeSummary {
	if len(lines) == 0 {
		return nil
	}
	x := make([]float64, len(lines))
	fin := 0
	for i, l := range lines {
		x[i] = time.Duration(l.ExecTimeNS).Seconds()
		if l.Finished {
			fin++
		}
	}
	sort.Float64s(x)
	q := func(p float64) float64 { return round9(stat.Quantile(p, stat.LinInterp, x, nil)) }
	return &TimeSummary{Count: len(x), Finished: fin, MinS: x[0], Q1S: q(0.25), MedianS: q(0.5), Q3S: q(0.75), MaxS: x[len(x)-1]}
}

// clearSimulate removes the path files of an earlier run in out, which
// would be mistaken for this run's.
func clearSimulate(d *Dir) error {
	old, _ := filepath.Glob(d.File(results.FindingPathGlob))
	for _, f := range append(old, d.File(results.FileSlowest)) {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
		}
	}
	return nil
}

// SimulateConfig configures the explorer's plain run (Simulate).
type SimulateConfig struct {
	Env
	Target *Target
	// Seed is the base seed: execution i is SeedPath(ExecutionSeed(Seed, i)).
	Seed uint64
	// Runs is the number of executions.
	Runs int
}

func (c *SimulateConfig) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	switch {
	case c.Target == nil:
		return errors.New("no target to simulate (SimulateConfig.Target)")
	}
	return c.Validate()
}

// SimulateResult is what Simulate wrote.
type SimulateResult struct {
	File *SimulateFile
	// Lines are the executions in index order (executions.jsonl, with
	// their findings).
	Lines []SimLine
	// Slowest is the index of the slowest execution, whose path file is
	// slowest.path.json (-1: no execution).
	Slowest int
	// Findings are the executions with a finding (a panic or a safety
	// violation), each with its path file (FindingPath).
	Findings []SimLine
	// Warnings are about the configuration: a --scale label that none
	// of the executions ran.
	Warnings []string
}

// Simulate runs the explorer: cfg.Runs executions of cfg.Target in index
// order, and writes executions.jsonl, simulate.json (with the five-number
// summary of the execution times), slowest.path.json and a path file per
// execution with a finding (FindingPath). Interrupted, it writes the
// executions finished before the first unfinished index and returns them
// with the error.
func Simulate(ctx context.Context, cfg SimulateConfig) (res *SimulateResult, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	release, err := cfg.Dir.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	if err := clearSimulate(cfg.Dir); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	lines, runErr := simulateExecs(ctx, cfg.Env, cfg.Target, cfg.Seed, shard.Spec{Index: 0, Count: 1}, cfg.Runs, seen)
	if errors.Is(runErr, timedsim.ErrNondeterministic) {
		return nil, runErr
	}
	res, err = writeSimulate(cfg.Dir, cfg.Target, cfg.Seed, cfg.Runs, lines)
	if err != nil {
		return nil, err
	}
	res.Warnings = unscaledWarning(cfg.Target.Options.EDD, seen, "the executions")
	if runErr != nil || len(lines) < cfg.Runs {
		return res, interruption(ctx, "interrupted after %d of %d executions; the finished ones are in %s", len(lines), cfg.Runs, cfg.Dir.File(results.FileExecutions))
	}
	return res, nil
}

// simulateExecs runs shard sp's share of executions 0..runs-1 (all for
// 0/1) in index order; on interruption, the ones finished before the
// first unfinished index.
// The labels the executions ran go into seen, if not nil.
func simulateExecs(ctx context.Context, env Env, t *Target, seed uint64, sp shard.Spec, runs int, seen map[string]bool) ([]SimLine, error) {
	ex := env.explorer(t, t.Options)
	n := sp.Len(runs)
	lines := make([]SimLine, 0, initialCap(n))
	path := timedsim.Seeded(seed)
	prog := start(env.Progress, PhaseSimulate, n)
	_, _, err := ex.Run(ctx, timedsim.Work{
		N: n, Path: func(j int) timedsim.Path { return path(sp.Global(j)) },
		Each: func(j int, r *timedsim.Result) bool {
			lines = append(lines, SimLine{ExecLine: results.ExecLine{Index: sp.Global(j), Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
				Finished: r.Finished, Outcome: r.Outcome}, Finding: Finding(r)})
			if seen != nil {
				for l := range r.Counts {
					seen[l] = true
				}
			}
			prog.Add(1, "")
			return true
		},
	})
	prog.Done()
	return lines, err
}

// writeSimulate writes simulate's files for executions 0..len(lines)-1
// of a run of runs.
func writeSimulate(d *Dir, t *Target, seed uint64, runs int, lines []SimLine) (*SimulateResult, error) {
	done := len(lines)
	// executions.jsonl and simulate.json, atomically.
	if err := d.write(results.FileExecutions, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for _, l := range lines {
			if err := enc.Encode(l.ExecLine); err != nil {
				return err
			}
		}
		return bw.Flush()
	}); err != nil {
		return nil, err
	}
	sum := summarize(lines)
	tmpl, err := t.pathFile(timedsim.Seeded(seed)(0), fmt.Sprintf("simulate seed=%d execution 0", seed))
	if err != nil {
		return nil, err
	}
	meta := &SimulateFile{Template: tmpl, Header: results.NewHeader(results.FormatSimulate, t.System.Name, t.Variant, t.Scenario.Nodes, seed), Runs: runs, Completed: done, ConfigHash: timedsim.ConfigHash(t.System.Name, t.Variant, t.Scenario, t.Options), Summary: sum}
	if err := d.writeJSON(results.FileSimulate, meta); err != nil {
		return nil, err
	}
	res := &SimulateResult{File: meta, Lines: lines, Slowest: -1}
	if sum != nil {
		slow := 0
		for i, l := range lines {
			if l.ExecTimeNS > lines[slow].ExecTimeNS {
				slow = i
			}
		}
		if err := writePath(d.File(results.FileSlowest), t, timedsim.SeedPath(lines[slow].Seed), fmt.Sprintf("simulate seed=%d execution %d (slowest)", seed, slow)); err != nil {
			return nil, err
		}
		res.Slowest = slow
	}
	for i, l := range lines {
		if l.Finding == "" {
			continue
		}
		if err := writePath(d.File(results.FindingPath(i)), t, timedsim.SeedPath(l.Seed), fmt.Sprintf("simulate seed=%d execution %d: %s", seed, i, l.Finding)); err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, l)
	}
	return res, nil
}

// PathFromRun rebuilds the path file of execution index of a simulate
// results directory.
func PathFromRun(dir string, index int) (pf *timedsim.PathFile, err error) {
	defer wrapErr(&err)
	b, err := readlimit.ReadJSONFile(filepath.Join(dir, results.FileSimulate), readlimit.MaxJSONFile)
	if err != nil {
		return nil, configErr("PathFromRun.dir", nil, "{PathFromRun.dir}: %w", err)
	}
	var m SimulateFile
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, configErr("PathFromRun.dir", nil, "{PathFromRun.dir}: malformed simulate.json: %w", err)
	}
	if m.Format != results.FormatSimulate || m.Version != 1 {
		return nil, configErr("PathFromRun.dir", nil, "{PathFromRun.dir}: %s is not a version-1 simulate.json", dir)
	}
	if index < 0 || index >= m.Completed {
		return nil, fieldErr("PathFromRun.index", "%d out of range: the run has executions 0..%d", index, m.Completed-1)
	}
	if m.Template == nil {
		return nil, configErr("PathFromRun.dir", nil, "{PathFromRun.dir}: %s/simulate.json has no path template", dir)
	}
	p := *m.Template
	p.Segments = timedsim.Seeded(m.Seed)(index).Segments
	p.Note = fmt.Sprintf("simulate seed=%d execution %d", m.Seed, index)
	return &p, nil
}

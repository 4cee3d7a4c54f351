package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// execLine is one line of executions.jsonl.
type execLine struct {
	Index      int    `json:"index"`
	Seed       uint64 `json:"seed"`
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Finished   bool   `json:"finished"`
	Outcome    string `json:"outcome"`
}

// simulateMeta is DIR/simulate.json: what was run, so that every
// execution of executions.jsonl can be replayed (--run DIR --index I).
type simulateMeta struct {
	Format     string       `json:"format"`
	Version    int          `json:"version"`
	System     string       `json:"system"`
	Variant    string       `json:"variant"`
	Nodes      int          `json:"nodes"`
	Seed       uint64       `json:"seed"`
	Runs       int          `json:"runs"`
	Completed  int          `json:"completed"`
	ConfigHash string       `json:"config_hash"`
	Summary    *timeSummary `json:"summary,omitempty"`
	// Template is the path file of execution 0; execution i's is the same
	// with the segments of SeedPath(ExecutionSeed(Seed, i)).
	Template *timedsim.PathFile `json:"template"`
}

// timeSummary is the five-number summary of execution times. Quartiles
// use gonum stat.Quantile with stat.LinInterp (Hyndman–Fan type 4: linear
// interpolation of the empirical CDF with p(k) = k/n).
type timeSummary struct {
	Count    int     `json:"count"`
	Finished int     `json:"finished"`
	MinS     float64 `json:"min_s"`
	Q1S      float64 `json:"q1_s"`
	MedianS  float64 `json:"median_s"`
	Q3S      float64 `json:"q3_s"`
	MaxS     float64 `json:"max_s"`
}

func summarize(lines []simLine) *timeSummary {
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
	return &timeSummary{Count: len(x), Finished: fin, MinS: x[0], Q1S: q(0.25), MedianS: q(0.5), Q3S: q(0.75), MaxS: x[len(x)-1]}
}

func round9(v float64) float64 {
	d := time.Duration(v*1e9 + 0.5)
	return d.Seconds()
}

func (a *app) simulate(args []string) (int, error) {
	fs := a.flags("simulate")
	var sf simFlags
	sf.register(fs)
	runs := fs.Int("runs", 100, "number of executions")
	out := fs.String("out", "macepc-out", "results directory")
	shardFlag := fs.String("shard", "", shardUsage)
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("simulate takes no arguments, got %q", fs.Args())
	}
	if *runs < 1 {
		return ExitError, fmt.Errorf("--runs must be at least 1, got %d", *runs)
	}
	rs, err := a.resolve(&sf)
	if err != nil {
		return ExitError, err
	}
	sp, source, sharded, err := a.shardOf(*shardFlag)
	if err != nil {
		return ExitError, err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return ExitError, fmt.Errorf("--out: %w", err)
	}
	if sharded {
		return a.simulateShard(*out, rs, &sf, *runs, sp, source)
	}
	if err := clearSimulate(*out); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "macepc simulate: system=%s variant=%s%s nodes=%d seed=%d runs=%d semantics=%s exec-time=%s\n",
		rs.sys.Name, rs.variant, paramsNote(rs.sc.Params), rs.sc.Nodes, sf.seed, *runs, rs.opts.Semantics, rs.opts.ExecTime)

	ex := &timedsim.Explorer{Scenario: rs.sc, Options: rs.opts, Jobs: sf.jobs}
	lines, runErr := simulateExecs(a, ex, sf.seed, shard.Spec{Index: 0, Count: 1}, *runs)
	status, err := a.writeSimulate(*out, rs, sf.seed, *runs, lines)
	if err != nil {
		return ExitError, err
	}
	if runErr != nil || len(lines) < *runs {
		return ExitError, fmt.Errorf("interrupted after %d of %d executions; the finished ones are in %s", len(lines), *runs, filepath.Join(*out, "executions.jsonl"))
	}
	return status, nil
}

// clearSimulate removes the path files of an earlier run in out, which
// would be mistaken for this run's.
func clearSimulate(out string) error {
	old, _ := filepath.Glob(filepath.Join(out, "finding-*.path.json"))
	for _, f := range append(old, filepath.Join(out, "slowest.path.json")) {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// simLine is an execution of simulate: its executions.jsonl line and
// what is wrong with it beyond slowness (finding).
type simLine struct {
	execLine
	Finding string `json:"finding,omitempty"`
}

// simulateExecs runs shard sp's share of executions 0..runs-1 (all for
// 0/1) in index order; on interruption, the ones finished before the
// first unfinished index.
func simulateExecs(a *app, ex *timedsim.Explorer, seed uint64, sp shard.Spec, runs int) ([]simLine, error) {
	n := sp.Len(runs)
	lines := make([]simLine, 0, n)
	path := timedsim.Seeded(seed)
	_, _, err := ex.Run(a.ctx, timedsim.Work{
		N: n, Path: func(j int) timedsim.Path { return path(sp.Global(j)) },
		Each: func(j int, r *timedsim.Result) bool {
			lines = append(lines, simLine{execLine: execLine{Index: sp.Global(j), Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
				Finished: r.Finished, Outcome: r.Outcome.String()}, Finding: finding(r)})
			return true
		},
	})
	return lines, err
}

// writeSimulate writes simulate's files for executions 0..len(lines)-1
// of a run of runs and prints its report; the status is ExitFinding when
// an execution has a finding.
func (a *app) writeSimulate(out string, rs *resolved, seed uint64, runs int, lines []simLine) (int, error) {
	done := len(lines)
	// executions.jsonl and simulate.json, atomically.
	jsonl := filepath.Join(out, "executions.jsonl")
	if err := atomicfile.Write(jsonl, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for _, l := range lines {
			if err := enc.Encode(l.execLine); err != nil {
				return err
			}
		}
		return bw.Flush()
	}); err != nil {
		return ExitError, err
	}
	sum := summarize(lines)
	tmpl, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, timedsim.Seeded(seed)(0), fmt.Sprintf("simulate seed=%d execution 0", seed))
	if err != nil {
		return ExitError, err
	}
	meta := simulateMeta{Template: tmpl, Format: "macepc-simulate", Version: 1, System: rs.sys.Name, Variant: rs.variant, Nodes: rs.sc.Nodes,
		Seed: seed, Runs: runs, Completed: done, ConfigHash: timedsim.ConfigHash(rs.sys.Name, rs.variant, rs.sc, rs.opts), Summary: sum}
	if err := writeJSON(filepath.Join(out, "simulate.json"), meta); err != nil {
		return ExitError, err
	}
	if sum != nil {
		fmt.Fprintf(a.stdout, "execution time (s): count=%d finished=%d min=%.6f q1=%.6f median=%.6f q3=%.6f max=%.6f\n",
			sum.Count, sum.Finished, sum.MinS, sum.Q1S, sum.MedianS, sum.Q3S, sum.MaxS)
		writeHistogram(a.stdout, lines)
		slow := 0
		for i, l := range lines {
			if l.ExecTimeNS > lines[slow].ExecTimeNS {
				slow = i
			}
		}
		p := filepath.Join(out, "slowest.path.json")
		if err := a.writePath(p, rs, timedsim.SeedPath(lines[slow].Seed), fmt.Sprintf("simulate seed=%d execution %d (slowest)", seed, slow)); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "slowest: execution %d, %s, %d steps -> %s\n", slow, timedsim.FormatTime(time.Duration(lines[slow].ExecTimeNS)), lines[slow].Steps, p)
	}
	status := ExitOK
	for i, l := range lines {
		if l.Finding == "" {
			continue
		}
		p := filepath.Join(out, fmt.Sprintf("finding-%d.path.json", i))
		if err := a.writePath(p, rs, timedsim.SeedPath(l.Seed), fmt.Sprintf("simulate seed=%d execution %d: %s", seed, i, l.Finding)); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "FINDING: execution %d: %s\n  replay: macepc replay --path %s\n", i, l.Finding, p)
		status = ExitFinding
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d executions), %s\n", jsonl, done, filepath.Join(out, "simulate.json"))
	return status, nil
}

func (a *app) writePath(path string, rs *resolved, p timedsim.Path, note string) error {
	pf, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, p, note)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return timedsim.WritePathFile(w, pf) })
}

func writeJSON(path string, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b)
}

// jsonIndent is the JSON of every results file: indented, newline-ended.
func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// finding describes what is wrong with an execution beyond being slow: a
// panic in user code or a violated safety property ("" if nothing).
func finding(r *timedsim.Result) string {
	switch r.Outcome {
	case timedsim.Panicked:
		p := r.Panic
		if p.Where == "handler" {
			return fmt.Sprintf("handler panicked at step %d on %v in %q: %s", p.Step, p.Node, p.Label, p.Value)
		}
		return fmt.Sprintf("%s panicked at step %d: %s", p.Where, p.Step, p.Value)
	case timedsim.SafetyViolated:
		return fmt.Sprintf("safety property %q violated at step %d", r.Violation, r.Steps)
	}
	return ""
}

// writeHistogram prints the execution times in power-of-two bins, so that a
// rare slow mode (a recovery timer) stands out from the bulk at a glance.
func writeHistogram(w io.Writer, lines []simLine) {
	const unit = time.Millisecond
	bin := func(d time.Duration) int { // bin k holds [2^k, 2^(k+1)) ms; bin 0 also holds < 1 ms
		k := 0
		for v := d / unit; v > 1; v >>= 1 {
			k++
		}
		return k
	}
	counts := map[int]int{}
	lo, hi, most := 1<<30, 0, 0
	for _, l := range lines {
		k := bin(time.Duration(l.ExecTimeNS))
		counts[k]++
		lo, hi, most = min(lo, k), max(hi, k), max(most, counts[k])
	}
	fmt.Fprintln(w, "execution time histogram:")
	for k := lo; k <= hi; k++ {
		bar := (counts[k]*40 + most - 1) / most
		sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'g', 4, 64) + "s" }
		line := fmt.Sprintf("  [%7s, %7s) %5d %s", sec(unit<<k), sec(unit<<(k+1)), counts[k], strings.Repeat("#", bar))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

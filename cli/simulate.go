package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

func (a *app) simulate(args []string) (int, error) {
	fs := a.flags("simulate")
	var sf simFlags
	sf.register(fs, a.defaultSystem())
	runs := fs.Int("runs", 100, "number of executions")
	out := fs.String("out", "macepc-out", "results directory")
	shardFlag := fs.String("shard", "", shardUsage)
	progress := fs.String("progress", "auto", progressUsage)
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("simulate takes no arguments, got %q", fs.Args())
	}
	if err := (&pipeline.SimulateConfig{Env: pipeline.Env{Jobs: sf.jobs}, Runs: *runs}).Validate(); err != nil {
		return ExitError, err
	}
	t, err := a.resolve(&sf)
	if err != nil {
		return ExitError, err
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
	cfg := pipeline.SimulateConfig{Env: pipeline.Env{Dir: d, Jobs: sf.jobs, Progress: prog, CheckDeterminism: sf.checkDet}, Target: t, Seed: sf.seed, Runs: *runs}
	if sharded {
		a.printShardStart("simulate", t, sf.seed, *runs, sh)
		return a.shardDone(pipeline.SimulateShard(a.ctx, cfg, sh))
	}
	fmt.Fprintf(a.stdout, "%s simulate: system=%s variant=%s%s nodes=%d seed=%d runs=%d semantics=%s exec-time=%s\n",
		a.name, t.System.Name, t.Variant, paramsNote(t.Scenario.Params), t.Scenario.Nodes, sf.seed, *runs, t.Options.Semantics, t.Options.ExecTime)
	res, err := pipeline.Simulate(a.ctx, cfg)
	if res == nil {
		return ExitError, err
	}
	status := a.printSimulate(d, res)
	if err != nil { // interrupted: the finished executions are written
		return ExitError, err
	}
	return status, nil
}

// printSimulate prints what simulate wrote; the status is ExitFinding
// when an execution has a finding.
func (a *app) printSimulate(d *pipeline.Dir, res *pipeline.SimulateResult) int {
	for _, w := range res.Warnings {
		fmt.Fprintf(a.stderr, "%s: warning: %s\n", a.name, w)
	}
	if sum := res.File.Summary; sum != nil {
		outcomes := make([]timedsim.Outcome, len(res.Lines))
		for i, l := range res.Lines {
			outcomes[i] = l.Outcome
		}
		fmt.Fprintf(a.stdout, "execution time: count=%d finished=%d min=%s q1=%s median=%s q3=%s max=%s%s\n",
			sum.Count, sum.Finished, fmtS(sum.MinS), fmtS(sum.Q1S), fmtS(sum.MedianS), fmtS(sum.Q3S), fmtS(sum.MaxS), unfinishedNote(outcomes))
		writeHistogram(a.stdout, res.Lines)
		slow := res.Lines[res.Slowest]
		fmt.Fprintf(a.stdout, "slowest: execution %d, %s, %d steps -> %s\n", res.Slowest, fmtNS(slow.ExecTimeNS), slow.Steps, d.File(results.FileSlowest))
	}
	status := ExitOK
	for _, l := range res.Findings {
		fmt.Fprintf(a.stdout, "FINDING: execution %d: %s\n  replay: %s\n", l.Index, l.Finding, a.replayCommand(d.File(results.FindingPath(l.Index))))
		status = ExitFinding
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d executions), %s\n", d.File(results.FileExecutions), len(res.Lines), d.File(results.FileSimulate))
	return status
}

// writeHistogram prints the execution times in power-of-two bins, so that a
// rare slow mode (a recovery timer) stands out from the bulk at a glance.
func writeHistogram(w io.Writer, lines []pipeline.SimLine) {
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
		line := fmt.Sprintf("  [%8s, %8s) %5d %s", units.Duration(unit<<k), units.Duration(unit<<(k+1)), counts[k], strings.Repeat("#", bar))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

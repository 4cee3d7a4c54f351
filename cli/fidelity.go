package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/timedsim"
)

// hasTrace reports whether args give --trace (train and fidelity from
// real runs).
func hasTrace(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--trace" || strings.HasPrefix(a, "--trace=") {
			return true
		}
	}
	return false
}

// withTraceFlag documents --trace in train's help (the flag itself
// switches to trainTrace before parsing).
func withTraceFlag(_ *pipelineFlags, fs *pflag.FlagSet) {
	fs.String("trace", "", "instead of simulating: train from the real handler times of the runs 'live' recorded in this directory ('macepc train --trace DIR --out DIR')")
}

// tracedRuns reads and replays every run under dir: the runs, their
// replays, and the scenario builder of their system.
func (a *app) tracedRuns(dir string) ([]*realnet.RunTrace, []*realnet.ReplayResult, func() (*timedsim.Scenario, error), error) {
	dirs, err := realnet.RunDirs(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	var runs []*realnet.RunTrace
	var reps []*realnet.ReplayResult
	var build func() (*timedsim.Scenario, error)
	var first realnet.Header
	for _, d := range dirs {
		rt, err := realnet.ReadRun(d)
		if err != nil {
			return nil, nil, nil, err
		}
		h := rt.Nodes[0].Header
		if build == nil {
			sys, err := a.lookupSystem(h.System)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", d, err)
			}
			first = h
			build = func() (*timedsim.Scenario, error) {
				return sys.ScenarioParams(h.Variant, h.Nodes, timedsim.Params(h.Params))
			}
		} else if h.System != first.System || h.Variant != first.Variant || h.Nodes != first.Nodes || fmt.Sprint(h.Params) != fmt.Sprint(first.Params) || h.TimeScale != first.TimeScale {
			return nil, nil, nil, fmt.Errorf("%s: runs of %s/%s with %d nodes and another of %s/%s with %d nodes (or other params or time scale): one scenario per directory", d, first.System, first.Variant, first.Nodes, h.System, h.Variant, h.Nodes)
		}
		sc, err := build()
		if err != nil {
			return nil, nil, nil, err
		}
		rep, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
		if err != nil {
			return nil, nil, nil, err
		}
		if rep.Nondeterminism != nil {
			return nil, nil, nil, fmt.Errorf("%s does not replay: %v (check it with replay --trace)", d, rep.Nondeterminism)
		}
		runs, reps = append(runs, rt), append(reps, rep)
	}
	return runs, reps, build, nil
}

// trainTrace is `train --trace DIR`: the EDD from real handler times.
func (a *app) trainTrace(args []string) (int, error) {
	fs := a.flags("train --trace")
	trace := fs.String("trace", "", "the real runs recorded by 'live' (a run-NNN directory or the directory of them)")
	out := fs.String("out", "macepc-out", "results directory: writes edd.json here")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("train --trace takes no arguments, got %q", fs.Args())
	}
	if *trace == "" {
		return ExitError, fmt.Errorf("--trace needs a directory")
	}
	runs, _, _, err := a.tracedRuns(*trace)
	if err != nil {
		return ExitError, err
	}
	times := realnet.HandlerTimes(runs)
	set, err := edd.Train(times, edd.DefaultSeed(), 0)
	if err != nil {
		return ExitError, err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return ExitError, err
	}
	file := filepath.Join(*out, "edd.json")
	if err := atomicfile.Write(file, func(w io.Writer) error { return edd.Write(w, set) }); err != nil {
		return ExitError, err
	}
	n := 0
	for _, s := range times {
		n += len(s)
	}
	fmt.Fprintf(a.stdout, "train --trace: %d real runs, %d handler times, %d labels trained -> %s\n", len(runs), n, len(times), file)
	return ExitOK, nil
}

// fidelity sets the real runs' execution times beside the simulator's
// prediction with the EDD trained from them and the fitted network.
func (a *app) fidelity(args []string) (int, error) {
	fs := a.flags("fidelity")
	trace := fs.String("trace", "", "the real runs recorded by 'live' with --time-scale 1 (a run-NNN directory or the directory of them)")
	runs := fs.Int("runs", 200, "simulated executions")
	seed := fs.Uint64("seed", 1, "base seed of the simulated executions")
	qq := fs.String("plot", "", "write the Q-Q plot (PNG) of real against simulated execution times here (default: "+realnet.FileQQ+" in the --trace directory)")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("fidelity takes no arguments, got %q", fs.Args())
	}
	if *trace == "" {
		return ExitError, fmt.Errorf("fidelity needs --trace DIR, the real runs to compare with")
	}
	if *runs < 1 {
		return ExitError, fmt.Errorf("--runs must be at least 1, got %d", *runs)
	}
	rts, reps, build, err := a.tracedRuns(*trace)
	if err != nil {
		return ExitError, err
	}
	h := rts[0].Nodes[0].Header
	if h.TimeScale != 1 {
		return ExitError, fmt.Errorf("%s was recorded with --time-scale %v: real handler and network times were not scaled with the timers, so they cannot be compared with a simulation (record with --time-scale 1)", *trace, h.TimeScale)
	}
	var real []time.Duration
	for i, rt := range rts {
		if d, ok := realnet.RealExecTime(rt, reps[i]); ok {
			real = append(real, d)
		}
	}
	set, err := edd.Train(realnet.HandlerTimes(rts), edd.DefaultSeed(), 0)
	if err != nil {
		return ExitError, err
	}
	net, err := realnet.FitNetwork(rts)
	if err != nil {
		return ExitError, err
	}
	f, err := realnet.CompareFidelity(a.ctx, realnet.FidelityConfig{Scenario: build, Real: real, EDD: set, Network: net, Runs: *runs, Seed: *seed})
	if err != nil {
		return ExitError, err
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }
	fmt.Fprintf(a.stdout, "fidelity: %s/%s, %d nodes: %d real runs (%d stopped) against %d simulated executions (%d finished)\n",
		h.System, h.Variant, h.Nodes, len(rts), len(real), *runs, len(f.Sim))
	fmt.Fprintf(a.stdout, "  network fitted from %d deliveries: send->arrival min %s, median %s, p90 %s, p99 %s; Pareto xm = median/2^(1/α) = %s, α = %g (not fitted); bandwidth not estimated (10 Gbit/s)\n",
		net.Samples, us(net.Min), us(net.Median), us(net.P90), us(net.P99), us(net.Latency), net.Shape)
	fmt.Fprintf(a.stdout, "  %-10s %12s %12s\n", "execution", "real", "simulated")
	for i, q := range []string{"median", "p90", "p99"} {
		fmt.Fprintf(a.stdout, "  %-10s %12s %12s\n", q, us(f.RealQ[i]), us(f.SimQ[i]))
	}
	fmt.Fprintf(a.stdout, "  Kolmogorov-Smirnov distance %.3f\n", f.KS)
	if slices.Max(f.Real) == slices.Min(f.Real) && len(f.Real) > 1 {
		fmt.Fprintln(a.stdout, "  (every real run took the same time)")
	}
	file := *qq
	if file == "" {
		file = filepath.Join(*trace, realnet.FileQQ)
	}
	title := fmt.Sprintf("%s/%s, %d nodes: %d real runs, %d simulated", h.System, h.Variant, h.Nodes, len(f.Real), len(f.Sim))
	if err := realnet.WriteQQPlot(file, f, title); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "  Q-Q plot: %s (%d quantiles; above the diagonal the real runs were slower)\n", file, len(realnet.QQ(f)))
	return ExitOK, nil
}

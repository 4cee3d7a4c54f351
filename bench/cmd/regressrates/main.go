// Command regressrates measures how often `macepc regress` fails: its
// detection rate on real regressions (RandTree buggy against a fixed
// baseline, and a 2× what-if slowdown of one handler) and its false
// positives on unchanged code profiled with another seed. The README's
// "CI regression gate" section quotes its table. Run it from the
// repository's root:
//
//	go run ./bench/cmd/regressrates [--detect-pairs 20] [--fp-pairs 100] [--runs 50] [--fp-runs 50] [--case SUBSTRING]
//
// Pair k profiles the baseline with seed k and runs the gate with seed
// k+1000, for k = 1 … pairs. It runs macepc's commands in process (the
// calls of package pipeline the binary makes) with committed event
// durations, so the table comes out the same on every run. The gate runs
// its current executions in batches until its verdict (sequential
// slow-rate test); the table gives how many it took.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// cases are the table's rows: detection at each of runs, then false
// positives at each of fpRuns (the baseline's executions; the gate runs
// as many current ones as its verdict needs).
func cases(runs, fpRuns []int, detect, fp int) []bench.RegressCase {
	rt := randtree.System()
	// The README's example: the seed distributions, under which 8% of the
	// buggy variant's executions take the 10 s recovery; and a trained
	// edd.json, under which 2.2% do (44 of 2,000).
	seedEDD, trainedEDD := "macepctest/testdata/edd.json", "systems/randtree/testdata/edd.json"
	var out []bench.RegressCase
	for _, n := range runs {
		out = append(out,
			bench.RegressCase{Name: fmt.Sprintf("detect buggy vs fixed, %d runs", n), System: rt, Base: "fixed", Current: "buggy", EDD: seedEDD, Runs: n, Pairs: detect, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("detect buggy vs fixed, trained, %d runs", n), System: rt, Base: "fixed", Current: "buggy", EDD: trainedEDD, Runs: n, Pairs: detect, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("detect what-if Join 2x, %d runs", n), System: rt, Base: "fixed", Current: "fixed", Scale: []string{"deliver Join=2"}, EDD: seedEDD, Runs: n, Pairs: detect, SeedOffset: 1000},
		)
	}
	for _, n := range fpRuns {
		out = append(out,
			bench.RegressCase{Name: fmt.Sprintf("same randtree fixed, %d runs", n), System: rt, Base: "fixed", Current: "fixed", EDD: seedEDD, Runs: n, Pairs: fp, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("same randtree fixed, trained, %d runs", n), System: rt, Base: "fixed", Current: "fixed", EDD: trainedEDD, Runs: n, Pairs: fp, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("same etcdraft prevote, %d runs", n), System: etcdraft.System(), Base: "prevote", Current: "prevote", EDD: "systems/etcdraft/testdata/election-prevote.edd.json", Runs: n, Pairs: fp, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("same randtree buggy, %d runs", n), System: rt, Base: "buggy", Current: "buggy", EDD: seedEDD, Runs: n, Pairs: fp, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("same pastry fixed, %d runs", n), System: pastry.System(), Base: "fixed", Current: "fixed", EDD: "systems/pastry/testdata/edd.json", Runs: n, Pairs: fp, SeedOffset: 1000},
			bench.RegressCase{Name: fmt.Sprintf("same pingpong, %d runs", n), System: pingpong.System(), Nodes: 4, Base: "default", Current: "default", EDD: seedEDD, Runs: n, Pairs: fp, SeedOffset: 1000},
		)
	}
	return out
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("regressrates", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	detect := fs.Int("detect-pairs", 20, "seed pairs of each detection row")
	fp := fs.Int("fp-pairs", 100, "seed pairs of each false-positive row")
	runs := fs.IntSlice("runs", []int{50}, "executions of the baseline in the detection rows")
	fpRuns := fs.IntSlice("fp-runs", []int{50}, "executions of the baseline in the false-positive rows")
	only := fs.StringSlice("case", nil, "only the rows whose name contains one of these")
	jobs := fs.Int("jobs", 0, "workers (0: all cores; changes no figure)")
	work := fs.String("work", "", "keep the commands' results in this directory (default: a temporary one, removed)")
	quiet := fs.Bool("quiet", false, "do not print a line per row as it finishes")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("regressrates: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("regressrates: unexpected argument %q", fs.Arg(0))
	}
	cfg := bench.RegressConfig{Jobs: *jobs, Work: *work}
	for _, c := range cases(*runs, *fpRuns, *detect, *fp) {
		keep := len(*only) == 0
		for _, o := range *only {
			keep = keep || strings.Contains(c.Name, o)
		}
		if keep {
			cfg.Cases = append(cfg.Cases, c)
		}
	}
	if len(cfg.Cases) == 0 {
		return fmt.Errorf("regressrates: no row matches --case %q", *only)
	}
	if cfg.Work == "" {
		dir, err := os.MkdirTemp("", "macepc-regressrates-")
		if err != nil {
			return fmt.Errorf("regressrates: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.Work = dir
	} else if err := os.MkdirAll(cfg.Work, 0o755); err != nil {
		return fmt.Errorf("regressrates: %w", err)
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	rates, err := bench.RunRegressRates(ctx, cfg, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Pair k: baseline seed k, current seed k+1000, k = 1 … pairs.\n\n")
	bench.WriteRegressRates(stdout, rates)
	return nil
}

// Command significance measures the anomaly verdict: for each
// bundled system variant, with its committed event durations, it simulates
// a pool of executions once, resamples searches from it as phases 1b and 2
// run them, and prints a Markdown table: in how many searches MacePC's
// fence flags an execution, and in how many the significance test finds an
// anomaly. On correct code (pingpong, the millisecond election, the
// randomized backoff, the fixed variants, etcd raft with PreVote) every
// flag of the fence is a false alarm; on the buggy variants every miss of
// the test is. Run it from the repository's root:
//
//	go run ./bench/cmd/significance [--searches 200] [--pool 5000] [--case randtree-buggy,elect-correct]
//
// The searches resample one pool, so they are not independent: a pool's
// rare extreme executions recur in about Searches·(ProfileRuns+explored)/Pool
// of them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/elect"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// cases are the measured configurations, correct ones first.
func cases() []bench.SignificanceCase {
	const s = "systems/"
	rejoin := timedsim.Params{"scenario": "rejoin"}
	return []bench.SignificanceCase{
		{Name: "pingpong", System: pingpong.System(), EDD: s + "pingpong/testdata/edd.json"},
		{Name: "elect-correct", System: elect.System(), Variant: "correct", EDD: s + "elect/testdata/edd.json"},
		{Name: "backoff", System: backoff.System(), EDD: s + "backoff/testdata/edd.json"},
		{Name: "backoff-together", System: backoff.System(), Params: timedsim.Params{"spread": "0s"}, EDD: s + "backoff/testdata/edd.json"},
		{Name: "randtree-fixed", System: randtree.System(), Variant: "fixed", EDD: s + "randtree/testdata/edd.json"},
		{Name: "chord-fixed", System: chord.System(), Variant: "fixed", EDD: s + "chord/testdata/edd.json"},
		{Name: "bamboo-fixed", System: bamboo.System(), Variant: "fixed", EDD: s + "bamboo/testdata/edd.json"},
		{Name: "pastry-fixed-gap", System: pastry.System(), Variant: "fixed-gap", EDD: s + "pastry/testdata/edd.json"},
		{Name: "etcdraft-prevote", System: etcdraft.System(), Variant: "prevote", EDD: s + "etcdraft/testdata/election-prevote.edd.json"},
		{Name: "etcdraft-prevote-rejoin", System: etcdraft.System(), Variant: "prevote", Params: rejoin, EDD: s + "etcdraft/testdata/rejoin-prevote.edd.json"},
		{Name: "bullet-fixed", System: bullet.System(), Variant: "fixed", EDD: s + "bullet/testdata/edd.json"},
		{Name: "elect-early-elected", System: elect.System(), Variant: "early-elected", EDD: s + "elect/testdata/edd.json", Bug: true},
		{Name: "randtree-buggy", System: randtree.System(), Variant: "buggy", EDD: s + "randtree/testdata/edd.json", Bug: true},
		{Name: "chord-buggy", System: chord.System(), Variant: "buggy", EDD: s + "chord/testdata/edd.json", Bug: true},
		{Name: "chord-join-race", System: chord.System(), Variant: "join-race", EDD: s + "chord/testdata/edd.json", Bug: true},
		{Name: "pastry-buggy", System: pastry.System(), Variant: "buggy", EDD: s + "pastry/testdata/edd.json", Bug: true},
		{Name: "pastry-fixed (the paper's fix, a residual gap)", System: pastry.System(), Variant: "fixed", EDD: s + "pastry/testdata/edd.json", Bug: true},
		{Name: "bamboo-buggy", System: bamboo.System(), Variant: "buggy", EDD: s + "bamboo/testdata/edd.json", Bug: true},
		{Name: "etcdraft-no-prevote-rejoin", System: etcdraft.System(), Variant: "no-prevote", Params: rejoin, EDD: s + "etcdraft/testdata/rejoin-no-prevote.edd.json", Bug: true},
		{Name: "bullet-diff-drop", System: bullet.System(), Variant: "diff-drop", EDD: s + "bullet/testdata/edd.json", Bug: true},
		{Name: "bullet-join-reject", System: bullet.System(), Variant: "join-reject", EDD: s + "bullet/testdata/edd.json", Bug: true},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("significance", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := bench.SignificanceConfig{ProfileRuns: 50, MaxRuns: 1000, TriageRun: 200, Alpha: 0.01, Seed: 1}
	fs.IntVar(&cfg.Pool, "pool", 5000, "executions simulated per case")
	fs.IntVar(&cfg.Searches, "searches", 200, "searches resampled per case")
	fs.IntVar(&cfg.Jobs, "jobs", 0, "workers (0: all cores)")
	only := fs.StringSlice("case", nil, "only these cases (by name)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("significance: %w", err)
	}
	for _, c := range cases() {
		if len(*only) == 0 || slices.Contains(*only, c.Name) {
			cfg.Cases = append(cfg.Cases, c)
		}
	}
	if len(cfg.Cases) == 0 {
		return fmt.Errorf("significance: no case named %v", *only)
	}
	res, err := bench.RunSignificance(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Command: `go run ./bench/cmd/significance --pool %d --searches %d` (seed %d, α = %g, %d profile executions, search of at most %d with %d to triage)\n\n",
		cfg.Pool, cfg.Searches, cfg.Seed, cfg.Alpha, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRun)
	bench.WriteSignificance(stdout, cfg, res)
	return nil
}

// Command stability measures how much of macepc's answer survives a fresh
// training: for each system it runs the README's main
// job, training included, --runs times with the same flags, and prints a
// Markdown table per system: the anomaly's classes, the divergence event
// and whether it is a step of the bug (where the system has a way to tell),
// and whether a label of the bug is among the top 3 correlations. Run it
// from the repository's root:
//
//	go run ./bench/cmd/stability [--runs 10] [--system randtree,chord] [--work DIR]
//
// Training measures this machine's real handler times, so the tables are
// not the same on two runs: that is what they measure.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/chord"
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

// bugSteps are the ways to tell the bug's steps in a recorded execution,
// by bench.PaperSystem.Key; the silent bugs of Pastry, Bamboo and Chord's
// buggy variant have none yet (chord.FindRace is the join-race variant's).
var bugSteps = map[string]func([]timedsim.TimedEvent) []int{
	"randtree":        func(ev []timedsim.TimedEvent) []int { return randtree.FindRace(ev).All() },
	"chord/join-race": func(ev []timedsim.TimedEvent) []int { return chord.FindRace(ev).Steps },
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("stability", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 10, "fresh runs per system")
	seed := fs.Int("seed", 1, "the runs' --seed")
	jobs := fs.Int("jobs", 0, "workers (0: all cores)")
	only := fs.StringSlice("system", nil, "only these systems (default: randtree, pastry, bamboo, chord)")
	work := fs.String("work", "", "keep the runs' results in this directory (default: a temporary one, removed)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("stability: %w", err)
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "macepc-stability-")
		if err != nil {
			return fmt.Errorf("stability: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("stability: %w", err)
	}
	for _, s := range bench.PaperSystems() {
		name := s.System.Name
		if len(*only) > 0 && !slices.Contains(*only, name) {
			continue
		}
		cfg := bench.StabilityConfig{System: s, BugSteps: bugSteps[s.Key()], Variant: s.BugVariant(), Seed: *seed, Runs: *runs, Jobs: *jobs, Work: dir}
		start := time.Now()
		res, err := bench.RunStability(ctx, cfg, stderr)
		if err != nil {
			return err
		}
		bench.WriteStability(stdout, cfg, res, time.Since(start))
	}
	return nil
}

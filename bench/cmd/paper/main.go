// Command paper measures what bench/PAPER.md sets beside the MacePC
// paper's reported results, and prints the tables as Markdown. Run it from
// the repository's root:
//
//	go run ./bench/cmd/paper [--runs 2000] [--seeds 10] [--max-runs 500] [--work DIR] [--wall]
//
// It runs macepc's commands in process, as the calls of package pipeline
// the binary makes, with each system's committed event durations, so its tables
// come out the same on every run and can be diffed against the "Measured
// tables" section of bench/PAPER.md to see what a change moved. --wall
// adds the wall-clock times, which vary. It takes about two minutes on two
// cores.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("paper", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := bench.PaperConfig{Systems: bench.PaperSystems()}
	fs.IntVar(&cfg.Runs, "runs", 2000, "executions per distribution")
	fs.IntVar(&cfg.Seeds, "seeds", 10, "seeds 1 … N of the pipeline runs")
	fs.IntVar(&cfg.MaxRuns, "max-runs", 500, "search budget of the fixed variants")
	fs.IntVar(&cfg.Jobs, "jobs", 0, "workers (0: all cores; changes no figure)")
	only := fs.StringSlice("system", nil, "only these systems (default: all)")
	work := fs.String("work", "", "keep the commands' results in this directory (default: a temporary one, removed)")
	quiet := fs.Bool("quiet", false, "do not print the commands as they run")
	wall := fs.Bool("wall", false, "add the wall-clock times of the pipeline runs (they vary)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("paper: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("paper: unexpected argument %q", fs.Arg(0))
	}
	if len(*only) > 0 {
		var keep []bench.PaperSystem
		for _, name := range *only {
			found := false
			for _, s := range cfg.Systems {
				if s.System.Name == name {
					keep, found = append(keep, s), true
				}
			}
			if !found {
				return fmt.Errorf("paper: no system %q (randtree, pastry, bamboo, chord)", name)
			}
		}
		cfg.Systems = keep
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "macepc-paper-")
		if err != nil {
			return fmt.Errorf("paper: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.Work = dir
	} else {
		if err := os.MkdirAll(*work, 0o755); err != nil {
			return fmt.Errorf("paper: %w", err)
		}
		cfg.Work = *work
	}
	progress := stderr
	if *quiet {
		progress = nil
	}
	res, err := bench.RunPaper(ctx, cfg, progress)
	if err != nil {
		return err
	}
	bench.WritePaperTables(stdout, cfg, res)
	if *wall {
		fmt.Fprintln(stdout)
		bench.WriteWallClock(stdout, cfg, res)
	}
	return nil
}

package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// ExplorerConfig is an exploration workload: Runs executions of a system.
type ExplorerConfig struct {
	System  timedsim.System
	Variant string
	Nodes   int
	Runs    int
	Jobs    int
	Seed    uint64
	Options timedsim.Options
}

// ExplorerResult is what one exploration did and how long it took.
type ExplorerResult struct {
	Executions int
	Events     int64
	Elapsed    time.Duration
}

// ExecutionsPerSec is the exploration rate.
func (r ExplorerResult) ExecutionsPerSec() float64 {
	return float64(r.Executions) / r.Elapsed.Seconds()
}

// EventsPerSec is the simulation rate over all workers.
func (r ExplorerResult) EventsPerSec() float64 { return float64(r.Events) / r.Elapsed.Seconds() }

// RunExplorer runs the workload once.
func RunExplorer(ctx context.Context, cfg ExplorerConfig) (ExplorerResult, error) {
	sc, err := cfg.System.Scenario(cfg.Variant, cfg.Nodes)
	if err != nil {
		return ExplorerResult{}, err
	}
	ex := &timedsim.Explorer{Scenario: sc, Options: cfg.Options, Jobs: cfg.Jobs}
	var events int64
	start := time.Now()
	_, done, err := ex.Run(ctx, timedsim.Work{N: cfg.Runs, Path: timedsim.Seeded(cfg.Seed),
		Each: func(_ int, r *timedsim.Result) bool { events += int64(r.Steps); return true }})
	elapsed := time.Since(start)
	if err != nil {
		return ExplorerResult{}, err
	}
	if done != cfg.Runs {
		return ExplorerResult{}, fmt.Errorf("bench: explorer finished %d of %d executions", done, cfg.Runs)
	}
	return ExplorerResult{Executions: done, Events: events, Elapsed: elapsed}, nil
}

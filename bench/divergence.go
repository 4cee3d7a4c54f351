package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/timedsim"
)

// DivergenceConfig is the phase-3a workload: profile a system, find an
// anomalous execution of at least MinSteps steps, then time the divergence
// search on it.
type DivergenceConfig struct {
	System      timedsim.System
	Variant     string
	Nodes       int
	Seed        uint64
	ProfileRuns int // executions of the profile (Q3, threshold)
	MaxRuns     int // search budget for the anomaly
	MinSteps    int // the anomaly must have at least this many steps
	Walks       int // k
	Jobs        int
	Options     timedsim.Options
}

// DivergenceCase is an anomalous execution to analyse.
type DivergenceCase struct {
	Scenario  *timedsim.Scenario
	Path      timedsim.Path
	Index     int
	Steps     int
	ExecTime  time.Duration
	Median    time.Duration
	Q3        time.Duration
	Threshold time.Duration
}

// FindAnomaly runs the profile (Tukey's fence and 1.5× the median, as
// `macepc run` does) and the search.
func FindAnomaly(ctx context.Context, cfg DivergenceConfig) (*DivergenceCase, error) {
	sc, err := cfg.System.Scenario(cfg.Variant, cfg.Nodes)
	if err != nil {
		return nil, err
	}
	ex := &timedsim.Explorer{Scenario: sc, Options: cfg.Options, Jobs: cfg.Jobs}
	res, done, err := ex.Run(ctx, timedsim.Work{N: cfg.ProfileRuns, Path: timedsim.Seeded(cfg.Seed), Keep: true})
	if err != nil || done < cfg.ProfileRuns {
		return nil, fmt.Errorf("bench: profile: %d of %d executions (%v)", done, cfg.ProfileRuns, err)
	}
	times := make([]time.Duration, len(res))
	for i, r := range res {
		times[i] = r.ExecTime
	}
	prof, err := anomaly.NewProfile(times, 0, anomaly.MildOutliers)
	if err != nil {
		return nil, err
	}
	if err := prof.RequireSlowdown(1.5); err != nil {
		return nil, err
	}
	sr, err := anomaly.Search(ctx, ex, timedsim.Seeded(cfg.Seed+1), anomaly.SearchConfig{MaxRuns: cfg.MaxRuns},
		func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) && r.Steps >= cfg.MinSteps }, nil)
	if err != nil {
		return nil, err
	}
	if !sr.Found {
		return nil, fmt.Errorf("bench: no anomaly of %d+ steps in %d executions", cfg.MinSteps, cfg.MaxRuns)
	}
	return &DivergenceCase{Scenario: sc, Path: sr.Result.Path, Index: sr.Index, Steps: sr.Result.Steps,
		ExecTime: sr.Result.ExecTime, Median: prof.Median, Q3: prof.Q3, Threshold: prof.Threshold}, nil
}

// DivergenceResult is what one divergence search did and how long it took.
type DivergenceResult struct {
	Step, TotalSteps int
	Probes           int
	Executions       int
	Events           int64
	Elapsed          time.Duration
}

// RunDivergence times divergence.Find on the case with the walk criterion
// of `macepc diverge` (divergence.NewCriterion).
func RunDivergence(ctx context.Context, cfg DivergenceConfig, c *DivergenceCase) (DivergenceResult, error) {
	ex := &timedsim.Explorer{Scenario: c.Scenario, Options: cfg.Options, Jobs: cfg.Jobs}
	crit, err := divergence.NewCriterion(c.Median, c.Q3, c.Threshold, c.ExecTime)
	if err != nil {
		return DivergenceResult{}, err
	}
	var events int64
	start := time.Now()
	rep, err := divergence.Find(ctx, divergence.Config{Explorer: ex, Walks: cfg.Walks, Confirm: divergence.DefaultConfirm, Seed: cfg.Seed + 2,
		Recovers: func(r *timedsim.Result) bool { return crit.Recovered(r.Finished, r.ExecTime) },
		Each:     func(_, _ int, r *timedsim.Result) { events += int64(r.Steps) }}, c.Path, c.Steps)
	elapsed := time.Since(start)
	if err != nil {
		return DivergenceResult{}, err
	}
	return DivergenceResult{Step: rep.Step, TotalSteps: rep.TotalSteps, Probes: len(rep.Probes), Executions: rep.Executions, Events: events, Elapsed: elapsed}, nil
}

package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/timedsim"
)

// SignificanceCase is one configuration of the verdict's measurement: a
// system variant with committed event durations, and whether its slow
// executions are a bug (recall) or its normal variance (precision).
type SignificanceCase struct {
	Name    string
	System  timedsim.System
	Variant string
	Params  timedsim.Params
	EDD     string
	Bug     bool
}

// SignificanceConfig is the verdict's measurement: for each
// case, Pool executions are simulated once, then Searches searches are
// resampled from them, each as phase 1b and 2 run one: a ProfileRuns
// profile and its fence (the default thresholds), then executions until
// the first above the fence and TriageRuns more (look 1), and, when look 1
// finds nothing significant, on to MaxRuns (look 2), each look at α/2
// (anomaly.Significance, the network model's tail index as its floor). The
// critical path's draw veto is not applied: the figures are the
// statistical test's alone.
type SignificanceConfig struct {
	Cases                           []SignificanceCase
	Pool, Searches                  int
	ProfileRuns, MaxRuns, TriageRun int
	Alpha                           float64
	Seed                            uint64
	Jobs                            int
}

// SignificanceResult is one case's outcome: in how many searches the
// fence flagged something (MacePC's verdict) and the test found an
// anomaly, and at which look.
type SignificanceResult struct {
	Case                   SignificanceCase
	Searches, Fence, Found int
	FoundLook1, FoundLook2 int
	PoolMedian, PoolMax    time.Duration
	MedianExplored         int
}

// RunSignificance runs the measurement; progress, if not nil, gets a line
// per case.
func RunSignificance(ctx context.Context, cfg SignificanceConfig, progress io.Writer) ([]SignificanceResult, error) {
	if progress == nil {
		progress = io.Discard
	}
	if cfg.Pool < cfg.ProfileRuns+cfg.MaxRuns || cfg.Searches < 1 {
		return nil, fmt.Errorf("bench: significance: a pool of %d cannot hold a profile of %d and a search of %d", cfg.Pool, cfg.ProfileRuns, cfg.MaxRuns)
	}
	var out []SignificanceResult
	for _, c := range cfg.Cases {
		sc, err := c.System.ScenarioParams(c.Variant, 0, c.Params)
		if err != nil {
			return nil, fmt.Errorf("bench: significance: %s: %w", c.Name, err)
		}
		set, err := edd.ReadFile(c.EDD)
		if err != nil {
			return nil, fmt.Errorf("bench: significance: %s: %w (run from the repository's root)", c.Name, err)
		}
		ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set}, Jobs: cfg.Jobs}
		pool := make([]time.Duration, 0, cfg.Pool)
		_, done, err := ex.Run(ctx, timedsim.Work{N: cfg.Pool, Path: timedsim.Seeded(cfg.Seed), Each: func(_ int, r *timedsim.Result) bool {
			pool = append(pool, r.ExecTime)
			return true
		}})
		if err != nil || done < cfg.Pool {
			return nil, fmt.Errorf("bench: significance: %s: %d of %d executions: %v", c.Name, done, cfg.Pool, err)
		}
		minShape := 1 / sc.Network.WithDefaults().ParetoShape
		res := SignificanceResult{Case: c, Searches: cfg.Searches}
		sorted := slices.Clone(pool)
		slices.Sort(sorted)
		res.PoolMedian, res.PoolMax = sorted[len(sorted)/2], sorted[len(sorted)-1]
		var explored []int
		for s := 0; s < cfg.Searches; s++ {
			fence, found, look, n := resampledSearch(pool, uint64(s), cfg, minShape)
			if fence {
				res.Fence++
			}
			if found {
				res.Found++
				if look == 1 {
					res.FoundLook1++
				} else {
					res.FoundLook2++
				}
			}
			explored = append(explored, n)
		}
		slices.Sort(explored)
		res.MedianExplored = explored[len(explored)/2]
		fmt.Fprintf(progress, "%s: fence %d, found %d of %d searches\n", c.Name, res.Fence, res.Found, res.Searches)
		out = append(out, res)
	}
	return out, nil
}

// resampledSearch is one search drawn from the pool (a random order of it,
// from seed): whether the fence flagged anything, whether the test found
// an anomaly and at which look, and how many executions it explored.
func resampledSearch(pool []time.Duration, seed uint64, cfg SignificanceConfig, minShape float64) (fence, found bool, look, explored int) {
	r := rand.New(rand.NewPCG(seed, 0x5157))
	perm := r.Perm(len(pool))
	at := func(i int) time.Duration { return pool[perm[i]] }
	prof := make([]time.Duration, cfg.ProfileRuns)
	for i := range prof {
		prof[i] = at(i)
	}
	p, err := anomaly.NewProfile(prof, 0, anomaly.MildOutliers)
	if err != nil {
		panic(err) // a pool of finished executions
	}
	_ = p.RequireSlowdown(pipeline.DefaultMinSlowdown)
	_ = p.RequireExcess(time.Millisecond) // one link latency of the default network
	searched := make([]time.Duration, 0, cfg.MaxRuns)
	var cands []anomaly.Candidate
	first := -1
	judge := func(n, lookNo, looks int) bool {
		var cs []anomaly.Candidate
		for _, c := range cands {
			if c.Index < n {
				cs = append(cs, c)
			}
		}
		res := anomaly.Significance(prof, searched[:n], cs, anomaly.SignificanceConfig{Alpha: cfg.Alpha / float64(looks), Tail: anomaly.TailConfig{MinShape: minShape}})
		return res.Cut > 0
	}
	for i := 0; i < cfg.MaxRuns; i++ {
		d := at(cfg.ProfileRuns + i)
		searched = append(searched, d)
		if d > p.Threshold {
			cands = append(cands, anomaly.Candidate{Index: i, ExecTime: d})
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return false, false, 0, cfg.MaxRuns
	}
	look1 := min(cfg.MaxRuns, first+1+cfg.TriageRun)
	looks := 1
	if look1 < cfg.MaxRuns {
		looks = 2
	}
	if judge(look1, 1, looks) {
		return true, true, 1, look1
	}
	if looks == 2 && judge(cfg.MaxRuns, 2, looks) {
		return true, true, 2, cfg.MaxRuns
	}
	return true, false, 0, cfg.MaxRuns
}

// WriteSignificance renders the results as a Markdown table.
func WriteSignificance(w io.Writer, cfg SignificanceConfig, res []SignificanceResult) {
	fmt.Fprintf(w, "| case | slow executions are | pool median (max) | fence flags | anomaly found | at look 1 / 2 | executions searched (median) |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range res {
		kind := "normal variance"
		if r.Case.Bug {
			kind = "a bug"
		}
		fmt.Fprintf(w, "| %s | %s | %s (%s) | %d of %d | %d of %d | %d / %d | %d |\n", r.Case.Name, kind, units.Duration(r.PoolMedian), units.Duration(r.PoolMax),
			r.Fence, r.Searches, r.Found, r.Searches, r.FoundLook1, r.FoundLook2, r.MedianExplored)
	}
}

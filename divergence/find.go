package divergence

import (
	"context"
	"fmt"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// DefaultWalks is the number of random walks per probe when Config.Walks
// is 0. The paper does not say which k it used; 20 walks find a recovering
// continuation whose probability is 15% with probability 96%.
const DefaultWalks = 20

// Config configures Find.
type Config struct {
	// Explorer holds the scenario, the simulator options and the number of
	// workers: the k walks of one probe run in parallel on it.
	Explorer *timedsim.Explorer
	// Walks is k, the number of random walks per probe (DefaultWalks when
	// 0).
	Walks int
	// Seed is the base seed of the walks (see WalkSeed).
	Seed uint64
	// Recovers is the criterion a walk must meet to count as recovered;
	// MacePC uses "ExecTime <= the profile's Q3".
	Recovers func(*timedsim.Result) bool
	// Each, if set, sees every walk result that counts — the walks of each
	// probe up to and including its first recovering walk, or all k — in
	// a deterministic order: probe order, then walk index. Phase 3b
	// correlates these executions. Each and Recovers are called from one
	// goroutine at a time; each result is a fresh value that they may
	// keep.
	Each func(prefix, walk int, r *timedsim.Result)
}

// ProbeRecord is what one probe ran.
type ProbeRecord struct {
	// Prefix is the number of steps of the anomalous path replayed.
	Prefix int
	// Walks is the number of walks run and counted: RecoveredWalk+1 when
	// a walk recovered, otherwise k (fewer if Interrupted).
	Walks int
	// Recovered says some walk met the criterion.
	Recovered bool
	// RecoveredWalk is the index of the first recovering walk, -1 if none.
	RecoveredWalk int
	// ExecTimes are the execution times of the counted walks, in walk
	// order.
	ExecTimes []time.Duration
	// Interrupted says the probe did not finish (its run returned an
	// error, usually because ctx was cancelled): its counted walks are in
	// Walks and ExecTimes, and Recovered is false. Only the last record of
	// a report can be interrupted.
	Interrupted bool
}

// Report is the outcome of Find.
type Report struct {
	// Step is the divergence step: the longest prefix from which some
	// walk recovers. Replaying steps 0..Step-1 and continuing at random
	// can still recover; replaying steps 0..Step (one more) cannot, in k
	// walks: the event at 0-based step Step is the divergence point.
	// Step == TotalSteps means the anomalous execution itself meets the
	// criterion (it is not anomalous by Recovers). Step == -1 means no
	// walk recovers even from prefix 0, a fresh execution: the slowness
	// is not due to a rare choice.
	Step int
	// TotalSteps is the number of steps of the anomalous execution, as
	// passed to Find.
	TotalSteps int
	// IgnorableFraction is Step/TotalSteps: the share of the anomalous
	// execution before the divergence point, which the developer may skip
	// (0 when Step < 0 or TotalSteps == 0).
	IgnorableFraction float64
	// Similar is the recovering walk from prefix Step: the fast execution
	// with the longest common prefix with the anomalous one. Its path is
	// anomalous.Branch(Step, WalkSeed(seed, Step, SimilarWalk)). Nil when
	// Step < 0.
	Similar *timedsim.Result
	// SimilarWalk is Similar's walk index, -1 when Step < 0.
	SimilarWalk int
	// Walks is k, the number of walks per probe.
	Walks int
	// Probes lists the probes in call order.
	Probes []ProbeRecord
	// Executions is the number of walks simulated and counted in total
	// (the sum of Probes[i].Walks). A probe stops at its first recovering
	// walk, but walks already running on other workers finish and are
	// neither counted nor shown to Config.Each.
	Executions int
}

// WalkSeed is the seed of walk j of the probe at prefix p:
// ExecutionSeed(ExecutionSeed(base, p), j), splitmix64 mixing of all
// three. The walk's path is anomalous.Branch(p, WalkSeed(base, p, j)), so
// any walk of a report can be re-run alone.
func WalkSeed(base uint64, p, j int) uint64 {
	return timedsim.ExecutionSeed(timedsim.ExecutionSeed(base, p), j)
}

// Find runs divergence detection (MacePC phase 3a) on an anomalous
// execution: Search over prefixes 0..totalSteps of the path anomalous,
// where the probe at prefix p runs up to k walks
// anomalous.Branch(p, WalkSeed(cfg.Seed, p, j)), j = 0..k-1, in parallel
// on cfg.Explorer, and recovers if one of them meets cfg.Recovers. A probe
// counts its walks in index order and stops at the first recovering one,
// so the report does not depend on the number of workers. totalSteps is
// normally the anomalous execution's Result.Steps.
//
// On error — ctx cancelled, or the explorer failing to build a simulator —
// Find returns the error (starting "divergence: ") and a partial report:
// Probes and Executions cover what ran, and Step is the longest prefix
// known to recover so far (a lower bound), with its Similar walk. An
// anomalous path that is not valid is an error. Find panics on caller
// bugs: a nil Explorer or Recovers, Walks < 0, totalSteps < 0.
func Find(ctx context.Context, cfg Config, anomalous timedsim.Path, totalSteps int) (*Report, error) {
	switch {
	case cfg.Explorer == nil:
		panic("divergence: Find with a nil Config.Explorer")
	case cfg.Recovers == nil:
		panic("divergence: Find with a nil Config.Recovers")
	case cfg.Walks < 0:
		panic(fmt.Sprintf("divergence: Find with %d walks per probe", cfg.Walks))
	case totalSteps < 0:
		panic(fmt.Sprintf("divergence: Find over %d steps", totalSteps))
	}
	if err := anomalous.Validate(); err != nil {
		return nil, fmt.Errorf("divergence: anomalous path: %w", err)
	}
	k := cfg.Walks
	if k == 0 {
		k = DefaultWalks
	}
	rep := &Report{Step: -1, TotalSteps: totalSteps, SimilarWalk: -1, Walks: k}
	// recovered holds each recovering probe's first recovering walk:
	// O(log totalSteps) results.
	recovered := make(map[int]*timedsim.Result)
	oracle := func(ctx context.Context, p int) (bool, error) {
		rec := ProbeRecord{Prefix: p, RecoveredWalk: -1, ExecTimes: make([]time.Duration, 0, k)}
		var first *timedsim.Result
		_, done, err := cfg.Explorer.Run(ctx, timedsim.Work{
			N:    k,
			Path: func(j int) timedsim.Path { return anomalous.Branch(p, WalkSeed(cfg.Seed, p, j)) },
			Each: func(j int, r *timedsim.Result) bool {
				rec.ExecTimes = append(rec.ExecTimes, r.ExecTime)
				if cfg.Each != nil {
					cfg.Each(p, j, r)
				}
				if cfg.Recovers(r) {
					rec.Recovered, rec.RecoveredWalk, first = true, j, r
					return false
				}
				return true
			},
		})
		rec.Walks = done
		rep.Executions += done
		if err != nil {
			rec.Recovered, rec.RecoveredWalk, rec.Interrupted = false, -1, true
			rep.Probes = append(rep.Probes, rec)
			return false, err
		}
		rep.Probes = append(rep.Probes, rec)
		if first != nil {
			recovered[p] = first
		}
		return rec.Recovered, nil
	}
	sr, err := Search(ctx, totalSteps, oracle)
	rep.Step = sr.Last
	if rep.Step >= 0 {
		rep.Similar = recovered[rep.Step]
		for _, pr := range rep.Probes {
			if pr.Prefix == rep.Step {
				rep.SimilarWalk = pr.RecoveredWalk
			}
		}
		if totalSteps > 0 {
			rep.IgnorableFraction = float64(rep.Step) / float64(totalSteps)
		}
	}
	return rep, err
}

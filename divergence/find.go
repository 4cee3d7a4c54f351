package divergence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// DefaultWalks is the number of random walks per probe when Config.Walks
// is 0. The paper does not say which k it used.
const DefaultWalks = 20

// DefaultConfirm is the number of confirmation walks the command line
// asks for (Config.Confirm): with the k = 20 walks, a probe runs 100
// before it calls a prefix doomed, so it misses a recovery probability of
// 5% with probability 0.6% (20 walks: 36%). See the package
// documentation, "Confirmation".
const DefaultConfirm = 80

// Config configures Find.
type Config struct {
	// Explorer holds the scenario, the simulator options and the number of
	// workers: the k walks of one probe run in parallel on it.
	Explorer *timedsim.Explorer
	// Walks is k, the number of random walks per probe (DefaultWalks when
	// 0).
	Walks int
	// Confirm is the number of confirmation walks a probe runs after its
	// k walks when none of them recovered, before it calls the prefix
	// doomed: 0 for none (MacePC's probe), as everywhere in macepc a
	// count of 0 is none; DefaultConfirm is the command line's.
	Confirm int
	// Deadline, if positive, cuts the confirmation walks short at this
	// simulated time (timedsim.Options.Deadline): a walk still running
	// then cannot meet Recovers. Callers set it to the criterion's limit.
	Deadline time.Duration
	// Seed is the base seed of the walks (see WalkSeed).
	Seed uint64
	// Recovers is the criterion a walk must meet to count as recovered
	// (MacePC: "ExecTime <= the profile's Q3"; see Criterion).
	Recovers func(*timedsim.Result) bool
	// MinRecovered is how many of a probe's k walks must recover for the
	// prefix to recover (0 or 1: one, MacePC's probe, with the
	// confirmation walks). More asks whether recovery is likely from the
	// prefix rather than possible: with k/2 the divergence point is where
	// half the continuations stop recovering (see "Time budget" in the
	// package documentation). A probe with MinRecovered > 1 runs no
	// confirmation walks.
	MinRecovered int
	// Each, if set, sees the walks among the first k of each probe that
	// count — up to and including its first recovering walk, or all k —
	// in a deterministic order: probe order, then walk index (never a
	// confirmation walk, which may be cut short). Phase 3b
	// correlates these executions. Each and Recovers are called from one
	// goroutine at a time; each result is a fresh value that they may
	// keep.
	Each func(prefix, walk int, r *timedsim.Result)
	// Replay makes every walk replay its prefix from step 0, as MacePC
	// does, even when the scenario's services can be snapshot. By default
	// a probe at a prefix p >= 1 of a scenario whose services implement
	// timedsim.Cloner simulates the prefix once (timedsim.SnapshotAt) and
	// forks its walks from there: the same results, without the k-fold
	// replay.
	Replay bool
}

// The modes of Report.Mode.
const (
	// ModeSnapshot: the walks of every probe at a prefix of at least one
	// step forked from a snapshot of the prefix.
	ModeSnapshot = "snapshot"
	// ModeReplay: every walk replayed its prefix from step 0 (Config.Replay,
	// or services that do not implement timedsim.Cloner).
	ModeReplay = "replay"
)

// ProbeRecord is what one probe ran.
type ProbeRecord struct {
	// Prefix is the number of steps of the anomalous path replayed.
	Prefix int
	// Walks is the number of walks run and counted: up to and including
	// the first recovering walk when the prefix recovered, otherwise k
	// plus the confirmation walks (fewer if Interrupted).
	Walks int
	// Recovered says some walk met the criterion.
	Recovered bool
	// RecoveredWalk is the index of the first recovering walk, -1 if none
	// (an index of k or more is a confirmation walk); with MinRecovered >
	// 1 the probe ran on to the MinRecovered-th.
	RecoveredWalk int
	// Recoveries counts the recovering walks among those counted.
	Recoveries int
	// ExecTimes are the execution times of the counted walks among the
	// first k, in walk order, then of a recovering confirmation walk; the
	// confirmation walks that did not recover are counted in Cut (they
	// may have been cut short at Config.Deadline).
	ExecTimes []time.Duration
	Cut       int
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
	// Walks is k, the number of walks per probe, and Confirm the
	// confirmation walks of a probe that none of its k walks recovered.
	Walks, Confirm int
	// Probes lists the probes in call order.
	Probes []ProbeRecord
	// Mode says how the walks reached their prefixes: ModeSnapshot or
	// ModeReplay. Replayed counts the probes at a prefix of at least one
	// step whose walks replayed it although the mode is ModeSnapshot (the
	// prefix could not be snapshot: timedsim.SnapshotAt's errors). The
	// walks' results are the same either way.
	Mode     string
	Replayed int
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
// on cfg.Explorer, and recovers if r = cfg.MinRecovered of them meet
// cfg.Recovers. A probe counts its walks in index order and stops at the
// r-th recovering one, so the report does not depend on the number of
// workers. totalSteps is normally the anomalous execution's Result.Steps.
//
// On error — ctx cancelled, or the explorer failing to build a simulator —
// Find returns the error (starting "divergence: ") and a partial report:
// Probes and Executions cover what ran, and Step is the longest prefix
// known to recover so far (a lower bound), with its Similar walk. An
// anomalous path that is not valid is an error. Find panics on caller
// bugs: a nil Explorer or Recovers, Walks < 0, MinRecovered outside
// [0, k], totalSteps < 0.
func Find(ctx context.Context, cfg Config, anomalous timedsim.Path, totalSteps int) (*Report, error) {
	switch {
	case cfg.Explorer == nil:
		panic("divergence: Find with a nil Config.Explorer")
	case cfg.Recovers == nil:
		panic("divergence: Find with a nil Config.Recovers")
	case cfg.Walks < 0:
		panic(fmt.Sprintf("divergence: Find with %d walks per probe", cfg.Walks))
	case cfg.Confirm < 0:
		panic(fmt.Sprintf("divergence: Find with %d confirmation walks", cfg.Confirm))
	case totalSteps < 0:
		panic(fmt.Sprintf("divergence: Find over %d steps", totalSteps))
	case cfg.MinRecovered < 0 || cfg.MinRecovered > max(cfg.Walks, DefaultWalks*boolInt(cfg.Walks == 0)):
		panic(fmt.Sprintf("divergence: Find with MinRecovered %d of %d walks", cfg.MinRecovered, cfg.Walks))
	}
	need := max(cfg.MinRecovered, 1)
	if err := anomalous.Validate(); err != nil {
		return nil, fmt.Errorf("divergence: anomalous path: %w", err)
	}
	k, confirm := cfg.Walks, cfg.Confirm
	if k == 0 {
		k = DefaultWalks
	}
	if need > 1 {
		confirm = 0
	}
	cut := *cfg.Explorer
	if cfg.Deadline > 0 {
		cut.Options.Deadline = cfg.Deadline
	}
	rep := &Report{Step: -1, TotalSteps: totalSteps, SimilarWalk: -1, Walks: k, Confirm: confirm, Mode: ModeReplay}
	if !cfg.Replay && timedsim.Forkable(cfg.Explorer.Scenario) {
		rep.Mode = ModeSnapshot
	}
	// snapshot is the state after the first p steps of the anomalous
	// execution on ex, nil when the walks replay them (prefix 0, whose
	// branch changes the driver's draws; ModeReplay; or a prefix that
	// cannot be snapshot, counted in Replayed).
	snapshot := func(ctx context.Context, ex *timedsim.Explorer, p int) (*timedsim.Snapshot, error) {
		if rep.Mode != ModeSnapshot || p < 1 {
			return nil, nil
		}
		sn, err := ex.Snapshot(ctx, anomalous, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rep.Replayed++
			return nil, nil
		}
		return sn, nil
	}
	// recovered holds each recovering probe's first recovering walk:
	// O(log totalSteps) results.
	recovered := make(map[int]*timedsim.Result)
	oracle := func(ctx context.Context, p int) (bool, error) {
		rec := ProbeRecord{Prefix: p, RecoveredWalk: -1, ExecTimes: make([]time.Duration, 0, min(k, 1024))}
		var first *timedsim.Result
		walk := func(j int) timedsim.Path { return anomalous.Branch(p, WalkSeed(cfg.Seed, p, j)) }
		from, err := snapshot(ctx, cfg.Explorer, p)
		if err != nil {
			rec.Interrupted = true
			rep.Probes = append(rep.Probes, rec)
			return false, err
		}
		// Once the probe has its answer, the walks still running (later
		// indexes, which the probe does not count) are interrupted
		// rather than run to their end: they change no result.
		walks, answered := context.WithCancel(ctx)
		_, done, err := cfg.Explorer.Run(walks, timedsim.Work{
			N:    k,
			Path: walk,
			From: from,
			Each: func(j int, r *timedsim.Result) bool {
				rec.ExecTimes = append(rec.ExecTimes, r.ExecTime)
				if cfg.Each != nil {
					cfg.Each(p, j, r)
				}
				if cfg.Recovers(r) {
					rec.Recoveries++
					if first == nil {
						first, rec.RecoveredWalk = r, j
					}
					if rec.Recoveries == need {
						rec.Recovered = true
						answered()
						return false
					}
				}
				return true
			},
		})
		answered()
		err = unanswered(ctx, err)
		rec.Walks = done
		if !rec.Recovered {
			first, rec.RecoveredWalk = nil, -1 // too few recovered
		}
		if err == nil && !rec.Recovered && confirm > 0 {
			// Confirmation walks k, k+1, …: only whether one recovers.
			// They run with a deadline, so from a snapshot of their own.
			if cut.Options != cfg.Explorer.Options {
				from, err = snapshot(ctx, &cut, p)
			}
			done = 0
			if err == nil {
				walks, answered := context.WithCancel(ctx)
				_, done, err = cut.Run(walks, timedsim.Work{
					N:    confirm,
					Path: func(i int) timedsim.Path { return walk(k + i) },
					From: from,
					Each: func(i int, r *timedsim.Result) bool {
						if cfg.Recovers(r) {
							rec.Recoveries++
							rec.Recovered, rec.RecoveredWalk, first = true, k+i, r
							rec.ExecTimes = append(rec.ExecTimes, r.ExecTime)
							answered()
							return false
						}
						rec.Cut++
						return true
					},
				})
				answered()
				err = unanswered(ctx, err)
			}
			rec.Walks += done
		}
		rep.Executions += rec.Walks
		if err != nil {
			rec.Recovered, rec.RecoveredWalk, rec.Interrupted = false, -1, true
			rep.Probes = append(rep.Probes, rec)
			return false, err
		}
		rep.Probes = append(rep.Probes, rec)
		if rec.Recovered {
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

// unanswered is the error of a probe's Explorer.Run on a context derived
// from ctx that the probe cancels once it has its answer: that
// cancellation, which only interrupts walks the probe does not count, is
// no error (Run returns none for it, as its Each stopped the work first;
// this keeps it so); ctx's own end, a failure and a nondeterminism are.
func unanswered(ctx context.Context, err error) error {
	if err != nil && ctx.Err() == nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

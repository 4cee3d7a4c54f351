// Package divergence finds where an anomalous execution goes wrong: MacePC's
// phase 3a, divergence detection (paper 004 §3.2 "Phase 3a: Divergence
// Detection", Figure 3), built on a generic exponential-then-binary prefix
// search that MaceMC's critical-transition search (paper 000 §3) reuses.
//
// Search is the generic part: given n and a monotone oracle "does some
// continuation from the first p steps recover?", it finds the longest
// recovering prefix with O(log n) oracle calls, never asking about the
// same prefix twice.
//
// Find is the MacePC part. The oracle for prefix p replays the first p
// steps of the anomalous execution and then runs up to k random walks
// (fresh random continuations) on a timedsim.Explorer; the prefix recovers
// if one walk meets the criterion, in MacePC "execution time ≤ Q3". The
// report gives the divergence step, the fraction of the execution that can
// be ignored, the recovering walk with the longest common prefix (the
// "similar fast execution") and every probe with its walks' execution
// times.
//
// # Usage
//
// Prefixes count steps, the 0-based events of an execution. Prefix p means
// steps 0..p-1 are replayed from the anomalous path and everything from
// step p on is drawn afresh: the walk's path is
// anomalous.Branch(p, seed). Prefix 0 replays nothing, not even the
// scenario driver's draws (which come from the first segment), so it is a
// fresh execution; prefix 1 replays the driver's schedule and step 0;
// prefix TotalSteps replays the whole anomalous execution.
//
// The divergence step D (Report.Step) is the longest recovering prefix:
// with steps 0..D-1 replayed some walk is still fast, with steps 0..D
// replayed none of the k walks is. Event number D (0-based) is therefore
// the one after which nothing recovers — the divergence point — and the
// first D events, a fraction D/TotalSteps (Report.IgnorableFraction), can
// be skipped when debugging. D = -1 means that no walk recovers even from
// a fresh execution, so the slowness is not due to a rare choice. D = 0
// means the execution was doomed by the driver's schedule or by step 0:
// the two cannot be told apart, because the driver draws from the first
// segment. (In the bundled RandTree scenario about half of the slow
// executions are of this kind — the join times alone make the race
// certain — and the others diverge 35 to 45 steps into some 180.) As the
// paper notes, D marks where the race finished being enqueued onto the
// pending events, not necessarily where it shows.
//
//	prof := …                // phase 1b: Q3 of the normal execution times
//	bad := …                 // phase 2: the anomalous *timedsim.Result
//	rep, err := divergence.Find(ctx, divergence.Config{
//		Explorer: &timedsim.Explorer{Scenario: sc, Options: opts},
//		Walks:    20,
//		Seed:     seed,
//		Recovers: func(r *timedsim.Result) bool { return r.Finished && r.ExecTime <= q3 },
//		Each:     func(p, j int, r *timedsim.Result) { corr.Add(r) }, // phase 3b
//	}, bad.Path, bad.Steps)
//	if err != nil { … } // rep is partial on cancellation
//	fmt.Printf("divergence at step %d of %d (%.0f%% ignorable)\n",
//		rep.Step, rep.TotalSteps, 100*rep.IgnorableFraction)
//	similar := rep.Similar.Path // replay with Options.Record to diff the logs
//
// # Criterion
//
// A walk recovers if its execution time is at most the third quartile Q3
// of the normal executions, not merely under the outlier threshold
// Q3 + 1.5·(Q3−Q1) that phase 2 uses to call an execution anomalous. The
// paper's reason: with the outlier threshold the search finds branches
// that are only slightly under it — executions that are almost as slow —
// which distract rather than help. Q3 makes the criterion stricter, which
// may move D earlier (less precision) but makes the prefix before D
// confidently safe to ignore. Find takes the criterion as a function so
// that callers can add conditions (Finished, no safety violation) or use
// another measure.
//
// # Cost
//
// Search makes at most 2·⌈log2(s+1)⌉+2 probes for an execution of s steps,
// and each probe runs at most k walks: O(k log s) executions, at most 640
// for k = 20 and s = 20 000. A recovering probe stops at its first
// recovering walk; a non-recovering one runs all k, in parallel on the
// explorer's workers (a probe that recovers may have simulated a few walks
// past the first recovering one, which are discarded).
//
// # Determinism
//
// Walk j of the probe at prefix p has the seed WalkSeed(Config.Seed, p, j),
// and a probe counts its walks in index order up to and including the first
// recovering one, whatever order the workers finish them in. The probes
// depend only on earlier probes' answers. So the report — step, probes,
// execution times, the similar execution — and the sequence of results
// shown to Config.Each are the same for any Explorer.Jobs, and the same on
// every run with the same scenario, options, seed, k and path. There is no
// package state.
package divergence

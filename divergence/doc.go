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
// if one walk meets the criterion (MacePC: "execution time ≤ Q3"; macepc:
// see Criterion below). The
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
//	prof := …                // phase 1b: median, Q3, threshold of the normal execution times
//	bad := …                 // phase 2: the anomalous *timedsim.Result
//	crit, err := divergence.NewCriterion(prof.Median, prof.Q3, prof.Threshold, bad.ExecTime)
//	rep, err := divergence.Find(ctx, divergence.Config{
//		Explorer: &timedsim.Explorer{Scenario: sc, Options: opts},
//		Walks:    20,
//		Confirm:  divergence.DefaultConfirm,
//		Seed:     seed,
//		Recovers: func(r *timedsim.Result) bool { return crit.Recovered(r.Finished, r.ExecTime) },
//		Each:     func(p, j int, r *timedsim.Result) { corr.Add(r) }, // phase 3b
//	}, bad.Path, bad.Steps)
//	if err != nil { … } // rep is partial on cancellation
//	fmt.Printf("divergence at step %d of %d (%.0f%% ignorable)\n",
//		rep.Step, rep.TotalSteps, 100*rep.IgnorableFraction)
//	similar := rep.Similar.Path // replay with Options.Record to diff the logs
//
// # Criterion
//
// MacePC counts a walk as recovered when its execution time is at most
// the third quartile Q3 of the normal executions, not merely under the
// outlier threshold that phase 2 uses to call an execution anomalous:
// with the threshold, the paper says, the search finds branches only
// slightly under it, almost as slow, which distract rather than help.
//
// Q3 is the wrong yardstick once a prefix is fixed. It is a property of
// the unconditional distribution: a quarter of all normal executions end
// after it. A probe replays a prefix, which fixes the boot times, the
// first messages' delays and every choice made so far, and only the rest
// of the execution varies. When the shared prefix happens to be a
// slightly slow one, every continuation of it ends a little after Q3
// although none is anomalous by any measure. Measured on the buggy
// RandTree (32 nodes): from a 64-step prefix, 19 of 20 walks took 0.5028
// to 0.513 s against a Q3 of 0.5024 s and a threshold of 0.748 s; all 20
// counted as "not recovered", and the search reported a meaningless
// divergence point among the nodes' start-up events. The longer the
// prefix, the less variance is left, so the error grows exactly where the
// search needs precision.
//
// NewCriterion uses instead
//
//	Limit = max(Q3, min(Threshold, √(Median·Anomaly)))
//
// A walk recovers when it finishes within Limit. The threshold is the
// definition of "normal" that made the execution anomalous in the first
// place, so the divergence point is where the execution stops being
// normal by that same definition, and a reader can check every call
// against the numbers phase 2 printed. The geometric mean of the median
// and the anomaly's time answers the paper's concern: a walk counts only
// if it is nearer, as a ratio, to the typical execution than to the
// anomaly under analysis, so an execution "almost as slow" never counts.
// For a 20× anomaly the threshold decides (√20 ≈ 4.5× the median lies
// above it); for an anomaly just over the threshold the geometric mean
// does. The criterion is never stricter than the paper's: a walk within
// Q3 always recovers. An anomaly that is a finding rather than slowness
// (a panic, a violated safety property) is not slower than the threshold,
// and its walks recover when they finish normally within the threshold.
//
// Find takes the criterion as a function, so that callers can add
// conditions (no safety violation) or use another measure; the report
// draws each probe's fastest walk against Q3, the threshold and Limit, so
// that a wrong call can be seen.
//
// # Confirmation
//
// "Some walk recovers" is a statistical statement. A prefix from which a
// random continuation recovers with probability 5% fails all of k = 20
// walks 36% of the time, and the binary search then stops at a step
// before the real divergence point, anywhere on a plateau of low but
// non-zero recovery. On the buggy RandTree, measured with 400 walks per
// prefix over one anomalous execution, the recovery probability was 93%
// up to the step that drew the racing node's boot time, 12% from there
// to the window opener's send, 2% until the racer's own send, and 0
// after it; 20 walks per probe reported the divergence point on the
// 12% plateau in 2 of 20 fresh runs.
//
// So a probe none of whose k walks recovered runs Config.Confirm more
// (DefaultConfirm, 80: 100 in all; 0: none) before it calls the prefix doomed: a
// recovery probability of 5% is then missed with probability 0.6%, one
// of 2% with probability 13%. Only whether a confirmation walk recovers
// matters, so they are cut short at Config.Deadline, the recovery limit
// (timedsim.Options.Deadline): a doomed walk costs the simulated time of
// a normal execution, not that of the anomaly, which for a recovery
// timer of 60 s is some hundred times less. Confirmation walks are not
// shown to Config.Each: they are not whole executions. A probe that
// recovers stops at its first recovering walk, as in MacePC.
//
// # Time budget
//
// The criterion is absolute: a walk must finish within Limit. A prefix
// that replays many steps has spent part of that budget, and late enough
// in a slow execution none is left: its walks fail because they start
// too late, not because its last step made things worse. A fixed-backoff
// duel between two proposers shows it: every round can still end the duel,
// so "some walk recovers" holds round after round until the rounds have
// used up the limit, and the search reports the round where time ran
// out, many steps after the collision that decided the duel.
//
// The pipeline checks for it (budgetBound): when the fastest walk from the
// prefix one step past the divergence point needed no more time after
// its prefix than the similar walk needed after its own, the point is
// where the budget ran out. It then searches again with MinRecovered =
// k/2, asking where recovery stops being likely rather than possible,
// and reports that step, saying why. MinRecovered > 1 runs no
// confirmation walks: a probe's count of recoveries among k walks is the
// estimate it needs.
//
// # Cost
//
// Search makes at most 2·⌈log2(s+1)⌉+2 probes for an execution of s steps,
// and each probe runs at most k + Confirm walks: O((k + Confirm) log s)
// executions, at most 3,200 for k = 20, 80 confirmations and s = 20 000,
// of which the 2,560 confirmations stop at the recovery limit. A
// recovering probe stops at its first recovering walk; a non-recovering
// one runs all k and its confirmations, in parallel on the explorer's
// workers (a probe that recovers may have simulated a few walks past the
// first recovering one, which are discarded).
//
// # Snapshots
//
// Every walk of the probe at prefix p follows the anomalous execution for
// its first p steps. When the scenario's services implement
// timedsim.Cloner (every bundled system's but etcd raft's, whose RawNode
// cannot be copied), a probe at p >= 1 simulates those p steps once,
// keeps the simulator's state (timedsim.SnapshotAt) and forks its walks
// from it (timedsim.Simulator.RunFrom): a probe costs one replay of its
// prefix, two when it runs confirmation walks (they have a deadline, and
// the snapshot is of an execution with it), plus its walks'
// continuations, instead of k + Confirm replays. The walks are the same
// executions either way (each system's tests compare forks with replays),
// so the report is too, but for Report.Mode, which says which was done;
// Config.Replay asks for the replays.
//
// # Determinism
//
// Walk j of the probe at prefix p has the seed WalkSeed(Config.Seed, p, j)
// (confirmation walks are j = k, k+1, …), and a probe counts its walks in
// index order up to and including the first recovering one, whatever order
// the workers finish them in. The probes
// depend only on earlier probes' answers. So the report — step, probes,
// execution times, the similar execution — and the sequence of results
// shown to Config.Each are the same for any Explorer.Jobs, and the same on
// every run with the same scenario, options, seed, k and path. There is no
// package state.
package divergence

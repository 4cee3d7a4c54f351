// Package anomaly implements the statistical phases of MacePC (paper 004
// §3.2): the performance profile of phase 1b, the anomaly search of phase
// 2 and the frequency correlation of phase 3b.
//
//   - NewProfile (phase 1b) takes the execution times of a training
//     exploration and computes their quartiles and the outlier threshold
//     Q3 + k·(Q3−Q1), k = 1.5 for Tukey's mild outliers (MildOutliers, the
//     paper's choice) or 3 for extreme ones (ExtremeOutliers). An execution
//     is anomalous when it is slower than the threshold. Phase 3a
//     (package divergence) uses the profile's Q3 instead, as the paper
//     does.
//   - Search (phase 2) explores executions in index order until one is
//     anomalous, within a budget. With several workers the answer is still
//     the anomalous execution with the lowest index, so it depends only on
//     the path source, never on the number of workers.
//   - Correlate (phase 3b) correlates the count of every event label,
//     plain ("deliver JoinReply") and composite ("deliver JoinReply →
//     Remove", the paper's Figure 4), with execution time, and ranks the
//     labels so that the one to look at comes first.
//
// # Usage
//
// Phase 1b, on the times of an exploration with the trained EDDs:
//
//	prof, err := anomaly.NewProfile(times, unfinished, anomaly.MildOutliers)
//	if err != nil { … }
//	for _, w := range prof.Warnings { fmt.Fprintln(stderr, "warning:", w) }
//
// Phase 2, collecting the samples of phase 3b on the way (the explorer
// counts events in the window [0, Q3) too):
//
//	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set, CountWindow: prof.Q3}}
//	var samples []anomaly.Sample
//	found, err := anomaly.Search(ctx, ex, timedsim.Seeded(seed), maxRuns,
//		func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) },
//		func(i int, r *timedsim.Result) { samples = append(samples, anomaly.NewSample(r)) })
//	if err != nil { … } // on Ctrl-C, found.Explored executions were explored
//	if found.Found { … found.Index, found.Result.Path … }
//
// Phase 3b, after adding the samples of phase 3a's random walks:
//
//	for _, c := range anomaly.Correlate(samples) { … c.Label, c.R, c.WindowR, c.LengthOnly … }
//
// # Quartiles
//
// Quartiles are gonum's stat.Quantile with stat.LinInterp on the sorted
// times in float64 nanoseconds, rounded to the nearest nanosecond (halves
// away from zero). LinInterp is Hyndman and Fan's type 4: the linear
// interpolation of the empirical CDF, with p(k) = k/n for the k-th smallest
// of n times x(1) ≤ … ≤ x(n). For h = n·p:
//
//	Q(p) = x(1)                                 if h < 1
//	Q(p) = x(⌊h⌋) + (h − ⌊h⌋)·(x(⌊h⌋+1) − x(⌊h⌋))  otherwise (x(n+1) = x(n))
//
// So with 4 times the quartiles are x(1), x(2) and x(3) exactly, and with 2
// times the median is the smaller one. Type 4 is not R's default (type 7)
// nor Tukey's hinges: other tools may print slightly different quartiles
// for small samples, and a plot must use these ones. The threshold is
// computed from the rounded Q1 and Q3, so it can be recomputed from the
// reported profile.
//
// # Length-controlled correlation
//
// The paper correlates each label's count with execution time, and notes
// that event types "trivially correlated with path length, such as periodic
// timer expiration" had to be discarded by hand. Correlate does it by
// itself with a second count per label: the events that started within a
// window of normal execution time, the profile's Q3
// (timedsim.Options.CountWindow). Within the window every execution has
// the same length, so an event that only happens because an execution is
// long — a periodic timer firing at 10 s, the recovery work it triggers —
// loses its correlation (WindowR), while a cause that happens during the
// normal run, like RandTree's join race, keeps it. A label whose |R| is at
// least MinR but whose |WindowR| is less than half of it, or undefined, is
// LengthOnly and ranks after all the others.
//
// A label whose WindowR is strongly negative while its R is small is an
// event that normally happens within the window but is delayed in slow
// executions (in RandTree, "deliver JoinReply → NewRoot": the bootstrap's
// subtree learns its new root at once, or ten seconds later after the
// race). It ranks high too: the paper looks for "events whose presence or
// absence is related to the performance bug".
//
// Pearson's r is undefined (0/0) when the count or the time is constant:
// R and WindowR are then nil (JSON null), never NaN or 0. Every r and mean
// is rounded to 6 decimals, and the ranking compares the rounded values.
//
// # Determinism
//
// There is no package state, no clock and no randomness. NewProfile sorts a
// copy of its input; Correlate visits labels in sorted order, sums in sample
// order and breaks ties by label, so its result depends only on the samples
// and their order. Search's answer, and the sequence of executions it hands
// to its callback, are the same for any number of workers.
package anomaly

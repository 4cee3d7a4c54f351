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
//   - Compare (the CI regression gate) tests whether the execution
//     times of the current code are slower than a baseline's.
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
// counts events in the window [0, Q1) too):
//
//	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set, CountWindow: prof.CountWindow()}}
//	var samples []anomaly.Sample
//	found, err := anomaly.Search(ctx, ex, timedsim.Seeded(seed), maxRuns,
//		func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) },
//		func(i int, r *timedsim.Result) { samples = append(samples, anomaly.NewSample(r)) })
//	if err != nil { … } // on Ctrl-C, found.Explored executions were explored
//	if found.Found { … found.Index, found.Result.Path … }
//
// Phase 3b, after adding the samples of phase 3a's random walks:
//
//	for _, c := range anomaly.Correlate(samples, prof.CountWindow()) { … c.Label, c.R, c.WindowR, c.LengthOnly … }
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
// window of normal execution time (timedsim.Options.CountWindow,
// Profile.CountWindow: the profile's Q1), correlated over the executions
// that ran for the whole window. Every one of those ran for the same time
// within the window, so an event that only happens because an execution
// is long — a periodic timer, the recovery work it triggers at 10 s —
// loses its correlation (WindowR), while a cause that happens during the
// normal run, like RandTree's join race, keeps it. A label whose |R| is at
// least MinR but whose |WindowR| is less than half of it, or undefined, is
// LengthOnly and ranks after all the others.
//
// Both halves matter. An execution that ends before the window's end has
// fewer events in it, so counted in every execution a periodic timer's
// windowed count still grows with the execution's length: with the
// window at Q3, which three quarters of the normal executions end before,
// Chord's fix-fingers timer kept r = 1.00 within the window and ranked
// among the causes. Hence the executions shorter than the window are left
// out of WindowR; and hence a window that most executions run to its end:
// Q1 leaves out a quarter of the normal ones (the slow ones all run it),
// where Q3 would leave out three quarters and leave WindowR to a handful
// of normal executions. The window must also reach as far into the normal
// run as it can, because a cause late in the join phase must fall inside
// it: the profile's minimum, which every normal execution covers, is a
// single extreme draw and stops well short (RandTree 0.41 s of a 0.50 s
// median, Pastry 1.6 s of 2.0 s), while Q1 is within a few percent of the
// median in every bundled system. Fewer than MinWindowSamples executions
// that ran the whole window give no WindowR at all, and then nothing is
// LengthOnly.
//
// A label whose WindowR is strongly negative while its R is small is an
// event that normally happens within the window but is delayed in slow
// executions (in RandTree, "deliver JoinReply → NewRoot": the bootstrap's
// subtree learns its new root at once, or ten seconds later after the
// race). It ranks high too: the paper looks for "events whose presence or
// absence is related to the performance bug".
//
// A composite label counts the events whose handler sent a message of a
// type, made a note ("deliver JoinReply → dropped: not joining",
// timedsim.Context.Note), or did neither ("deliver JoinReply → (nothing)",
// timedsim.SentNothing): an ignored stale message is the usual trace of a
// race, and in Chord's join race the dropped JoinReply is the label that
// ranks first. Notes are what tells a dropped message from a processed
// one when neither handler sends anything. A composite whose counts equal its event label's in every
// sample (a handler that always sends the same, or never sends) is marked
// SameAs that label and ranks last, so it does not crowd the top.
//
// Pearson's r is undefined (0/0) when the count or the time is constant:
// R and WindowR are then nil (JSON null), never NaN or 0. Every r and mean
// is rounded to 6 decimals, and the ranking compares the rounded values.
//
// # Regression test
//
// Compare reports three things about a baseline sample and a current one:
//
//   - the ratios current/baseline of the median and of Q3 (type 4, as the
//     profile), each with a percentile-bootstrap interval at level
//     1−Alpha (both samples resampled independently with replacement,
//     Resamples times, from a PCG seeded with Seed);
//   - a one-sided Mann–Whitney U test (Wilcoxon rank-sum) of "the current
//     times tend to be larger". Mann–Whitney rather than
//     Kolmogorov–Smirnov: a slowdown is a shift of the distribution,
//     against which the rank test is the more powerful; it is one-sided
//     by construction, has an exact null distribution for small samples,
//     and handles ties (identical executions) with the usual correction,
//     while KS is built for "any difference" (a narrower but not slower
//     distribution would count) and is conservative with ties. gonum's
//     stat has neither test's p-value (KolmogorovSmirnov returns only the
//     statistic), so MannWhitney is implemented here: exact without ties
//     for samples of at most ExactMannWhitney, otherwise the normal
//     approximation with tie and continuity corrections;
//   - the number of executions of each sample above the baseline's anomaly
//     threshold, with a one-sided Fisher exact test of "the current rate is
//     higher".
//
// The verdict: a regression is either a significant shift that is also
// large — the Mann–Whitney p-value is below Alpha and the lower end of the
// median's or Q3's interval is above 1+MaxSlowdown, so a significant but
// tolerated 2% slowdown does not fail CI, and neither does a large
// estimate that the data do not pin down — or a significantly higher
// outlier rate (Fisher p below Alpha), the signature of a latent
// performance bug that makes a few executions very slow and leaves the
// quartiles alone. Since the decision takes the interval's lower end of a
// two-sided 1−Alpha interval, the shift criterion alone errs at most at
// rate Alpha/2 when the true slowdown is exactly MaxSlowdown, and far less
// when there is none; the two criteria together err at most at rate about
// 1.5·Alpha.
//
// Fisher's test needs many runs to see a rare slow execution: against a
// clean baseline of 50, about 7 of 50 current executions must be slow
// before p falls below 0.01. When the current rate is higher than the
// baseline's but not significantly, and nothing else is a regression,
// Compare says so in Warnings rather than passing in silence.
//
// # Determinism
//
// There is no package state and no clock; the only randomness is
// Compare's bootstrap, drawn from a PCG seeded with CompareConfig.Seed.
// NewProfile and Compare sort copies of their inputs; Correlate visits
// labels in sorted order, sums in sample order and breaks ties by label,
// so its result depends only on the samples and their order. Search's answer, and the sequence of executions it hands
// to its callback, are the same for any number of workers.
package anomaly

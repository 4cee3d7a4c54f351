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
//     anomalous, then a triage budget more, within an overall budget, and
//     collects every anomalous execution. With several workers the
//     executions explored are still those with the lowest indexes, so the
//     answer depends only on the path source, never on the number of
//     workers.
//   - Triage groups the anomalies into classes, by execution-time mode and
//     by the events that set them apart from the normal executions, and
//     ranks the classes by severity, so that phase 3a analyses the worst.
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
// counts events in the window [0, Q3) too):
//
//	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set, CountWindow: prof.Q3}}
//	var samples []anomaly.Sample
//	found, err := anomaly.Search(ctx, ex, timedsim.Seeded(seed), anomaly.SearchConfig{MaxRuns: 1000, Triage: 200},
//		func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) },
//		func(i int, r *timedsim.Result) { samples = append(samples, anomaly.NewSample(r)) })
//	if err != nil { … } // on Ctrl-C, found.Explored executions were explored
//	if found.Found { … found.Index, found.Anomalies … }
//
// Triage, on every explored execution (anomalous or not) with its windowed
// counts:
//
//	classes := anomaly.Triage(execs, anomaly.TriageConfig{Median: prof.Median})
//	worst := classes[0].Representative // the execution phase 3a analyses
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
// # Threshold
//
// The threshold is the largest of Tukey's fence Q3 + k·IQR (the paper's),
// a relative floor MinSlowdown·median (RequireSlowdown) and an absolute
// floor median + MinExcess (RequireExcess). The fence alone flags the tail
// of any distribution. The relative floor fails for short executions: a
// protocol whose executions take milliseconds doubles its time with one
// delayed message, and one whose executions take microseconds (a single
// node) with one slow handler. The absolute floor says how much slower an
// execution must be before it matters; the command line sets it by
// default to one link latency of the scenario's network, the least time a
// missed message or an extra round can cost, and users of short protocols
// raise it (--min-excess 100ms).
//
// # Triage
//
// A fuzzer that stopped at its first crash would report the most frequent
// bug, not the worst one; so does an anomaly search that stops at its first
// anomaly. On a protocol whose executions take milliseconds, the first
// execution above the threshold is usually the network's Pareto tail, 2×
// the median, while a planted bug that makes 1 execution in 100 take 5 s
// comes later. Search therefore explores a triage budget after the first
// anomaly, and Triage classes what it found:
//
//   - Findings (a panic, a violated safety property) form one class per
//     bucket: the finding's text without its numbers.
//   - A slow execution's signature is the set of labels that set it apart
//     from the normal executions of the same search, counted within the
//     count window (the normal execution time, before any recovery timer
//     fires): "+label" for a label it has and fewer than Rare (1%) of the
//     normal executions have, "-label" for one it lacks and more than 99%
//     have. Signatures that share at least half of their labels (Jaccard
//     index ≥ 1/2) join one group, transitively, so that one race seen with
//     and without one of its consequences is one problem; executions with
//     an empty signature (jitter: nothing unusual happened) form their
//     own group.
//   - Each group splits into execution-time modes: sorted by time, a new
//     mode starts where one time exceeds the previous by more than ModeGap
//     (1.5×). A bug that waits for one or two rounds of a 20 s maintenance
//     timer makes two modes, 20 s and 40 s.
//
// Classes rank by severity: findings first (larger first), then the slow
// classes by Excess, the time their executions spent above the median in
// all — how much the class costs, frequency times magnitude — then by
// Slowdown, then by their first member. Each class's representative is its
// member with the fewest steps (then the lowest index), the smallest
// reproducer, which phase 3a analyses; the others can be analysed on
// demand (macepc diverge --class N).
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
// A composite label counts the events whose handler sent a message of a
// type, or sent nothing at all ("deliver JoinReply → (nothing)",
// timedsim.SentNothing): an ignored stale message is the usual trace of a
// race, and in Chord's join race the dropped JoinReply is the label that
// ranks first. A composite whose counts equal its event label's in every
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

// Package anomaly implements the statistical phases of MacePC (paper 004
// §3.2): the performance profile of phase 1b, the anomaly search of phase
// 2 and the frequency correlation of phase 3b.
//
//   - NewProfile (phase 1b) takes the execution times of a training
//     exploration and computes their quartiles and the outlier threshold
//     Q3 + k·(Q3−Q1), k = 1.5 for Tukey's mild outliers (MildOutliers, the
//     paper's choice) or 3 for extreme ones (ExtremeOutliers). An execution
//     is anomalous when it is slower than the threshold. Phase 3a
//     (package divergence) tests recovery against its own limit, between
//     the profile's Q3 and the threshold (divergence.NewCriterion), where
//     the paper uses Q3.
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
// counts events in the window [0, Q1) too):
//
//	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set, CountWindow: prof.CountWindow()}}
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
// # Significance
//
// The threshold is a fence, and a search that draws executions until one
// crosses it always succeeds on a protocol with natural variance: Pareto
// network delays, randomized backoff, gossip. That is a false alarm, and a
// checker that cries wolf is switched off. The fence therefore only picks
// the candidates; Significance decides which of them normal variance
// cannot explain, given how many executions the search drew (N), at a
// family-wise error rate Alpha (0.01):
//
//   - The tail of normal executions is a generalized Pareto distribution
//     over a threshold U (peaks over threshold, FitTail): fitted by maximum
//     likelihood to the excesses of the slowest fifth of the executions
//     faster than the candidates (profile and search together), with the
//     likelihood truncated there, so that the executions being judged do
//     not shape the model that judges them. The candidates split into
//     execution-time modes (ModeGap, as in triage) and each mode gets the
//     model of everything faster than it, so a far mode is judged by all
//     the variance below it.
//   - The shape ξ is uncertain, and a light-looking shape extrapolated far
//     calls ordinary executions impossible. The model's tail probability
//     (Survival) is the largest over the shapes in the 95%
//     profile-likelihood interval, and over the tail index of the
//     simulator's own models (MinShape: ξ = 1/α of the network's Pareto
//     delays; a sum or maximum of such delays has that tail) when the
//     interval is lighter. Shapes stop at 1: an infinite-mean tail is no
//     protocol's normal variance.
//   - The tests are windows of the candidates, sorted by time. An open
//     window, the k slowest executions, is tested by P(Bin(N, p) ≥ k) with
//     p the model's P(X ≥ the k-th slowest): for k = 1 that is about N·p,
//     the chance that N normal executions hold one as slow. A bounded
//     window between two candidates is tested by the model's mass between
//     them (the mass between two order statistics is Beta-distributed, so
//     the count inside, its ends excluded, is the binomial count) and must
//     also be a spike against its own neighbourhood (five window widths on
//     either side, whatever the model says there): a recovery timer's
//     period makes many executions end within milliseconds of each other
//     (Bullet′'s 5 s RanSub epochs, Pastry's 20 s maintenance), where a
//     smooth tail has a few. Every window of several executions is judged
//     only where the model expects at most MaxExpected (one) of the N
//     executions: a shoulder of the distribution — duels that take one
//     more round — holds many executions where the main mode's model
//     expects a few, and its sheer number would otherwise reject.
//   - Bonferroni over the J(J+1)/2 windows of J candidates. The slowest
//     executions down to the fastest member of a rejected window are
//     anomalies; the other candidates are the normal tail, which the
//     pipeline reports with its rate and its cause, and does not alarm on.
//
// Measured on the bundled systems (`go run ./bench/cmd/significance`: 200
// searches each, resampled from 5,000 executions with the committed
// durations; bench/PAPER.md, "Precision and recall of the verdict"): the
// fence flags 198 to 200 of 200 searches of pingpong, the 5 ms election,
// the randomized backoff (staggered or together) and Bullet′'s fixed
// variant, and 124 of etcd raft's election with PreVote; the test finds
// an anomaly in none of them. On the buggy variants it finds one in every
// search where the fence flagged something (RandTree, Chord and its join
// race, Bamboo, Pastry 190 of 200, the election's early Elected, etcd's
// rejoin without PreVote, Bullet′'s Diff drop; Bullet′'s JoinReject 196),
// most at the first look.
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
//     count window (Profile.CountWindow, the profile's Q1: before any
//     recovery timer fires): "+label" for a label it has and fewer than Rare (1%) of the
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
// absence is related to the performance bug". But a label that is markedly
// more frequent within the window in slower executions (WindowR at least
// MinR) ranks before it: what happened before an execution became slow is
// a candidate cause, while fewer events within the window (Bullet′'s
// Diffs and Requests, r within the window −0.8, when one node sat idle
// after its JoinReject) are mostly the work a stalled node did not do.
// Statistical debugging ranks the same way: first the predicates whose
// truth raises the chance of failure (Liblit, Naik, Zheng, Aiken and
// Jordan, "Scalable Statistical Bug Isolation", PLDI 2005). Below MinR the
// sign is noise and only |WindowR| ranks.
//
// Before all of that, a label with no correlation of MinR or more, over
// whole executions or within the window, ranks after every label with
// some: with a few hundred executions an |r| of 0.1 is what chance gives.
// Without it, a label whose count is the same in every execution (every
// Pastry node joins once) ranked after every label whose count varies,
// however weakly: Pastry's "deliver JoinReply", +0.37 within the window
// (the joins that end late), came fifth behind four labels at |r| < 0.3.
//
// A composite label counts the events whose handler sent a message of a
// type, made a note ("deliver JoinReply → dropped: not joining",
// timedsim.Context.Note), set or cancelled a timer ("deliver Elected →
// (cancel tick)", timedsim.TimerComposite), or did none of these
// ("deliver JoinReply → (nothing)", timedsim.SentNothing): an ignored
// stale message is the usual trace of a race, and in Chord's join race the
// dropped JoinReply is the label that ranks first. Notes are what tells a
// dropped message from a processed one when neither handler sends
// anything; without notes, a timer is often what does: a node that takes
// the leader cancels its retry timer, one that ignores the leader's
// message does nothing. Between labels that correlate alike, a timer's
// composite ranks after a message's or a note's. A composite whose counts equal its event label's in every
// sample (a handler that always sends the same, or never sends) is marked
// SameAs that label, and one whose counts equal another composite's of
// the same event (a handler that always sets its periodic timers when it
// sends NewRoot) SameAs that composite; both rank last, so they do not
// crowd the top.
//
// Pearson's r is undefined (0/0) when the count or the time is constant:
// R and WindowR are then nil (JSON null), never NaN or 0. Every r and mean
// is rounded to 6 decimals, and the ranking compares the rounded values.
//
// # Regression test
//
// Compare asks whether the execution times of the current code are
// slower than a baseline's, in two ways, and combines the answers so that
// unchanged code fails with probability at most Alpha.
//
// The shift test asks whether the typical execution got slower beyond
// the tolerance MaxSlowdown. It reports the ratios current/baseline of
// the median and of Q3 (type 4, as the profile), each with a
// percentile-bootstrap interval at level 1−Alpha (both samples resampled
// independently with replacement, Resamples times), and needs two things:
//
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
//   - bootstrap evidence that the median's or Q3's ratio exceeds
//     1+MaxSlowdown: for each, the fraction of resampled ratios at or
//     below it, (1+#)/(Resamples+1), and twice the smaller of the two
//     (Bonferroni over median and Q3). Below a level ℓ exactly when the
//     lower end of that quartile's two-sided 1−ℓ interval is above
//     1+MaxSlowdown, so a significant but tolerated 2% slowdown does not
//     fail CI, and neither does a large estimate that the data do not pin
//     down.
//
// Its p-value is the larger of the two (an intersection–union test: it
// rejects only when both do, and errs no more often than either).
//
// The tail test asks whether slow executions got more frequent or
// longer. A latent performance bug makes a few executions very slow and
// leaves the quartiles alone: RandTree's join race sends 8% of its
// executions to the 10 s recovery timer, 20 times the median. It looks at
// the executions above the baseline's anomaly threshold (Threshold) with
// two statistics:
//
//   - their number: a one-sided Fisher exact test of "the current rate is
//     higher";
//   - their mean excess over the threshold, Σ max(0, t − Threshold)/n, the
//     time per execution lost above it: a one-sided permutation test. It
//     sees what the count cannot: slow executions that got slower (a
//     baseline with some 1 s executions and a current code with as many
//     10 s ones), and it weighs a 10 s execution more than one just above
//     the threshold. Only the tail enters, so a tolerated shift of the
//     bulk does not trip it, unless it pushes executions over the
//     threshold.
//
// Both are computed on the same Resamples random splits of the pooled
// times into a baseline and a current sample, and combined by the min-P
// method of Westfall and Young (1993): the tail test's p-value is the
// fraction of splits, the observed one included, whose smaller p-value is
// at most the observed smaller p-value. Under the null hypothesis (one
// distribution) the splits are exchangeable, so the test is exact at any
// sample size, and since both statistics see the same splits it pays for
// two statistics only as much as they disagree: when the slow executions
// are far above the threshold the two are the same event and the
// combined p-value is about the smaller one. Its p-values are at least
// 1/(Resamples+1). The threshold is the baseline's own and the test takes
// it as given, as Fisher's test did before it: a fresh sample of the same
// code crosses a fence fitted to the baseline slightly more often than
// the baseline does. That matters only for a distribution with many
// executions just above the fence; the same-code pairs measured in the
// README's "CI regression gate" section show no excess of false
// positives. The mean of all times (a
// Welch t-test) was the other candidate and is worse on both counts: one
// slow execution inflates the variance as much as the mean, so t stays
// about sqrt(k) for k slow executions of any length, and the t
// distribution's p-values are far from exact for such skewed samples.
//
// The verdict combines the two tests by Holm's step-down procedure
// (Holm 1979): the smaller p-value is compared with Alpha/2, and if it is
// below, the other with Alpha. The code is a regression when a test is
// rejected; Comparison.Tests gives each test's p-value, Holm level and
// adjusted p-value. Holm controls the family-wise error rate at Alpha
// whatever the dependence between the tests; without a correction two
// tests at Alpha each would fail unchanged code up to twice as often.
//
// A test that cannot reach Alpha on the pooled executions, however they
// were split, is left out of the family (Tarone 1990) and costs the other
// nothing: the tail test when the pool has few executions above the
// threshold (none at all, typically, when the bulk of the distribution is
// what changed), its smallest p-value being C(m,k)/C(n+m,k) for k of
// them; the shift test when Resamples is too small for its bootstrap
// p-value, at least 2/(Resamples+1), to go below Alpha. Whether a test is
// left out depends on the pool alone, and under the null hypothesis each
// test is valid given the pool (the permutation tests exactly, and the
// shift test through Mann–Whitney, its lower bound), so the rule keeps
// the family-wise rate at Alpha. Without a threshold there is only the
// shift test, at Alpha.
//
// # What a baseline of n executions can see
//
// A rare slow execution needs many executions, on both sides. Every exact
// test, rank or permutation, treats the two samples as one pool split at
// random under the null hypothesis; when k current executions are slower
// than all the baseline's, a split puts all k in the current sample with
// probability C(m,k)/C(n+m,k), and no such test has a smaller p-value.
// For 50 executions each this is 0.0133 for k = 6, 0.0062 for k = 7 and
// 0.0029 for k = 8. RandTree's bug (8% of executions slow with the seed
// distributions) puts Binomial(50, 0.08) slow executions in the current
// sample: 8 or more, which Holm's first level Alpha/2 = 0.005 needs, in 4%
// of profiles (with 6 or fewer in the pool, Tarone's rule leaves the tail
// test out). Even a test of the tail alone at 0.01, randomized at the
// boundary as the Neyman–Pearson lemma allows, would catch it at most
// 30% of the time.
//
// Running more current executions does not help the two-sample tests
// past a point, because the baseline itself is the limit: with k of n
// baseline executions slow, its rate of slow executions could be as high
// as the upper Clopper–Pearson bound (ClopperPearsonUpper), and Fisher's
// p-value for an unbounded current sample of rate r tends to
// P(Binomial(n, r) ≤ k): for n = 50 and k = 0, (1 − r)^50, 0.016 for
// r = 8%, above Alpha for any current sample. That is the answer to "do
// the two samples differ?", and the wrong question for a gate. A user
// asks "are more than x% of the executions now slower than the
// baseline's normal?", which the slow-rate test answers.
//
// # Regression gate
//
// Gate is the test of `macepc regress`: Compare's shift and tail tests on
// a first batch of current executions as large as the baseline's, and a
// sequential slow-rate test (SlowRate) over every current execution,
// combined by Holm's procedure. An execution is slow when it is above the
// baseline's anomaly threshold, and the test asks whether more than an
// allowed rate p0 of them are: the largest of the tolerated rate
// (GateConfig.MaxSlowRate, 1%), the upper 1−Alpha Clopper–Pearson bound
// of the baseline's own rate above its threshold when it had executions
// there (the same code is not failed for having as many slow executions
// as the baseline, only more than it could have had: with the point
// estimate, RandTree's buggy code failed against its own baseline in 24
// of 100 seed pairs), and the rate its generalized Pareto tail model (FitTail, fitted
// to the baseline's executions below the threshold, conservatively)
// gives above it — a protocol whose natural tail crosses its 50-execution
// fence a few times in a hundred is not failed for that.
//
// The current executions run in batches of the first batch's size until
// the verdict. The evidence of a regression is an e-process: the average,
// over alternatives 1.5, 2, 3, 5, 10, 20 and 50 times p0, of the
// likelihood ratios of the slow count against p0. Each ratio, and so
// their average, is a nonnegative supermartingale under any rate at most
// p0, and by Ville's inequality its running maximum exceeds 1/a with
// probability at most a however the batches are looked at and whenever
// the test stops: 1/max is an anytime-valid p-value, which Holm's
// procedure takes with the first batch's two. (Wald's sequential
// probability ratio test would need one alternative to be named; the
// mixture costs log 7 in evidence and adapts to the rate there is.) The
// gate passes once the evidence against "at least 2·p0 are slow", the
// average of likelihood ratios of p0, p0/2 and p0/10 against 2·p0,
// reaches 1/Alpha: between p0 and 2·p0 either verdict may come, late, and
// at the run cap (GateConfig.MaxRuns, 3000) the gate stops undecided, no
// regression shown, with a warning.
//
// With p0 = 1% a slow rate of 2.35% (RandTree's join race on one
// training) is found within 3,000 executions in 99% of simulated runs,
// after 850 executions at the median; none slow passes after about 300;
// a 10% tail is found within the first batch or two (TestSlowRatePower,
// and the README's "CI regression gate" section for the measured rates
// on the bundled systems). The argument of the previous section still
// binds a gate that must also pass unchanged buggy code: a baseline of the
// buggy code that shows no slow execution in its 50 (1.6% of them for an
// 8% slow mode) makes the buggy code a regression, which under the gate's
// question it is.
//
// # Determinism
//
// There is no package state and no clock; the only randomness is
// Compare's bootstrap and its permutations, drawn in that order from one
// PCG seeded with CompareConfig.Seed.
// NewProfile and Compare sort copies of their inputs; Correlate visits
// labels in sorted order, sums in sample order and breaks ties by label,
// so its result depends only on the samples and their order. Search's answer, and the sequence of executions it hands
// to its callback, are the same for any number of workers.
package anomaly

package anomaly

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/internal/units"
)

// Defaults of CompareConfig.
const (
	// DefaultAlpha is the family-wise significance level of the
	// regression test: the probability that unchanged code fails it.
	DefaultAlpha = 0.01
	// DefaultMaxSlowdown is the largest relative slowdown of the median
	// or Q3 that is tolerated (5%).
	DefaultMaxSlowdown = 0.05
	// DefaultResamples is the number of bootstrap resamples, and of
	// random permutations of the tail test.
	DefaultResamples = 2000
	// ExactMannWhitney is the largest sample size (of each sample) for
	// which MannWhitney computes the exact null distribution when there
	// are no ties.
	ExactMannWhitney = 50
)

// Names of the tests of a Comparison (Test.Name).
const (
	// TestShift is the test of a shift of the typical execution: the
	// median or Q3 slower than the tolerance allows.
	TestShift = "shift"
	// TestTail is the test of the tail: more executions above the
	// baseline's threshold, or more time spent above it.
	TestTail = "tail"
	// TestSlowRate is a Gate's sequential test of the share of current
	// executions above the baseline's threshold.
	TestSlowRate = "slow-rate"
)

// CompareConfig holds the thresholds of the regression test (Compare);
// DefaultCompareConfig has the defaults.
type CompareConfig struct {
	// Alpha is the family-wise significance level: the tests are
	// combined by Holm's procedure so that unchanged code fails with
	// probability at most Alpha. 1−Alpha is also the level of the
	// reported bootstrap confidence intervals.
	Alpha float64
	// MaxSlowdown is the tolerated relative slowdown, 0.05 for 5%: the
	// shift test asks whether the median or Q3 ratio exceeds
	// 1+MaxSlowdown. 0 tolerates nothing.
	MaxSlowdown float64
	// Resamples is the number of bootstrap resamples, and of random
	// permutations of the tail test.
	Resamples int
	// Seed seeds the PCG of the bootstrap and the permutations: the same
	// inputs and seed give the same result.
	Seed uint64
	// Threshold is the baseline's anomaly threshold (Profile.Threshold);
	// the tail test counts the executions above it and the time spent
	// above it. 0 skips the tail test.
	Threshold time.Duration
}

// DefaultCompareConfig returns DefaultAlpha, DefaultMaxSlowdown and
// DefaultResamples, seed 0 and no threshold.
func DefaultCompareConfig() CompareConfig {
	return CompareConfig{Alpha: DefaultAlpha, MaxSlowdown: DefaultMaxSlowdown, Resamples: DefaultResamples}
}

// Interval is a point estimate with a confidence interval.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// MannWhitneyResult is a one-sided Mann–Whitney U test of "the current
// sample tends to be larger than the baseline".
type MannWhitneyResult struct {
	// U counts the pairs (current c, baseline b) with c > b, ties
	// counting one half. Under the null hypothesis its mean is
	// n_base·n_cur/2.
	U float64 `json:"u"`
	// Z is the standardised U with continuity and tie corrections (also
	// reported when P is exact).
	Z float64 `json:"z"`
	// P is the one-sided p-value P(U ≥ observed U) under the null
	// hypothesis that both samples come from one distribution.
	P float64 `json:"p"`
	// Exact is true when P comes from the exact null distribution (no
	// ties, both samples of at most ExactMannWhitney), false for the
	// normal approximation.
	Exact bool `json:"exact"`
}

// Outliers compares the tails above the baseline's threshold: how many
// executions of each sample are above it, and how much time they spend
// above it.
type Outliers struct {
	Threshold time.Duration `json:"threshold_ns"`
	Base      int           `json:"base"`
	Current   int           `json:"current"`
	// P is the one-sided p-value of Fisher's exact test that the current
	// rate is higher than the baseline's.
	P float64 `json:"p"`
	// BaseExcess and CurrentExcess are the mean excess over the threshold
	// of each sample, Σ max(0, t − Threshold)/n: the time per execution
	// lost above the threshold.
	BaseExcess    time.Duration `json:"base_excess_ns"`
	CurrentExcess time.Duration `json:"current_excess_ns"`
	// ExcessP is the one-sided permutation p-value that the current mean
	// excess is larger than the baseline's.
	ExcessP float64 `json:"excess_p"`
}

// Test is one hypothesis of the regression test, with its p-value and
// Holm's decision.
type Test struct {
	// Name is TestShift or TestTail.
	Name string `json:"name"`
	// P is the test's own p-value.
	P float64 `json:"p"`
	// Attainable is the smallest p-value the test could give on this
	// pool of executions, however they were split between the samples
	// (for the tail test, the exact permutation test's; for the shift
	// test, the bootstrap's resolution, 2/(Resamples+1)).
	Attainable float64 `json:"attainable_p"`
	// Excluded says that Attainable is at least Alpha: the test cannot
	// find anything here, and Tarone's rule leaves it out of Holm's
	// family (Level 0, AdjustedP 1), so that it costs the other test
	// nothing.
	Excluded bool `json:"excluded"`
	// Level is the significance level Holm's procedure compares P with:
	// Alpha/(k−r+1) for the r-th smallest of the k p-values of the tests
	// not excluded.
	Level float64 `json:"level"`
	// AdjustedP is Holm's adjusted p-value: the test is rejected when it
	// is below Alpha.
	AdjustedP float64 `json:"adjusted_p"`
	// Rejected says the test found a regression.
	Rejected bool `json:"rejected"`
}

// Comparison is the result of Compare.
type Comparison struct {
	BaseRuns    int           `json:"base_runs"`
	CurrentRuns int           `json:"current_runs"`
	BaseMedian  time.Duration `json:"base_median_ns"`
	CurMedian   time.Duration `json:"current_median_ns"`
	BaseQ3      time.Duration `json:"base_q3_ns"`
	CurQ3       time.Duration `json:"current_q3_ns"`
	// MedianRatio and Q3Ratio are current/baseline with 1−Alpha
	// percentile-bootstrap intervals: 1.07 is 7% slower.
	MedianRatio Interval          `json:"median_ratio"`
	Q3Ratio     Interval          `json:"q3_ratio"`
	MannWhitney MannWhitneyResult `json:"mann_whitney"`
	// BootstrapP is the bootstrap p-value of "neither the median nor Q3
	// ratio exceeds 1+MaxSlowdown": twice the smaller of the fractions of
	// resampled median and Q3 ratios at or below 1+MaxSlowdown (with the
	// usual +1 in numerator and denominator), at most 1.
	BootstrapP float64 `json:"bootstrap_p"`
	// Outliers is nil when no threshold was given.
	Outliers *Outliers `json:"outliers"`
	// SlowRate is the sequential slow-rate test of a Gate (nil for
	// Compare alone).
	SlowRate *SlowRateResult `json:"slow_rate,omitempty"`
	// Tests are the shift test and, with a threshold, the tail test, in
	// that order, then a Gate's slow-rate test.
	Tests []Test `json:"tests"`

	// Config is the configuration compared with.
	Config CompareConfig `json:"-"`
	// atMost are the bootstrap fractions of the median's and Q3's
	// ratios at or below 1+MaxSlowdown.
	atMost []float64
	// Regression is the verdict, true when a test is rejected; Reasons
	// say why (empty when false).
	Regression bool     `json:"regression"`
	Reasons    []string `json:"reasons"`
	// Warnings say what the verdict may be missing: more current
	// executions above the baseline's threshold than the baseline had,
	// but too few to be significant, and the smallest rate of slow
	// executions this baseline can tell from its own.
	Warnings []string `json:"warnings"`
}

// Test returns the test of that name, or nil.
func (c *Comparison) Test(name string) *Test {
	for i := range c.Tests {
		if c.Tests[i].Name == name {
			return &c.Tests[i]
		}
	}
	return nil
}

// Compare tests whether the execution times cur are a performance
// regression against the baseline times base (see the package
// documentation, "Regression test", for the tests and how they are
// combined). Neither slice is modified. It returns an error when a sample
// is empty, holds a negative time, when a baseline quartile is 0, or for a
// configuration outside 0 < Alpha < 1, 0 ≤ MaxSlowdown < ∞,
// Resamples ≥ 1, Threshold ≥ 0.
func Compare(base, cur []time.Duration, cfg CompareConfig) (*Comparison, error) {
	if math.IsNaN(cfg.Alpha) || cfg.Alpha <= 0 || cfg.Alpha >= 1 {
		return nil, fmt.Errorf("anomaly: alpha %v is not in (0, 1)", cfg.Alpha)
	}
	if math.IsNaN(cfg.MaxSlowdown) || math.IsInf(cfg.MaxSlowdown, 0) || cfg.MaxSlowdown < 0 {
		return nil, fmt.Errorf("anomaly: max slowdown %v is not a finite number >= 0", cfg.MaxSlowdown)
	}
	if cfg.Resamples < 1 {
		return nil, fmt.Errorf("anomaly: %d bootstrap resamples, need at least 1", cfg.Resamples)
	}
	if cfg.Threshold < 0 {
		return nil, fmt.Errorf("anomaly: negative threshold %v", cfg.Threshold)
	}
	xs, err := sortedNS("baseline", base)
	if err != nil {
		return nil, err
	}
	ys, err := sortedNS("current", cur)
	if err != nil {
		return nil, err
	}
	c := &Comparison{BaseRuns: len(xs), CurrentRuns: len(ys), Config: cfg, Reasons: []string{}, Warnings: []string{}}
	c.BaseMedian, c.CurMedian = roundNS(quantile4(0.5, xs)), roundNS(quantile4(0.5, ys))
	c.BaseQ3, c.CurQ3 = roundNS(quantile4(0.75, xs)), roundNS(quantile4(0.75, ys))
	if quantile4(0.5, xs) == 0 || quantile4(0.75, xs) == 0 {
		return nil, fmt.Errorf("anomaly: the baseline's median or Q3 is 0: ratios are undefined")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d616365706372)) // "macepcr"
	limit := 1 + cfg.MaxSlowdown
	ci, atMost := bootstrapRatios(xs, ys, []float64{0.5, 0.75}, limit, cfg.Resamples, cfg.Alpha, rng)
	c.MedianRatio, c.Q3Ratio = ci[0], ci[1]
	c.BootstrapP = min(1, 2*min(atMost[0], atMost[1]))
	c.MannWhitney = mannWhitneySorted(xs, ys)
	// The shift test's p-value is at least the bootstrap's, which is at
	// least 2/(Resamples+1).
	c.Tests = append(c.Tests, Test{Name: TestShift, P: max(c.MannWhitney.P, c.BootstrapP), Attainable: min(1, 2/float64(cfg.Resamples+1))})
	if cfg.Threshold > 0 {
		o, p := tailTest(base, cur, cfg.Threshold, cfg.Resamples, rng)
		c.Outliers = o
		// The random splits estimate the exact permutation p-value, which
		// is never below the attainable one: an estimate below it is
		// sampling noise, and reporting it would read as a contradiction.
		att := tailAttainable(o.Base+o.Current, len(xs), len(ys))
		c.Tests = append(c.Tests, Test{Name: TestTail, P: max(p, att), Attainable: att})
	}
	c.atMost = atMost
	c.decide()
	return c, nil
}

// decide runs Holm's procedure over c.Tests (their P and Attainable
// set) and writes the verdict, its reasons and the warnings.
func (c *Comparison) decide() {
	cfg, atMost := c.Config, c.atMost
	xs, ys := c.BaseRuns, c.CurrentRuns
	c.Reasons, c.Warnings = []string{}, []string{}
	var family []Test
	for _, t := range c.Tests {
		if t.Attainable < cfg.Alpha {
			family = append(family, t)
		}
	}
	holm(family, cfg.Alpha)
	for i := range c.Tests {
		c.Tests[i].Excluded, c.Tests[i].AdjustedP, c.Tests[i].Level, c.Tests[i].Rejected = true, 1, 0, false
		for _, f := range family {
			if f.Name == c.Tests[i].Name {
				c.Tests[i] = f
			}
		}
	}

	level := 100 * (1 - cfg.Alpha)
	for _, t := range c.Tests {
		if !t.Rejected {
			continue
		}
		holmText := fmt.Sprintf("Holm-adjusted p = %.3g < %g", t.AdjustedP, cfg.Alpha)
		switch t.Name {
		case TestShift:
			// Name the quartiles whose own evidence suffices.
			var what []string
			for i, r := range []struct {
				name string
				iv   Interval
			}{{"median", c.MedianRatio}, {"Q3", c.Q3Ratio}} {
				if max(c.MannWhitney.P, min(1, 2*atMost[i])) < t.Level {
					what = append(what, fmt.Sprintf("%s %+.1f%% (%.0f%% CI %+.1f%% to %+.1f%%)", r.name, 100*(r.iv.Estimate-1), level, 100*(r.iv.Low-1), 100*(r.iv.High-1)))
				}
			}
			verb := "exceeds"
			if len(what) > 1 {
				verb = "exceed"
			}
			c.Reasons = append(c.Reasons, fmt.Sprintf("%s %s the tolerated %+.1f%%: shift test p = %.3g (Mann-Whitney %.3g, bootstrap %.3g), %s",
				strings.Join(what, " and "), verb, 100*cfg.MaxSlowdown, t.P, c.MannWhitney.P, c.BootstrapP, holmText))
		case TestTail:
			o := c.Outliers
			c.Reasons = append(c.Reasons, fmt.Sprintf("%d of %d executions above the baseline's threshold %s (baseline: %d of %d), %s per execution spent above it (baseline: %s): tail test p = %.3g (Fisher %.3g, excess %.3g), %s",
				o.Current, ys, units.Duration(o.Threshold), o.Base, xs, units.Duration(o.CurrentExcess), units.Duration(o.BaseExcess), t.P, o.P, o.ExcessP, holmText))
		case TestSlowRate:
			s := c.SlowRate
			c.Reasons = append(c.Reasons, fmt.Sprintf("%d of %d current executions (%s) above the baseline's threshold %s, more than the allowed %s (%s): slow-rate test p = %.3g (sequential, valid whenever it stops), %s",
				s.Slow, s.Runs, percent(float64(s.Slow)/float64(s.Runs)), units.Duration(s.Threshold), percent(s.Allowed), s.AllowedWhy, t.P, holmText))
		}
	}
	c.Regression = len(c.Reasons) > 0
	if s := c.SlowRate; s != nil {
		s.Decision = SlowRateRunning
		switch {
		case c.Regression:
			s.Decision = SlowRateRegression
		case s.passed:
			s.Decision = SlowRatePass
		case s.Runs >= s.MaxRuns:
			s.Decision = SlowRateUndecided
			c.Warnings = append(c.Warnings, fmt.Sprintf("undecided after %d current executions: %d of them (%s) above the baseline's threshold %s, neither shown above the allowed %s nor below %s; more executions would decide",
				s.Runs, s.Slow, percent(float64(s.Slow)/float64(s.Runs)), units.Duration(s.Threshold), percent(s.Allowed), percent(s.PassRate)))
		}
	}
	if o := c.Outliers; o != nil && c.SlowRate == nil && !c.Regression && o.Current*xs > o.Base*ys {
		t := c.Test(TestTail)
		why := fmt.Sprintf("tail test p = %.3g, Fisher %.3g, Holm-adjusted %.3g ≥ %g", t.P, o.P, t.AdjustedP, cfg.Alpha)
		if t.Excluded {
			why = fmt.Sprintf("tail test p = %.3g, Fisher %.3g; with %d executions above the threshold in all, no split of them gives p below %.3g ≥ %g, and the test is left out", t.P, o.P, o.Base+o.Current, t.Attainable, cfg.Alpha)
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d executions above the baseline's threshold %s (baseline: %d of %d), more than the baseline but not significant (%s): %s",
			o.Current, ys, units.Duration(o.Threshold), o.Base, xs, why, detectableText(o.Base, xs, cfg.Alpha/float64(len(c.Tests)))))
	}
	if t := c.Test(TestShift); t.Excluded {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the shift test is left out: %d bootstrap resamples cannot give it a p-value below %.3g ≥ %g: raise the resamples", cfg.Resamples, t.Attainable, cfg.Alpha))
	}
	if t := c.Test(TestTail); t != nil && !t.Excluded && 1/float64(cfg.Resamples+1) >= t.Level {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d permutations cannot give the tail test a p-value below %.3g, and Holm compares it with %.3g: raise the resamples", cfg.Resamples, 1/float64(cfg.Resamples+1), t.Level))
	}
}

// detectableText says which rates of slow executions a baseline of n
// executions, k of them above its threshold, can tell from its own.
func detectableText(k, n int, level float64) string {
	return fmt.Sprintf("a baseline of %d executions with %d above its threshold cannot tell a rate of slow executions below %.1f%% from its own, however many current executions run (the one-sided %.4g upper Clopper-Pearson bound of its rate): to catch rarer slow executions, profile a larger baseline",
		n, k, 100*ClopperPearsonUpper(k, n, level), 1-level)
}

// ClopperPearsonUpper is the one-sided 1−level upper Clopper–Pearson
// bound of a binomial rate with k successes in n trials: the rate r at
// which P(X ≤ k) = level for X ~ Binomial(n, r); 1 when k = n. It panics
// unless 0 ≤ k ≤ n, n ≥ 1 and 0 < level < 1 (caller bugs).
//
// It bounds the gate's tail test: with k of n baseline executions above
// the threshold, Fisher's test cannot reach level however many current
// executions run unless the current rate exceeds this bound (the p-value
// of an infinite current sample of rate r is P(X ≤ k)).
func ClopperPearsonUpper(k, n int, level float64) float64 {
	if n < 1 || k < 0 || k > n || !(level > 0 && level < 1) {
		panic(fmt.Sprintf("anomaly: ClopperPearsonUpper(%d, %d, %v)", k, n, level))
	}
	if k == n {
		return 1
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < 100; i++ { // P(X ≤ k) decreases in r: bisect
		r := (lo + hi) / 2
		if binomCDF(k, n, r) > level {
			lo = r
		} else {
			hi = r
		}
	}
	return (lo + hi) / 2
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, r), 0 < r < 1.
func binomCDF(k, n int, r float64) float64 {
	p := 0.0
	for x := 0; x <= k; x++ {
		p += math.Exp(lchoose(n, x) + float64(x)*math.Log(r) + float64(n-x)*math.Log1p(-r))
	}
	return min(p, 1)
}

// tailAttainable is the smallest p-value the exact tail test can give
// when k of the n+m pooled executions are above the threshold, however
// they are split. Both of its statistics grow with the executions above
// the threshold that the current sample takes, so a split that puts all
// k there (possible when k ≤ m) is at least as extreme as any other: the
// p-value is at least the share of such splits, C(m,k)/C(n+m,k), and that
// one split attains it. With k > m the split that gives the current
// sample the m largest excesses is the most extreme: at least
// 1/C(n+m,m). It is 1 for k = 0: the test can never reject.
func tailAttainable(k, n, m int) float64 {
	if k > m {
		return math.Exp(-lchoose(n+m, m))
	}
	return math.Exp(lchoose(m, k) - lchoose(n+m, k))
}

// holm applies Holm's step-down procedure at level alpha to the tests'
// p-values: sorted ascending (ties in the given order), the r-th of k is
// compared with alpha/(k−r+1) as long as every earlier one was rejected.
// Equivalently, its adjusted p-value max over s ≤ r of (k−s+1)·p_(s), at
// most 1, is below alpha. The family-wise error rate is at most alpha
// whatever the dependence between the tests.
func holm(tests []Test, alpha float64) {
	order := make([]int, len(tests))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(tests[a].P, tests[b].P) })
	k, adj := len(tests), 0.0
	for r, i := range order {
		t := &tests[i]
		t.Level = alpha / float64(k-r)
		adj = max(adj, min(1, float64(k-r)*t.P))
		t.AdjustedP = adj
		t.Rejected = adj < alpha
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tailTest compares the tails of base and cur above thr: the number of
// executions above it (Fisher's exact test) and their mean excess over it
// (a permutation test), combined into one p-value by the min-P method of
// Westfall and Young over the same permutations. The observed split and
// perms random splits of the pooled times into a baseline of len(base)
// and a current sample of len(cur) are exchangeable under the null
// hypothesis, and each statistic's p-value at a split is its rank among
// all of them; the combined p-value is the fraction of splits whose
// smaller p-value is at most the observed one. It is exact (valid at any
// sample size) and, because both statistics see the same splits, it pays
// for two statistics only as much as they disagree.
func tailTest(base, cur []time.Duration, thr time.Duration, perms int, rng *rand.Rand) (*Outliers, float64) {
	n, m := len(base), len(cur)
	o := &Outliers{Threshold: thr}
	// The pooled excesses above thr (exact integer nanoseconds), the
	// baseline's first; only the executions above thr matter.
	var excess []int64
	var sumBase, sumCur int64
	for i, t := range slices.Concat(base, cur) {
		if t <= thr {
			continue
		}
		e := int64(t - thr)
		excess = append(excess, e)
		if i >= n {
			o.Current++
			sumCur += e
		} else {
			o.Base++
			sumBase += e
		}
	}
	o.BaseExcess = time.Duration(math.Round(float64(sumBase) / float64(n)))
	o.CurrentExcess = time.Duration(math.Round(float64(sumCur) / float64(m)))
	K := len(excess)
	// Fisher's p-value for each possible current count.
	fisher := make([]float64, K+1)
	for c := range fisher {
		fisher[c] = fisherGreater(K-c, n, c, m)
	}
	o.P = fisher[o.Current]
	if K == 0 {
		o.ExcessP = 1
		return o, 1
	}
	// Split b = 0 is the observed one, 1 … perms are random. For a fixed
	// pool the current's mean excess minus the baseline's is increasing
	// in the current's sum of excesses: the statistic is that sum.
	counts := make([]int, perms+1)
	sums := make([]int64, perms+1)
	counts[0], sums[0] = o.Current, sumCur
	// A random split draws the current sample, m of the N pooled
	// executions, uniformly; only which of the K tail executions it
	// takes matters, and each in turn is taken with probability (current
	// places left)/(executions left).
	for b := 1; b <= perms; b++ {
		c, s, left, places := 0, int64(0), n+m, m
		for _, e := range excess {
			if rng.IntN(left) < places {
				c++
				s += e
				places--
			}
			left--
		}
		counts[b], sums[b] = c, s
	}
	sorted := slices.Clone(sums)
	slices.Sort(sorted)
	total := float64(perms + 1)
	excessP := func(s int64) float64 { // the fraction of splits with a sum ≥ s
		i, _ := slices.BinarySearch(sorted, s)
		return float64(len(sorted)-i) / total
	}
	o.ExcessP = excessP(sums[0])
	obs := min(o.P, o.ExcessP)
	hits := 0
	for b := range counts {
		if min(fisher[counts[b]], excessP(sums[b])) <= obs {
			hits++
		}
	}
	return o, float64(hits) / total
}

func sortedNS(what string, ds []time.Duration) ([]float64, error) {
	if len(ds) == 0 {
		return nil, fmt.Errorf("anomaly: no %s execution times", what)
	}
	xs := make([]float64, len(ds))
	for i, d := range ds {
		if d < 0 {
			return nil, fmt.Errorf("anomaly: %s execution time %d is negative (%v)", what, i, d)
		}
		xs[i] = float64(d)
	}
	slices.Sort(xs)
	return xs, nil
}

// quantile4 is the package's quantile (type 4) of sorted xs.
func quantile4(p float64, sorted []float64) float64 {
	return stat.Quantile(p, stat.LinInterp, sorted, nil)
}

// bootstrapRatios is the percentile bootstrap of quantile(p, cur) /
// quantile(p, base) for each p: both samples are resampled independently
// with replacement, resamples times, drawing the baseline's n indices and
// then the current's from rng. The interval is the alpha/2 and 1−alpha/2
// quantiles (type 4) of the resampled ratios; the estimate is the ratio of
// the samples' own quantiles. A resample whose baseline quantile is 0
// gives a ratio of +Inf. atMost[i] is the one-sided bootstrap p-value of
// "the ratio is at most limit": (1 + the number of resampled ratios ≤
// limit)/(resamples + 1). The interval's lower end exceeds limit exactly
// when fewer than about alpha/2 of the ratios are at most limit.
func bootstrapRatios(base, cur []float64, ps []float64, limit float64, resamples int, alpha float64, rng *rand.Rand) (ivs []Interval, atMost []float64) {
	ratios := make([][]float64, len(ps))
	for i := range ratios {
		ratios[i] = make([]float64, resamples)
	}
	bs, cs := make([]float64, len(base)), make([]float64, len(cur))
	for r := 0; r < resamples; r++ {
		for i := range bs {
			bs[i] = base[rng.IntN(len(base))]
		}
		for i := range cs {
			cs[i] = cur[rng.IntN(len(cur))]
		}
		slices.Sort(bs)
		slices.Sort(cs)
		for i, p := range ps {
			ratios[i][r] = quantile4(p, cs) / quantile4(p, bs)
		}
	}
	ivs, atMost = make([]Interval, len(ps)), make([]float64, len(ps))
	for i, p := range ps {
		slices.Sort(ratios[i])
		ivs[i] = Interval{
			Estimate: quantile4(p, cur) / quantile4(p, base),
			Low:      quantile4(alpha/2, ratios[i]),
			High:     quantile4(1-alpha/2, ratios[i]),
		}
		k, _ := slices.BinarySearch(ratios[i], math.Nextafter(limit, math.Inf(1))) // ratios ≤ limit
		atMost[i] = float64(1+k) / float64(resamples+1)
	}
	return ivs, atMost
}

// MannWhitney is the one-sided Mann–Whitney U test (Wilcoxon rank-sum) of
// the alternative "cur tends to be larger than base" (the current code is
// slower). Without ties and with both samples of at most ExactMannWhitney,
// the p-value is exact; otherwise it is the normal approximation with the
// tie correction of the variance and a continuity correction of 0.5 (as R's
// wilcox.test with correct = TRUE). When every value is tied the variance
// is 0 and P is 1. Neither slice is modified; it panics on an empty slice
// or a NaN (caller bugs).
func MannWhitney(base, cur []float64) MannWhitneyResult {
	if len(base) == 0 || len(cur) == 0 {
		panic("anomaly: MannWhitney of an empty sample")
	}
	xs, ys := slices.Clone(base), slices.Clone(cur)
	for _, v := range slices.Concat(xs, ys) {
		if math.IsNaN(v) {
			panic("anomaly: MannWhitney of a NaN")
		}
	}
	slices.Sort(xs)
	slices.Sort(ys)
	return mannWhitneySorted(xs, ys)
}

func mannWhitneySorted(xs, ys []float64) MannWhitneyResult {
	m, n := float64(len(xs)), float64(len(ys))
	// Merge the sorted samples, giving tied runs their mid-rank.
	var rankSum, tieSum float64
	ties := false
	i, j, pos := 0, 0, 0
	for i < len(xs) || j < len(ys) {
		var v float64
		if j >= len(ys) || (i < len(xs) && xs[i] <= ys[j]) {
			v = xs[i]
		} else {
			v = ys[j]
		}
		a, b := 0, 0
		for i < len(xs) && xs[i] == v {
			i++
			a++
		}
		for j < len(ys) && ys[j] == v {
			j++
			b++
		}
		t := float64(a + b)
		mid := float64(pos) + (t+1)/2
		rankSum += float64(b) * mid
		if t > 1 {
			ties = true
			tieSum += t*t*t - t
		}
		pos += a + b
	}
	u := rankSum - n*(n+1)/2
	N := m + n
	mean := m * n / 2
	variance := m * n / 12 * ((N + 1) - tieSum/(N*(N-1)))
	res := MannWhitneyResult{U: u}
	if variance > 0 {
		res.Z = (u - mean - 0.5) / math.Sqrt(variance)
	}
	switch {
	case !ties && len(xs) <= ExactMannWhitney && len(ys) <= ExactMannWhitney:
		res.P, res.Exact = exactUpperTail(len(ys), len(xs), int(math.Round(u))), true
	case variance > 0:
		res.P = 0.5 * math.Erfc(res.Z/math.Sqrt2)
	default:
		res.P = 1
	}
	return res
}

// exactUpperTail is P(U ≥ u) where U counts the pairs (c, b) with c > b
// for m values c and n values b drawn as one sample without ties and split
// at random. The largest of the m+n values is one of the c with
// probability m/(m+n), and then exceeds all n values b:
//
//	P_{m,n}(U = k) = m/(m+n)·P_{m−1,n}(U = k−n) + n/(m+n)·P_{m,n−1}(U = k)
//
// with P_{0,n} and P_{m,0} a point mass at 0. Only additions of positive
// terms: no cancellation. Cost O(m²n²).
func exactUpperTail(m, n, u int) float64 {
	if u <= 0 {
		return 1
	}
	if u > m*n {
		return 0
	}
	// prev[a] is P_{a, b-1}, cur[a] is P_{a, b}.
	prev := make([][]float64, m+1)
	for a := range prev {
		prev[a] = []float64{1} // b = 0
	}
	for b := 1; b <= n; b++ {
		cur := make([][]float64, m+1)
		cur[0] = []float64{1}
		for a := 1; a <= m; a++ {
			d := make([]float64, a*b+1)
			pa, pb := float64(a)/float64(a+b), float64(b)/float64(a+b)
			for k, v := range cur[a-1] { // P_{a-1,b}, shifted by b
				d[k+b] += pa * v
			}
			for k, v := range prev[a] { // P_{a,b-1}
				d[k] += pb * v
			}
			cur[a] = d
		}
		prev = cur
	}
	p := 0.0
	dist := prev[m]
	for k := len(dist) - 1; k >= u; k-- {
		p += dist[k]
	}
	return min(p, 1)
}

// fisherGreater is the one-sided p-value of Fisher's exact test that the
// rate k2/n2 is higher than k1/n1: P(X ≥ k2) for X hypergeometric, the
// number of the k1+k2 marked items that fall among n2 drawn from n1+n2.
func fisherGreater(k1, n1, k2, n2 int) float64 {
	K, N := k1+k2, n1+n2
	total := lchoose(N, n2)
	p := 0.0
	for x := k2; x <= min(K, n2); x++ {
		if K-x > n1 {
			continue
		}
		p += math.Exp(lchoose(K, x) + lchoose(N-K, n2-x) - total)
	}
	return min(p, 1)
}

// lchoose is log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

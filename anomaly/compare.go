package anomaly

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Defaults of CompareConfig.
const (
	// DefaultAlpha is the significance level of the regression test.
	DefaultAlpha = 0.01
	// DefaultMaxSlowdown is the largest relative slowdown of the median
	// or Q3 that is tolerated (5%).
	DefaultMaxSlowdown = 0.05
	// DefaultResamples is the number of bootstrap resamples.
	DefaultResamples = 2000
	// ExactMannWhitney is the largest sample size (of each sample) for
	// which MannWhitney computes the exact null distribution when there
	// are no ties.
	ExactMannWhitney = 50
)

// CompareConfig holds the thresholds of the regression test (Compare);
// DefaultCompareConfig has the defaults.
type CompareConfig struct {
	// Alpha is the significance level: of the Mann–Whitney test, of the
	// outlier-rate test, and 1−Alpha is the level of the bootstrap
	// confidence intervals.
	Alpha float64
	// MaxSlowdown is the tolerated relative slowdown, 0.05 for 5%: a
	// significant shift is a regression only when the lower confidence
	// bound of the median or Q3 ratio exceeds 1+MaxSlowdown. 0 tolerates
	// nothing.
	MaxSlowdown float64
	// Resamples is the number of bootstrap resamples.
	Resamples int
	// Seed seeds the bootstrap's PCG: the same inputs and seed give the
	// same intervals.
	Seed uint64
	// Threshold is the baseline's anomaly threshold (Profile.Threshold);
	// the outlier rates of both samples are counted above it. 0 skips the
	// outlier comparison.
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

// Outliers compares the rate of executions above the baseline's threshold.
type Outliers struct {
	Threshold time.Duration `json:"threshold_ns"`
	Base      int           `json:"base"`
	Current   int           `json:"current"`
	// P is the one-sided p-value of Fisher's exact test that the current
	// rate is higher than the baseline's.
	P float64 `json:"p"`
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
	// Outliers is nil when no threshold was given.
	Outliers *Outliers `json:"outliers"`

	// Config is the configuration compared with.
	Config CompareConfig `json:"-"`
	// Regression is the verdict; Reasons say why (empty when false).
	Regression bool     `json:"regression"`
	Reasons    []string `json:"reasons"`
	// Warnings say what the verdict may be missing: more current
	// executions above the baseline's threshold than the baseline had,
	// but too few to be significant (a rare slow execution needs many
	// runs to show in Fisher's test).
	Warnings []string `json:"warnings"`
}

// Compare tests whether the execution times cur are a performance
// regression against the baseline times base (see the package
// documentation, "Regression test", for the rule). Neither slice is
// modified. It returns an error when a sample is empty, holds a negative
// time, when a baseline quartile is 0, or for a configuration outside
// 0 < Alpha < 1, 0 ≤ MaxSlowdown < ∞, Resamples ≥ 1, Threshold ≥ 0.
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
	ci := bootstrapRatios(xs, ys, []float64{0.5, 0.75}, cfg.Resamples, cfg.Alpha, rng)
	c.MedianRatio, c.Q3Ratio = ci[0], ci[1]
	c.MannWhitney = mannWhitneySorted(xs, ys)
	if cfg.Threshold > 0 {
		o := &Outliers{Threshold: cfg.Threshold, Base: countAbove(xs, cfg.Threshold), Current: countAbove(ys, cfg.Threshold)}
		o.P = fisherGreater(o.Base, len(xs), o.Current, len(ys))
		c.Outliers = o
	}

	limit := 1 + cfg.MaxSlowdown
	if c.MannWhitney.P < cfg.Alpha {
		for _, r := range []struct {
			name string
			iv   Interval
		}{{"median", c.MedianRatio}, {"Q3", c.Q3Ratio}} {
			if r.iv.Low > limit {
				c.Reasons = append(c.Reasons, fmt.Sprintf("%s %+.1f%% (%.0f%% CI %+.1f%% to %+.1f%%) exceeds the tolerated %+.1f%%, Mann-Whitney p = %.3g < %g",
					r.name, 100*(r.iv.Estimate-1), 100*(1-cfg.Alpha), 100*(r.iv.Low-1), 100*(r.iv.High-1), 100*cfg.MaxSlowdown, c.MannWhitney.P, cfg.Alpha))
			}
		}
	}
	if o := c.Outliers; o != nil && o.P < cfg.Alpha {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d of %d executions above the baseline's threshold %v (baseline: %d of %d), Fisher p = %.3g < %g",
			o.Current, len(ys), o.Threshold, o.Base, len(xs), o.P, cfg.Alpha))
	}
	c.Regression = len(c.Reasons) > 0
	if o := c.Outliers; o != nil && !c.Regression && o.Current*len(xs) > o.Base*len(ys) {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d executions above the baseline's threshold %v (baseline: %d of %d), more than the baseline but not significant (Fisher p = %.3g ≥ %g): a rare slow execution needs more runs to be told apart from chance",
			o.Current, len(ys), o.Threshold, o.Base, len(xs), o.P, cfg.Alpha))
	}
	return c, nil
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

func countAbove(sorted []float64, t time.Duration) int {
	i, _ := slices.BinarySearch(sorted, float64(t)+0.5) // times are integers
	return len(sorted) - i
}

// bootstrapRatios is the percentile bootstrap of quantile(p, cur) /
// quantile(p, base) for each p: both samples are resampled independently
// with replacement, resamples times, drawing the baseline's n indices and
// then the current's from rng. The interval is the alpha/2 and 1−alpha/2
// quantiles (type 4) of the resampled ratios; the estimate is the ratio of
// the samples' own quantiles. A resample whose baseline quantile is 0
// gives a ratio of +Inf.
func bootstrapRatios(base, cur []float64, ps []float64, resamples int, alpha float64, rng *rand.Rand) []Interval {
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
	out := make([]Interval, len(ps))
	for i, p := range ps {
		slices.Sort(ratios[i])
		out[i] = Interval{
			Estimate: quantile4(p, cur) / quantile4(p, base),
			Low:      quantile4(alpha/2, ratios[i]),
			High:     quantile4(1-alpha/2, ratios[i]),
		}
	}
	return out
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
	lchoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
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

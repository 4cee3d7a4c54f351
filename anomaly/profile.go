package anomaly

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/internal/units"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tukey's fences: the IQR factors of mild and extreme outliers.
const (
	// MildOutliers is the paper's factor (phase 1b): an execution is
	// anomalous when slower than Q3 + 1.5·(Q3−Q1).
	MildOutliers = 1.5
	// ExtremeOutliers flags only Tukey's extreme outliers, Q3 + 3·(Q3−Q1).
	ExtremeOutliers = 3.0
)

// SlowQ3 is the ratio of Q3 to the median above which NewProfile warns
// that the upper quartile is made of slow executions: a latent bug that
// slows more than a quarter of the executions (or a profile too small to
// see that it is rarer) raises the threshold above the slow executions it
// should flag.
const SlowQ3 = 1.5

// RoughRuns is the number of executions below which NewProfile warns that
// the quartiles are rough.
const RoughRuns = 20

// Profile is the performance profile of phase 1b: the quartiles of the
// execution times of a training exploration and the outlier threshold
// derived from them. Quartiles are Hyndman–Fan type 4 (see the package
// documentation), rounded to the nearest nanosecond.
type Profile struct {
	// Runs is the number of execution times; Unfinished how many of them
	// are executions that did not finish (counted at the scenario timeout).
	Runs       int `json:"runs"`
	Unfinished int `json:"unfinished"`

	Min       time.Duration `json:"min_ns"`
	Q1        time.Duration `json:"q1_ns"`
	Median    time.Duration `json:"median_ns"`
	Q3        time.Duration `json:"q3_ns"`
	Max       time.Duration `json:"max_ns"`
	Threshold time.Duration `json:"threshold_ns"`
	// TukeyThreshold is Q3 + IQRFactor·(Q3−Q1), the paper's threshold;
	// Threshold is the largest of it, MinSlowdown·Median and
	// Median + MinExcess.
	TukeyThreshold time.Duration `json:"tukey_threshold_ns"`
	// MinSlowdown (0: none) is the least slowdown relative to the median
	// that counts as anomalous (RequireSlowdown).
	MinSlowdown float64 `json:"min_slowdown"`
	// MinExcess (0: none) is the least absolute excess over the median
	// that counts as anomalous (RequireExcess).
	MinExcess time.Duration `json:"min_excess_ns"`

	// IQRFactor is the factor of the interquartile range in Threshold =
	// Q3 + IQRFactor·(Q3−Q1): MildOutliers (1.5, the paper) or
	// ExtremeOutliers (3).
	IQRFactor float64 `json:"iqr_factor"`
	// FastMode, when not 0, is the number of executions TukeyThreshold
	// was computed from: the fast mode below a gap, because the upper
	// quartile of all of them lay in a slow mode (FenceFastMode);
	// FastMedian and FastQ3 are their median and third quartile, the
	// normal execution's (NormalMedian, NormalQ3). The fast mode can be
	// barely more than half of the executions, so its Q3 may be below
	// the median of all of them: the two go together.
	FastMode   int           `json:"fast_mode,omitempty"`
	FastMedian time.Duration `json:"fast_median_ns,omitempty"`
	FastQ3     time.Duration `json:"fast_q3_ns,omitempty"`

	// Warnings say why the profile may be misleading; they do not stop
	// the analysis.
	Warnings []string `json:"warnings"`
}

// NewProfile computes the profile of the execution times of a training
// exploration (phase 1b). unfinished says how many of the times belong to
// executions that did not finish; they are part of times, at the scenario
// timeout. times is not modified.
//
// NewProfile returns an error when times is empty or holds a negative
// duration, when unfinished is outside [0, len(times)], when iqrFactor is
// not a positive finite number, or when the threshold does not fit in a
// time.Duration. It warns (Profile.Warnings) when there are fewer than
// RoughRuns times, when some executions did not finish, when Q1 = Q3, and
// when Q3 is more than SlowQ3 times the median.
func NewProfile(times []time.Duration, unfinished int, iqrFactor float64) (*Profile, error) {
	n := len(times)
	if n == 0 {
		return nil, fmt.Errorf("anomaly: no execution times to profile")
	}
	if unfinished < 0 || unfinished > n {
		return nil, fmt.Errorf("anomaly: %d unfinished executions out of %d", unfinished, n)
	}
	if math.IsNaN(iqrFactor) || math.IsInf(iqrFactor, 0) || iqrFactor <= 0 {
		return nil, fmt.Errorf("anomaly: IQR factor %v is not a positive finite number", iqrFactor)
	}
	for i, d := range times {
		if d < 0 {
			return nil, fmt.Errorf("anomaly: execution time %d is negative (%v)", i, d)
		}
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	xs := make([]float64, n)
	for i, d := range sorted {
		xs[i] = float64(d)
	}
	quartile := func(p float64) time.Duration {
		return roundNS(stat.Quantile(p, stat.LinInterp, xs, nil))
	}
	p := &Profile{
		Runs:       n,
		Unfinished: unfinished,
		Min:        sorted[0],
		Q1:         quartile(0.25),
		Median:     quartile(0.5),
		Q3:         quartile(0.75),
		Max:        sorted[n-1],
		IQRFactor:  iqrFactor,
		Warnings:   []string{},
	}
	// The threshold derives from the reported (rounded) quartiles, so that
	// anyone can recompute it from profile.json.
	// Q3 is an integer, so rounding the product rounds the sum.
	extra := math.Round(iqrFactor * float64(p.Q3-p.Q1))
	if extra >= 1<<63 || time.Duration(extra) > math.MaxInt64-p.Q3 {
		return nil, fmt.Errorf("anomaly: threshold %v + %v·%v overflows a duration", p.Q3, iqrFactor, p.Q3-p.Q1)
	}
	p.Threshold = p.Q3 + time.Duration(extra)
	p.TukeyThreshold = p.Threshold

	if n < RoughRuns {
		p.Warnings = append(p.Warnings, fmt.Sprintf("only %d executions: quartiles from fewer than %d are rough", n, RoughRuns))
	}
	if unfinished > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d of %d executions did not finish: they count at the scenario timeout, which distorts the profile", unfinished, n))
	}
	if p.Q1 == p.Q3 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Q1 = Q3 = %s: any slower execution is an anomaly", units.Duration(p.Q3)))
	}
	if float64(p.Q3) > SlowQ3*float64(p.Median) {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Q3 %s is more than %g times the median %s: the upper quartile is made of slow executions, and so is the threshold derived from it; profile more executions or make the slow ones rarer in the scenario",
			units.Duration(p.Q3), SlowQ3, units.Duration(p.Median)))
	}
	return p, nil
}

// FenceFastMode moves Tukey's fence below a slow mode that holds the
// upper quartile. When more than a quarter of the profile's executions
// are slow — a latent bug that slows a fifth of the executions, sampled
// 50 times, often is — Q3 lies in the slow mode and so does the fence:
// every slow execution is then below the threshold and the search finds
// nothing. When Q3 is more than SlowQ3 times the median and the sorted
// times have a gap wider than DefaultModeGap above the median, the fence
// is Tukey's over the executions below the gap, the fast mode (at least
// RoughRuns of them), and FastMode says how many; the floors apply as
// before. The verdict then judges the slow mode's executions, which it
// calls anomalies only if normal variance cannot explain them. times must
// be the profile's. It reports whether it moved the fence.
func (p *Profile) FenceFastMode(times []time.Duration) bool {
	if float64(p.Q3) <= SlowQ3*float64(p.Median) {
		return false
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	cut := -1
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1] >= p.Median && float64(sorted[i]) > DefaultModeGap*float64(sorted[i-1]) {
			cut = i
			break
		}
	}
	if cut < RoughRuns {
		return false
	}
	fast := make([]float64, cut)
	for i, d := range sorted[:cut] {
		fast[i] = float64(d)
	}
	q1 := roundNS(stat.Quantile(0.25, stat.LinInterp, fast, nil))
	med := roundNS(stat.Quantile(0.5, stat.LinInterp, fast, nil))
	q3 := roundNS(stat.Quantile(0.75, stat.LinInterp, fast, nil))
	p.TukeyThreshold = q3 + time.Duration(math.Round(p.IQRFactor*float64(q3-q1)))
	p.FastMode, p.FastMedian, p.FastQ3 = cut, med, q3
	p.setThreshold()
	p.Warnings = slices.DeleteFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, "Q3 ") }) // the SlowQ3 warning: no longer so
	p.Warnings = append(p.Warnings, fmt.Sprintf("the anomaly threshold is Tukey's fence over the %d executions of the fast mode (up to %s), not over all %d: their upper quartile is in a slow mode (from %s)",
		cut, units.Duration(sorted[cut-1]), p.Runs, units.Duration(sorted[cut])))
	return true
}

// NormalMedian is the median of the normal executions: the fast mode's
// when the fence was moved below a slow mode (FenceFastMode), Median
// otherwise. It is at most NormalQ3.
func (p *Profile) NormalMedian() time.Duration {
	if p.FastMode > 0 {
		return p.FastMedian
	}
	return p.Median
}

// NormalQ3 is the third quartile of the normal executions: the fast
// mode's when the fence was moved below a slow mode (FenceFastMode), Q3
// otherwise. It is at most the threshold, which phase 3a's recovery
// criterion needs.
func (p *Profile) NormalQ3() time.Duration {
	if p.FastMode > 0 {
		return p.FastQ3
	}
	return p.Q3
}

// RequireSlowdown raises the threshold to at least factor·Median (rounded
// to the nearest nanosecond); 0 keeps the paper's threshold. Tukey's fence
// flags the tail of any distribution: under a heavy-tailed network a
// correct protocol has a fraction of a percent of executions above it,
// each a few percent slower than normal, and a long search finds one. A
// latent performance bug makes executions several times slower, so a
// floor such as 1.5 separates the two. It returns an error for a factor
// that is negative, not finite, or whose threshold overflows.
func (p *Profile) RequireSlowdown(factor float64) error {
	if math.IsNaN(factor) || math.IsInf(factor, 0) || factor < 0 {
		return fmt.Errorf("anomaly: minimum slowdown %v is not a finite number >= 0", factor)
	}
	floor := math.Round(factor * float64(p.Median))
	if floor >= 1<<63 {
		return fmt.Errorf("anomaly: minimum slowdown %v × median %v overflows a duration", factor, p.Median)
	}
	p.MinSlowdown = factor
	p.setThreshold()
	return nil
}

// RequireExcess raises the threshold to at least Median + excess; 0 adds
// no floor. A relative floor alone fails for short executions: when an
// execution takes microseconds (one node, no messages) or a few
// milliseconds (a small protocol on a fast network), twice the median is
// one slow handler or one delayed message away, and the network model's
// Pareto tail produces such executions all the time. An absolute floor
// says how much slower an execution must be before it matters to the
// user, whatever the median. It returns an error for a negative excess or
// one whose threshold overflows.
func (p *Profile) RequireExcess(excess time.Duration) error {
	if excess < 0 {
		return fmt.Errorf("anomaly: minimum excess %v is negative", excess)
	}
	if excess > math.MaxInt64-p.Median {
		return fmt.Errorf("anomaly: median %v + minimum excess %v overflows a duration", p.Median, excess)
	}
	p.MinExcess = excess
	p.setThreshold()
	return nil
}

// setThreshold is the largest of Tukey's threshold and the two floors.
func (p *Profile) setThreshold() {
	slow := time.Duration(math.Round(p.MinSlowdown * float64(p.Median))) // checked by RequireSlowdown
	p.Threshold = max(p.TukeyThreshold, slow, p.Median+p.MinExcess)
}

// CountWindow is the count window of phase 3b for this profile
// (timedsim.Options.CountWindow, Correlate's window): its first quartile.
// Three quarters of the normal executions, and every slow one, run for
// the whole window, and Correlate leaves the others out of WindowR (see
// "Length-controlled correlation" in the package documentation).
func (p *Profile) CountWindow() time.Duration { return p.Q1 }

// Anomalous reports whether an execution time d is above the threshold.
func (p *Profile) Anomalous(d time.Duration) bool { return d > p.Threshold }

// Above counts the times that are Anomalous: for the profile's own
// times, how many executions it already holds above its threshold.
func (p *Profile) Above(times []time.Duration) int {
	n := 0
	for _, d := range times {
		if p.Anomalous(d) {
			n++
		}
	}
	return n
}

// roundNS rounds a non-negative number of nanoseconds to the nearest
// nanosecond (halves away from zero), saturating at the largest duration.
func roundNS(x float64) time.Duration {
	x = math.Round(x)
	if x >= 1<<63 {
		return math.MaxInt64
	}
	return time.Duration(x)
}

// A profile's executions above its own threshold are "not rare" when a
// one-sided binomial test rejects, at level RareLevel, that at most
// RareRate of the scenario's executions are that slow. One slow execution
// in 50 is what a rare anomaly looks like, and no reason to warn.
const (
	RareRate  = 0.05
	RareLevel = 0.05
)

// SlowNotRare is the p-value of k of n executions above the threshold
// when at most RareRate of them are (P(X >= k), X binomial(n, RareRate)),
// and whether it is below RareLevel. stdout, the profile's warning and
// the report's profile figure all say "not rare" by it.
func SlowNotRare(k, n int) (p float64, notRare bool) {
	if k <= 0 || n <= 0 {
		return 1, false
	}
	p = distuv.Binomial{N: float64(n), P: RareRate}.Survival(float64(k - 1))
	return p, p < RareLevel
}

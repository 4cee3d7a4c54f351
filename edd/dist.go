package edd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/macepc/macepc/internal/simtime"
)

// Dist is an event duration distribution.
//
// Dist wraps the Sample method. Sample maps u in [0,1) to a duration by the
// inverse CDF; values of u outside [0,1] are clamped and NaN is treated as 0.
// Implementations in this package do not allocate in Sample and are safe for
// concurrent use: they are read-only after construction.
type Dist interface {
	Sample(u float64) time.Duration
}

// DefaultPoints is the number of entries of a percentile table (0%, 1%, …,
// 100%) used when a caller passes points == 0.
const DefaultPoints = 101

// MaxPoints bounds the length of a percentile table.
const MaxPoints = 1 << 20

// MaxDuration is the longest event duration (100 years): a seed bound,
// training sample or table entry beyond it is refused, and a what-if
// scaled duration saturates at it (Set.Scale), so that the simulator's
// node clocks, which add durations, never wrap around to a negative time.
const MaxDuration = simtime.MaxDuration

// clamp01 maps p into [0,1]; NaN becomes 0.
func clamp01(p float64) float64 {
	if p > 0 {
		if p > 1 {
			return 1
		}
		return p
	}
	return 0 // p <= 0 or NaN
}

// Uniform is the paper's seed distribution: durations uniform over [Min, Max]
// (paper 004 §3.2, Phase 1a: "uniformly over some fixed interval (such as
// 1-10ms)").
type Uniform struct {
	Min, Max time.Duration
}

// DefaultSeed returns the seed distribution used by the paper, 1ms..10ms.
func DefaultSeed() Uniform {
	return Uniform{Min: time.Millisecond, Max: 10 * time.Millisecond}
}

// Validate reports whether u is a usable distribution: 0 <= Min <= Max <=
// MaxDuration.
func (u Uniform) Validate() error {
	if u.Min < 0 || u.Max < 0 {
		return fmt.Errorf("edd: seed has a negative bound [%v, %v]", u.Min, u.Max)
	}
	if u.Min > u.Max {
		return fmt.Errorf("edd: seed min %v > max %v", u.Min, u.Max)
	}
	if u.Max > MaxDuration {
		return fmt.Errorf("edd: seed max %d ns exceeds the longest event duration, %d ns (edd.MaxDuration, 100 years)", int64(u.Max), int64(MaxDuration))
	}
	return nil
}

// Sample returns Min + p·(Max−Min) rounded to the nearest nanosecond, with p
// clamped to [0,1] (NaN counts as 0).
func (u Uniform) Sample(p float64) time.Duration {
	p = clamp01(p)
	return u.Min + time.Duration(math.Round(p*float64(u.Max-u.Min)))
}

// Empirical is an event duration distribution trained from measured handler
// times (paper 004 §3.2, Phase 1a).
//
// It keeps the number of training samples and a percentile table: entry i
// (0 <= i < P) is the sample quantile at probability i/(P−1). Quantiles are
// Hyndman–Fan type 7 (the default of R and NumPy): with the samples sorted,
// x[0] <= … <= x[n−1], the quantile at p is x[j] + f·(x[j+1]−x[j]) where
// j+f = (n−1)·p, j integral and 0 <= f < 1. Entry 0 is therefore the
// smallest sample and entry P−1 the largest, and every gap between adjacent
// order statistics carries the same probability 1/(n−1).
//
// gonum's stat.Quantile with stat.LinInterp is Hyndman–Fan type 4
// (position n·p, flat below the first sample); type 7 at p equals it at
// p′ = ((n−1)·p+1)/n. Type 7 was chosen because type 4 puts a point mass
// of 1/n on the smallest sample and never interpolates below it, which
// makes sampled durations cluster on the minimum for small n.
//
// Sample and Quantile read the table by linear interpolation between
// adjacent entries, as Mace's percentile tables do. When (n−1) divides
// (P−1) the result is exactly the type 7 quantile for every p; otherwise it
// is exact at the table's probabilities and, between them, lies between the
// two neighbouring entries. Table values are whole nanoseconds (rounded to
// nearest).
//
// An Empirical is built by NewEmpirical (or read back from JSON) and is
// immutable afterwards.
type Empirical struct {
	n     int
	table []time.Duration
}

// NewEmpirical builds an Empirical with a percentile table of points entries
// from samples; points == 0 means DefaultPoints. samples need not be sorted
// and are not modified. It returns an error for an empty sample set, points
// < 2 (other than 0) or > MaxPoints, or a duration that is negative or
// longer than MaxDuration.
func NewEmpirical(samples []time.Duration, points int) (*Empirical, error) {
	e, err := newEmpirical(samples, points)
	if err != nil {
		return nil, errors.New("edd: " + err.Error())
	}
	return e, nil
}

// newEmpirical is NewEmpirical with unprefixed errors, so callers can add
// context.
func newEmpirical(samples []time.Duration, points int) (*Empirical, error) {
	if points == 0 {
		points = DefaultPoints
	}
	if err := checkPoints(points); err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, errors.New("no samples")
	}
	for i, d := range samples {
		if d < 0 {
			return nil, fmt.Errorf("negative duration %v at index %d", d, i)
		}
		if d > MaxDuration {
			return nil, fmt.Errorf("duration %d ns at index %d exceeds %d ns (edd.MaxDuration, 100 years)", int64(d), i, int64(MaxDuration))
		}
	}
	x := slices.Clone(samples)
	slices.Sort(x)
	return &Empirical{n: len(x), table: percentiles(x, points)}, nil
}

func checkPoints(points int) error {
	if points < 2 || points > MaxPoints {
		return fmt.Errorf("points %d out of range [2, %d]", points, MaxPoints)
	}
	return nil
}

// percentiles returns the type 7 quantiles of the sorted x at probabilities
// i/(points−1). The position (n−1)·i/(points−1) is computed in integers, so
// table knots fall exactly on order statistics when they should.
func percentiles(x []time.Duration, points int) []time.Duration {
	n := len(x)
	den := points - 1
	t := make([]time.Duration, points)
	for i := range t {
		num := (n - 1) * i
		j, rem := num/den, num%den
		v := x[j]
		if rem != 0 {
			f := float64(rem) / float64(den)
			v += time.Duration(math.Round(f * float64(x[j+1]-x[j])))
		}
		t[i] = v
	}
	return t
}

// Sample returns the duration at probability u by linear interpolation in
// the percentile table; u is clamped to [0,1] and NaN counts as 0. It does
// not allocate.
func (e *Empirical) Sample(u float64) time.Duration {
	t := e.table
	last := len(t) - 1
	x := clamp01(u) * float64(last)
	k := int(x)
	if k >= last {
		k = last - 1
	}
	f := x - float64(k)
	return t[k] + time.Duration(math.Round(f*float64(t[k+1]-t[k])))
}

// Quantile returns the duration at probability p, read from the percentile
// table with the same interpolation as Sample. It panics if p is outside
// [0,1] or NaN (a caller bug, as in gonum's stat.Quantile).
func (e *Empirical) Quantile(p float64) time.Duration {
	if !(p >= 0 && p <= 1) {
		panic("edd: quantile probability out of [0,1]")
	}
	return e.Sample(p)
}

// N returns the number of samples e was trained from.
func (e *Empirical) N() int { return e.n }

// Table returns a copy of the percentile table: entry i is the quantile at
// probability i/(len−1).
func (e *Empirical) Table() []time.Duration { return slices.Clone(e.table) }

// fromTable builds an Empirical from a stored table after checking it;
// errors are unprefixed.
func fromTable(n int, table []time.Duration, points int) (*Empirical, error) {
	if n < 1 {
		return nil, fmt.Errorf("samples %d, need >= 1", n)
	}
	if len(table) == 0 {
		return nil, errors.New("empty table")
	}
	if len(table) != points {
		return nil, fmt.Errorf("table has %d entries, want %d (points)", len(table), points)
	}
	for i, d := range table {
		if d < 0 {
			return nil, fmt.Errorf("negative table entry %d at index %d", int64(d), i)
		}
		if d > MaxDuration {
			return nil, fmt.Errorf("table entry %d ns at index %d exceeds the longest event duration, %d ns (edd.MaxDuration, 100 years)", int64(d), i, int64(MaxDuration))
		}
		if i > 0 && d < table[i-1] {
			return nil, fmt.Errorf("table not non-decreasing: entry %d (%d) < entry %d (%d)",
				i, int64(d), i-1, int64(table[i-1]))
		}
	}
	return &Empirical{n: n, table: slices.Clone(table)}, nil
}

// scaled multiplies the durations of d by factor (what-if malleability,
// paper 004 §3.1).
type scaled struct {
	d      Dist
	factor float64
}

// Sample returns d.Sample(u)·factor rounded to the nearest nanosecond,
// saturating at MaxDuration.
func (s *scaled) Sample(u float64) time.Duration {
	return simtime.FromFloat(float64(s.d.Sample(u)) * s.factor)
}

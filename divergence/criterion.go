package divergence

import (
	"fmt"
	"math"
	"time"
)

// Criterion is MacePC phase 3a's test of a walk: a walk recovers when it
// finishes within Limit. See the package documentation, "Criterion", for
// why Limit and not the paper's Q3.
type Criterion struct {
	// Median, Q3 and Threshold are the profile's (phase 1b): the median
	// and third quartile of the normal execution times and the anomaly
	// threshold of phase 2.
	Median, Q3, Threshold time.Duration
	// Anomaly is the execution time of the anomalous execution.
	Anomaly time.Duration
	// Limit is the recovery limit NewCriterion derives from the others.
	Limit time.Duration
}

// NewCriterion returns the criterion of a divergence search on an
// anomaly of the given execution time, with the profile's median, Q3 and
// anomaly threshold. Limit is
//
//	max(Q3, min(Threshold, √(Median·Anomaly)))
//
// when the anomaly is slower than Threshold, and Threshold otherwise (an
// anomaly that is a finding, such as a panic, rather than slowness). It
// returns an error when the durations are negative or out of order
// (median ≤ Q3 ≤ threshold).
func NewCriterion(median, q3, threshold, anomaly time.Duration) (Criterion, error) {
	if median < 0 || q3 < median || threshold < q3 || anomaly < 0 {
		return Criterion{}, fmt.Errorf("divergence: criterion needs 0 <= median <= Q3 <= threshold and an anomaly >= 0, got median %v Q3 %v threshold %v anomaly %v",
			median, q3, threshold, anomaly)
	}
	c := Criterion{Median: median, Q3: q3, Threshold: threshold, Anomaly: anomaly, Limit: threshold}
	if anomaly > threshold {
		mid := time.Duration(math.Round(math.Sqrt(float64(median)) * math.Sqrt(float64(anomaly))))
		c.Limit = max(q3, min(threshold, mid))
	}
	return c, nil
}

// Recovered reports whether an execution that finished (or not) in time d
// meets the criterion: it finished, and within Limit.
func (c Criterion) Recovered(finished bool, d time.Duration) bool {
	return finished && d <= c.Limit
}

// Describe says in words what a walk must do to recover.
func (c Criterion) Describe() string { return c.Bound().Describe() }

// Bound is which of its bounds a criterion's Limit is: the value a
// results file stores for the criterion (divergence.json's and
// summary.json's "criterion"), a word a program compares rather than a
// sentence.
type Bound string

// The bounds of NewCriterion's limit.
const (
	BoundThreshold     Bound = "threshold"      // the anomaly threshold
	BoundQ3            Bound = "q3"             // the profile's Q3 (MacePC's criterion)
	BoundGeometricMean Bound = "geometric-mean" // √(median·anomaly), between them
)

// Bound is which bound c's Limit is (BoundThreshold when the threshold
// and Q3 are equal).
func (c Criterion) Bound() Bound {
	switch {
	case c.Limit == c.Threshold:
		return BoundThreshold
	case c.Limit == c.Q3:
		return BoundQ3
	default:
		return BoundGeometricMean
	}
}

// Describe says in words what a walk must do to recover under b
// ("finishes within Q3"); "" for the zero Bound.
func (b Bound) Describe() string {
	switch b {
	case BoundThreshold:
		return "finishes within the anomaly threshold"
	case BoundQ3:
		return "finishes within Q3"
	case BoundGeometricMean:
		return "finishes within the geometric mean of the median and the anomaly's time"
	}
	return ""
}

// UnmarshalText accepts the three bounds, "" (a file written before the
// recovery limit: MacePC's Q3, which the reader supplies), and the
// sentences files held before the bounds were words (Describe's).
func (b *Bound) UnmarshalText(text []byte) error {
	s := Bound(text)
	for _, k := range []Bound{BoundThreshold, BoundQ3, BoundGeometricMean} {
		if s == k || string(s) == k.Describe() {
			*b = k
			return nil
		}
	}
	if s != "" {
		return fmt.Errorf("divergence: unknown criterion %q (want %s, %s or %s)", s, BoundThreshold, BoundQ3, BoundGeometricMean)
	}
	*b = ""
	return nil
}

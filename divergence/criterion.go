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
func (c Criterion) Describe() string {
	switch {
	case c.Limit == c.Threshold:
		return "finishes within the anomaly threshold"
	case c.Limit == c.Q3:
		return "finishes within Q3"
	default:
		return "finishes within the geometric mean of the median and the anomaly's time"
	}
}

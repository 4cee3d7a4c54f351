package anomaly

import (
	"fmt"
	"math"
)

// Defaults of the slow-rate test (SlowRate, Gate).
const (
	// DefaultMaxSlowRate is the share of current executions above the
	// baseline's anomaly threshold that the gate tolerates (1%).
	DefaultMaxSlowRate = 0.01
	// DefaultPassFactor: the gate passes once the data show that fewer
	// than PassFactor times the allowed rate of executions are slow. A
	// rate between the allowed one and PassFactor times it is the
	// indifference zone, where either verdict may come, late.
	DefaultPassFactor = 2
	// DefaultMaxRuns caps the current executions of the sequential gate.
	DefaultMaxRuns = 3000
	// MaxAllowedRate bounds the allowed rate: above it "slow" is no
	// longer the exception the test is built for.
	MaxAllowedRate = 0.4
)

// slowRateAlternatives are the alternatives of the regression e-process,
// as multiples of the allowed rate (capped below 1): a mixture over
// them is powerful against any rate above the allowed one without
// guessing it, at the price of log(len) in evidence.
func slowRateAlternatives() []float64 { return []float64{1.5, 2, 3, 5, 10, 20, 50} }

// slowRatePassAlternatives are the alternatives of the pass e-process,
// as multiples of the allowed rate.
func slowRatePassAlternatives() []float64 { return []float64{1, 0.5, 0.1} }

// SlowRate is a sequential test of the share of executions above a
// threshold ("slow") against an allowed rate p0, with anytime-valid
// error control: it may be looked at after every execution and stopped
// whenever its evidence suffices, and its error probabilities hold at
// whatever time it stops (see the package documentation, "Regression
// gate").
//
// Evidence of a regression is the e-process E_n, the average over
// alternatives p_j > p0 of the likelihood ratios
// (p_j/p0)^k ((1−p_j)/(1−p0))^(n−k) after k slow of n executions. Each
// ratio is a nonnegative supermartingale under any rate at most p0, and so
// is their average; by Ville's inequality P(sup_n E_n ≥ 1/a) ≤ a, so
// 1/sup E is a p-value valid at any stopping time (P).
//
// Evidence of a pass is the e-process F_n against the rates at least
// p1 = PassFactor·p0: the average over alternatives q ≤ p0 of
// (q/p1)^k ((1−q)/(1−p1))^(n−k). Passed says F_n ≥ 1/Beta: the rate is
// below p1, with error probability at most Beta if it is not.
type SlowRate struct {
	// Allowed is p0, Pass is p1 and Beta the pass claim's level.
	Allowed, Pass, Beta float64
	// N executions seen, K of them slow.
	N, K int
	// MaxLogE is log sup_n E_n so far; AtN the N at which it was reached.
	MaxLogE float64
	AtN     int
}

// NewSlowRate returns a test of the allowed rate (0 < allowed ≤
// MaxAllowedRate) that passes below passFactor·allowed (passFactor > 1;
// the pass rate is capped at (1+allowed)/2) at level beta (0 < beta < 1).
func NewSlowRate(allowed, passFactor, beta float64) (*SlowRate, error) {
	switch {
	case math.IsNaN(allowed) || allowed <= 0 || allowed > MaxAllowedRate:
		return nil, fmt.Errorf("anomaly: allowed slow rate %v is not in (0, %g]", allowed, MaxAllowedRate)
	case math.IsNaN(passFactor) || passFactor <= 1 || math.IsInf(passFactor, 0):
		return nil, fmt.Errorf("anomaly: pass factor %v is not a finite number above 1", passFactor)
	case math.IsNaN(beta) || beta <= 0 || beta >= 1:
		return nil, fmt.Errorf("anomaly: pass level %v is not in (0, 1)", beta)
	}
	return &SlowRate{Allowed: allowed, Pass: min(passFactor*allowed, (1+allowed)/2), Beta: beta}, nil
}

// Observe adds one execution, slow or not.
func (s *SlowRate) Observe(slow bool) {
	s.N++
	if slow {
		s.K++
	}
	if l := s.LogE(); l > s.MaxLogE {
		s.MaxLogE, s.AtN = l, s.N
	}
}

// LogE is log E_n, the regression evidence now.
func (s *SlowRate) LogE() float64 { return s.logE(s.N, s.K) }

func (s *SlowRate) logE(n, k int) float64 {
	alts := slowRateAlternatives()
	terms := make([]float64, 0, len(alts))
	for _, c := range alts {
		p := min(c*s.Allowed, (1+s.Allowed)/2, 0.999)
		if p <= s.Allowed {
			continue
		}
		terms = append(terms, float64(k)*math.Log(p/s.Allowed)+float64(n-k)*math.Log1p(-p)-float64(n-k)*math.Log1p(-s.Allowed))
	}
	return logMeanExp(terms)
}

// P is the anytime-valid p-value of "at most Allowed of the executions
// are slow": 1/sup E, at most 1.
func (s *SlowRate) P() float64 { return min(1, math.Exp(-s.MaxLogE)) }

// Attainable is the smallest p-value the test could give within
// maxRuns executions: all of the remaining ones slow.
func (s *SlowRate) Attainable(maxRuns int) float64 {
	n := max(maxRuns, s.N)
	return min(s.P(), math.Exp(-s.logE(n, s.K+n-s.N)))
}

// PassLogE is log F_n, the evidence that fewer than Pass are slow.
func (s *SlowRate) PassLogE() float64 {
	alts := slowRatePassAlternatives()
	terms := make([]float64, 0, len(alts))
	for _, c := range alts {
		q := c * s.Allowed
		t := float64(s.N-s.K) * (math.Log1p(-q) - math.Log1p(-s.Pass))
		if s.K > 0 {
			t += float64(s.K) * math.Log(q/s.Pass)
		}
		terms = append(terms, t)
	}
	return logMeanExp(terms)
}

// Passed says that the pass evidence reached 1/Beta.
func (s *SlowRate) Passed() bool { return s.PassLogE() >= math.Log(1/s.Beta) }

// logMeanExp is log(mean(exp(xs))), computed stably; −Inf for none.
func logMeanExp(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(-1)
	}
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Exp(x - m)
	}
	return m + math.Log(sum/float64(len(xs)))
}

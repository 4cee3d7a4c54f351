package anomaly

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/macepc/macepc/internal/units"
)

// Decisions of the slow-rate test (SlowRateResult.Decision).
const (
	// SlowRateRunning: neither verdict yet, and runs are left.
	SlowRateRunning = "running"
	// SlowRateRegression: a test of the gate was rejected.
	SlowRateRegression = "regression"
	// SlowRatePass: the slow rate is shown below the pass rate, and no
	// test was rejected.
	SlowRatePass = "pass"
	// SlowRateUndecided: the run cap was reached with neither verdict.
	SlowRateUndecided = "undecided"
)

// GateConfig configures Gate; DefaultGateConfig has the defaults.
type GateConfig struct {
	// CompareConfig is the first batch's comparison; its Threshold, the
	// baseline's anomaly threshold, must be set, and its Alpha is also
	// the level of the pass claim.
	CompareConfig
	// MaxSlowRate is the share of executions above the threshold that is
	// tolerated, in (0, MaxAllowedRate].
	MaxSlowRate float64
	// MaxRuns caps the current executions: at it the gate stops,
	// undecided if nothing was shown.
	MaxRuns int
	// TailShape is the floor on the shape of the baseline's tail model
	// (TailConfig.MinShape): the network model's tail index.
	TailShape float64
}

// DefaultGateConfig returns DefaultCompareConfig, DefaultMaxSlowRate and
// DefaultMaxRuns.
func DefaultGateConfig() GateConfig {
	return GateConfig{CompareConfig: DefaultCompareConfig(), MaxSlowRate: DefaultMaxSlowRate, MaxRuns: DefaultMaxRuns}
}

// SlowRateResult is the slow-rate test of a Gate.
type SlowRateResult struct {
	// Threshold is the baseline's anomaly threshold: an execution above
	// it is slow.
	Threshold time.Duration `json:"threshold_ns"`
	// MaxRate is GateConfig.MaxSlowRate. BaseSlow of the BaseRuns
	// baseline executions are above the threshold. TailRate is the
	// baseline's tail model's conservative estimate of the share of
	// executions at or above the threshold (0 without a model; TailNote
	// says why there is none).
	MaxRate  float64 `json:"max_rate"`
	BaseSlow int     `json:"base_slow"`
	BaseRuns int     `json:"base_runs"`
	TailRate float64 `json:"tail_rate"`
	TailNote string  `json:"tail_note,omitempty"`
	// Allowed is the rate tested against: the largest of MaxRate, the
	// baseline's own rate and its tail model's; AllowedWhy says which.
	// PassRate is the rate the gate passes below (PassFactor·Allowed).
	Allowed    float64 `json:"allowed"`
	AllowedWhy string  `json:"allowed_why"`
	PassRate   float64 `json:"pass_rate"`
	// Runs current executions so far, Slow of them above the threshold;
	// MaxRuns the cap.
	Runs    int `json:"runs"`
	Slow    int `json:"slow"`
	MaxRuns int `json:"max_runs"`
	// P is the anytime-valid p-value of "at most Allowed are slow";
	// LogE and PassLogE the natural logs of the regression and pass
	// evidence (e-values) now.
	P        float64 `json:"p"`
	LogE     float64 `json:"log_e"`
	PassLogE float64 `json:"pass_log_e"`
	// Decision is one of SlowRateRunning, SlowRateRegression,
	// SlowRatePass and SlowRateUndecided: the gate's, with the other
	// tests.
	Decision string `json:"decision"`
	passed   bool
}

// Statement says in one sentence what the slow-rate test showed.
func (s *SlowRateResult) Statement() string {
	rate := fmt.Sprintf("%d of %d current executions (%s) above the baseline's threshold %s", s.Slow, s.Runs, percent(float64(s.Slow)/float64(s.Runs)), units.Duration(s.Threshold))
	switch s.Decision {
	case SlowRatePass:
		return fmt.Sprintf("fewer than %s of the current executions are slow: %s; allowed %s (%s); shown after %d executions", percent(s.PassRate), rate, percent(s.Allowed), s.AllowedWhy, s.Runs)
	case SlowRateRegression:
		return fmt.Sprintf("%s; allowed %s (%s); decided after %d executions", rate, percent(s.Allowed), s.AllowedWhy, s.Runs)
	case SlowRateUndecided:
		return fmt.Sprintf("undecided at the cap of %d executions: %s, between the allowed %s (%s) and %s", s.MaxRuns, rate, percent(s.Allowed), s.AllowedWhy, percent(s.PassRate))
	}
	return fmt.Sprintf("%s so far; allowed %s (%s)", rate, percent(s.Allowed), s.AllowedWhy)
}

// Gate is the sequential regression gate: Compare's shift and tail tests
// on a first batch of current executions as large as the baseline, and a
// slow-rate test (SlowRate) over every current execution, combined by
// Holm's procedure. Feed it batches (Add) until Done; Comparison is the
// verdict at any time. See the package documentation, "Regression gate".
type Gate struct {
	cfg  GateConfig
	c    *Comparison
	test *SlowRate
}

// NewGate compares the first batch of current execution times with the
// baseline's (Compare) and starts the slow-rate test with it. It returns
// an error for what Compare refuses, a Threshold of 0, a MaxSlowRate
// outside (0, MaxAllowedRate] or a MaxRuns below the first batch.
func NewGate(base, first []time.Duration, cfg GateConfig) (*Gate, error) {
	switch {
	case cfg.Threshold <= 0:
		return nil, fmt.Errorf("anomaly: the gate needs the baseline's threshold, got %v", cfg.Threshold)
	case math.IsNaN(cfg.MaxSlowRate) || cfg.MaxSlowRate <= 0 || cfg.MaxSlowRate > MaxAllowedRate:
		return nil, fmt.Errorf("anomaly: tolerated slow rate %v is not in (0, %g]", cfg.MaxSlowRate, MaxAllowedRate)
	case cfg.MaxRuns < len(first):
		return nil, fmt.Errorf("anomaly: a cap of %d current executions is below the first batch's %d", cfg.MaxRuns, len(first))
	}
	c, err := Compare(base, first, cfg.CompareConfig)
	if err != nil {
		return nil, err
	}
	thr := cfg.Threshold
	s := &SlowRateResult{Threshold: thr, MaxRate: cfg.MaxSlowRate, BaseRuns: len(base), MaxRuns: cfg.MaxRuns}
	for _, t := range base {
		if t > thr {
			s.BaseSlow++
		}
	}
	// The baseline's tail model, fitted to its executions below the
	// threshold: how often the baseline's own code would cross the
	// threshold, which a baseline of a few dozen executions rarely shows.
	// It needs MinTailExcesses executions in the top of the body, which
	// must stay its top: at most half of it.
	if frac := max(DefaultTailFraction, float64(MinTailExcesses+2)/float64(len(base))); frac > 0.5 {
		s.TailNote = fmt.Sprintf("%d baseline executions are too few to model its tail (%d at least)", len(base), 2*(MinTailExcesses+2))
	} else if m, err := FitTail(base, thr, TailConfig{Fraction: frac, MinShape: cfg.TailShape}); err == nil {
		s.TailRate = m.Survival(thr)
	} else {
		s.TailNote = err.Error()
	}
	s.Allowed, s.AllowedWhy = cfg.MaxSlowRate, "the tolerated rate"
	// A baseline with executions above its own threshold has a slow mode
	// of its own, whose rate its few executions pin down only loosely:
	// the same code is allowed up to the upper 1−Alpha Clopper–Pearson
	// bound of that rate, so that it is not failed for having as many
	// slow executions as the baseline, only more than it could have had.
	if s.BaseSlow > 0 {
		if ub := ClopperPearsonUpper(s.BaseSlow, len(base), cfg.Alpha); ub > s.Allowed {
			s.Allowed, s.AllowedWhy = ub, fmt.Sprintf("the baseline's own: %d of %d above its threshold, at most %s at level %g", s.BaseSlow, len(base), percent(ub), cfg.Alpha)
		}
	}
	if s.TailRate > s.Allowed {
		s.Allowed, s.AllowedWhy = s.TailRate, fmt.Sprintf("what the baseline's tail model gives above its threshold, more than the tolerated %s", percent(cfg.MaxSlowRate))
	}
	if s.Allowed > MaxAllowedRate {
		s.Allowed, s.AllowedWhy = MaxAllowedRate, s.AllowedWhy+fmt.Sprintf(", capped at %s", percent(MaxAllowedRate))
	}
	test, err := NewSlowRate(s.Allowed, DefaultPassFactor, cfg.Alpha)
	if err != nil {
		return nil, err
	}
	s.PassRate = test.Pass
	c.SlowRate = s
	c.Tests = append(c.Tests, Test{Name: TestSlowRate})
	g := &Gate{cfg: cfg, c: c, test: test}
	g.Add(first)
	return g, nil
}

// Add feeds the slow-rate test more current execution times, in the
// order they were run, and updates the verdict.
func (g *Gate) Add(times []time.Duration) {
	for _, t := range times {
		g.test.Observe(t > g.cfg.Threshold)
	}
	s, x := g.c.SlowRate, g.test
	s.Runs, s.Slow, s.P, s.LogE, s.PassLogE, s.passed = x.N, x.K, round6sig(x.P()), round6sig(x.LogE()), round6sig(x.PassLogE()), x.Passed()
	t := g.c.Test(TestSlowRate)
	t.P, t.Attainable = x.P(), x.Attainable(g.cfg.MaxRuns)
	g.c.decide()
}

// Done says that the gate has its verdict: a regression, a pass, or the
// cap reached.
func (g *Gate) Done() bool { return g.c.SlowRate.Decision != SlowRateRunning }

// Comparison is the verdict so far. Its shift and tail tests are the
// first batch's; its slow-rate test sees every execution.
func (g *Gate) Comparison() *Comparison { return g.c }

// percent renders a rate as a percentage with up to 3 significant digits.
func percent(r float64) string {
	return strconv.FormatFloat(100*r, 'g', 3, 64) + "%"
}

// round6sig rounds to 6 significant digits, for stable JSON.
func round6sig(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	s, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return s
}

package anomaly

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// runSlowRate feeds a SlowRate Bernoulli(p) executions, looking after
// every batch, until it rejects at level alpha, passes, or reaches
// maxRuns; it returns "reg", "pass" or "cap" and the executions used.
func runSlowRate(t *testing.T, rng *rand.Rand, p, allowed, alpha float64, batch, maxRuns int) (string, int) {
	t.Helper()
	s, err := NewSlowRate(allowed, DefaultPassFactor, alpha)
	if err != nil {
		t.Fatal(err)
	}
	for s.N < maxRuns {
		for i := 0; i < batch; i++ {
			s.Observe(rng.Float64() < p)
		}
		switch {
		case s.P() <= alpha:
			return "reg", s.N
		case s.Passed():
			return "pass", s.N
		}
	}
	return "cap", s.N
}

// The slow-rate test's errors hold under optional stopping: at the
// allowed rate it claims a regression, and at the pass rate a pass, at
// most alpha of the time, although it looks after every batch.
func TestSlowRateErrorsUnderOptionalStopping(t *testing.T) {
	const trials, alpha = 1000, 0.05
	rng := rand.New(rand.NewPCG(7, 8))
	regs := 0
	for i := 0; i < trials; i++ {
		if d, _ := runSlowRate(t, rng, 0.01, 0.01, alpha, 10, 3000); d == "reg" {
			regs++
		}
	}
	// Binomial(1000, 0.05) exceeds 70 with probability below 0.2%.
	if regs > 70 {
		t.Errorf("at the allowed rate the test claimed a regression in %d of %d runs, more than alpha = %g allows", regs, trials, alpha)
	}
	passes := 0
	for i := 0; i < trials; i++ {
		if d, _ := runSlowRate(t, rng, 0.02, 0.01, alpha, 10, 3000); d == "pass" {
			passes++
		}
	}
	if passes > 70 {
		t.Errorf("at the pass rate the test passed in %d of %d runs, more than alpha = %g allows", passes, trials, alpha)
	}
}

// The gate's use case: a 2.35% slow tail against 1% allowed is found
// within the default cap in at least 95% of runs (RandTree's join race on
// one training), a rate of 0 passes within 400 executions (the pass
// evidence grows by log(1/0.98) per fast execution), and a 10% tail is
// found within 200.
func TestSlowRatePower(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	found := 0
	for i := 0; i < 200; i++ {
		if d, _ := runSlowRate(t, rng, 0.0235, 0.01, DefaultAlpha/2, 50, DefaultMaxRuns); d == "reg" {
			found++
		}
	}
	if found < 190 {
		t.Errorf("a 2.35%% tail was found in %d of 200 runs, want at least 190", found)
	}
	if d, n := runSlowRate(t, rng, 0, 0.01, DefaultAlpha/2, 50, DefaultMaxRuns); d != "pass" || n > 400 {
		t.Errorf("no slow execution: %s after %d, want a pass within 400", d, n)
	}
	if d, n := runSlowRate(t, rng, 0.1, 0.01, DefaultAlpha/2, 50, DefaultMaxRuns); d != "reg" || n > 200 {
		t.Errorf("a 10%% tail: %s after %d, want a regression within 200", d, n)
	}
}

func TestNewSlowRateRefuses(t *testing.T) {
	for _, c := range []struct{ allowed, factor, beta float64 }{{0, 2, 0.01}, {0.5, 2, 0.01}, {0.01, 1, 0.01}, {0.01, 2, 0}, {0.01, 2, 1}} {
		if _, err := NewSlowRate(c.allowed, c.factor, c.beta); err == nil || !strings.HasPrefix(err.Error(), "anomaly: ") {
			t.Errorf("NewSlowRate(%v, %v, %v): err = %v, want an anomaly: error", c.allowed, c.factor, c.beta, err)
		}
	}
}

// times draws n execution times: the body uniform in [1 s, 1.2 s], a
// fraction slow of them at 20 s.
func gateTimes(rng *rand.Rand, n int, slow float64) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Second + time.Duration(rng.Float64()*float64(200*time.Millisecond))
		if rng.Float64() < slow {
			out[i] = 20 * time.Second
		}
	}
	return out
}

// runGate runs a gate in batches of 50 against a baseline of 50
// executions without slow ones.
func runGate(t *testing.T, seed uint64, slow float64, maxRuns int) *Comparison {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	base := gateTimes(rng, 50, 0)
	cfg := DefaultGateConfig()
	cfg.Threshold, cfg.MaxRuns, cfg.Seed = 1500*time.Millisecond, maxRuns, seed
	g, err := NewGate(base, gateTimes(rng, 50, slow), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for !g.Done() {
		g.Add(gateTimes(rng, 50, slow))
	}
	return g.Comparison()
}

// A rare slow tail that the first batch cannot show is a regression
// through the slow-rate test; unchanged code passes early; a rate in the
// indifference zone stops at the cap, undecided, with a warning.
func TestGateVerdicts(t *testing.T) {
	c := runGate(t, 1, 0.05, DefaultMaxRuns)
	s := c.SlowRate
	if !c.Regression || s.Decision != SlowRateRegression || !c.Test(TestSlowRate).Rejected {
		t.Fatalf("a 5%% tail: regression %v, decision %s, tests %+v", c.Regression, s.Decision, c.Tests)
	}
	if len(c.Reasons) == 0 || !strings.Contains(c.Reasons[len(c.Reasons)-1], "slow-rate test") {
		t.Errorf("reasons %q name no slow-rate test", c.Reasons)
	}
	if s.Runs >= DefaultMaxRuns || s.Runs%50 != 0 {
		t.Errorf("decided after %d executions: want a multiple of the batch, before the cap", s.Runs)
	}
	c = runGate(t, 2, 0, DefaultMaxRuns)
	if c.Regression || c.SlowRate.Decision != SlowRatePass || c.SlowRate.Runs > 400 {
		t.Errorf("unchanged code: regression %v, decision %s after %d", c.Regression, c.SlowRate.Decision, c.SlowRate.Runs)
	}
	if st := c.SlowRate.Statement(); !strings.HasPrefix(st, "fewer than 2% of the current executions are slow") {
		t.Errorf("pass statement %q", st)
	}
	c = runGate(t, 3, 0.014, 500)
	if c.Regression || c.SlowRate.Decision != SlowRateUndecided || c.SlowRate.Runs != 500 {
		t.Errorf("1.4%% against 1%% with a cap of 500: regression %v, decision %s after %d", c.Regression, c.SlowRate.Decision, c.SlowRate.Runs)
	}
	if len(c.Warnings) == 0 || !strings.HasPrefix(c.Warnings[len(c.Warnings)-1], "undecided after 500") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// The allowed rate is the baseline's own when it had slow executions
// too, up to its upper confidence bound: a bimodal baseline against the
// same code passes, although 5 of 50 says little about the rate.
func TestGateAllowsTheBaselinesOwnRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	base := gateTimes(rng, 50, 0)
	for i := 0; i < 5; i++ {
		base[i*10] = 20 * time.Second
	}
	cfg := DefaultGateConfig()
	cfg.Threshold = 1500 * time.Millisecond
	g, err := NewGate(base, gateTimes(rng, 50, 0.1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for !g.Done() {
		g.Add(gateTimes(rng, 50, 0.1))
	}
	c := g.Comparison()
	if s := c.SlowRate; math.Abs(s.Allowed-ClopperPearsonUpper(5, 50, DefaultAlpha)) > 1e-12 || s.Allowed < 0.2 || !strings.Contains(s.AllowedWhy, "baseline's own: 5 of 50") {
		t.Errorf("allowed %v (%s), want the upper bound of the baseline's own 5 of 50", s.Allowed, s.AllowedWhy)
	}
	if c.Test(TestSlowRate).Rejected {
		t.Errorf("the baseline's own 10%% was rejected: %q", c.Reasons)
	}
}

func TestNewGateRefuses(t *testing.T) {
	base := []time.Duration{time.Second, 2 * time.Second}
	cfg := DefaultGateConfig()
	if _, err := NewGate(base, base, cfg); err == nil || !strings.Contains(err.Error(), "threshold") {
		t.Errorf("no threshold: %v", err)
	}
	cfg.Threshold = 3 * time.Second
	cfg.MaxRuns = 1
	if _, err := NewGate(base, base, cfg); err == nil || !strings.Contains(err.Error(), "cap of 1") {
		t.Errorf("cap below the batch: %v", err)
	}
	cfg.MaxRuns, cfg.MaxSlowRate = 100, 0
	if _, err := NewGate(base, base, cfg); err == nil || !strings.Contains(err.Error(), "slow rate") {
		t.Errorf("rate 0: %v", err)
	}
}

// A baseline too small to model its tail gets no model, and says so,
// instead of a fit on its whole body.
func TestGateSmallBaselineHasNoTailModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	cfg := DefaultGateConfig()
	cfg.Threshold = 1500 * time.Millisecond
	g, err := NewGate(gateTimes(rng, 10, 0), gateTimes(rng, 10, 0), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Comparison().SlowRate; s.TailRate != 0 || !strings.Contains(s.TailNote, "10 baseline executions are too few") {
		t.Errorf("tail rate %v, note %q", s.TailRate, s.TailNote)
	}
}

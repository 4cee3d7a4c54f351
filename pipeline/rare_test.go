package pipeline_test

import (
	"context"
	"math"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/timedsim"
)

// The warning "slow executions are not rare" fired at 1 of 50.
// It now needs a one-sided binomial test to reject that at most 5% of the
// executions are that slow: 6 of 50, 4 of 20, 9 of 100.
func TestSlowNotRareNeedsEvidence(t *testing.T) {
	for _, c := range []struct {
		k, n    int
		notRare bool
	}{
		{0, 50, false}, {1, 50, false}, {5, 50, false}, {6, 50, true}, {50, 50, true},
		{3, 20, false}, {4, 20, true},
		{8, 100, false}, {10, 100, true},
	} {
		p, notRare := pipeline.SlowNotRare(c.k, c.n)
		if notRare != c.notRare || p < 0 || p > 1 || math.IsNaN(p) {
			t.Errorf("%d of %d: p = %v, not rare %v; want %v", c.k, c.n, p, notRare, c.notRare)
		}
	}
	// P(X >= 6) for X ~ binomial(50, 0.05), computed by hand: 1 - sum of
	// C(50,i) 0.05^i 0.95^(50-i) for i < 6.
	var below float64
	for i := 0; i < 6; i++ {
		below += binom(50, i) * math.Pow(0.05, float64(i)) * math.Pow(0.95, float64(50-i))
	}
	if p, _ := pipeline.SlowNotRare(6, 50); math.Abs(p-(1-below)) > 1e-9 {
		t.Errorf("P(X >= 6) = %v, want %v", p, 1-below)
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// A buggy Bamboo profile whose upper quartile lies in the 20 s slow mode
// (seed 8, the committed durations: 30% of the 50 executions slow) gets
// its fence over the fast mode, and the whole pipeline runs on it: the
// divergence criterion takes the fast mode's Q3 (the overall one is above
// the threshold), profile.json validates when read back, and the search
// finds the slow mode, with the fence alone and with the test.
func TestPipelineOnAFastModeFence(t *testing.T) {
	set, err := pipeline.ReadEDD("../systems/bamboo/testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	target, err := pipeline.ResolveTarget(bamboo.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		t.Fatal(err)
	}
	for _, fenceOnly := range []bool{true, false} {
		d := openDir(t)
		cfg := pipeline.DefaultConfig(d, target)
		cfg.Seed, cfg.TrainRuns, cfg.Walks, cfg.Confirm = 8, 0, 6, 6
		cfg.Verdict.FenceOnly = fenceOnly
		res, err := pipeline.Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("fence only %v: %v", fenceOnly, err)
		}
		pf := res.Profile
		if pf.FastMode == 0 || pf.Threshold >= pf.Q3NS || pf.NormalQ3NS() > pf.Threshold {
			t.Fatalf("the test's premise: a fast-mode fence below Q3; profile fast mode %d, Q3 %d, threshold %d", pf.FastMode, pf.Q3NS, pf.Threshold)
		}
		if _, _, err := d.LoadProfile(timedsim.Registry{bamboo.System()}); err != nil {
			t.Fatalf("profile.json with a fast-mode fence does not read back: %v", err)
		}
		if !res.Found() || res.Divergence == nil || res.Divergence.Q3NS != pf.FastQ3NS || res.Divergence.MedianNS != pf.FastMedianNS {
			t.Fatalf("fence only %v: found %v, divergence %+v", fenceOnly, res.Found(), res.Divergence)
		}
	}
}

package anomaly

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// bruteUpperTail enumerates every way of choosing which m of the pooled
// values are "current" and returns P(U ≥ u): the naive reference of the
// exact test.
func bruteUpperTail(pool []float64, m int, u float64) float64 {
	n := len(pool)
	hits, total := 0, 0
	var rec func(start int, chosen []int)
	rec = func(start int, chosen []int) {
		if len(chosen) == m {
			in := make([]bool, n)
			for _, c := range chosen {
				in[c] = true
			}
			var cur, base []float64
			for i, v := range pool {
				if in[i] {
					cur = append(cur, v)
				} else {
					base = append(base, v)
				}
			}
			total++
			if pairU(base, cur) >= u-1e-9 {
				hits++
			}
			return
		}
		for i := start; i < n; i++ {
			rec(i+1, append(chosen, i))
		}
	}
	rec(0, nil)
	return float64(hits) / float64(total)
}

// pairU counts pairs (c > b), ties one half: U by its definition.
func pairU(base, cur []float64) float64 {
	u := 0.0
	for _, c := range cur {
		for _, b := range base {
			switch {
			case c > b:
				u++
			case c == b:
				u += 0.5
			}
		}
	}
	return u
}

// The permeability constants of Hollander & Wolfe (1973, p. 69), the
// example of R's ?wilcox.test: wilcox.test(x, y, alternative = "greater")
// prints W = 35, p-value = 0.1272 (exact, no ties). The exact p-value is
// also checked against the enumeration of all C(15,5) = 3003 splits.
func TestMannWhitneyHollanderWolfe(t *testing.T) {
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46} // "current"
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}                               // "baseline"
	r := MannWhitney(y, x)
	if r.U != 35 || !r.Exact {
		t.Fatalf("U = %v exact %v, want 35 exact", r.U, r.Exact)
	}
	if math.Abs(r.P-0.1272) > 5e-5 {
		t.Errorf("p = %.5f, want 0.1272 (R)", r.P)
	}
	if brute := bruteUpperTail(slices.Concat(x, y), len(x), 35); math.Abs(r.P-brute) > 1e-12 {
		t.Errorf("p = %v, enumeration gives %v", r.P, brute)
	}
	// The normal approximation by hand: mean 10·5/2 = 25, variance
	// 10·5·16/12 = 66.667, z = (35 − 25 − 0.5)/8.165 = 1.1635,
	// 1 − Φ(1.1635) = 0.1223.
	if math.Abs(r.Z-1.16351) > 1e-4 {
		t.Errorf("z = %v, want 1.1635", r.Z)
	}
	// The other direction: U' = 50 − 35 = 15, P(U ≥ 15) = 1 − P(U ≤ 14)
	// = 1 − P(U ≥ 36) by symmetry.
	if rev := MannWhitney(x, y); rev.U != 15 || math.Abs(rev.P-(1-exactUpperTail(10, 5, 36))) > 1e-12 {
		t.Errorf("reversed: U = %v p = %v", rev.U, rev.P)
	}
}

// By hand: current {3, 4} beats baseline {1, 2} in all 4 pairs; of the
// C(4,2) = 6 equally likely splits only this one has U = 4: p = 1/6.
func TestMannWhitneyTiny(t *testing.T) {
	r := MannWhitney([]float64{2, 1}, []float64{4, 3})
	if r.U != 4 || !r.Exact || math.Abs(r.P-1.0/6) > 1e-15 {
		t.Errorf("got %+v, want U 4, exact p 1/6", r)
	}
	if r := MannWhitney([]float64{3, 4}, []float64{1, 2}); r.U != 0 || r.P != 1 {
		t.Errorf("current faster: got %+v, want U 0, p 1", r)
	}
}

// By hand, with ties: baseline {1, 2, 2, 3}, current {2, 3, 4, 4}. Pooled
// ranks: 1→1, the three 2s→3, the two 3s→5.5, the two 4s→7.5; the current
// rank sum is 3 + 5.5 + 7.5 + 7.5 = 23.5, U = 23.5 − 4·5/2 = 13.5 (by pairs:
// 2 + 3.5 + 4 + 4). Ties t = 3, 2, 2: Σ(t³ − t) = 36; variance =
// 16/12·(9 − 36/56) = 11.142857; z = (13.5 − 8 − 0.5)/3.338092 = 1.497862;
// p = 1 − Φ(1.4979) = 0.06709 (tables: Φ(1.49) = 0.93189, Φ(1.50) =
// 0.93319).
func TestMannWhitneyTies(t *testing.T) {
	r := MannWhitney([]float64{1, 2, 2, 3}, []float64{2, 3, 4, 4})
	if r.U != 13.5 || r.Exact {
		t.Fatalf("got %+v, want U 13.5 by the normal approximation", r)
	}
	if math.Abs(r.Z-1.497862) > 1e-6 || math.Abs(r.P-0.06709) > 5e-5 {
		t.Errorf("z = %.6f p = %.5f, want 1.497862 and 0.06709", r.Z, r.P)
	}
	// All tied: no evidence at all.
	if r := MannWhitney([]float64{5, 5}, []float64{5, 5, 5}); r.U != 3 || r.P != 1 {
		t.Errorf("all tied: %+v", r)
	}
}

// The recurrence of exactUpperTail against the enumeration for every U of
// a 6-vs-7 split, and the normal approximation against the exact tail for
// 50 vs 50 (they agree to within 0.005 in the range that matters).
func TestMannWhitneyExactDistribution(t *testing.T) {
	pool := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	for u := 0; u <= 6*7+1; u++ {
		got := exactUpperTail(6, 7, u)
		want := bruteUpperTail(pool, 6, float64(u))
		if u > 42 {
			want = 0
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("P(U ≥ %d) = %v, enumeration %v", u, got, want)
		}
	}
	mean, sd := 50*50/2.0, math.Sqrt(50*50*101/12.0)
	for _, u := range []int{1250, 1350, 1450, 1550, 1650} {
		exact := exactUpperTail(50, 50, u)
		normal := 0.5 * math.Erfc((float64(u)-mean-0.5)/sd/math.Sqrt2)
		if math.Abs(exact-normal) > 0.005 {
			t.Errorf("U = %d: exact %v, normal %v", u, exact, normal)
		}
	}
}

// By hand: 0 of 50 baseline outliers against 5 of 50 current: the 5
// outliers all fall among the current 50 of 100 with probability
// C(50,5)/C(100,5) = 2118760/75287520 = 0.0281422. 2/10 against 2/10:
// P(X ≥ 2) = 1 − [C(16,10) + 4·C(16,9)]/C(20,10) = 1 − (8008 + 45760)/184756
// = 0.708978.
func TestFisherGreater(t *testing.T) {
	for _, c := range []struct {
		k1, n1, k2, n2 int
		want           float64
	}{
		{0, 50, 5, 50, 0.0281422},
		{2, 10, 2, 10, 0.708978},
		{0, 50, 0, 50, 1},
		{5, 50, 0, 50, 1},
	} {
		if got := fisherGreater(c.k1, c.n1, c.k2, c.n2); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("fisherGreater(%d/%d, %d/%d) = %.7f, want %.7f", c.k1, c.n1, c.k2, c.n2, got, c.want)
		}
	}
}

// draw is n normal values of mean scale and standard deviation 10% of it.
func draw(rng *rand.Rand, n int, scale float64) []float64 { return drawSD(rng, n, scale, 0.1) }

func drawSD(rng *rand.Rand, n int, scale, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * (1 + sd*rng.NormFloat64())
	}
	slices.Sort(xs)
	return xs
}

// The percentile bootstrap: constant samples give a degenerate interval at
// the exact ratio; the intervals depend only on the seed; and over many
// samples from known distributions (true median ratio 1.2) the 90%
// interval covers the truth about 90% of the time.
func TestBootstrapRatios(t *testing.T) {
	rng := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 1)) }
	got, _ := bootstrapRatios([]float64{100, 100, 100}, []float64{200, 200}, []float64{0.5, 0.75}, 1.05, 50, 0.1, rng(1))
	for _, iv := range got {
		if iv != (Interval{2, 2, 2}) {
			t.Errorf("constant samples: %+v, want 2 [2, 2]", iv)
		}
	}
	r := rng(2)
	base, cur := draw(r, 50, 100), draw(r, 50, 120)
	a, aAt := bootstrapRatios(base, cur, []float64{0.5}, 1.15, 500, 0.1, rng(7))
	b, _ := bootstrapRatios(base, cur, []float64{0.5}, 1.15, 500, 0.1, rng(7))
	c, _ := bootstrapRatios(base, cur, []float64{0.5}, 1.15, 500, 0.1, rng(8))
	if a[0] != b[0] || a[0] == c[0] {
		t.Errorf("seed 7 twice: %+v %+v; seed 8: %+v", a[0], b[0], c[0])
	}
	if !(a[0].Low < a[0].Estimate && a[0].Estimate < a[0].High) {
		t.Errorf("estimate outside its interval: %+v", a[0])
	}
	// The same intervals by hand: the same draws from the same seed,
	// ratios sorted, and the type-4 quantile at 0.05 and 0.95 of 500
	// ratios, h = 25 and 475: exactly the 25th and 475th smallest.
	rr := rng(7)
	var ratios []float64
	bs, cs := make([]float64, len(base)), make([]float64, len(cur))
	for k := 0; k < 500; k++ {
		for i := range bs {
			bs[i] = base[rr.IntN(len(base))]
		}
		for i := range cs {
			cs[i] = cur[rr.IntN(len(cur))]
		}
		slices.Sort(bs)
		slices.Sort(cs)
		// Median of 50 (type 4): h = 25, the 25th smallest.
		ratios = append(ratios, cs[24]/bs[24])
	}
	slices.Sort(ratios)
	if want := (Interval{cur[24] / base[24], ratios[24], ratios[474]}); a[0] != want {
		t.Errorf("bootstrap %+v, by hand %+v", a[0], want)
	}
	// The p-value of "ratio ≤ 1.15" by hand: (1 + the ratios ≤ 1.15)/501.
	atMost := 1
	for _, x := range ratios {
		if x <= 1.15 {
			atMost++
		}
	}
	if want := float64(atMost) / 501; aAt[0] != want || atMost < 2 || atMost > 499 {
		t.Errorf("bootstrap p of ratio ≤ 1.15: %v, by hand %v (%d of 500): want strictly inside", aAt[0], want, atMost-1)
	}

	covered, reps := 0, 200
	for i := 0; i < reps; i++ {
		base, cur := draw(r, 50, 100), draw(r, 50, 120)
		ivs, _ := bootstrapRatios(base, cur, []float64{0.5}, 1.2, 400, 0.1, r)
		iv := ivs[0]
		if iv.Low <= 1.2 && 1.2 <= iv.High {
			covered++
		}
	}
	if rate := float64(covered) / float64(reps); rate < 0.82 || rate > 0.97 {
		t.Errorf("90%% intervals covered the true ratio in %.1f%% of %d samples", 100*rate, reps)
	}
}

func durations(xs []float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(math.Round(x))
	}
	return out
}

// The regression rule: a significant shift beyond the tolerated slowdown,
// or significantly more outliers, is a regression; the same sample, a
// second sample of the same distribution and a significant but tolerated
// 2% slowdown are not.
func TestCompareRule(t *testing.T) {
	cfg := func(seed uint64, maxSlowdown float64, thr time.Duration) CompareConfig {
		c := DefaultCompareConfig()
		c.Seed, c.MaxSlowdown, c.Threshold = seed, maxSlowdown, thr
		return c
	}
	r := rand.New(rand.NewPCG(3, 3))
	ms := 1e6
	base := durations(draw(r, 50, 500*ms))
	check := func(name string, cur []time.Duration, cfg CompareConfig, want bool, reason string) *Comparison {
		t.Helper()
		c, err := Compare(base, cur, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Regression != want {
			t.Errorf("%s: regression %v, want %v: %+v", name, c.Regression, want, c)
		}
		if want && !strings.Contains(strings.Join(c.Reasons, "\n"), reason) {
			t.Errorf("%s: reasons %q lack %q", name, c.Reasons, reason)
		}
		return c
	}
	same := check("same", base, cfg(1, 0.05, 0), false, "")
	if same.MannWhitney.P < 0.4 || same.MedianRatio.Estimate != 1 || same.MedianRatio.Low > 1 || same.MedianRatio.High < 1 {
		t.Errorf("same sample: %+v", same)
	}
	check("other sample", durations(draw(r, 50, 500*ms)), cfg(1, 0.05, 0), false, "")
	slower := check("20% slower", durations(draw(r, 50, 600*ms)), cfg(1, 0.05, 0), true, "median +")
	if e := slower.MedianRatio.Estimate; e < 1.1 || e > 1.3 {
		t.Errorf("20%% slower: median ratio %v", e)
	}
	// A tight distribution (sd 0.5%) 2% slower: highly significant, but
	// 2% is tolerated unless MaxSlowdown is 0.
	tightBase, tiny := durations(drawSD(r, 50, 500*ms, 0.005)), durations(drawSD(r, 50, 510*ms, 0.005))
	c, err := Compare(tightBase, tiny, cfg(1, 0.05, 0))
	if err != nil || c.Regression || c.MannWhitney.P >= 1e-6 || c.MedianRatio.Low < 1.01 || c.MedianRatio.High > 1.03 {
		t.Errorf("2%% slower: want significant, CI around +2%%, not a regression: %v %+v", err, c)
	}
	c, err = Compare(tightBase, tiny, cfg(1, 0, 0))
	if err != nil || !c.Regression || !strings.Contains(c.Reasons[0], "median +2.") {
		t.Errorf("2%% slower, none tolerated: want a median regression: %v %+v", err, c)
	}
	// 10 of 50 executions 10x slower: the median barely moves, the
	// outlier rate does.
	spiky := slices.Clone(base)
	for i := 0; i < 10; i++ {
		spiky[i*5] *= 10
	}
	thr := time.Duration(800 * ms)
	c = check("outliers", spiky, cfg(1, 0.05, thr), true, "10 of 50 executions above")
	if c.Outliers.Base != 0 || c.Outliers.Current != 10 || len(c.Warnings) != 0 || !c.Test(TestTail).Rejected || c.Test(TestShift).Rejected {
		t.Errorf("outliers: %+v, warnings %q (a regression needs none)", c.Outliers, c.Warnings)
	}
	// Bimodal: 30 of 50 executions 6% slower, 20 unchanged. The median
	// is +5.6%, but resamples often draw it from the unchanged mode: its
	// interval reaches below the tolerated 5%, so only Q3 (reliably in
	// the slow mode) is a reason.
	bimodal := durations(slices.Concat(drawSD(r, 30, 530*ms, 0.005), drawSD(r, 20, 500*ms, 0.005)))
	c, err = Compare(tightBase, bimodal, cfg(1, 0.05, 0))
	if err != nil || !c.Regression || len(c.Reasons) != 1 || !strings.HasPrefix(c.Reasons[0], "Q3 +5.") ||
		c.MedianRatio.Estimate < 1.05 || c.MedianRatio.Low > 1.05 {
		t.Errorf("bimodal: want a +5.x%% median whose interval reaches below +5%%, and a Q3 regression alone: %v %+v", err, c)
	}
	check("outliers without threshold", spiky, cfg(1, 0.5, 0), false, "")

	// 2 of 50 executions 10x slower against none: Fisher p = 0.247, not a
	// regression, but a warning says the rare slow executions are there,
	// and that this baseline (50 executions, none slow) cannot tell a rate
	// below 1 − 0.005^(1/50) = 10.1% from its own: the tail test is
	// compared with alpha/2 = 0.005 at best.
	rare := slices.Clone(base)
	rare[0], rare[25] = rare[0]*10, rare[25]*10
	c = check("rare outliers", rare, cfg(1, 0.05, thr), false, "")
	if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], "2 of 50 executions above the baseline's threshold") || !strings.Contains(c.Warnings[0], "not significant (tail test p = 0.2") ||
		!strings.Contains(c.Warnings[0], "Fisher 0.247") || !strings.Contains(c.Warnings[0], "cannot tell a rate of slow executions below 10.1% from its own") {
		t.Errorf("rare outliers: warnings %q", c.Warnings)
	}
	if c = check("no outliers", base, cfg(1, 0.05, thr), false, ""); len(c.Warnings) != 0 {
		t.Errorf("no outliers: warnings %q", c.Warnings)
	}
}

func TestCompareErrors(t *testing.T) {
	ok := []time.Duration{1, 2, 3}
	for _, c := range []struct {
		base, cur []time.Duration
		set       func(*CompareConfig)
		want      string
	}{
		{nil, ok, func(*CompareConfig) {}, "no baseline execution times"},
		{ok, []time.Duration{1, -2}, func(*CompareConfig) {}, "current execution time 1 is negative"},
		{ok, ok, func(c *CompareConfig) { c.Alpha = 1.5 }, "alpha 1.5"},
		{ok, ok, func(c *CompareConfig) { c.Alpha = 0 }, "alpha 0"},
		{ok, ok, func(c *CompareConfig) { c.Resamples = 0 }, "resamples"},
		{ok, ok, func(c *CompareConfig) { c.MaxSlowdown = math.Inf(1) }, "max slowdown"},
		{ok, ok, func(c *CompareConfig) { c.MaxSlowdown = -0.1 }, "max slowdown"},
		{ok, ok, func(c *CompareConfig) { c.Threshold = -1 }, "negative threshold"},
		{[]time.Duration{0, 0, 0}, ok, func(*CompareConfig) {}, "median or Q3 is 0"},
	} {
		cfg := DefaultCompareConfig()
		c.set(&cfg)
		if _, err := Compare(c.base, c.cur, cfg); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "anomaly: ") {
			t.Errorf("Compare(%v, %v, %+v): %v, want %q", c.base, c.cur, cfg, err, c.want)
		}
	}
}

// Holm's procedure by hand at alpha 0.05. {0.004, 0.03}: 0.004 < 0.025,
// then 0.03 < 0.05: both rejected, adjusted 0.008 and 0.03. {0.02, 0.03}:
// 0.02 < 0.025 and 0.03 < 0.05: both, adjusted 0.04 and max(0.04, 0.03).
// {0.03, 0.04}: 0.03 ≥ 0.025 stops: none, adjusted 0.06 and 0.06.
// {0.001, 0.5, 0.02}: levels 0.05/3, 0.05/2, 0.05 for 0.001, 0.02, 0.5:
// the first two. Ties keep their order.
func TestHolm(t *testing.T) {
	for _, c := range []struct {
		p, adj, level []float64
		rejected      []bool
	}{
		{[]float64{0.004, 0.03}, []float64{0.008, 0.03}, []float64{0.025, 0.05}, []bool{true, true}},
		{[]float64{0.03, 0.004}, []float64{0.03, 0.008}, []float64{0.05, 0.025}, []bool{true, true}},
		{[]float64{0.02, 0.03}, []float64{0.04, 0.04}, []float64{0.025, 0.05}, []bool{true, true}},
		{[]float64{0.03, 0.04}, []float64{0.06, 0.06}, []float64{0.025, 0.05}, []bool{false, false}},
		{[]float64{0.001, 0.5, 0.02}, []float64{0.003, 0.5, 0.04}, []float64{0.05 / 3, 0.05, 0.025}, []bool{true, false, true}},
		{[]float64{0.02, 0.02}, []float64{0.04, 0.04}, []float64{0.025, 0.05}, []bool{true, true}},
		{[]float64{0.7}, []float64{0.7}, []float64{0.05}, []bool{false}},
	} {
		tests := make([]Test, len(c.p))
		for i, p := range c.p {
			tests[i] = Test{Name: string(rune('a' + i)), P: p}
		}
		holm(tests, 0.05)
		for i, tt := range tests {
			if math.Abs(tt.AdjustedP-c.adj[i]) > 1e-12 || math.Abs(tt.Level-c.level[i]) > 1e-12 || tt.Rejected != c.rejected[i] {
				t.Errorf("p %v: test %d: %+v, want adjusted %v level %v rejected %v", c.p, i, tt, c.adj[i], c.level[i], c.rejected[i])
			}
		}
	}
}

// bruteTail enumerates every split of the pooled times into a baseline
// of n and a current sample of the rest and returns the exact p-values of
// the tail test: Fisher's (by counting), the excess's, and their min-P
// combination — the naive reference of tailTest's permutations.
func bruteTail(pool []time.Duration, n int, thr time.Duration) (fisher, excess, combined float64) {
	N := len(pool)
	type split struct {
		count int
		sum   int64
	}
	var splits []split
	var rec func(start int, inBase []bool, k int)
	rec = func(start int, inBase []bool, k int) {
		if k == n {
			var s split
			for i, t := range pool {
				if !inBase[i] && t > thr {
					s.count++
					s.sum += int64(t - thr)
				}
			}
			splits = append(splits, s)
			return
		}
		for i := start; i < N; i++ {
			inBase[i] = true
			rec(i+1, inBase, k+1)
			inBase[i] = false
		}
	}
	rec(0, make([]bool, N), 0)
	// The observed split: the first n are the baseline.
	var obs split
	for _, t := range pool[n:] {
		if t > thr {
			obs.count++
			obs.sum += int64(t - thr)
		}
	}
	total := float64(len(splits))
	pc := func(s split) float64 {
		k := 0
		for _, x := range splits {
			if x.count >= s.count {
				k++
			}
		}
		return float64(k) / total
	}
	pe := func(s split) float64 {
		k := 0
		for _, x := range splits {
			if x.sum >= s.sum {
				k++
			}
		}
		return float64(k) / total
	}
	fisher, excess = pc(obs), pe(obs)
	m := min(fisher, excess)
	k := 0
	for _, x := range splits {
		if min(pc(x), pe(x)) <= m {
			k++
		}
	}
	return fisher, excess, float64(k) / total
}

// The tail test against the enumeration of all C(12,6) = 924 splits:
// Fisher's p-value is exact, the permutation p-values of the excess and
// of the min-P combination are within Monte Carlo error (20000
// permutations: standard error at most 0.0036). Three cases: the current
// sample has more slow executions; as many but longer ones (Fisher sees
// nothing, the excess does); and fewer.
func TestTailTestAgainstEnumeration(t *testing.T) {
	ms := time.Millisecond
	thr := 100 * ms
	for _, c := range []struct {
		name      string
		base, cur []time.Duration
	}{
		{"more", []time.Duration{50 * ms, 60 * ms, 70 * ms, 80 * ms, 90 * ms, 150 * ms}, []time.Duration{55 * ms, 65 * ms, 400 * ms, 300 * ms, 120 * ms, 95 * ms}},
		{"longer", []time.Duration{50 * ms, 110 * ms, 120 * ms, 80 * ms, 90 * ms, 60 * ms}, []time.Duration{55 * ms, 900 * ms, 700 * ms, 70 * ms, 85 * ms, 95 * ms}},
		{"fewer", []time.Duration{150 * ms, 160 * ms, 170 * ms, 80 * ms, 90 * ms, 60 * ms}, []time.Duration{55 * ms, 65 * ms, 75 * ms, 85 * ms, 95 * ms, 130 * ms}},
	} {
		pool := slices.Concat(c.base, c.cur)
		wantF, wantE, wantC := bruteTail(pool, len(c.base), thr)
		o, p := tailTest(c.base, c.cur, thr, 20000, rand.New(rand.NewPCG(1, 2)))
		if math.Abs(o.P-wantF) > 1e-9 || math.Abs(o.ExcessP-wantE) > 0.012 || math.Abs(p-wantC) > 0.012 {
			t.Errorf("%s: Fisher %.4f excess %.4f combined %.4f; enumeration %.4f %.4f %.4f", c.name, o.P, o.ExcessP, p, wantF, wantE, wantC)
		}
		if p < min(o.P, o.ExcessP)-0.012 {
			t.Errorf("%s: combined p %.4f below the smaller p-value %.4f", c.name, p, min(o.P, o.ExcessP))
		}
	}
	// "longer" by hand: two slow executions on each side (4 of 12), so
	// Fisher's p is P(X ≥ 2) = 1 − [C(8,6) + 4·C(8,5)]/C(12,6) = 672/924 =
	// 0.727. The current sum of excesses, 800 + 600 ms, beats every split
	// but those with both 900 ms and 700 ms in the current sample: p =
	// C(10,4)/C(12,6) = 210/924 = 0.227. A split has min-P at most 0.227
	// when it holds both (all four slow ones included): combined 0.227.
	o, p := tailTest([]time.Duration{50 * ms, 110 * ms, 120 * ms, 80 * ms, 90 * ms, 60 * ms}, []time.Duration{55 * ms, 900 * ms, 700 * ms, 70 * ms, 85 * ms, 95 * ms}, thr, 20000, rand.New(rand.NewPCG(1, 2)))
	if o.Base != 2 || o.Current != 2 || o.BaseExcess != 5*ms || o.CurrentExcess != 233333333 || math.Abs(o.P-672.0/924) > 1e-9 ||
		math.Abs(o.ExcessP-210.0/924) > 0.012 || math.Abs(p-210.0/924) > 0.012 {
		t.Errorf("longer: %+v, combined p %.4f", o, p)
	}
}

// mixture draws n execution times: a fraction slow of them at about
// slowAt (±1%), the others at 500ms ± 2%, rounded to the nanosecond.
func mixture(rng *rand.Rand, n int, slow float64, slowAt time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		at := 500 * time.Millisecond
		sd := 0.02
		if rng.Float64() < slow {
			at, sd = slowAt, 0.01
		}
		out[i] = time.Duration(math.Round(float64(at) * (1 + sd*rng.NormFloat64())))
	}
	return out
}

// The "heavy tail": the baseline already has slow executions (8
// of 50, just above its 750ms threshold), and the change makes them 20
// times slower (8 of 50 at 10 s). The rate above the threshold did not
// move (Fisher p about 0.6) and neither did the quartiles: the rule that
// looked only at the rate let this through. The excess over the
// threshold, 8·9.25 s against 8·0.05 s, is larger in the current sample
// than in any split that does not put all 8 slow executions there:
// p ≈ C(50,8)/C(100,8) = 0.0029 < alpha/2.
func TestCompareHeavierTail(t *testing.T) {
	ms := time.Millisecond
	r := rand.New(rand.NewPCG(5, 5))
	base, cur := mixture(r, 50, 0, 0), mixture(r, 50, 0, 0)
	for i := 0; i < 8; i++ {
		base[i*6] = 800*ms + time.Duration(i)*ms
		cur[i*6+1] = 10*time.Second + time.Duration(i)*ms
	}
	cfg := DefaultCompareConfig()
	cfg.Seed, cfg.Threshold = 1, 750*ms
	c, err := Compare(base, cur, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Outliers.Base != 8 || c.Outliers.Current != 8 || c.Outliers.P < 0.4 || c.MannWhitney.P < 0.01 {
		t.Fatalf("the set-up: %+v, Mann-Whitney %+v", c.Outliers, c.MannWhitney)
	}
	if !c.Regression || !c.Test(TestTail).Rejected || c.Test(TestShift).Rejected || c.Outliers.ExcessP > 0.005 ||
		len(c.Reasons) != 1 || !strings.HasPrefix(c.Reasons[0], "8 of 50 executions above the baseline's threshold 750 ms (baseline: 8 of 50), 1.48") {
		t.Errorf("a heavier tail: regression %v, tests %+v, outliers %+v, reasons %q", c.Regression, c.Tests, c.Outliers, c.Reasons)
	}
}

// The RandTree case at 50 executions each: 6 current executions
// 20 times slower, none in the baseline. No test that is exact under
// exchangeability can reach below C(50,6)/C(100,6) = 0.0133 here, above
// alpha, let alone alpha/2: Compare says "no regression" and warns that
// this baseline cannot tell a rate below 10.1% from its own. The same
// slowdown with 200 executions each is a regression.
func TestCompareRareSlowNeedsALargerBaseline(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	cfg := DefaultCompareConfig()
	cfg.Seed, cfg.Threshold = 1, 750*time.Millisecond
	base, cur := mixture(r, 50, 0, 0), mixture(r, 50, 0, 0)
	for i := 0; i < 6; i++ {
		cur[i*8] = 10 * time.Second
	}
	c, err := Compare(base, cur, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// C(50,6)/C(100,6) = 15890700/1192052400.
	if b := 15890700.0 / 1192052400; c.Regression || math.Abs(c.Outliers.P-b) > 1e-9 || c.Test(TestTail).P < b-0.005 ||
		len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "below 10.1% from its own") {
		t.Errorf("6 of 50 against 0 of 50: regression %v, outliers %+v, tests %+v, warnings %q", c.Regression, c.Outliers, c.Tests, c.Warnings)
	}
	base, cur = mixture(r, 200, 0, 0), mixture(r, 200, 0, 0)
	for i := 0; i < 16; i++ { // 8%
		cur[i*12] = 10 * time.Second
	}
	if c, err = Compare(base, cur, cfg); err != nil || !c.Regression || !c.Test(TestTail).Rejected {
		t.Errorf("16 of 200 against 0 of 200: %v %+v", err, c)
	}
}

// ClopperPearsonUpper by hand: with no success in n trials the bound is
// 1 − level^(1/n) (P(X ≤ 0) = (1−r)^n); 1 of 2 at level 0.5 solves
// 1 − r² = 0.5; n of n is 1.
func TestClopperPearsonUpper(t *testing.T) {
	for _, c := range []struct {
		k, n  int
		level float64
		want  float64
	}{
		{0, 50, 0.005, 1 - math.Pow(0.005, 1.0/50)},
		{0, 200, 0.01, 1 - math.Pow(0.01, 1.0/200)},
		{1, 2, 0.5, math.Sqrt(0.5)},
		{3, 3, 0.01, 1},
	} {
		if got := ClopperPearsonUpper(c.k, c.n, c.level); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ClopperPearsonUpper(%d, %d, %v) = %v, want %v", c.k, c.n, c.level, got, c.want)
		}
	}
	if got := ClopperPearsonUpper(0, 50, 0.005); math.Abs(got-0.1005) > 5e-4 {
		t.Errorf("the 50-run baseline's bound: %v, want 10.1%%", got)
	}
}

// The family-wise error rate under the null hypothesis: 300 pairs of
// samples of one heavy-tailed distribution (8% of executions 20 times
// slower, as RandTree buggy), 60 each (Mann–Whitney's normal
// approximation: the exact distribution is slow to compute), with no
// tolerated slowdown (so the shift test is not conservative by
// construction) at alpha 0.1. Holm's procedure keeps the rate of pairs
// with any rejected test at most alpha (30 of 300, plus 3 standard
// errors: 45); testing each at alpha without a correction errs more often.
func TestCompareFamilyWiseError(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	cfg := DefaultCompareConfig()
	cfg.Alpha, cfg.MaxSlowdown, cfg.Resamples, cfg.Threshold = 0.1, 0, 400, 750*time.Millisecond
	holmFP, rawFP := 0, 0
	for i := 0; i < 300; i++ {
		cfg.Seed = uint64(i)
		c, err := Compare(mixture(r, 60, 0.08, 10*time.Second), mixture(r, 60, 0.08, 10*time.Second), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c.Regression {
			holmFP++
		}
		for _, tt := range c.Tests {
			if tt.P < cfg.Alpha {
				rawFP++
				break
			}
		}
	}
	t.Logf("false positives at alpha 0.1: %d of 300 with Holm, %d without a correction", holmFP, rawFP)
	if holmFP > 45 || rawFP <= holmFP {
		t.Errorf("false positives: %d of 300 with Holm (want at most 45), %d without a correction (want more)", holmFP, rawFP)
	}
}

// tailAttainable against the enumeration: over every way the pool could
// have been split, the smallest exact p-value of the tail test,
// C(m,k)/C(n+m,k) (6 of 50 + 50: 0.0133; 2 of 10 + 10: 45/190; 5 of 2 +
// 10: 252/792), or with more slow executions than current places the
// one split that gives the current sample the largest excesses, 1 of
// C(n+m,m) (11 of 50 + 10: 1/C(60,10)).
func TestTailAttainable(t *testing.T) {
	for _, c := range []struct {
		k, n, m int
		want    float64
	}{
		{0, 50, 50, 1}, {6, 50, 50, 15890700.0 / 1192052400}, {2, 10, 10, 45.0 / 190}, {5, 2, 10, 252.0 / 792}, {11, 50, 10, 1.0 / 75394027566},
	} {
		if got := tailAttainable(c.k, c.n, c.m); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("tailAttainable(%d, %d, %d) = %v, want %v", c.k, c.n, c.m, got, c.want)
		}
	}
	ms := time.Millisecond
	for _, c := range []struct {
		pool []time.Duration
		n    int
	}{
		{[]time.Duration{50 * ms, 60 * ms, 70 * ms, 110 * ms, 90 * ms, 300 * ms, 55 * ms, 65 * ms, 400 * ms, 75 * ms}, 5},
		{[]time.Duration{150 * ms, 60 * ms, 170 * ms, 110 * ms, 90 * ms, 300 * ms, 55 * ms, 65 * ms, 400 * ms, 75 * ms, 80 * ms, 85 * ms}, 2},
	} {
		// Every split of the pool as the observed one.
		best := 1.0
		var rec func(start int, base []int)
		rec = func(start int, base []int) {
			if len(base) == c.n {
				var b, cur []time.Duration
				for i, x := range c.pool {
					if slices.Contains(base, i) {
						b = append(b, x)
					} else {
						cur = append(cur, x)
					}
				}
				_, _, p := bruteTail(slices.Concat(b, cur), c.n, 100*ms)
				best = min(best, p)
				return
			}
			for i := start; i < len(c.pool); i++ {
				rec(i+1, append(base, i))
			}
		}
		rec(0, nil)
		k := 0
		for _, x := range c.pool {
			if x > 100*ms {
				k++
			}
		}
		if got := tailAttainable(k, c.n, len(c.pool)-c.n); math.Abs(got-best) > 1e-12 {
			t.Errorf("pool %v, baseline %d: tailAttainable %v, enumeration %v", c.pool, c.n, got, best)
		}
	}
}

// Tarone's rule: a test that cannot reach alpha on this pool is left out
// of Holm's family. With nothing above the threshold the tail test can
// never reject: the shift test alone is compared with alpha. With 20 of
// 50 current executions far above it, both are in the family and the
// smaller p-value is compared with alpha/2.
func TestCompareTarone(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	cfg := DefaultCompareConfig()
	cfg.Seed, cfg.Threshold = 1, 750*time.Millisecond
	base, cur := mixture(r, 50, 0, 0), mixture(r, 50, 0, 0)
	c, err := Compare(base, cur, cfg)
	if err != nil {
		t.Fatal(err)
	}
	shift, tail := c.Test(TestShift), c.Test(TestTail)
	if shift.Excluded || shift.Level != 0.01 || !tail.Excluded || tail.Attainable != 1 || tail.Level != 0 || tail.AdjustedP != 1 || tail.Rejected {
		t.Errorf("nothing above the threshold: %+v", c.Tests)
	}
	for i := 0; i < 20; i++ {
		cur[i] = 10 * time.Second
	}
	if c, err = Compare(base, cur, cfg); err != nil {
		t.Fatal(err)
	}
	shift, tail = c.Test(TestShift), c.Test(TestTail)
	if shift.Excluded || tail.Excluded || tail.Level != 0.005 || !tail.Rejected || shift.Level != 0.01 {
		t.Errorf("20 of 50 above the threshold: %+v", c.Tests)
	}
	// Too few resamples for the shift test (its bootstrap p-value is at
	// least 2/101 ≥ 0.01): it is left out, with a warning, and the tail
	// test alone is compared with alpha; the permutations can give it
	// 1/101 < 0.01.
	cfg.Resamples = 100
	if c, err = Compare(base, cur, cfg); err != nil || !c.Test(TestShift).Excluded || c.Test(TestTail).Level != 0.01 || !c.Regression ||
		len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], "the shift test is left out: 100 bootstrap resamples cannot give it a p-value below 0.0198") {
		t.Errorf("100 resamples: %v %+v", err, c)
	}
}

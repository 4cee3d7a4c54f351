package anomaly

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProfileQuartiles (phase 1b) checks the quartiles against values
// derived by hand from the Hyndman–Fan type 4 definition, not computed with
// gonum: for the sorted times x(1) ≤ … ≤ x(n) and h = n·p,
// Q(p) = x(1) if h < 1, else x(⌊h⌋) + (h−⌊h⌋)·(x(⌊h⌋+1) − x(⌊h⌋)),
// rounded to the nearest nanosecond. Threshold = Q3 + factor·(Q3 − Q1).
// Inputs are given unsorted.
func TestProfileQuartiles(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name                                string
		times                               []time.Duration
		factor                              float64
		min, q1, median, q3, max, threshold time.Duration
	}{
		// n = 1: h = 0.25, 0.5, 0.75 are all < 1, so every quartile is
		// x(1) = 7 s, and the threshold is 7 s + 1.5·0.
		{"n=1", []time.Duration{7 * time.Second}, 1.5,
			7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second},
		// n = 2, x = (1 s, 3 s). Q1: h = 0.5 < 1 → x(1) = 1 s. Median:
		// h = 1 → x(1) + 0 = 1 s (type 4's median of two is the smaller).
		// Q3: h = 1.5 → x(1) + 0.5·(3−1) s = 2 s. Threshold 2 + 1.5·1 = 3.5 s.
		{"n=2", []time.Duration{3 * time.Second, time.Second}, 1.5,
			time.Second, time.Second, time.Second, 2 * time.Second, 3 * time.Second, 3500 * ms},
		// n = 4, x = (10, 20, 30, 40) ms. h = 1, 2, 3 are integers: the
		// quartiles are x(1), x(2), x(3) = 10, 20, 30 ms. Threshold
		// 30 + 1.5·20 = 60 ms.
		{"n=4", []time.Duration{40 * ms, 10 * ms, 30 * ms, 20 * ms}, 1.5,
			10 * ms, 10 * ms, 20 * ms, 30 * ms, 40 * ms, 60 * ms},
		// n = 5, x = (100, 200, 400, 800, 1600) ms. Q1: h = 1.25 →
		// 100 + 0.25·100 = 125 ms. Median: h = 2.5 → 200 + 0.5·200 = 300 ms.
		// Q3: h = 3.75 → 400 + 0.75·400 = 700 ms. Threshold
		// 700 + 1.5·575 = 1562.5 ms.
		{"n=5", []time.Duration{1600 * ms, 100 * ms, 800 * ms, 200 * ms, 400 * ms}, 1.5,
			100 * ms, 125 * ms, 300 * ms, 700 * ms, 1600 * ms, 1562500 * time.Microsecond},
		// The same with Tukey's extreme factor: 700 + 3·575 = 2425 ms.
		{"n=5 extreme", []time.Duration{1600 * ms, 100 * ms, 800 * ms, 200 * ms, 400 * ms}, 3,
			100 * ms, 125 * ms, 300 * ms, 700 * ms, 1600 * ms, 2425 * ms},
		// Rounding, n = 5, x = (0, 1, 2, 3, 4) ns. Q1: h = 1.25 →
		// 0 + 0.25 = 0.25 → 0. Median: h = 2.5 → 1 + 0.5 = 1.5 → 2 (halves
		// away from zero). Q3: h = 3.75 → 2 + 0.75 = 2.75 → 3. Threshold
		// from the rounded quartiles: 3 + 1.5·3 = 7.5 → 8 ns.
		{"n=5 rounding", []time.Duration{4, 0, 3, 1, 2}, 1.5,
			0, 0, 2, 3, 4, 8},
		// n = 10 with ties, x = (5, 5, 5, 6, 6, 7, 8, 9, 9, 30) ms.
		// Q1: h = 2.5 → x(2) + 0.5·(x(3)−x(2)) = 5 + 0.5·0 = 5 ms.
		// Median: h = 5 → x(5) = 6 ms. Q3: h = 7.5 → x(7) + 0.5·(x(8)−x(7))
		// = 8 + 0.5·1 = 8.5 ms. Threshold 8.5 + 1.5·3.5 = 13.75 ms.
		{"n=10 ties", []time.Duration{9 * ms, 5 * ms, 30 * ms, 6 * ms, 5 * ms, 8 * ms, 7 * ms, 5 * ms, 9 * ms, 6 * ms}, 1.5,
			5 * ms, 5 * ms, 6 * ms, 8500 * time.Microsecond, 30 * ms, 13750 * time.Microsecond},
		// n = 10, a tie across both quartiles: x = (1, 2, 2, 2, 2, 2, 2, 2,
		// 2, 3) s. Q1: h = 2.5 → x(2) + 0.5·(x(3)−x(2)) = 2 s; median h = 5
		// → x(5) = 2 s; Q3: h = 7.5 → x(7) + 0.5·0 = 2 s. Threshold 2 s.
		{"n=10 flat", []time.Duration{2e9, 2e9, 3e9, 2e9, 2e9, 1e9, 2e9, 2e9, 2e9, 2e9}, 1.5,
			time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 3 * time.Second, 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.times)
			p, err := NewProfile(in, 0, tc.factor)
			if err != nil {
				t.Fatal(err)
			}
			got := []time.Duration{p.Min, p.Q1, p.Median, p.Q3, p.Max, p.Threshold}
			want := []time.Duration{tc.min, tc.q1, tc.median, tc.q3, tc.max, tc.threshold}
			if !slices.Equal(got, want) {
				t.Errorf("min, Q1, median, Q3, max, threshold = %v, want %v", got, want)
			}
			if p.Runs != len(tc.times) || p.IQRFactor != tc.factor {
				t.Errorf("Runs %d, IQRFactor %v", p.Runs, p.IQRFactor)
			}
			if !slices.Equal(in, tc.times) {
				t.Errorf("NewProfile modified its input: %v", in)
			}
			if p.Anomalous(p.Threshold) || !p.Anomalous(p.Threshold+1) {
				t.Errorf("Anomalous is not d > Threshold (%v)", p.Threshold)
			}
		})
	}
}

// TestProfileWarnings: too few executions, unfinished executions, Q1 = Q3
// and a Q3 of slow executions are warnings, each on its own.
func TestProfileWarnings(t *testing.T) {
	spread := func(n int) []time.Duration {
		xs := make([]time.Duration, n)
		for i := range xs {
			xs[i] = time.Duration(500+i) * time.Millisecond
		}
		return xs
	}
	flat := slices.Repeat([]time.Duration{time.Second}, 30)
	tests := []struct {
		name       string
		times      []time.Duration
		unfinished int
		want       []string // a substring of each expected warning, in order
	}{
		{"clean", spread(20), 0, nil},
		{"few", spread(19), 0, []string{"only 19 executions"}},
		{"unfinished", spread(20), 2, []string{"2 of 20 executions did not finish"}},
		{"flat", flat, 0, []string{"Q1 = Q3 = 1 s: any slower execution is an anomaly"}},
		{"all", spread(1), 1, []string{"only 1 executions", "1 of 1 executions did not finish", "Q1 = Q3"}},
		// 14 of 20 at 1 s, 6 at 20 s: type 4 puts Q3 at the 15th, 20 s.
		{"slow quarter", slices.Concat(slices.Repeat([]time.Duration{time.Second}, 14), slices.Repeat([]time.Duration{20 * time.Second}, 6)), 0,
			[]string{"Q3 20 s is more than 1.5 times the median 1 s"}},
		// 10 at 1 s, 10 at 1.5 s: Q3 is exactly 1.5 times the median.
		{"Q3 at 1.5x", slices.Concat(slices.Repeat([]time.Duration{time.Second}, 10), slices.Repeat([]time.Duration{1500 * time.Millisecond}, 10)), 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProfile(tc.times, tc.unfinished, MildOutliers)
			if err != nil {
				t.Fatal(err)
			}
			if p.Warnings == nil {
				t.Error("Warnings is nil, want an empty list (JSON [])")
			}
			if len(p.Warnings) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", p.Warnings, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(p.Warnings[i], w) {
					t.Errorf("warning %d is %q, want it to contain %q", i, p.Warnings[i], w)
				}
			}
		})
	}
}

// TestProfileErrors: bad data is an error starting "anomaly: ", not a panic.
func TestProfileErrors(t *testing.T) {
	ok := []time.Duration{time.Second, 2 * time.Second}
	tests := []struct {
		name       string
		times      []time.Duration
		unfinished int
		factor     float64
		want       string
	}{
		{"nil", nil, 0, 1.5, "no execution times"},
		{"empty", []time.Duration{}, 0, 1.5, "no execution times"},
		{"negative", []time.Duration{time.Second, -1}, 0, 1.5, "execution time 1 is negative"},
		{"factor zero", ok, 0, 0, "IQR factor 0"},
		{"factor negative", ok, 0, -1.5, "IQR factor -1.5"},
		{"factor NaN", ok, 0, math.NaN(), "IQR factor NaN"},
		{"factor Inf", ok, 0, math.Inf(1), "IQR factor +Inf"},
		{"unfinished negative", ok, -1, 1.5, "-1 unfinished executions out of 2"},
		{"unfinished too many", ok, 3, 1.5, "3 unfinished executions out of 2"},
		// Q1 = 0, Q3 = 2^61 ns: 2^61 + 3·2^61 = 2^63 does not fit.
		{"overflow", []time.Duration{0, 1 << 62}, 0, 3, "overflows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProfile(tc.times, tc.unfinished, tc.factor)
			if err == nil {
				t.Fatalf("no error; profile %+v", p)
			}
			if !strings.HasPrefix(err.Error(), "anomaly: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want \"anomaly: …%s…\"", err, tc.want)
			}
		})
	}
}

// TestProfileLargeTimes: times near the largest duration do not wrap.
func TestProfileLargeTimes(t *testing.T) {
	p, err := NewProfile([]time.Duration{math.MaxInt64, math.MaxInt64}, 0, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Q1 != math.MaxInt64 || p.Q3 != math.MaxInt64 || p.Threshold != math.MaxInt64 {
		t.Errorf("Q1 %d Q3 %d threshold %d, want the largest duration", p.Q1, p.Q3, p.Threshold)
	}
}

// TestRequireSlowdown: the floor replaces Tukey's threshold only when it
// is higher, 0 restores the paper's threshold, and bad factors are errors.
func TestRequireSlowdown(t *testing.T) {
	// times 1..8 ms: type-4 Q1 = 2 ms, median = 4 ms, Q3 = 6 ms, so
	// Tukey's mild threshold is 6 + 1.5·4 = 12 ms.
	var times []time.Duration
	for i := 1; i <= 8; i++ {
		times = append(times, time.Duration(i)*time.Millisecond)
	}
	p, err := NewProfile(times, 0, MildOutliers)
	if err != nil {
		t.Fatal(err)
	}
	if p.Median != 4*time.Millisecond || p.Threshold != 12*time.Millisecond || p.TukeyThreshold != p.Threshold {
		t.Fatalf("median %v threshold %v tukey %v, want 4ms 12ms 12ms", p.Median, p.Threshold, p.TukeyThreshold)
	}
	for _, c := range []struct {
		factor float64
		want   time.Duration
	}{{2, 12 * time.Millisecond}, {3.5, 14 * time.Millisecond}, {0, 12 * time.Millisecond}, {3.00001, 12*time.Millisecond + 40}} {
		if err := p.RequireSlowdown(c.factor); err != nil {
			t.Fatal(err)
		}
		if p.Threshold != c.want || p.TukeyThreshold != 12*time.Millisecond || p.MinSlowdown != c.factor {
			t.Errorf("slowdown %v: threshold %v (tukey %v), want %v", c.factor, p.Threshold, p.TukeyThreshold, c.want)
		}
		if p.Anomalous(c.want) || !p.Anomalous(c.want+1) {
			t.Errorf("slowdown %v: Anomalous is not strictly above %v", c.factor, c.want)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1), 1e300} {
		if err := p.RequireSlowdown(bad); err == nil || !strings.HasPrefix(err.Error(), "anomaly: ") {
			t.Errorf("slowdown %v: error %v", bad, err)
		}
	}
}

// FenceFastMode: when a fifth of the executions sit in a slow mode and
// the profile's sample holds more than a quarter of them, Q3 and the
// fence lie in the slow mode; the fence moves to Tukey's over the fast
// mode, below every slow execution, and says so. A profile whose Q3 is
// near its median keeps its fence.
func TestFenceFastMode(t *testing.T) {
	var times []time.Duration
	for i := 0; i < 36; i++ {
		times = append(times, time.Second+time.Duration(i)*time.Millisecond)
	}
	for i := 0; i < 14; i++ {
		times = append(times, 20*time.Second+time.Duration(i)*time.Millisecond)
	}
	p, err := NewProfile(times, 0, MildOutliers)
	if err != nil {
		t.Fatal(err)
	}
	if p.Threshold < 20*time.Second {
		t.Fatalf("the test's premise: the fence %v is in the slow mode", p.Threshold)
	}
	if !p.FenceFastMode(times) || p.FastMode != 36 || p.Threshold >= 2*time.Second || p.Threshold <= time.Second+35*time.Millisecond {
		t.Fatalf("fast-mode fence: moved to %v over %d executions", p.Threshold, p.FastMode)
	}
	if p.Above(times) != 14 || !strings.Contains(strings.Join(p.Warnings, "|"), "fast mode") {
		t.Fatalf("%d above the fence; warnings %q", p.Above(times), p.Warnings)
	}
	q, _ := NewProfile(times[:36], 0, MildOutliers) // the fast mode alone
	if p.NormalMedian() != q.Median || p.NormalQ3() != q.Q3 {
		t.Fatalf("normal median %v and Q3 %v, want the fast mode's %v and %v", p.NormalMedian(), p.NormalQ3(), q.Median, q.Q3)
	}
	before := q.Threshold
	if q.FenceFastMode(times[:36]) || q.Threshold != before {
		t.Fatal("a profile without a slow mode moved its fence")
	}
	if q.NormalMedian() != q.Median || q.NormalQ3() != q.Q3 {
		t.Fatalf("without a fast-mode fence the normal median %v and Q3 %v are not the profile's %v and %v", q.NormalMedian(), q.NormalQ3(), q.Median, q.Q3)
	}
}

// A fast mode barely larger than half of the executions has its Q3 below
// the median of all of them (Bamboo's buggy variant, seed 1, profiled 33
// fast executions of 50: median 7.956 s, fast Q3 7.952 s); the normal
// median is then the fast mode's, at most its Q3, as phase 3a's recovery
// criterion needs.
func TestFenceFastModeOfHalf(t *testing.T) {
	var times []time.Duration
	for i := 0; i < 33; i++ {
		times = append(times, 7*time.Second+time.Duration(i)*30*time.Millisecond)
	}
	for i := 0; i < 17; i++ {
		times = append(times, 20*time.Second+time.Duration(i)*time.Millisecond)
	}
	p, err := NewProfile(times, 0, MildOutliers)
	if err != nil {
		t.Fatal(err)
	}
	if !p.FenceFastMode(times) || p.FastMode != 33 {
		t.Fatalf("the test's premise: a fast-mode fence over 33 executions, got %d", p.FastMode)
	}
	if p.FastQ3 >= p.Median {
		t.Fatalf("the test's premise: the fast mode's Q3 %v below the median %v of all", p.FastQ3, p.Median)
	}
	if !(p.NormalMedian() <= p.NormalQ3() && p.NormalQ3() <= p.Threshold) {
		t.Fatalf("normal median %v, Q3 %v, threshold %v out of order", p.NormalMedian(), p.NormalQ3(), p.Threshold)
	}
}

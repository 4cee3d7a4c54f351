package edd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

// handlerTimes returns n log-normal durations around 50µs, like measured
// handler times. If quantum > 0 durations are rounded down to a multiple of
// it, which produces ties.
func handlerTimes(seed uint64, n int, quantum time.Duration) []time.Duration {
	r := rand.New(rand.NewPCG(seed, 0x6564640a))
	xs := make([]time.Duration, n)
	for i := range xs {
		d := time.Duration(math.Exp(math.Log(50e3) + 0.6*r.NormFloat64()))
		if quantum > 0 {
			d -= d % quantum
		}
		xs[i] = d
	}
	return xs
}

// type7 is an independent, naive Hyndman–Fan type 7 quantile of the sorted x.
func type7(p float64, x []float64) float64 {
	h := float64(len(x)-1) * p
	j := int(math.Floor(h))
	if j >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[j] + (h-float64(j))*(x[j+1]-x[j])
}

// gonumType7 is type 7 through gonum's stat.LinInterp (Hyndman–Fan type 4,
// position n·p): type 7 at p is type 4 at ((n−1)·p+1)/n.
func gonumType7(p float64, x []float64) float64 {
	n := float64(len(x))
	q := ((n-1)*p + 1) / n
	if q > 1 {
		q = 1
	}
	return stat.Quantile(q, stat.LinInterp, x, nil)
}

func sortedFloats(xs []time.Duration) []float64 {
	f := make([]float64, len(xs))
	for i, d := range xs {
		f[i] = float64(d)
	}
	slices.Sort(f)
	return f
}

func near(got time.Duration, want float64, tol float64) bool {
	return math.Abs(float64(got)-want) <= tol
}

func TestUniformSample(t *testing.T) {
	u := DefaultSeed()
	if u.Min != time.Millisecond || u.Max != 10*time.Millisecond {
		t.Fatalf("DefaultSeed() = %+v, want 1ms..10ms", u)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{
		{0, time.Millisecond},
		{1, 10 * time.Millisecond},
		{0.5, 5500 * time.Microsecond},
		{0.25, 3250 * time.Microsecond},
		{-3, time.Millisecond},
		{7, 10 * time.Millisecond},
		{math.NaN(), time.Millisecond},
		{math.Inf(1), 10 * time.Millisecond},
		{math.Inf(-1), time.Millisecond},
	} {
		if got := u.Sample(c.p); got != c.want {
			t.Errorf("Sample(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	prev := u.Sample(0)
	for i := 0; i < 100000; i++ {
		if d := u.Sample(r.Float64()); d < u.Min || d >= u.Max {
			t.Fatalf("Sample out of [Min, Max): %v", d)
		}
	}
	for i := 1; i <= 1000; i++ {
		d := u.Sample(float64(i) / 1000)
		if d < prev {
			t.Fatalf("Sample not monotone at %d: %v < %v", i, d, prev)
		}
		prev = d
	}
	c := Uniform{Min: 3 * time.Millisecond, Max: 3 * time.Millisecond}
	if got := c.Sample(0.7); got != 3*time.Millisecond {
		t.Errorf("constant Uniform.Sample = %v", got)
	}
}

func TestUniformValidate(t *testing.T) {
	for _, c := range []struct {
		u    Uniform
		want string // substring of the error, "" for none
	}{
		{DefaultSeed(), ""},
		{Uniform{}, ""},
		{Uniform{Min: 2, Max: 1}, "min 2ns > max 1ns"},
		{Uniform{Min: -1, Max: 1}, "negative"},
		{Uniform{Max: MaxDuration}, ""},
		{Uniform{Max: MaxDuration + 1}, "seed max 3153600000000000001 ns exceeds the longest event duration"},
		{Uniform{Min: math.MaxInt64, Max: math.MaxInt64}, "edd.MaxDuration"},
	} {
		err := c.u.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v.Validate() = %v, want error containing %q", c.u, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "edd: ") {
			t.Errorf("error %q lacks the edd: prefix", err)
		}
	}
}

// TestEmpiricalTableIsType7 checks every table entry against the type 7
// quantile computed two independent ways: a naive implementation and gonum's
// stat.Quantile(LinInterp) with the documented change of probability.
func TestEmpiricalTableIsType7(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 10, 11, 100, 101, 102, 1000, 12345} {
		for _, points := range []int{2, 5, 11, 101, 256} {
			for _, quantum := range []time.Duration{0, 10 * time.Microsecond} {
				xs := handlerTimes(uint64(n), n, quantum)
				e, err := NewEmpirical(xs, points)
				if err != nil {
					t.Fatal(err)
				}
				x := sortedFloats(xs)
				tab := e.Table()
				if len(tab) != points || e.N() != n {
					t.Fatalf("n=%d points=%d: len(Table)=%d N=%d", n, points, len(tab), e.N())
				}
				for i, d := range tab {
					p := float64(i) / float64(points-1)
					if ref := type7(p, x); !near(d, ref, 1) {
						t.Errorf("n=%d points=%d q=%v: table %d, naive type 7 %.1f", n, points, quantum, d, ref)
					}
					if ref := gonumType7(p, x); !near(d, ref, 1) {
						t.Errorf("n=%d points=%d q=%v: table %d, gonum %.1f", n, points, quantum, d, ref)
					}
					if q := e.Quantile(p); q != d {
						t.Errorf("n=%d points=%d: Quantile(%v) = %v, table entry %v", n, points, p, q, d)
					}
				}
				if tab[0] != time.Duration(x[0]) || tab[points-1] != time.Duration(x[n-1]) {
					t.Errorf("n=%d points=%d: table ends %v..%v, want min..max %v..%v",
						n, points, tab[0], tab[points-1], x[0], x[n-1])
				}
			}
		}
	}
}

// TestEmpiricalQuantileBetweenKnots compares Quantile at many random p with
// the type 7 quantile of the training samples. When (n−1) divides
// (points−1) the table interpolation is exact; otherwise Quantile and the
// exact quantile both lie between the neighbouring table entries.
func TestEmpiricalQuantileBetweenKnots(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct{ n, points int }{
		{2, 101}, {11, 101}, {21, 101}, {101, 101}, {5, 9}, // exact
		{3, 100}, {37, 101}, {1000, 101}, {12345, 101}, // bracketed
	} {
		xs := handlerTimes(uint64(c.n)+100, c.n, 0)
		e, err := NewEmpirical(xs, c.points)
		if err != nil {
			t.Fatal(err)
		}
		x := sortedFloats(xs)
		tab := e.Table()
		exact := (c.points-1)%(c.n-1) == 0
		for i := 0; i < 2000; i++ {
			p := r.Float64()
			got := e.Quantile(p)
			ref := gonumType7(p, x)
			if naive := type7(p, x); math.Abs(naive-ref) > 1e-6*math.Max(1, ref) {
				t.Fatalf("references disagree at p=%v: naive %v gonum %v", p, naive, ref)
			}
			if exact {
				if !near(got, ref, 1) {
					t.Errorf("n=%d points=%d: Quantile(%v) = %d, type 7 %.1f", c.n, c.points, p, got, ref)
				}
				continue
			}
			k := int(p * float64(c.points-1))
			lo, hi := float64(tab[k]), float64(tab[k+1])
			if float64(got) < lo || float64(got) > hi || ref < lo-1 || ref > hi+1 {
				t.Errorf("n=%d points=%d p=%v: Quantile %d, type 7 %.1f, cell [%v, %v]",
					c.n, c.points, p, got, ref, lo, hi)
			}
		}
	}
}

// TestEmpiricalSamplingReproducesTraining draws M uniform u (paper 004 §3.1,
// "Coverage": new timing combinations from the trained distribution) and
// checks that the draws follow the training distribution. At a table knot
// p = k/100 the sampled CDF is exactly p, so by the DKW inequality the
// fraction of draws at or below the training quantile q(p) is within
// ε = 0.01 of p except with probability 2·exp(−2·M·ε²) ≈ 4e−9. The draws'
// quartiles must then lie in [q(p−ε), q(p+ε)].
func TestEmpiricalSamplingReproducesTraining(t *testing.T) {
	const (
		m   = 100000
		eps = 0.01
	)
	train := handlerTimes(42, 5000, 0)
	x := sortedFloats(train)
	e, err := NewEmpirical(train, DefaultPoints)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	draws := make([]float64, m)
	for i := range draws {
		draws[i] = float64(e.Sample(r.Float64()))
	}
	slices.Sort(draws)
	for k := 1; k < 100; k++ {
		p := float64(k) / 100
		q := type7(p, x)
		below, _ := slices.BinarySearch(draws, math.Floor(q)+1) // draws <= q (integral ns)
		if frac := float64(below) / m; math.Abs(frac-p) > eps {
			t.Errorf("F_draws(q(%v)) = %.4f, want within %v of %v", p, frac, eps, p)
		}
	}
	for _, p := range []float64{0.25, 0.5, 0.75} {
		got := stat.Quantile(p, stat.LinInterp, draws, nil)
		lo, hi := type7(p-eps, x), type7(p+eps, x)
		if got < lo-1 || got > hi+1 {
			t.Errorf("quartile %v of draws = %.0f, want within training [q(%v), q(%v)] = [%.0f, %.0f]",
				p, got, p-eps, p+eps, lo, hi)
		}
	}
	if d0, d1 := time.Duration(draws[0]), time.Duration(draws[m-1]); d0 < time.Duration(x[0]) || d1 > time.Duration(x[len(x)-1]) {
		t.Errorf("draws span [%v, %v], outside training [%v, %v]", d0, d1, x[0], x[len(x)-1])
	}
}

func TestEmpiricalSampleMonotoneAndClamped(t *testing.T) {
	e, err := NewEmpirical(handlerTimes(5, 300, time.Microsecond), 0)
	if err != nil {
		t.Fatal(err)
	}
	tab := e.Table()
	if len(tab) != DefaultPoints {
		t.Fatalf("points 0 gave %d entries, want DefaultPoints", len(tab))
	}
	prev := e.Sample(0)
	for i := 1; i <= 100000; i++ {
		d := e.Sample(float64(i) / 100000)
		if d < prev {
			t.Fatalf("Sample decreases at u=%v: %v < %v", float64(i)/100000, d, prev)
		}
		prev = d
	}
	for _, c := range []struct {
		u    float64
		want time.Duration
	}{{-1, tab[0]}, {math.NaN(), tab[0]}, {2, tab[len(tab)-1]}, {1, tab[len(tab)-1]}, {0, tab[0]}} {
		if got := e.Sample(c.u); got != c.want {
			t.Errorf("Sample(%v) = %v, want %v", c.u, got, c.want)
		}
	}
}

func TestEmpiricalInterpolatesTable(t *testing.T) {
	// Samples 0, 10, 20, ..., 100 ns with 11 points: the table is the samples
	// themselves and Sample is linear in u.
	xs := make([]time.Duration, 11)
	for i := range xs {
		xs[10-i] = time.Duration(10 * i) // reversed: NewEmpirical sorts
	}
	e, err := NewEmpirical(xs, 11)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(e.Table()), "[0s 10ns 20ns 30ns 40ns 50ns 60ns 70ns 80ns 90ns 100ns]"; got != want {
		t.Fatalf("Table() = %s, want %s", got, want)
	}
	for _, c := range []struct {
		u    float64
		want time.Duration
	}{{0.05, 5}, {0.33, 33}, {0.999, 100}, {0.994, 99}} {
		if got := e.Sample(c.u); got != c.want {
			t.Errorf("Sample(%v) = %v, want %v", c.u, got, c.want)
		}
	}
}

func TestNewEmpiricalLeavesInputAlone(t *testing.T) {
	xs := []time.Duration{5, 1, 4, 2, 3}
	orig := slices.Clone(xs)
	e, err := NewEmpirical(xs, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(xs, orig) {
		t.Errorf("NewEmpirical modified its input: %v", xs)
	}
	tab := e.Table()
	tab[0] = 99
	if e.Table()[0] != 1 {
		t.Errorf("Table() does not return a copy")
	}
}

func TestNewEmpiricalErrors(t *testing.T) {
	for _, c := range []struct {
		xs     []time.Duration
		points int
		want   string
	}{
		{nil, 101, "no samples"},
		{[]time.Duration{}, 101, "no samples"},
		{[]time.Duration{1}, 1, "points 1 out of range"},
		{[]time.Duration{1}, -5, "points -5 out of range"},
		{[]time.Duration{1}, MaxPoints + 1, "out of range"},
		{[]time.Duration{1, 2, -3}, 101, "negative duration -3ns at index 2"},
		{[]time.Duration{1, math.MaxInt64}, 101, "duration 9223372036854775807 ns at index 1 exceeds"},
	} {
		_, err := NewEmpirical(c.xs, c.points)
		if err == nil || !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewEmpirical(%v, %d) error = %v, want edd: …%s…", c.xs, c.points, err, c.want)
		}
	}
}

func TestQuantilePanicsOutOfRange(t *testing.T) {
	e, _ := NewEmpirical([]time.Duration{1, 2}, 2)
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Quantile(%v) did not panic", p)
				}
			}()
			e.Quantile(p)
		}()
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	e, _ := NewEmpirical(handlerTimes(1, 1000, 0), 0)
	set, _ := Train(map[string][]time.Duration{"deliver Join": handlerTimes(1, 1000, 0)}, DefaultSeed(), 0)
	if err := set.Scale("deliver Join", 2.5); err != nil {
		t.Fatal(err)
	}
	sd, _, _ := set.Lookup("deliver Join")
	for name, d := range map[string]Dist{"uniform": DefaultSeed(), "empirical": e, "scaled": sd} {
		var sink time.Duration
		u := 0.0
		if a := testing.AllocsPerRun(1000, func() { sink += d.Sample(u); u += 0.001 }); a != 0 {
			t.Errorf("%s: Sample allocates %v times per call", name, a)
		}
	}
}

// A what-if factor that would take a duration past MaxDuration saturates
// there (factors of 1e15 and 1e20 both mean "this event
// lasts beyond any timeout", not, for 1e20, a wrapped-around clock), through
// Set.Scale as through the type.
func TestScaledSaturates(t *testing.T) {
	for _, c := range []struct {
		d      Uniform
		factor float64
		want   time.Duration
	}{
		{Uniform{Min: MaxDuration / 2, Max: MaxDuration / 2}, 3, MaxDuration},
		{Uniform{Min: MaxDuration, Max: MaxDuration}, 1e300, MaxDuration},
		{DefaultSeed(), 1e15, MaxDuration},
		{DefaultSeed(), 1e20, MaxDuration},
		{Uniform{Min: time.Millisecond, Max: time.Millisecond}, 1e9, 1e6 * time.Second},
	} {
		d := &scaled{d: c.d, factor: c.factor}
		if got := d.Sample(0.5); got != c.want {
			t.Errorf("%v scaled by %g = %d, want %d", c.d, c.factor, got, c.want)
		}
	}
	set := NewSet(DefaultSeed())
	if err := set.Scale("deliver Join", 1e20); err != nil {
		t.Fatal(err)
	}
	d, _, _ := set.Lookup("deliver Join")
	for _, u := range []float64{0, 0.5, 1} {
		if got := d.Sample(u); got != MaxDuration {
			t.Errorf("deliver Join=1e20 at %g: %d, want MaxDuration", u, got)
		}
	}
}

var sinkDuration time.Duration

func BenchmarkSample(b *testing.B) {
	e, err := NewEmpirical(handlerTimes(1, 10000, 0), DefaultPoints)
	if err != nil {
		b.Fatal(err)
	}
	set, _ := Train(map[string][]time.Duration{"deliver Join": handlerTimes(1, 10000, 0)}, DefaultSeed(), 0)
	_ = set.Scale("deliver Join", 2.5)
	sd, _, _ := set.Lookup("deliver Join")
	for _, c := range []struct {
		name string
		d    Dist
	}{{"uniform", DefaultSeed()}, {"empirical", e}, {"scaled-empirical", sd}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			r := rand.New(rand.NewPCG(1, 1))
			us := make([]float64, 1024)
			for i := range us {
				us[i] = r.Float64()
			}
			var s time.Duration
			i := 0
			for b.Loop() {
				s += c.d.Sample(us[i&1023])
				i++
			}
			sinkDuration = s
		})
	}
}

package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// majorLabels returns the labelled ticks of secTicks on [lo, hi].
func majorLabels(lo, hi float64) (vals []float64, labels []string) {
	for _, t := range (secTicks{}).Ticks(lo, hi) {
		if t.Label != "" {
			vals = append(vals, t.Value)
			labels = append(labels, t.Label)
		}
	}
	return vals, labels
}

// Time-axis labels print their tick's value, not a rounding of it: gonum
// puts ticks at half steps (0.5, 1.5, 2.5 on 0.35–2.6 s), which printed
// by the spacing's precision read "0, 2, 2".
func TestSecTicksLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.35, 2.6, []string{"0.5", "1.5", "2.5"}},
		{0.095, 0.125, []string{"0.095", "0.105", "0.115", "0.125"}},
		{0, 1, []string{"0.0", "0.5", "1.0"}},
		{1.9, 20.5, []string{"4", "12", "20"}},
		{0.0361, 0.0444, []string{"0.037", "0.040", "0.043"}},
		{1.5695, 1.5745, []string{"1.570", "1.572", "1.574"}},
		{0, 1e-7, []string{"0.00000000", "0.00000005", "0.00000010"}},
		{-0.004, 0.1, []string{"0.00", "0.05", "0.10"}},
	} {
		_, got := majorLabels(c.lo, c.hi)
		if !slices.Equal(got, c.want) {
			t.Errorf("secTicks on [%g, %g]: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// A randomized sweep (fixed seed): on any range, every major tick's label
// parses back to its value, labels are distinct, and one decimal fewer
// would not do.
func TestSecTicksLabelsExactProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		// Spans from 10 ns to 1000 s, starting up to 10⁴ spans from 0.
		span := math.Pow(10, -8+11*rng.Float64())
		lo := span * math.Pow(10, -1+5*rng.Float64()) * rng.Float64()
		if rng.IntN(8) == 0 {
			lo = -lo
		}
		hi := lo + span
		vals, labels := majorLabels(lo, hi)
		if len(vals) == 0 {
			continue
		}
		step := span
		for j := 1; j < len(vals); j++ {
			step = math.Min(step, vals[j]-vals[j-1])
		}
		seen := map[string]bool{}
		decimals := 0
		for j, l := range labels {
			x, err := strconv.ParseFloat(l, 64)
			if err != nil || math.Abs(x-vals[j]) > 1e-6*step {
				t.Fatalf("[%v, %v]: tick %v labelled %q", lo, hi, vals[j], l)
			}
			if seen[l] {
				t.Fatalf("[%v, %v]: two ticks labelled %q: %q", lo, hi, l, labels)
			}
			seen[l] = true
			if k := strings.IndexByte(l, '.'); k >= 0 {
				decimals = max(decimals, len(l)-k-1)
			}
		}
		if decimals > 0 {
			fewer := true
			for _, v := range vals {
				l := strconv.FormatFloat(v, 'f', decimals-1, 64)
				if x, _ := strconv.ParseFloat(l, 64); math.Abs(x-v) > 1e-6*step {
					fewer = false
				}
			}
			if fewer && len(vals) > 1 {
				t.Fatalf("[%v, %v]: labels %q use %d decimals, %d would do", lo, hi, labels, decimals, decimals-1)
			}
		}
	}
}

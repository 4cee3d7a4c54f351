package anomaly_test

import (
	"fmt"
	"log"
	"time"

	"github.com/macepc/macepc/anomaly"
)

// A regression test: ten baseline execution times against ten of the
// current code, 8–12% slower. The Mann–Whitney test is exact (no ties);
// the ratio intervals are 99% percentile-bootstrap intervals. The shift
// test needs both a significant Mann–Whitney test and bootstrap evidence
// that the median or Q3 ratio exceeds the tolerated 1.05: its p-value is
// the larger of the two. None of the 2000 resampled median ratios is at
// or below 1.05, so the bootstrap p-value is 2·(0+1)/2001 = 0.001 (twice:
// the median or Q3), the smallest it can be. By hand: all 100 pairs are
// slower, U = 100, and exactly one of the C(20,10) = 184756 splits gives
// it: p = 5.4e-06; the baseline median (type 4, n = 10) is the 5th
// smallest, 505ms.
//
// The tail test compares the executions above 560ms: two of ten current
// times against none, Fisher p = C(10,2)/C(20,2) = 45/190 = 0.24; their
// excess over 560ms is larger in the current sample than in any other
// split exactly when both are in it, the same event, so the tail test's
// p-value is about 0.24 too (the permutations estimate it). With only two
// executions above the threshold in all, no split can give it less than
// 0.24: it cannot reject at 0.01, and Tarone's rule leaves it out, so
// Holm's procedure compares the shift test with alpha itself rather than
// alpha/2.
func ExampleCompare() {
	ms := time.Millisecond
	base := []time.Duration{500 * ms, 510 * ms, 495 * ms, 505 * ms, 520 * ms, 498 * ms, 507 * ms, 512 * ms, 503 * ms, 515 * ms}
	cur := []time.Duration{545 * ms, 560 * ms, 550 * ms, 565 * ms, 540 * ms, 556 * ms, 548 * ms, 570 * ms, 552 * ms, 558 * ms}
	c, err := anomaly.Compare(base, cur, anomaly.CompareConfig{Alpha: 0.01, MaxSlowdown: 0.05, Resamples: 2000, Seed: 1, Threshold: 560 * ms})
	if err != nil {
		log.Fatal(err)
	}
	mw := c.MannWhitney
	fmt.Printf("Mann-Whitney U = %.0f, exact %v, p = %.2g\n", mw.U, mw.Exact, mw.P)
	fmt.Printf("median %v -> %v, ratio %.3f [%.3f, %.3f]\n", c.BaseMedian, c.CurMedian, c.MedianRatio.Estimate, c.MedianRatio.Low, c.MedianRatio.High)
	fmt.Printf("outliers above %v: %d -> %d (Fisher p = %.2f)\n", c.Outliers.Threshold, c.Outliers.Base, c.Outliers.Current, c.Outliers.P)
	for _, t := range c.Tests {
		fmt.Printf("%s test: p = %.2g, attainable %.2g, excluded %v, Holm level %g, adjusted p = %.2g, rejected %v\n", t.Name, t.P, t.Attainable, t.Excluded, t.Level, t.AdjustedP, t.Rejected)
	}
	fmt.Println("regression:", c.Regression)
	for _, r := range c.Reasons {
		fmt.Println(" ", r)
	}
	// Output:
	// Mann-Whitney U = 100, exact true, p = 5.4e-06
	// median 505ms -> 552ms, ratio 1.093 [1.068, 1.123]
	// outliers above 560ms: 0 -> 2 (Fisher p = 0.24)
	// shift test: p = 0.001, attainable 0.001, excluded false, Holm level 0.01, adjusted p = 0.001, rejected true
	// tail test: p = 0.24, attainable 0.24, excluded true, Holm level 0, adjusted p = 1, rejected false
	// regression: true
	//   median +9.3% (99% CI +6.8% to +12.3%) and Q3 +9.4% (99% CI +6.7% to +12.4%) exceed the tolerated +5.0%: shift test p = 0.001 (Mann-Whitney 5.41e-06, bootstrap 0.001), Holm-adjusted p = 0.001 < 0.01
}

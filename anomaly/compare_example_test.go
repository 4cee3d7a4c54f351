package anomaly_test

import (
	"fmt"
	"log"
	"time"

	"github.com/macepc/macepc/anomaly"
)

// A regression test: ten baseline execution times against ten of the
// current code, 8–12% slower. The Mann–Whitney test is exact (no ties);
// the ratio intervals are 99% percentile-bootstrap intervals; the verdict
// needs both a significant test and an interval above the tolerated 5%.
// By hand: all 100 pairs are slower, U = 100, and exactly one of the
// C(20,10) = 184756 splits gives it: p = 5.4e-06; the baseline median
// (type 4, n = 10) is the 5th smallest, 505ms; two of ten current times
// above 560ms against none: Fisher p = C(10,2)/C(20,2) = 45/190 = 0.24.
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
	fmt.Println("regression:", c.Regression)
	for _, r := range c.Reasons {
		fmt.Println(" ", r)
	}
	// Output:
	// Mann-Whitney U = 100, exact true, p = 5.4e-06
	// median 505ms -> 552ms, ratio 1.093 [1.068, 1.123]
	// outliers above 560ms: 0 -> 2 (Fisher p = 0.24)
	// regression: true
	//   median +9.3% (99% CI +6.8% to +12.3%) exceeds the tolerated +5.0%, Mann-Whitney p = 5.41e-06 < 0.01
	//   Q3 +9.4% (99% CI +6.7% to +12.4%) exceeds the tolerated +5.0%, Mann-Whitney p = 5.41e-06 < 0.01
}

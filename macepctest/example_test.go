package macepctest_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/macepc/macepc/macepctest"
	"github.com/macepc/macepc/systems/randtree"
)

// The gate on RandTree (32 nodes joining one bootstrap node), against the
// committed baseline of the fixed variant: the unchanged code passes; a
// Join handler made twice as slow (a what-if on the committed EDD) is a
// regression. In a test, macepctest.Profile(t, cfg) fails t instead.
func Example() {
	out, err := os.MkdirTemp("", "macepctest")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	cfg := macepctest.Config{
		System:   randtree.System(),
		Variant:  "fixed",
		Runs:     50,
		Seed:     1,
		EDD:      "testdata/edd.json",
		Baseline: "testdata/randtree-fixed.baseline.json",
		Out:      out,
	}
	for _, scale := range [][]string{nil, {"deliver Join=2"}} {
		cfg.Scale = scale
		r, err := macepctest.Run(context.Background(), cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("scale %v: median x%.3f, Q3 x%.3f, %d anomalies, regression %v\n", scale, r.MedianRatio, r.Q3Ratio, len(r.Anomalies), r.Regression)
		for _, why := range r.Reasons {
			fmt.Println("  ", why)
		}
	}
	// Output:
	// scale []: median x1.000, Q3 x1.000, 0 anomalies, regression false
	// scale [deliver Join=2]: median x1.071, Q3 x1.095, 0 anomalies, regression true
	//    Q3 +9.5% (99% CI +6.0% to +12.5%) exceeds the tolerated +5.0%: shift test p = 0.001 (Mann-Whitney 2.93e-18, bootstrap 0.001), Holm-adjusted p = 0.002 < 0.01
}

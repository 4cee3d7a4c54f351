// Package macepctest is macepc's performance gate for `go test`: a test
// profiles a scenario of the protocol (macepc's phase 1b, many simulated
// executions with a committed event-duration file) and fails on an anomaly
// — an execution above the anomaly threshold — or on a performance
// regression against a committed baseline file, by the test of `macepc
// regress` (package anomaly, Compare).
//
// # Usage
//
// In the protocol's _test.go:
//
//	func TestJoinPerformance(t *testing.T) {
//		macepctest.Profile(t, macepctest.Config{
//			System:   randtree.System(),
//			Variant:  "fixed",
//			Runs:     50,
//			Seed:     1,
//			EDD:      "testdata/edd.json",
//			Baseline: "testdata/randtree-fixed.baseline.json",
//		})
//	}
//
// Create or rewrite the baseline after an intended change with
//
//	go test -run '^TestJoinPerformance$' ./mypkg -macepctest.update
//
// and commit it. The baseline is a profile.json: `macepc regress
// --baseline testdata/randtree-fixed.baseline.json` reads it too, and a
// profile.json written by `macepc profile` serves as a baseline.
//
// The test fails when
//   - the baseline is missing, or of another system, variant, node count,
//     seed, number of runs or EDD (rewrite it with -macepctest.update);
//   - without a baseline (or while rewriting it), an execution is slower
//     than its own profile's anomaly threshold: the message names the
//     execution and its path file for `macepc replay`;
//   - against a baseline, the regression test of `macepc regress` fails
//     (package anomaly, Gate): the median or Q3 significantly slower than
//     the baseline's beyond Config.MaxSlowdown (5% by default), more or
//     longer executions above the baseline's threshold in the first Runs
//     executions, or more than Config.MaxSlowRate (1%) of the current
//     executions above it, tested sequentially in batches of Runs
//     executions until the verdict (at most Config.MaxRuns); the tests are
//     combined by Holm's procedure at family-wise Config.Alpha. The message
//     names the first execution above the threshold and its path file.
//
// Run is the same without a test: it returns the Result.
//
// # Determinism
//
// An execution is a pure function of its seed and the EDD, so the same
// code with the same Config gives byte-identical profiles, whatever
// Config.Jobs: an unchanged protocol compares equal to its baseline
// (Mann–Whitney U exactly n²/2), and any change to its behaviour shows as
// different executions. That is why the EDD must be a committed file and
// not a fresh training, which measures real time. The seed distributions
// (uniform 1–10 ms per handler) are the default and what the example uses:
// they make handler costs matter next to network delays, so a handler
// made slower shows in the execution time.
package macepctest

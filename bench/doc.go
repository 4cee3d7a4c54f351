// Package bench holds macepc's benchmark workloads as Config structs and
// Run functions (no package state), reused by the Go benchmarks in this
// package and by the side-by-side peer comparisons under bench/peers.
//
// # Usage
//
//	res, err := bench.RunExplorer(ctx, bench.ExplorerConfig{
//		System: randtree.System(), Variant: "buggy", Nodes: 32, Runs: 64, Jobs: 2, Seed: 1,
//	})
//	fmt.Println(res.ExecutionsPerSec(), res.EventsPerSec())
//
// Results and the commands that produced them are recorded in
// bench/RESULTS.md. Speed is measured here, never asserted in unit tests.
//
// # Determinism
//
// The simulated work of a Config is fixed by its seed (the explorer's
// results do not depend on Jobs); only the wall-clock figures vary.
package bench

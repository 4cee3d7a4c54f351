// Command macepc finds latent performance bugs in event-driven distributed
// systems by timed simulation: it is package cli's command line with the
// bundled systems registered.
//
// # Usage
//
//	go run ./cmd/macepc run --system randtree --variant buggy --seed 1 --out macepc-out
//	go run ./cmd/macepc systems
//	go run ./cmd/macepc simulate --system randtree --variant buggy --runs 100 --seed 1 --out macepc-out
//	go run ./cmd/macepc replay --path macepc-out/slowest.path.json --log slow.log
//
// # Determinism
//
// Every output is a function of the flags, the seed (printed in every
// output) and the EDD, never of --jobs or the machine. Training (phase 1a)
// measures real handler times; pass --edd DIR/edd.json to repeat a run.
package main

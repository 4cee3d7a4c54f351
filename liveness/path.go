package liveness

import (
	"fmt"
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// Path fully describes one execution of the choice scheduler, so that any
// execution the search reports can be replayed exactly (with the same
// scenario and the same Weights, Unbiased, Faults, Breaks, Drops, Crashes
// and Partitions settings: Settings).
//
// Step i executes the event at index Choices[i] mod n of the ordered list
// of n enabled events, the answers of its clock comparisons being the
// bits of Choices[i] div n (timedsim.Elapsed), if i < len(Choices) (the exhaustive part: the DFS's, or a
// replayed prefix's), and otherwise draws it by weight from the random
// stream of step i. The random stream of step i, for that choice and for
// the handler's Context.Rand, is seeded with (seed, i), where seed is the
// Seed of the last segment with From <= i, as in timedsim.Path: replaying
// the first p steps and branching means keeping the segments that start
// before p and appending {From: p, Seed: new} (Branch).
type Path struct {
	// Driver seeds the scenario's driver, which is run once to collect the
	// application events.
	Driver uint64 `json:"driver"`
	// Choices are the explicit choices of the first len(Choices) steps.
	Choices []int `json:"choices"`
	// Segments give the randomness of every step.
	Segments []timedsim.Segment `json:"segments"`
	// Steps is the execution's length: a replay stops after Steps steps
	// (or earlier if no event is enabled).
	Steps int `json:"steps"`
}

// Branch returns the path that follows p for steps [0, at) and draws
// everything from step at on from seed; its Steps is steps. p is not
// modified.
func (p Path) Branch(at int, seed uint64, steps int) Path {
	q := Path{Driver: p.Driver, Choices: slices.Clone(p.Choices[:min(at, len(p.Choices))]), Steps: steps}
	q.Segments = timedsim.Path{Segments: p.Segments}.Branch(at, seed).Segments
	return q
}

// Validate checks the path's shape.
func (p Path) Validate() error {
	if err := (timedsim.Path{Segments: p.Segments}).Validate(); err != nil {
		return fmt.Errorf("liveness: %w", err)
	}
	for i, c := range p.Choices {
		if c < 0 {
			return fmt.Errorf("liveness: path choice %d of step %d is negative", c, i)
		}
	}
	if p.Steps < 0 {
		return fmt.Errorf("liveness: path has %d steps", p.Steps)
	}
	return nil
}

// startPath is the path of the search's initial executions: driver and
// step randomness from seed, no choices yet.
func startPath(seed uint64) Path {
	return Path{Driver: seed, Segments: []timedsim.Segment{{From: 0, Seed: seed}}}
}

// splitmix64 is the finaliser of SplitMix64, used to derive seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// WalkSeed is the seed of random walk j of the critical-transition probe
// at prefix p, for base seed base.
func WalkSeed(base uint64, p, j int) uint64 {
	return splitmix64(base ^ splitmix64(uint64(p)<<20^uint64(j)^0x5bd1e9955bd1e995))
}

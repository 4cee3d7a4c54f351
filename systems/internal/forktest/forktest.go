package forktest

import (
	"context"
	"fmt"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// Config says what Check runs.
type Config struct {
	// Options are the simulator's options (Record and RecordStates are
	// set by Check: the event logs and the final states are compared).
	Options timedsim.Options
	// Seeds are the executions forked (default 1, 2, 3).
	Seeds []uint64
	// MaxSteps, if positive, bounds the prefixes probed: the first
	// MaxSteps steps of each execution (a long execution's later prefixes
	// cost a replay each).
	MaxSteps int
}

// Check forks each seed's execution of sc at several prefixes — step 1,
// a quarter, half, three quarters of its steps and its last step, and a
// step past its end — into two branches each, twice from the same
// snapshot on the same simulator and once on another, and fails t when
// a fork's result (event log and final states included) differs from
// replaying the branch from step 0 (timedsim.DiffResults), or when sc's
// services are not Cloners. It returns the number of forks compared.
func Check(t testing.TB, sc *timedsim.Scenario, cfg Config) int {
	t.Helper()
	if !timedsim.Forkable(sc) {
		t.Fatalf("forktest: the scenario's services do not implement timedsim.Cloner")
	}
	opts := cfg.Options
	opts.Record, opts.RecordStates = true, true
	seeds := cfg.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{1, 2, 3}
	}
	replay, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	forker, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	other, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := 0
	for _, seed := range seeds {
		base := timedsim.SeedPath(seed)
		steps := replay.Run(base).Steps
		if cfg.MaxSteps > 0 {
			steps = min(steps, cfg.MaxSteps)
		}
		prefixes := []int{1, steps / 4, steps / 2, 3 * steps / 4, steps - 1, steps + 5}
		for _, p := range prefixes {
			if p < 1 {
				continue
			}
			snap, err := forker.SnapshotAt(ctx, base, p)
			if err != nil {
				t.Fatalf("forktest: seed %d, snapshot at step %d: %v", seed, p, err)
			}
			for b := range uint64(2) {
				path := base.Branch(p, timedsim.ExecutionSeed(seed*1000+b, p))
				want := replay.Run(path)
				for i, sim := range []*timedsim.Simulator{forker, forker, other} {
					got := sim.RunFrom(ctx, snap, path)
					if d := timedsim.DiffResults(want, got); d != "" {
						t.Fatalf("forktest: seed %d, fork %d at step %d (path %v) differs from the replay: %s", seed, i, p, path, d)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("forktest: nothing forked")
	}
	return n
}

// Describe is a one-line account of what Check compared, for a test's log.
func Describe(forks int) string {
	return fmt.Sprintf("%d forks equal their replays", forks)
}

// CheckSystem runs Check on the scenario of each of sys's variants (all
// of them when variants is empty) with its default node count, each in a
// subtest.
func CheckSystem(t *testing.T, sys timedsim.System, cfg Config, variants ...string) {
	t.Helper()
	if len(variants) == 0 {
		variants = sys.VariantNames()
	}
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			sc, err := sys.Scenario(v, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(Describe(Check(t, sc, cfg)))
		})
	}
}

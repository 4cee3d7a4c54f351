// Command macepc is the macepc side of the SimGrid peer comparison (see
// ../README.md). It runs one execution of a workload for exactly M message
// deliveries on one core (GOMAXPROCS=1, one simulator) with macepc's
// default network model, and prints one line of key=value fields like the
// SimGrid programs.
//
// Workloads:
//
//   - pingpong: the bundled system systems/pingpong (endless variant) with
//     -size P pairs on 2P nodes.
//   - chord: the static Chord-like lookups of chord.go (the protocol of
//     ../chord.cpp) on -size N nodes.
//
// Deliveries are counted from Result.Counts ("deliver Ping" + "deliver
// Pong", or "deliver Lookup" + "deliver Reply"). An execution's Steps also
// counts one "init" event per node, which all run at time 0 before any
// delivery, so MaxSteps is M + nodes.
//
// wall_s is the wall time of Simulator.Run only: NewSimulator (scenario
// check, simulator allocation) and building the scenario are excluded;
// Run's per-execution set-up (one service value and one init event per
// node) is included, as SimGrid's actor start-up is part of Engine::run.
// By default the timed run is the simulator's first (cold) execution; with
// -warm the same execution runs once untimed first, as macepc's explorer
// reuses a simulator across executions.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

func main() {
	workload := flag.String("workload", "pingpong", "pingpong or chord")
	size := flag.Int("size", 1000, "pingpong: pairs P (2P nodes); chord: nodes N")
	messages := flag.Int("messages", 2_000_000, "message deliveries M")
	seed := flag.Uint64("seed", 1, "execution path seed")
	warm := flag.Bool("warm", false, "run the execution once untimed before the timed run")
	flag.Parse()
	if *size < 1 || *messages < 1 {
		fail(2, "-size and -messages must be positive")
	}
	runtime.GOMAXPROCS(1) // one core, like SimGrid's sequential engine

	var sc *timedsim.Scenario
	var labels [2]string
	switch *workload {
	case "pingpong":
		sc = pingpong.Scenario(2**size, -1) // endless: bounded by MaxSteps
		sc.Timeout = 1 << 62                // never the bound (146 years)
		labels = [2]string{"deliver Ping", "deliver Pong"}
	case "chord":
		if *size < 2 {
			fail(2, "chord needs at least 2 nodes")
		}
		sc = chordScenario(*size)
		labels = [2]string{"deliver Lookup", "deliver Reply"}
	default:
		fail(2, "unknown workload "+*workload)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: *messages + sc.Nodes})
	if err != nil {
		fail(1, err.Error())
	}
	path := timedsim.SeedPath(*seed)
	if *warm {
		sim.Run(path)
	}
	t0 := time.Now()
	res := sim.Run(path)
	wall := time.Since(t0).Seconds()

	delivered := res.Counts[labels[0]] + res.Counts[labels[1]]
	mode := "cold"
	if *warm {
		mode = "warm"
	}
	fmt.Printf("sim=macepc workload=%s mode=%s size=%d messages=%d steps=%d outcome=%s wall_s=%.3f msgs_per_s=%.0f simtime_s=%.3f\n",
		*workload, mode, *size, delivered, res.Steps, res.Outcome, wall, float64(delivered)/wall, res.EndTime.Seconds())
	if delivered != *messages || res.Outcome != timedsim.StepLimit || delivered+sc.Nodes != res.Steps {
		fail(1, fmt.Sprintf("expected %d deliveries ending at the step limit, got %d of %d steps (%s; counts %v)",
			*messages, delivered, res.Steps, res.Outcome, res.Counts))
	}
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "macepc:", msg)
	os.Exit(code)
}

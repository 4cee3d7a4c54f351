// Package pingpong is the null protocol of macepc's benchmarks and CLI
// tests: node 2i sends Ping to node 2i+1, which answers Pong, and so on for
// a number of rounds. It does nothing else, so a simulation of it measures
// the simulator's own cost per event (the workload of the SimGrid
// comparison).
//
// # Usage
//
//	sys := pingpong.System()
//	sc, _ := sys.Scenario("", 100) // 50 pairs, DefaultRounds rounds each
//	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{})
//	res := sim.Run(timedsim.SeedPath(1))
//
// Variant "default" stops when every pair has completed its rounds;
// variant "endless" never stops (run it with Options.MaxSteps), which is
// what the benchmarks do.
//
// # Determinism
//
// Messages are empty structs (boxing them allocates nothing) and the
// handlers draw no randomness; all variation comes from the simulator's
// durations and network delays, i.e. from the path.
package pingpong

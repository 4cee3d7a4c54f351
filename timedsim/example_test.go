package timedsim_test

import (
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// A scenario of 4 nodes gossiping until everyone knows everyone, run twice
// on the same path: the execution is the same.
func ExampleSimulator_Run() {
	sim, err := timedsim.NewSimulator(gossipScenario(4), timedsim.Options{})
	if err != nil {
		panic(err)
	}
	a := sim.Run(timedsim.SeedPath(1))
	b := sim.Run(timedsim.SeedPath(1))
	fmt.Println(a.Outcome, a.ExecTime == b.ExecTime, a.Steps == b.Steps)
	fmt.Println("rumors delivered:", a.Counts["deliver Rumor"] > 0)
	// Output:
	// finished true true
	// rumors delivered: true
}

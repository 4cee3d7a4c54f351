package bullet_test

import (
	"fmt"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/timedsim"
)

// One execution of the 2 MB experiment with the fixed protocol and the
// committed durations: every receiver gets the file in a little over two seconds.
func Example() {
	sc, err := bullet.System().ScenarioParams(bullet.VariantFixed, 0, timedsim.Params{"scenario": bullet.Scenario2MB})
	if err != nil {
		panic(err)
	}
	set, err := pipeline.ReadEDD("testdata/edd.json")
	if err != nil {
		panic(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: set})
	if err != nil {
		panic(err)
	}
	r := sim.Run(timedsim.SeedPath(1))
	fmt.Printf("%v in %.1f s, %d blocks to each of %d receivers\n", r.Outcome, r.ExecTime.Seconds(), r.Counts["deliver Block"]/(sc.Nodes-1), sc.Nodes-1)
	// Output: finished in 2.3 s, 16 blocks to each of 99 receivers
}

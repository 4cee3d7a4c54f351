package ransub_test

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/systems/ransub"
	"github.com/macepc/macepc/timedsim"
)

// RanSub under an application on 40 nodes: every node but the root gets a
// subset at each 5 s epoch (10 drawn; here one was n39 itself, left out).
func Example() {
	var w timedsim.World
	sim, err := timedsim.NewSimulator(scenario(40, 2, ransub.Config{}, &w), timedsim.Options{})
	if err != nil {
		panic(err)
	}
	r := sim.Run(timedsim.SeedPath(1))
	first := appOf(w, 39).subs[0]
	fmt.Printf("%v at %.0f s; n39's first subset: epoch %d at %.0f s, %d nodes\n",
		r.Outcome, r.ExecTime.Round(time.Second).Seconds(), first.epoch, first.at.Round(time.Second).Seconds(), len(first.peers))
	// Output: finished at 10 s; n39's first subset: epoch 1 at 5 s, 9 nodes
}

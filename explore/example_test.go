package explore_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// Two ping-pong executions of different seeds, side by side in one page:
// the first step where they differ is marked in both.
func Example() {
	sc := pingpong.Scenario(2, 3)
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true, RecordStates: true})
	if err != nil {
		panic(err)
	}
	data := &explore.Data{Title: "pingpong, 2 nodes"}
	for _, seed := range []uint64{1, 2} {
		p := timedsim.SeedPath(seed)
		r := sim.Run(p)
		h := timedsim.LogHeader{System: "pingpong", Variant: "default", Nodes: sc.Nodes, Path: p}
		data.Executions = append(data.Executions, explore.FromTimed(fmt.Sprintf("seed %d", seed), h, r))
	}
	data.Pair(0, 1, "seed 1 vs seed 2")
	a := data.Executions[0]
	fmt.Println(len(a.Steps), "steps; step 2:", a.Steps[2].Label, "from", a.Steps[2].From, "sent by step", a.Steps[2].SentStep)
	for _, m := range a.Marks {
		fmt.Println(m.Kind, "at step", m.Step)
	}
	var page bytes.Buffer
	if err := explore.Write(&page, data); err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(page.String(), `"first_diff":2`))
	// Output:
	// 8 steps; step 2: deliver Ping from 0 sent by step 0
	// end at step 7
	// first-diff at step 2
	// true
}

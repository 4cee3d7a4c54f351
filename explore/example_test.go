package explore_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// A four-node ping-pong execution and its branch after 4 steps, side by
// side in one page: the first step where they run different events is
// marked in both.
func Example() {
	sc := pingpong.Scenario(4, 3)
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true, RecordStates: true})
	if err != nil {
		panic(err)
	}
	data := &explore.Data{Title: "pingpong, 4 nodes"}
	p := timedsim.SeedPath(1)
	for i, q := range []timedsim.Path{p, p.Branch(4, 2)} {
		r := sim.Run(q)
		h := timedsim.LogHeader{System: "pingpong", Variant: "default", Nodes: sc.Nodes, Path: q}
		data.Executions = append(data.Executions, explore.FromTimed(fmt.Sprintf("execution %d", i), h, r))
	}
	data.Pair(0, 1, "the execution and its branch")
	a := data.Executions[0]
	fmt.Println(len(a.Steps), "steps; step 4:", a.Steps[4].Label, "from", a.Steps[4].From, "sent by step", a.Steps[4].SentStep)
	for _, m := range a.Marks {
		fmt.Println(m.Kind, "at step", m.Step)
	}
	var page bytes.Buffer
	if err := explore.Write(&page, data); err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(page.String(), `"first_diff":6`))
	// Output:
	// 16 steps; step 4: deliver Ping from 0 sent by step 0
	// end at step 15
	// first-diff at step 6
	// true
}

package chord

import (
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/timedsim"
)

// TestFindRace: in the first slow executions of a seeded exploration of
// the join-race variant, FindRace finds the joining node that answered a Join
// (its own JoinReply is then the one ignored: "deliver JoinReply →
// (nothing)"), and the race's steps include that answer, the node's boot
// and the steps its own Join passed; a fast execution has no race.
func TestFindRace(t *testing.T) {
	set, err := edd.ReadFile("testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := System().Scenario(VariantJoinRace, 0)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: set, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	slow, fast := 0, 0
	for i := 0; i < 200 && (slow < 3 || fast < 1); i++ {
		r := sim.Run(timedsim.Seeded(11)(i))
		race := FindRace(r.Events)
		if r.ExecTime < 5*time.Second {
			if fast < 3 && len(race.Accepts) != 0 {
				t.Errorf("execution %d (%v) has a race at %v", i, r.ExecTime, race.Accepts)
			}
			fast++
			continue
		}
		slow++
		if len(race.Accepts) == 0 {
			t.Errorf("slow execution %d (%v) has no race", i, r.ExecTime)
			continue
		}
		acc := r.Events[race.Accepts[0]]
		if acc.Label != "deliver Join" || !slices.Contains(race.Steps, race.Accepts[0]) || len(race.Steps) < 4 {
			t.Errorf("execution %d: race %+v at %+v", i, race, acc)
		}
		// The accepting node's own JoinReply, later, sends nothing.
		ignored := false
		for _, e := range r.Events[acc.Step:] {
			if e.Node == acc.Node && e.Label == "deliver JoinReply" && len(e.Sends) == 0 {
				ignored = true
				break
			}
		}
		if !ignored {
			t.Errorf("execution %d: n%d answered a Join at step %d but never ignored its own JoinReply", i, acc.Node, acc.Step)
		}
	}
	if slow < 3 || fast < 1 {
		t.Fatalf("%d slow and %d fast executions in 200", slow, fast)
	}
}

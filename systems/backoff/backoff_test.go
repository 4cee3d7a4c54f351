package backoff_test

import (
	"testing"

	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/timedsim"
)

// Every execution decides one value everywhere (safety is checked after
// every step), and some of them duel: a proposer gives up a preempted
// ballot and retries after its backoff.
func TestDecidesDespiteDuels(t *testing.T) {
	for _, params := range []timedsim.Params{nil, {"spread": "0s"}, {"proposers": "1"}} {
		sc, err := backoff.System().ScenarioParams("", 3, params)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
		if err != nil {
			t.Fatal(err)
		}
		duels := 0
		for s := uint64(1); s <= 300; s++ {
			r := sim.Run(timedsim.SeedPath(s))
			if !r.Finished {
				t.Fatalf("%v seed %d: outcome %v (%s)", params, s, r.Outcome, r.Violation)
			}
			if r.Counts["timer retry"] > 0 {
				duels++
			}
		}
		switch {
		case params["proposers"] == "1" && duels != 0:
			t.Fatalf("a lone proposer retried in %d executions", duels)
		case params["proposers"] != "1" && duels == 0:
			t.Fatalf("%v: no execution duelled", params)
		}
	}
}

func TestMoreProposersThanNodes(t *testing.T) {
	if _, err := backoff.System().ScenarioParams("", 3, timedsim.Params{"proposers": "4"}); err == nil {
		t.Fatal("4 proposers on 3 nodes accepted")
	}
}

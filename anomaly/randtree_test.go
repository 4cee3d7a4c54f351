package anomaly

import (
	"context"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// TestCorrelateRandTree is phase 3b on RandTree, the paper's Figure 4: with
// the profile's count window (from 50 executions), the composite label that ranks
// first among those not driven by execution length is the join race's
// "deliver JoinReply → Remove", and the recovery timer, which fires only
// because slow executions last 10 s, is LengthOnly.
func TestCorrelateRandTree(t *testing.T) {
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, 0)
	if err != nil {
		t.Fatal(err)
	}
	prof := trainProfile(t, &timedsim.Explorer{Scenario: sc}, 50, 1)
	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CountWindow: prof.CountWindow()}}
	var samples []Sample
	slow := 0
	_, done, err := ex.Run(context.Background(), timedsim.Work{N: 300, Path: timedsim.Seeded(2),
		Each: func(i int, r *timedsim.Result) bool {
			samples = append(samples, NewSample(r))
			if prof.Anomalous(r.ExecTime) {
				slow++
			}
			return true
		}})
	if err != nil || done != 300 {
		t.Fatalf("%d of 300 executions, err %v", done, err)
	}
	ranking := Correlate(samples, prof.CountWindow())
	t.Logf("window %v; %d of %d executions anomalous; ranking:\n%s", prof.CountWindow(), slow, done, table(ranking))

	top := ""
	for _, c := range ranking {
		if c.Composite && !c.LengthOnly {
			top = c.Label
			break
		}
	}
	if top != removeLabel {
		t.Errorf("top composite label not driven by length is %q, want %q; ranking:\n%s", top, removeLabel, table(ranking))
	}
	found := false
	for _, c := range ranking {
		if c.Label == "timer recovery" {
			found = true
			if !c.LengthOnly {
				t.Errorf("timer recovery: %+v, want LengthOnly", c)
			}
		}
	}
	if !found {
		t.Error("no timer recovery event in 300 executions")
	}
}

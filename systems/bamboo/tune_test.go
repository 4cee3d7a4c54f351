package bamboo

import (
	"context"
	"flag"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/timedsim"
)

var tune = flag.Bool("tune", false, "measure slow fractions per spread, routing slack and fix (TestTune)")

// TestTune documents how DefaultSpread and RouteSlack were chosen: the
// fraction of executions slower than the join spread plus a second, per
// spread, slack and combination of fixes, with testdata/edd.json:
//
//	go test ./systems/bamboo -run TestTune -v -args -tune
func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	f, err := os.Open("testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	set, err := edd.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, slack := range []int{1, 2, 4} {
		for _, spread := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
			for _, cfg := range []Config{{}, {FixBoundary: true}, {FixAdjacency: true}, {FixBoundary: true, FixAdjacency: true}} {
				w := DefaultWorkload(DefaultNodes)
				w.Spread, w.Slack = spread, slack
				sc, err := NewScenario(w, cfg)
				if err != nil {
					t.Fatal(err)
				}
				e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set}}
				res, _, err := e.Run(context.Background(), timedsim.Work{N: 300, Path: timedsim.Seeded(7), Keep: true})
				if err != nil {
					t.Fatal(err)
				}
				var ts []time.Duration
				slow := 0
				for _, r := range res {
					if r.ExecTime > spread+time.Second {
						slow++
					}
					ts = append(ts, r.ExecTime.Round(100*time.Millisecond))
				}
				slices.Sort(ts)
				t.Logf("slack=%d spread=%v boundary=%v adjacency=%v: slow %d/300, Q1 %v median %v Q3 %v max %v",
					slack, spread, cfg.FixBoundary, cfg.FixAdjacency, slow, ts[75], ts[150], ts[225], ts[299])
			}
		}
	}
}

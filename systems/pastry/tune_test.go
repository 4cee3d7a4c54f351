package pastry

import (
	"context"
	"flag"
	"github.com/macepc/macepc/edd"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

var (
	tune    = flag.Bool("tune", false, "measure execution-time distributions over many seeds and workloads (TestTune)")
	tuneEDD = flag.String("tune-edd", "", "edd.json for TestTune (default: the seed distribution)")
)

func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	var set *edd.Set
	if *tuneEDD != "" {
		f, err := os.Open(*tuneEDD)
		if err != nil {
			t.Fatal(err)
		}
		set, err = edd.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, spread := range []time.Duration{500 * time.Millisecond, 1 * time.Second, 2 * time.Second, 4 * time.Second} {
		for _, h := range []int{8} {
			for _, fixed := range []bool{false, true} {
				w := DefaultWorkload(40)
				w.Spread = spread
				sc, err := NewScenario(w, Config{Fixed: fixed, Params: Params{LeafHalf: h}})
				if err != nil {
					t.Fatal(err)
				}
				e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set}}
				res, _, err := e.Run(context.Background(), timedsim.Work{N: 200, Path: timedsim.Seeded(7), Keep: true})
				if err != nil {
					t.Fatal(err)
				}
				var ts []time.Duration
				unf, slow := 0, 0
				for _, r := range res {
					if !r.Finished {
						unf++
					}
					if r.ExecTime > 15*time.Second {
						slow++
					}
					ts = append(ts, r.ExecTime.Round(100*time.Millisecond))
				}
				slices.Sort(ts)
				t.Logf("spread=%v H=%d fixed=%v unfinished=%d slow=%d q=%v %v %v %v max %v", spread, h, fixed, unf, slow, ts[0], ts[50], ts[100], ts[150], ts[199])
			}
		}
	}
}

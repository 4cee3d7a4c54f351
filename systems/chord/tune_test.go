package chord

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

var (
	tune    = flag.Bool("tune", false, "measure slow-execution fractions (TestTune)")
	tuneEDD = flag.String("tune-edd", "", "edd.json for TestTune")
	tuneGap = flag.Duration("tune-gap", DefaultGap, "gap for TestTune")
	tuneN   = flag.Int("tune-n", 200, "executions per case in TestTune")
	tuneJit = flag.Duration("tune-jitter", DefaultJitter, "jitter for TestTune")
)

// TestTune measures, for 8, 16 and 32 nodes and the join-race and fixed
// variants, the fraction of executions slower than 10 s and the
// execution-time quartiles. It documents how DefaultWorkload was chosen (pass the edd.json
// of a "macepc train --system chord" run for realistic durations):
//
//	go test ./systems/chord -run TestTune -v -args -tune -tune-edd edd.json -tune-n 500
func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("-tune not set")
	}
	for _, n := range []int{8, 16, 32} {
		for _, v := range []string{VariantJoinRace, VariantFixed} {
			w := DefaultWorkload(n)
			w.Gap, w.Jitter = *tuneGap, *tuneJit
			w.Config.JoinRace = v == VariantJoinRace
			sc, err := NewScenario(w)
			if err != nil {
				t.Fatal(err)
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
			e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CheckSafety: true, EDD: set}}
			N := *tuneN
			res, done, err := e.Run(context.Background(), timedsim.Work{N: N, Path: timedsim.Seeded(1), Keep: true})
			if err != nil || done != N {
				t.Fatal(err, done)
			}
			slow, notfin, steps := 0, 0, 0
			var maxFast time.Duration
			for _, r := range res {
				if !r.Finished {
					notfin++
				}
				if r.ExecTime > 10*time.Second {
					slow++
				} else {
					maxFast = max(maxFast, r.ExecTime)
				}
				steps += r.Steps
			}
			ts := make([]time.Duration, 0, N)
			for _, r := range res {
				ts = append(ts, r.ExecTime)
			}
			slices.Sort(ts)
			t.Logf("quantiles: %v %v %v %v; top %v", ts[N/4], ts[N/2], ts[3*N/4], ts[N*9/10], ts[N-5:])
			t.Logf("n=%d %s: slow %d/%d, unfinished %d, max fast %v, mean steps %d", n, v, slow, N, notfin, maxFast, steps/N)
		}
	}
}

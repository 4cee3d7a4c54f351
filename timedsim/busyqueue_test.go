package timedsim_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// A busy node's waiting events live in a per-node list off the heap
// (Requeue semantics). Timers cancelled or re-set while they wait there
// must not fire, and a reset must discard them, after which the node
// still handles new events.
func TestBusyNodeWaitingTimers(t *testing.T) {
	for _, reset := range []bool{false, true} {
		var got []string
		sc := &timedsim.Scenario{
			Nodes: 1,
			New: func(id timedsim.NodeID) timedsim.Service {
				s := &scripted{id: id}
				s.onApp = func(s *scripted, ctx timedsim.Context, name string, _ any) {
					got = append(got, "app "+name)
					if name == "work" { // a to d expire while the long x runs
						for i, n := range []string{"x", "a", "b", "c", "d"} {
							ctx.SetTimer(n, time.Duration(i)*time.Nanosecond, nil)
						}
					}
				}
				s.onTimer = func(s *scripted, ctx timedsim.Context, name string) {
					got = append(got, "timer "+name)
					if name == "a" {
						ctx.CancelTimer("b")              // waiting behind a: must not fire
						ctx.SetTimer("c", time.Hour, nil) // re-set: the waiting c is gone
					}
				}
				return s
			},
			Driver: func(d *timedsim.Driver) {
				d.App(0, 0, "work", nil)
				if reset {
					d.Reset(1500*time.Millisecond, 0) // while x runs and a to d wait
				}
				d.App(2*time.Hour, 0, "later", nil)
			},
			Stop:    func(timedsim.World) bool { return false },
			Timeout: 3 * time.Hour,
			Network: netmodel.DefaultConfig(),
		}
		opts := constEDD(t, "app work", 1000) // 1 s
		if err := opts.EDD.Scale("timer x", 1000); err != nil {
			t.Fatal(err)
		}
		sim, err := timedsim.NewSimulator(sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := sim.Run(timedsim.SeedPath(1))
		want := []string{"app work", "timer x", "timer a", "timer d", "timer c", "app later"}
		if reset {
			want = []string{"app work", "timer x", "app later"} // the reset discarded every waiting timer
		}
		inits, faults := 1, 0
		if reset {
			inits, faults = 2, 1
		}
		// Every step is one of the handled events or an Init: nothing
		// else (a released slot, say) ran.
		if r.Steps != len(got)+inits+faults || r.Counts["init"] != inits {
			t.Errorf("reset=%v: %d steps, counts %v, handled %v", reset, r.Steps, r.Counts, got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("reset=%v: handled %v, want %v (outcome %v)", reset, got, want, r.Outcome)
		}
	}
}

// An exploration with a huge budget that stops early (an anomaly search
// with --max-runs 1e12) holds only what it emitted: nothing is sized by
// the budget up front.
func TestExplorerHugeBudget(t *testing.T) {
	ex := &timedsim.Explorer{Scenario: gossipScenario(4), Jobs: 2}
	var seen []int
	res, done, err := ex.Run(context.Background(), timedsim.Work{N: 1 << 40, Path: timedsim.Seeded(3), Keep: true,
		Each: func(i int, r *timedsim.Result) bool {
			seen = append(seen, i)
			return i < 4
		}})
	if err != nil || done != 5 || len(res) != 5 || !reflect.DeepEqual(seen, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("done %d, %d results, seen %v, err %v", done, len(res), seen, err)
	}
	for i, r := range res {
		if r == nil || r.Path.Segments[0].Seed != timedsim.ExecutionSeed(3, i) {
			t.Fatalf("result %d is %+v", i, r)
		}
	}
}

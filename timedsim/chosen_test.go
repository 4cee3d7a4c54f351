package timedsim_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// ResetChosen resets the node its choice picks from the state at the
// fault's time (None: nobody); AppsOnly skips it.
func TestResetChosen(t *testing.T) {
	var seen []int
	sc := &timedsim.Scenario{
		Nodes: 3,
		New:   func(timedsim.NodeID) timedsim.Service { return &diskNode{} },
		Driver: func(d *timedsim.Driver) {
			d.App(0, 2, "write", nil)
			d.App(0, 2, "write", nil)
			d.App(0, 1, "write", nil)
			busiest := func(w timedsim.World) timedsim.NodeID {
				best, most := timedsim.None, 0
				for i := range w.Nodes() {
					if m := w.Node(timedsim.NodeID(i)).(*diskNode).Mem; m > most {
						best, most = timedsim.NodeID(i), m
					}
				}
				seen = append(seen, int(best))
				return best
			}
			d.ResetChosen(time.Second, busiest)   // n2 (Mem 2)
			d.ResetChosen(2*time.Second, busiest) // n1 (Mem 1)
			d.ResetChosen(3*time.Second, busiest) // nobody
		},
		Stop:    func(w timedsim.World) bool { return w.Now() >= 3*time.Second },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, timedsim.Options{Record: true}).Run(timedsim.SeedPath(1))
	if !r.Finished || len(seen) != 3 || seen[0] != 2 || seen[1] != 1 || seen[2] != int(timedsim.None) {
		t.Fatalf("outcome %v, choices %v, want [2 1 -1]", r.Outcome, seen)
	}
	var resets []timedsim.NodeID
	for _, e := range r.Events {
		if e.Label == "reset" {
			resets = append(resets, e.Node)
		}
	}
	if len(resets) != 3 || resets[0] != 2 || resets[1] != 1 || resets[2] != timedsim.None {
		t.Errorf("reset events on %v, want [n2 n1 none]", resets)
	}
	seen = nil
	r = newSim(t, sc, timedsim.Options{AppsOnly: true}).Run(timedsim.SeedPath(1))
	if len(seen) != 0 || r.Counts["reset"] != 0 {
		t.Errorf("AppsOnly ran the faults: choices %v, %d resets", seen, r.Counts["reset"])
	}
}

// PartitionChosen partitions as its choice says when the fault happens;
// no groups: no partition.
func TestPartitionChosen(t *testing.T) {
	for _, cut := range []bool{true, false} {
		sc := &timedsim.Scenario{
			Nodes: 2,
			New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
				ctx.Send(1, Blob{Bytes: 10})
			}),
			Driver: func(d *timedsim.Driver) {
				d.PartitionChosen(time.Second, func(w timedsim.World) [][]timedsim.NodeID {
					if !cut {
						return nil
					}
					return [][]timedsim.NodeID{{1}}
				})
				d.App(2*time.Second, 0, "send", nil)
			},
			Stop:    func(w timedsim.World) bool { return w.Now() >= 3*time.Second },
			Timeout: time.Minute,
			Network: netmodel.DefaultConfig(),
		}
		r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
		want := 1
		if cut {
			want = 0
		}
		if r.Counts["deliver Blob"] != want || r.Counts["partition"] != 1 {
			t.Errorf("cut=%v: %d Blobs delivered, want %d (counts %v)", cut, r.Counts["deliver Blob"], want, r.Counts)
		}
	}
}

// Outage partitions as its choice says and heals after the length it
// draws from the outage step's randomness: the same path gives the same
// length; a branch taken before the outage draws it afresh, one taken
// after keeps it; no groups means no outage and no heal.
func TestOutage(t *testing.T) {
	outage := func(cut bool) *timedsim.Scenario {
		return &timedsim.Scenario{
			Nodes: 2,
			New:   appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {}),
			Driver: func(d *timedsim.Driver) {
				d.App(0, 0, "a", nil)
				d.App(0, 1, "b", nil)
				d.Outage(time.Second, func(w timedsim.World, r *rand.Rand) ([][]timedsim.NodeID, time.Duration) {
					if !cut {
						return nil, time.Second
					}
					return [][]timedsim.NodeID{{1}}, time.Duration(1+r.IntN(1000)) * time.Millisecond
				})
			},
			Stop:    func(w timedsim.World) bool { return w.Now() >= 3*time.Second },
			Timeout: time.Minute,
			Network: netmodel.DefaultConfig(),
		}
	}
	// healAt returns the step of the partition and the heal's time.
	healAt := func(r *timedsim.Result) (int, time.Duration) {
		step, at := -1, time.Duration(-1)
		for _, e := range r.Events {
			switch e.Label {
			case "partition":
				step = e.Step
				if len(e.Logs) != 1 || !strings.HasPrefix(e.Logs[0], "outage: {n1} cut off for ") {
					t.Errorf("the outage's log: %q", e.Logs)
				}
			case "heal":
				if at >= 0 {
					t.Fatalf("two heals: %v", r.Events)
				}
				at = e.Start
			}
		}
		return step, at
	}
	sim := newSim(t, outage(true), timedsim.Options{Record: true})
	lengths := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 5; seed++ {
		r := sim.Run(timedsim.SeedPath(seed))
		step, at := healAt(r)
		if step < 0 || at <= time.Second || at > 2*time.Second {
			t.Fatalf("seed %d: partition at step %d, heal at %v (events %v)", seed, step, at, r.Events)
		}
		lengths[at] = true
		if _, again := healAt(sim.Run(timedsim.SeedPath(seed))); again != at {
			t.Errorf("seed %d: heal at %v, then at %v", seed, at, again)
		}
		var after, before []time.Duration
		for b := uint64(100); b < 105; b++ {
			_, a := healAt(sim.Run(timedsim.SeedPath(seed).Branch(step+1, b)))
			after = append(after, a)
			_, a = healAt(sim.Run(timedsim.SeedPath(seed).Branch(step, b)))
			before = append(before, a)
		}
		if slices.ContainsFunc(after, func(a time.Duration) bool { return a != at }) {
			t.Errorf("seed %d: branches after the outage heal at %v, want %v", seed, after, at)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(before)))) < 3 {
			t.Errorf("seed %d: branches before the outage heal at %v: the length is not drawn afresh", seed, before)
		}
	}
	if len(lengths) < 3 {
		t.Errorf("5 seeds drew lengths %v", lengths)
	}
	r := newSim(t, outage(false), timedsim.Options{}).Run(timedsim.SeedPath(1))
	if r.Counts["partition"] != 1 || r.Counts["heal"] != 0 {
		t.Errorf("no groups: counts %v, want a partition event and no heal", r.Counts)
	}
}

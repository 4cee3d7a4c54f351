package timedsim_test

import (
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

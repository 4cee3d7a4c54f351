package liveness

import (
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// durNode keeps Synced across resets (timedsim.Durable) but not Mem.
type durNode struct{ Mem, Synced int }

func (n *durNode) Init(timedsim.Context)                                       {}
func (n *durNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *durNode) Timer(timedsim.Context, string, any)                         {}
func (n *durNode) Disk() any                                                   { return n.Synced }
func (n *durNode) Recover(d any)                                               { n.Synced = d.(int) }

// A reset in the liveness world hands the durable state over, as the
// timed simulator does.
func TestDurableReset(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return &durNode{} }, Liveness: []timedsim.Property{always}}
	r, err := Config{Scenario: sc, Seed: 1, Faults: 1}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(r.set, schedule{})
	w.start(Path{Driver: 1})
	n := w.nodes[1].svc.(*durNode)
	n.Mem, n.Synced = 5, 3
	if !w.reset(1, true) {
		t.Fatal(w.panicked)
	}
	got := w.nodes[1].svc.(*durNode)
	if got == n || got.Synced != 3 || got.Mem != 0 {
		t.Fatalf("after the reset: %+v (same value: %v), want Synced 3 and Mem 0 on a fresh value", *got, got == n)
	}
}

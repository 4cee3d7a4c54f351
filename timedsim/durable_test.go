package timedsim_test

import (
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// diskNode counts "write" app events in memory and makes the count durable
// on its "sync" timer; a reset keeps only what was synced.
type diskNode struct {
	Mem, Synced int
	Inits       int // incarnation-local: how many Inits this value saw
}

func (n *diskNode) Init(timedsim.Context)                                       { n.Inits++ }
func (n *diskNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *diskNode) Timer(_ timedsim.Context, name string, _ any)                { n.Synced = n.Mem }
func (n *diskNode) App(ctx timedsim.Context, name string, _ any) {
	n.Mem++
	if name == "write+sync" {
		ctx.SetTimer("sync", 0, nil)
	}
}
func (n *diskNode) Disk() any     { return n.Synced }
func (n *diskNode) Recover(d any) { n.Synced = d.(int); n.Mem = n.Synced }

// A reset hands a Durable node's disk to its new incarnation before Init;
// what was only in memory is lost.
func TestDurableStateSurvivesReset(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 1,
		New:   func(timedsim.NodeID) timedsim.Service { return &diskNode{} },
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "write+sync", nil)             // Mem 1, synced 1
			d.App(time.Second, 0, "write", nil)        // Mem 2, not synced
			d.Reset(2*time.Second, 0)                  // back to 1
			d.App(3*time.Second, 0, "write+sync", nil) // Mem 2, synced 2
			d.Reset(4*time.Second, 0)                  // 2 survives
			d.App(5*time.Second, 0, "end", nil)        // Mem 3
		},
		Stop:    func(w timedsim.World) bool { return w.Now() >= 5*time.Second },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	var n *diskNode
	stop := sc.Stop
	sc.Stop = func(w timedsim.World) bool { n = w.Node(0).(*diskNode); return stop(w) }
	sim := newSim(t, sc, timedsim.Options{Record: true})
	r := sim.Run(timedsim.SeedPath(1))
	if !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if n.Synced != 2 || n.Mem != 3 || n.Inits != 1 {
		t.Fatalf("after two resets: %+v, want Synced 2, Mem 3 and one Init on this incarnation", *n)
	}
}

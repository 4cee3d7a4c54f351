package ransub_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/ransub"
	"github.com/macepc/macepc/timedsim"
)

// app records the subsets RanSub hands it, with their times.
type app struct {
	id   timedsim.NodeID
	subs []got
}

type got struct {
	epoch int
	at    time.Duration
	peers []timedsim.NodeID
}

func (a *app) Init(timedsim.Context)                                       {}
func (a *app) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (a *app) Timer(timedsim.Context, string, any)                         {}
func (a *app) Subset(ctx timedsim.Context, epoch int, peers []timedsim.NodeID) {
	a.subs = append(a.subs, got{epoch, ctx.Now(), peers})
}

// scenario stacks an app over RanSub on n nodes; it stops once every node
// got `epochs` subsets.
// The last world the stopping condition saw is kept in *last, to read the
// apps' states after the run.
func scenario(n, epochs int, cfg ransub.Config, last *timedsim.World) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: n,
		New: func(id timedsim.NodeID) timedsim.Service {
			a := &app{id: id}
			rs := ransub.NewNode(id, n, cfg, nil)
			st := timedsim.NewStack(
				timedsim.Layer{Name: "ransub", Service: rs, Owns: ransub.Owns},
				timedsim.Layer{Name: "app", Service: a},
			)
			rs.SetHandler(ransub.HandlerFunc(func(ctx timedsim.Context, e int, p []timedsim.NodeID) {
				a.Subset(st.Context(ctx, "app"), e, p)
			}))
			return st
		},
		Stop: func(w timedsim.World) bool {
			*last = w
			for id := range timedsim.NodeID(w.Nodes()) {
				if id != 0 && len(appOf(w, id).subs) < epochs {
					return false
				}
			}
			return true
		},
		Timeout: time.Minute,
		Network: netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "control", Kind: netmodel.Reliable, QueueCap: -1}}},
	}
}

func appOf(w timedsim.World, id timedsim.NodeID) *app {
	return w.Node(id).(*timedsim.Stack).Layer("app").(*app)
}

// TestEpochs: every node but the root gets one subset per epoch, the first
// one epoch (5 s) after the start, each of at most SubsetSize other nodes,
// sorted; the subsets change from epoch to epoch and together cover nodes
// from all over the tree, not only the node's neighbours.
func TestEpochs(t *testing.T) {
	const n = 40
	var w timedsim.World
	sim, err := timedsim.NewSimulator(scenario(n, 3, ransub.Config{}, &w), timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(7))
	if !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if got := r.Counts["timer ransub.epoch"]; got != 3 {
		t.Errorf("%d epoch timers, want 3", got)
	}
	seen := map[timedsim.NodeID]bool{}
	changed := 0
	for id := timedsim.NodeID(1); id < n; id++ {
		a := appOf(w, id)
		if len(a.subs) != 3 {
			t.Fatalf("%v got %d subsets, want 3", id, len(a.subs))
		}
		for e, s := range a.subs {
			lo := time.Duration(e+1) * ransub.DefaultEpoch
			if s.epoch != e+1 || s.at < lo || s.at > lo+500*time.Millisecond {
				t.Errorf("%v: subset %d is epoch %d at %v, want epoch %d within 0.5 s of %v", id, e, s.epoch, s.at, e+1, lo)
			}
			if len(s.peers) == 0 || len(s.peers) > ransub.DefaultSubsetSize || slices.Contains(s.peers, id) || !slices.IsSorted(s.peers) {
				t.Errorf("%v epoch %d: subset %v (want 1..%d other nodes, sorted)", id, s.epoch, s.peers, ransub.DefaultSubsetSize)
			}
			for _, p := range s.peers {
				seen[p] = true
			}
		}
		if !slices.Equal(a.subs[1].peers, a.subs[2].peers) {
			changed++
		}
	}
	if changed < n/2 {
		t.Errorf("only %d of %d nodes got a different subset in epochs 2 and 3", changed, n-1)
	}
	if len(seen) < n*3/4 {
		t.Errorf("subsets name only %d of %d nodes", len(seen), n)
	}
}

// TestDeterminism: the same path gives the same event log.
func TestDeterminism(t *testing.T) {
	run := func() string {
		var w timedsim.World
		sim, err := timedsim.NewSimulator(scenario(25, 2, ransub.Config{Epoch: time.Second, SubsetSize: 4, Fanout: 3}, &w), timedsim.Options{Record: true})
		if err != nil {
			t.Fatal(err)
		}
		r := sim.Run(timedsim.SeedPath(11))
		return fmt.Sprint(r.Events, r.FinalStates)
	}
	if a, b := run(), run(); a != b {
		t.Fatal("same path, different event logs")
	}
}

// TestTree: the fixed tree's parents and children agree.
func TestTree(t *testing.T) {
	const n = 30
	for f := 1; f <= 5; f++ {
		kids := 0
		for id := timedsim.NodeID(0); id < n; id++ {
			nd := ransub.NewNode(id, n, ransub.Config{Fanout: f}, nil)
			for _, c := range nd.Children() {
				kids++
				if p := ransub.NewNode(c, n, ransub.Config{Fanout: f}, nil).Parent(); p != id {
					t.Errorf("fanout %d: child %v of %v has parent %v", f, c, id, p)
				}
			}
		}
		if kids != n-1 {
			t.Errorf("fanout %d: %d children in all, want %d", f, kids, n-1)
		}
	}
}

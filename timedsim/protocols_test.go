package timedsim_test

import (
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Test protocols, small enough to reason about exactly.

// gossip: every node, on a randomly jittered timer, sends a Rumor to a
// random peer; stops when every node has heard from everyone. It exercises
// timers, handler randomness and many interleavings.
type Rumor struct{ Known []bool }

func (r Rumor) Size() int { return 16 + len(r.Known) }

type gossip struct {
	id    timedsim.NodeID
	known []bool
	ticks int
}

func (g *gossip) Init(ctx timedsim.Context) {
	g.known = make([]bool, ctx.Nodes())
	g.known[g.id] = true
	ctx.SetTimer("tick", time.Duration(ctx.Rand().IntN(50))*time.Millisecond, nil)
}

func (g *gossip) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	for i, k := range msg.(Rumor).Known {
		g.known[i] = g.known[i] || k
	}
	ctx.Logf("merged rumor from %v", from)
}

func (g *gossip) Timer(ctx timedsim.Context, name string, _ any) {
	g.ticks++
	to := timedsim.NodeID(ctx.Rand().IntN(ctx.Nodes()))
	if to != g.id {
		ctx.Send(to, Rumor{Known: append([]bool(nil), g.known...)})
	}
	ctx.SetTimer("tick", 20*time.Millisecond+time.Duration(ctx.Rand().IntN(20))*time.Millisecond, nil)
}

func (g *gossip) all() bool {
	for _, k := range g.known {
		if !k {
			return false
		}
	}
	return true
}

func gossipScenario(nodes int) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return &gossip{id: id} },
		Stop: func(w timedsim.World) bool {
			for i := 0; i < w.Nodes(); i++ {
				if !w.Node(timedsim.NodeID(i)).(*gossip).all() {
					return false
				}
			}
			return true
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
}

// scripted runs a per-node script of actions on app events; used to build
// exact situations (full queues, resets, busy nodes).
type scripted struct {
	id      timedsim.NodeID
	onApp   func(s *scripted, ctx timedsim.Context, name string, data any)
	onTimer func(s *scripted, ctx timedsim.Context, name string)
	got     []string
	nums    []int
	errs    []*timedsim.TransportError
	sendEr  []error
}

type Blob struct{ Bytes int }

func (b Blob) Size() int { return b.Bytes }

// Num is a numbered message, to check delivery order.
type Num struct{ N int }

func (Num) Size() int { return 0 } // no transmission time: arrival ties are likely

func (s *scripted) Init(timedsim.Context) { s.got = append(s.got, "init") }
func (s *scripted) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	if n, ok := msg.(Num); ok {
		s.nums = append(s.nums, n.N)
	}
	s.got = append(s.got, from.String()+":"+timedsim.FormatTime(ctx.Now()))
}
func (s *scripted) Timer(ctx timedsim.Context, name string, _ any) {
	s.got = append(s.got, "timer "+name)
	if s.onTimer != nil {
		s.onTimer(s, ctx, name)
	}
}
func (s *scripted) App(ctx timedsim.Context, name string, data any) {
	if s.onApp != nil {
		s.onApp(s, ctx, name, data)
	}
}
func (s *scripted) Error(ctx timedsim.Context, err *timedsim.TransportError) {
	s.errs = append(s.errs, err)
}

// appScript is the constructor of scripted nodes that run f on every
// application event.
func appScript(f func(s *scripted, ctx timedsim.Context, name string, data any)) func(timedsim.NodeID) timedsim.Service {
	return func(id timedsim.NodeID) timedsim.Service { return &scripted{id: id, onApp: f} }
}

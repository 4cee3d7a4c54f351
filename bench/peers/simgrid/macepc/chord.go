package main

import (
	"math/bits"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Lookup asks for the owner of Key on behalf of Origin.
//
// Messages travel as pointers to their origin's one outstanding lookup,
// which nobody changes until its Reply is back: a pointer goes into a
// Message without an allocation, as ../chord.cpp packs its messages into
// the payload pointer, while boxing an 8-byte struct value would allocate
// on every send (an allocation per message that SimGrid's side does not
// make). The events are the same as with values.
type Lookup struct{ Key, Origin int32 }

// Size is a small control message's wire size.
func (*Lookup) Size() int { return 64 }

// Reply tells a lookup's origin that the lookup reached the key's owner.
// It is the origin's Lookup, answered.
type Reply Lookup

// Size is a small control message's wire size.
func (*Reply) Size() int { return 64 }

// chordNode is one node of the static Chord-like ring (the same protocol
// as ../chord.cpp): node i owns key i, finger j is (i + 2^j) mod n, one
// lookup outstanding per node, greedy finger routing, direct reply.
type chordNode struct {
	id, n   int32
	fingers []int32 // shared, read-only
	lookup  Lookup  // this node's outstanding lookup, sent by pointer
}

func (c *chordNode) Init(ctx timedsim.Context) { c.start(ctx) }

func (c *chordNode) start(ctx timedsim.Context) {
	key := ctx.Rand().Int32N(c.n - 1)
	if key >= c.id {
		key++
	}
	c.lookup = Lookup{Key: key, Origin: c.id}
	c.route(ctx, &c.lookup)
}

func (c *chordNode) route(ctx timedsim.Context, m *Lookup) {
	if m.Key == c.id {
		ctx.Send(timedsim.NodeID(m.Origin), (*Reply)(m))
		return
	}
	d := (m.Key - c.id + c.n) % c.n
	ctx.Send(timedsim.NodeID(c.fingers[bits.Len32(uint32(d))-1]), m)
}

func (c *chordNode) Deliver(ctx timedsim.Context, _ timedsim.NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case *Lookup:
		c.route(ctx, m)
	case *Reply:
		c.start(ctx)
	}
}

func (c *chordNode) Timer(timedsim.Context, string, any) {}

// chordScenario is n nodes looking keys up forever (bound it with
// Options.MaxSteps). The finger tables are built here, once per scenario,
// as the SimGrid program builds them before Engine::run.
func chordScenario(n int) *timedsim.Scenario {
	fingers := make([][]int32, n)
	for i := range fingers {
		for step := 1; step < n; step *= 2 {
			fingers[i] = append(fingers[i], int32((i+step)%n))
		}
	}
	return &timedsim.Scenario{
		Nodes: n,
		New: func(id timedsim.NodeID) timedsim.Service {
			return &chordNode{id: int32(id), n: int32(n), fingers: fingers[id]}
		},
		Stop:     func(timedsim.World) bool { return false },
		Timeout:  time.Duration(1 << 62),
		Network:  netmodel.DefaultConfig(),
		Revision: "1",
	}
}

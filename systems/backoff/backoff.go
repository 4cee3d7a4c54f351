package backoff

import (
	"fmt"
	"maps"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// VariantRandom is the protocol's only variant: randomized exponential
// backoff.
const VariantRandom = "random"

// Defaults of the scenario.
const (
	DefaultProposers = 0 // every node
	DefaultBase      = 4 * time.Millisecond
	DefaultSpread    = 5 * time.Millisecond
	maxDoublings     = 5
)

// Ballot orders proposals: a round number, then the proposer's ID.
type Ballot struct {
	Round int
	Node  timedsim.NodeID
}

// Less reports b < o.
func (b Ballot) Less(o Ballot) bool {
	return b.Round < o.Round || b.Round == o.Round && b.Node < o.Node
}

func (b Ballot) String() string { return fmt.Sprintf("%d.%d", b.Round, b.Node) }

// Prepare asks acceptors to promise a ballot.
type Prepare struct{ B Ballot }

// Promise answers Prepare with the highest ballot the acceptor accepted.
type Promise struct {
	B        Ballot
	Accepted Ballot // zero: none
	Value    int
}

// Accept asks acceptors to accept a value in a ballot.
type Accept struct {
	B     Ballot
	Value int
}

// Accepted answers Accept.
type Accepted struct{ B Ballot }

// Nack refuses a ballot lower than the one promised.
type Nack struct{ B, Promised Ballot }

// Decide tells a node the chosen value.
type Decide struct{ Value int }

func (Prepare) Size() int  { return 64 }
func (Promise) Size() int  { return 64 }
func (Accept) Size() int   { return 64 }
func (Accepted) Size() int { return 64 }
func (Nack) Size() int     { return 64 }
func (Decide) Size() int   { return 64 }

// Node is an acceptor and, for the first proposers, a proposer.
type Node struct {
	id       timedsim.NodeID
	n        int
	base     time.Duration
	proposer bool

	// acceptor
	promised Ballot
	accepted Ballot
	accValue int

	// proposer
	ballot    Ballot
	highest   Ballot // the highest ballot seen
	phase     int    // 0 idle, 1 preparing, 2 accepting
	promises  map[timedsim.NodeID]bool
	bestAcc   Ballot
	bestValue int
	accepts   map[timedsim.NodeID]bool
	attempts  int

	// learner
	Decided bool
	Value   int
}

func (nd *Node) majority() int { return nd.n/2 + 1 }

// Init does nothing: proposers start on the driver's "propose".
func (nd *Node) Init(timedsim.Context) {}

// App starts a proposer.
func (nd *Node) App(ctx timedsim.Context, name string, _ any) {
	if name == "propose" && nd.proposer && !nd.Decided {
		nd.prepare(ctx)
	}
}

func (nd *Node) broadcast(ctx timedsim.Context, m timedsim.Message) {
	for i := 0; i < nd.n; i++ {
		ctx.Send(timedsim.NodeID(i), m)
	}
}

func (nd *Node) prepare(ctx timedsim.Context) {
	nd.ballot = Ballot{Round: nd.highest.Round + 1, Node: nd.id}
	nd.highest = nd.ballot
	nd.phase = 1
	nd.promises = map[timedsim.NodeID]bool{}
	nd.accepts = map[timedsim.NodeID]bool{}
	nd.bestAcc, nd.bestValue = Ballot{}, 0
	nd.broadcast(ctx, Prepare{B: nd.ballot})
}

// giveUp abandons the current ballot and retries after a backoff.
func (nd *Node) giveUp(ctx timedsim.Context) {
	nd.phase = 0
	k := min(nd.attempts, maxDoublings)
	nd.attempts++
	wait := time.Duration(ctx.Rand().Int64N(int64(nd.base << k)))
	ctx.SetTimer("retry", wait, nil)
}

// Deliver runs the acceptor's and the proposer's halves of Paxos.
func (nd *Node) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	switch m := msg.(type) {
	case Prepare:
		if nd.promised.Less(m.B) {
			nd.promised = m.B
			ctx.Send(from, Promise{B: m.B, Accepted: nd.accepted, Value: nd.accValue})
		} else {
			ctx.Send(from, Nack{B: m.B, Promised: nd.promised})
		}
	case Accept:
		if !m.B.Less(nd.promised) {
			nd.promised, nd.accepted, nd.accValue = m.B, m.B, m.Value
			ctx.Send(from, Accepted{B: m.B})
		} else {
			ctx.Send(from, Nack{B: m.B, Promised: nd.promised})
		}
	case Promise:
		if nd.phase != 1 || m.B != nd.ballot {
			ctx.Note("ignored: stale ballot")
			return
		}
		nd.promises[from] = true
		if nd.bestAcc.Less(m.Accepted) {
			nd.bestAcc, nd.bestValue = m.Accepted, m.Value
		}
		if len(nd.promises) >= nd.majority() {
			v := nd.bestValue
			if nd.bestAcc == (Ballot{}) {
				v = int(nd.id) + 100 // the proposer's own value
			}
			nd.phase = 2
			nd.broadcast(ctx, Accept{B: nd.ballot, Value: v})
			nd.bestValue = v
		}
	case Accepted:
		if nd.phase != 2 || m.B != nd.ballot {
			ctx.Note("ignored: stale ballot")
			return
		}
		nd.accepts[from] = true
		if len(nd.accepts) >= nd.majority() {
			nd.phase = 0
			nd.broadcast(ctx, Decide{Value: nd.bestValue})
		}
	case Nack:
		if nd.highest.Less(m.Promised) {
			nd.highest = m.Promised
		}
		if nd.phase == 0 || m.B != nd.ballot {
			ctx.Note("ignored: stale ballot")
			return
		}
		ctx.Note("gave up: preempted")
		nd.giveUp(ctx)
	case Decide:
		nd.Decided, nd.Value = true, m.Value
		nd.phase = 0
		ctx.CancelTimer("retry")
	}
}

// Timer retries a proposal after its backoff.
func (nd *Node) Timer(ctx timedsim.Context, name string, _ any) {
	if name == "retry" && !nd.Decided && nd.phase == 0 {
		nd.prepare(ctx)
	}
}

// Describe renders the node's state for event logs and diffs.
func (nd *Node) Describe() string {
	return fmt.Sprintf("promised=%v accepted=%v/%d ballot=%v phase=%d attempts=%d decided=%v/%d",
		nd.promised, nd.accepted, nd.accValue, nd.ballot, nd.phase, nd.attempts, nd.Decided, nd.Value)
}

// AllDecided is the stopping condition: every node knows the decision.
func AllDecided(w timedsim.World) bool {
	for i := 0; i < w.Nodes(); i++ {
		if !w.Node(timedsim.NodeID(i)).(*Node).Decided {
			return false
		}
	}
	return true
}

// Agreement is the safety property: no two nodes decided different values.
func Agreement(w timedsim.World) bool {
	v, some := 0, false
	for i := 0; i < w.Nodes(); i++ {
		nd := w.Node(timedsim.NodeID(i)).(*Node)
		if !nd.Decided {
			continue
		}
		if some && nd.Value != v {
			return false
		}
		v, some = nd.Value, true
	}
	return true
}

// System is the bundled Paxos with backoff.
func System() timedsim.System {
	return timedsim.System{
		Name: "backoff",
		Doc:  "single-decree Paxos whose duelling proposers retry after a randomized backoff (a correct protocol with natural variance)",
		Variants: []timedsim.Variant{
			{Name: VariantRandom, Doc: "a preempted proposer waits a uniform random time in [0, base·2^k): duels end after a round or two"},
		},
		DefaultNodes: 3,
		Params: []timedsim.Param{
			{Name: "proposers", Default: fmt.Sprint(DefaultProposers), Check: timedsim.CheckInt(0, 1000), Doc: "how many nodes propose (the first ones; 0: every node)"},
			{Name: "base", Default: DefaultBase.String(), Check: timedsim.CheckDuration(time.Microsecond), Doc: "the backoff's base"},
			{Name: "spread", Default: DefaultSpread.String(), Check: timedsim.CheckDuration(0), Doc: "proposers start at a uniform random time in [0, spread)"},
		},
		BuildParams: func(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
			proposers := p.Int("proposers")
			if proposers == 0 {
				proposers = nodes
			}
			if nodes < 1 || proposers > nodes {
				return nil, fmt.Errorf("backoff: need at least as many nodes as proposers (%d), got %d", proposers, nodes)
			}
			base, spread := p.Duration("base"), p.Duration("spread")
			return &timedsim.Scenario{
				Nodes: nodes,
				New: func(id timedsim.NodeID) timedsim.Service {
					return &Node{id: id, n: nodes, base: base, proposer: int(id) < proposers}
				},
				Driver: func(d *timedsim.Driver) {
					for i := 0; i < proposers; i++ {
						var at time.Duration
						if spread > 0 {
							at = time.Duration(d.Rand().Int64N(int64(spread)))
						}
						d.App(at, timedsim.NodeID(i), "propose", nil)
					}
				},
				Stop:     AllDecided,
				Safety:   []timedsim.Property{{Name: "agreement", Check: Agreement}},
				Liveness: []timedsim.Property{{Name: "all-decided", Check: AllDecided}},
				Timeout:  time.Minute,
				Network:  netmodel.DefaultConfig(),
				Revision: "1",
			}, nil
		},
	}
}

// Clone is a deep copy of the node (timedsim.Cloner), for the divergence
// search's snapshots.
func (n *Node) Clone() timedsim.Service {
	c := *n
	c.promises, c.accepts = maps.Clone(n.promises), maps.Clone(n.accepts)
	return &c
}

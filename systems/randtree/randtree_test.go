package randtree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

var variants = []struct {
	name string
	cfg  Config
}{
	{VariantBuggy, Config{}},
	{VariantFixed, Config{Fixed: true}},
}

// checkTree fails unless the harness's nodes form one spanning tree rooted
// at root, with at most max children per node and every node agreeing on
// the root.
func checkTree(t *testing.T, h *harness, root NodeID, maxChildren int) {
	t.Helper()
	if !SpanningTree(h) {
		t.Fatalf("not a spanning tree:%s", h.describe())
	}
	if got := Roots(h); !slices.Equal(got, []NodeID{root}) {
		t.Fatalf("roots %v, want [%v]:%s", got, root, h.describe())
	}
	for _, n := range h.nodes {
		if n.NumChildren() > maxChildren {
			t.Errorf("%v has %d children, max %d", n, n.NumChildren(), maxChildren)
		}
		if n.Root() != root {
			t.Errorf("%v believes the root is %v, want %v", n, n.Root(), root)
		}
	}
	if !RecoveryTimerArmed(h) {
		t.Errorf("a joined node has no recovery timer")
	}
}

// TestSequentialJoins: when each join completes before the next begins
// (MacePC Figure 1's caption: then the bug does not occur), both variants
// build one tree rooted at the most fit node, whatever the join order and
// bootstrap.
func TestSequentialJoins(t *testing.T) {
	for _, v := range variants {
		for _, n := range []int{1, 2, 3, 5, 17, 40} {
			for seed := range uint64(5) {
				t.Run(fmt.Sprintf("%s/n=%d/seed=%d", v.name, n, seed), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, 0))
					order := rng.Perm(n)
					b := NodeID(order[0])
					h := newHarness(t, n, v.cfg)
					h.join(b, b)
					for _, id := range order[1:] {
						h.join(NodeID(id), b)
						h.run()
						if sent := sentOf[Remove](h); len(sent) > 0 {
							t.Fatalf("Remove sent in a sequential join: %v", sent)
						}
					}
					checkTree(t, h, 0, DefaultMaxChildren)
					if a := testing.AllocsPerRun(10, func() { SpanningTree(h) }); a != 0 {
						t.Errorf("SpanningTree allocates %v times per call", a)
					}
				})
			}
		}
	}
}

// TestPushDown: a full root passes a joiner down to a child, which adopts
// it; a full child passes it further down.
func TestPushDown(t *testing.T) {
	h := newHarness(t, 8, Config{MaxChildren: 2})
	h.join(0, 0)
	for id := NodeID(1); id <= 2; id++ {
		h.join(id, 0)
		h.run()
	}
	if got := h.nodes[0].Children(); !slices.Equal(got, []NodeID{1, 2}) {
		t.Fatalf("root children %v, want [n1 n2]", got)
	}
	h.join(3, 0)
	if m := deliver[Join](h, 3, 0); m != (Join{Who: 3}) {
		t.Fatalf("root got %+v", m)
	}
	if len(h.queue) != 1 || h.queue[0].msg != (Join{Who: 3, Down: true}) {
		t.Fatalf("root sent %v, want one Join{Who:3 Down:true} to a child", h.queue)
	}
	child := h.queue[0].to
	h.run()
	if p := h.nodes[3].Parent(); p != child {
		t.Fatalf("n3's parent is %v, want %v", p, child)
	}
	// Fill the tree's second level, then push two levels down.
	for id := NodeID(4); id <= 7; id++ {
		h.join(id, 0)
		h.run()
	}
	checkTree(t, h, 0, 2)
	depth := 0
	for p := h.nodes[7].Parent(); p != 0; p = h.nodes[p].Parent() {
		depth++
	}
	if h.nodes[7].Parent() == 0 {
		t.Fatalf("n7 is a child of the full root")
	}
	t.Logf("n7 at depth %d:%s", depth+1, h.describe())
}

// TestJoinersMoreFitThanRoot: a joiner more fit than the root is told to
// be the root (ForceRoot), and the old root joins under it with its subtree.
func TestJoinersMoreFitThanRoot(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			h := newHarness(t, 6, v.cfg)
			h.join(5, 5)
			for _, id := range []NodeID{4, 3, 2, 1, 0} {
				h.join(id, 5)
				h.run()
			}
			checkTree(t, h, 0, DefaultMaxChildren)
			if got := len(sentOf[JoinReply](h)); got < 10 {
				t.Errorf("%d JoinReplies, want one ForceRoot and one Accepted per displacement", got)
			}
		})
	}
}

// figure1 plays MacePC's Figure 1 with A=n0, B=n1 (the bootstrap), C=n2:
// (1) A and C join at B; (2) B, less fit than A, tells A to be the root
// and joins under it; (3) meanwhile C's Join reaches B while B is joining.
// It returns the harness after (3), with A's messages undelivered.
func figure1(t *testing.T, cfg Config) *harness {
	const a, b, c = 0, 1, 2
	h := newHarness(t, 3, cfg)
	h.join(b, b)
	h.join(a, b)
	h.join(c, b)
	deliver[Join](h, a, b)
	if r := deliver[Join](h, c, b); r.Who != c {
		t.Fatalf("B got %+v", r)
	}
	if s := h.nodes[b].State(); s != Joined && s != Joining {
		t.Fatalf("B in state %v", s)
	}
	return h
}

// TestFigure1 is the race of MacePC Figure 1. In the buggy variant B
// accepts C while joining, considers itself joined and a root, and rejects
// A's JoinReply with a Remove (the event "deliver JoinReply → Remove" of
// Figure 4): two trees remain. In the fixed variant B forwards C's Join to
// A and one tree forms.
func TestFigure1(t *testing.T) {
	const a, b, c = 0, 1, 2
	t.Run(VariantBuggy, func(t *testing.T) {
		h := figure1(t, Config{})
		if s := h.nodes[b]; !s.IsRoot() || !s.HasChild(c) {
			t.Fatalf("(3) B should be a joined root with child C: %v", s)
		}
		deliver[JoinReply](h, b, a) // ForceRoot: A is the root
		deliver[Join](h, b, a)      // A accepts B
		if r := deliver[JoinReply](h, a, b); r != (JoinReply{Kind: Accepted, Root: a}) {
			t.Fatalf("A replied %+v", r)
		}
		// (6) B rejects A's JoinReply.
		if len(h.queue) == 0 || h.queue[len(h.queue)-1] != (envelope{from: b, to: a, msg: Remove{}}) {
			t.Fatalf("B did not answer the JoinReply with a Remove; in flight %v", h.queue)
		}
		h.run()
		if got := Roots(h); !slices.Equal(got, []NodeID{a, b}) {
			t.Fatalf("roots %v, want [n0 n1]:%s", got, h.describe())
		}
		if SpanningTree(h) {
			t.Fatalf("spanning tree after the race:%s", h.describe())
		}
		if n := h.nodes[a]; n.NumChildren() != 0 {
			t.Fatalf("A kept B as a child after the Remove: %v", n)
		}
	})
	t.Run(VariantFixed, func(t *testing.T) {
		h := figure1(t, Config{Fixed: true})
		if s := h.nodes[b]; s.State() != Joining || s.HasChild(c) {
			t.Fatalf("(3) B should still be joining without children: %v", s)
		}
		if len(h.queue) == 0 || h.queue[len(h.queue)-1] != (envelope{from: b, to: a, msg: Join{Who: c}}) {
			t.Fatalf("B did not forward C's Join to A; in flight %v", h.queue)
		}
		h.run()
		checkTree(t, h, a, DefaultMaxChildren)
		if sent := sentOf[Remove](h); len(sent) > 0 {
			t.Fatalf("Remove sent: %v", sent)
		}
	})
}

// TestRecoveryMergesTrees: after Figure 1's race the recovery probe of
// either side finds the two roots and the less fit root joins under the
// more fit one.
func TestRecoveryMergesTrees(t *testing.T) {
	const a, b, c = 0, 1, 2
	for _, prober := range []NodeID{a, b, c} {
		t.Run(fmt.Sprintf("prober=%v", prober), func(t *testing.T) {
			h := figure1(t, Config{})
			h.run()
			if got := Roots(h); len(got) != 2 {
				t.Fatalf("roots %v, want two trees", got)
			}
			h.fire(prober, TimerRecovery)
			if !h.TimerPending(prober, TimerRecovery) {
				t.Fatalf("recovery timer not re-armed")
			}
			h.run()
			if prober == c {
				// C's only peer is B, its own root: nothing to repair.
				if got := Roots(h); len(got) != 2 {
					t.Fatalf("roots %v after C probed its own root", got)
				}
				h.fire(a, TimerRecovery)
				h.run()
			}
			if len(sentOf[RootJoin](h)) == 0 && prober != b {
				t.Errorf("no RootJoin sent")
			}
			checkTree(t, h, a, DefaultMaxChildren)
		})
	}
}

// TestRecoveryTimerInEveryState: the recovery timer is re-armed when it
// fires while joining (MaceMC's RT3) and a joining node does not probe.
func TestRecoveryTimerInEveryState(t *testing.T) {
	h := newHarness(t, 2, Config{})
	h.join(1, 0)
	if h.nodes[1].State() != Joining || !RecoveryTimerArmed(h) {
		t.Fatalf("joining node without recovery timer: %v", h.nodes[1])
	}
	h.queue = nil // n0 never answers
	h.fire(1, TimerRecovery)
	if !h.TimerPending(1, TimerRecovery) || len(h.queue) != 0 {
		t.Fatalf("recovery while joining: pending %v, sent %v", h.TimerPending(1, TimerRecovery), h.queue)
	}
}

// TestRecoveryOnlyJoined is MaceMC's RT3 (Config.RecoveryOnlyJoined, the
// liveness-bug variant): a recovery timer that fires while its node is
// joining is not re-armed, which RecoveryTimerArmed catches; in the joined
// state it is re-armed as usual.
func TestRecoveryOnlyJoined(t *testing.T) {
	h := newHarness(t, 2, Config{RecoveryOnlyJoined: true})
	h.join(0, 0)
	h.fire(0, TimerRecovery) // joined root: re-armed
	if !h.TimerPending(0, TimerRecovery) {
		t.Fatalf("joined node's recovery timer not re-armed")
	}
	h.join(1, 0)
	h.queue = nil // n0 never answers
	h.fire(1, TimerRecovery)
	if h.TimerPending(1, TimerRecovery) || RecoveryTimerArmed(h) {
		t.Fatalf("RT3: recovery timer re-armed while joining")
	}
}

// TestJoinTimerRoundRobin: a joining node that gets no answer tries the
// next member of its peer set, skipping itself.
func TestJoinTimerRoundRobin(t *testing.T) {
	h := newHarness(t, 4, Config{})
	h.join(0, 0)
	h.join(2, 2)
	h.join(3, 1, 3, 2) // n1 is in Init and ignores the Join
	deliver[Join](h, 3, 1)
	h.fire(3, TimerJoin)
	if m := deliver[Join](h, 3, 2); m.Who != 3 {
		t.Fatalf("n3 sent %+v", m)
	}
	h.run()
	if p := h.nodes[3].Parent(); p != 2 || h.TimerPending(3, TimerJoin) {
		t.Fatalf("n3 should have joined n2 and cancelled its join timer: %v", h.nodes[3])
	}
}

// TestConnectionBroken: a node whose parent connection breaks rejoins
// through its peer set with its subtree; its old parent drops it.
func TestConnectionBroken(t *testing.T) {
	h := newHarness(t, 6, Config{MaxChildren: 1})
	h.join(0, 0)
	for id := NodeID(1); id < 6; id++ {
		h.join(id, 0)
		h.run()
	}
	checkTree(t, h, 0, 1) // a chain 0-1-2-3-4-5
	p := h.nodes[3].Parent()
	broken := &timedsim.TransportError{Transport: "tcp", Peer: p, Err: timedsim.ErrConnectionBroken}
	h.nodes[3].Error(h.ctx(3), broken)
	h.nodes[p].Error(h.ctx(p), &timedsim.TransportError{Transport: "tcp", Peer: 3, Err: timedsim.ErrConnectionBroken})
	if n := h.nodes[3]; n.State() != Joining || n.NumChildren() != 1 {
		t.Fatalf("n3 should rejoin with its child: %v", n)
	}
	h.run()
	checkTree(t, h, 0, 1)
}

// TestRandomInterleavings explores random delivery orders (every node
// joining at the bootstrap, connections FIFO, no timers): the fixed variant
// always ends in one tree, and the buggy variant sometimes ends in several,
// which only the recovery timer repairs.
func TestRandomInterleavings(t *testing.T) {
	const n, runs = 9, 300
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			split := 0
			for seed := range uint64(runs) {
				h := newHarness(t, n, v.cfg)
				h.seed = seed
				rng := rand.New(rand.NewPCG(seed, 99))
				b := NodeID(n - 1 - rng.IntN(3))
				h.join(b, b)
				pending := rng.Perm(n)
				for h.steps < 10000 {
					heads := h.heads()
					k := rng.IntN(len(pending) + len(heads) + 1)
					switch {
					case k < len(pending):
						if id := NodeID(pending[k]); id != b {
							h.join(id, b)
						}
						pending = slices.Delete(pending, k, k+1)
						continue
					case len(heads) > 0:
						h.deliverAt(heads[(k-len(pending))%len(heads)])
						continue
					}
					if len(pending) == 0 {
						break
					}
				}
				if len(h.queue) > 0 || len(pending) > 0 {
					t.Fatalf("seed %d: no quiescence after %d steps", seed, h.steps)
				}
				if !RecoveryTimerArmed(h) {
					t.Fatalf("seed %d: recovery timer not armed:%s", seed, h.describe())
				}
				if v.cfg.Fixed {
					if !SpanningTree(h) || !slices.Equal(Roots(h), []NodeID{0}) {
						t.Fatalf("seed %d: no spanning tree:%s", seed, h.describe())
					}
					continue
				}
				if !SpanningTree(h) {
					split++
					if len(sentOf[Remove](h)) == 0 {
						t.Errorf("seed %d: split without a JoinReply → Remove", seed)
					}
					// Recovery repairs it: probe until one tree remains.
					for round := 0; !SpanningTree(h); round++ {
						if round > 50 {
							t.Fatalf("seed %d: recovery did not merge the trees:%s", seed, h.describe())
						}
						for id := range NodeID(n) {
							if h.TimerPending(id, TimerJoin) {
								h.fire(id, TimerJoin)
							}
							h.fire(id, TimerRecovery)
							h.run()
						}
					}
				}
			}
			t.Logf("%s: %d/%d interleavings ended in several trees", v.name, split, runs)
			if !v.cfg.Fixed && split == 0 {
				t.Errorf("buggy variant never split the tree in %d interleavings", runs)
			}
		})
	}
}

// heads lists the queue indices of the oldest message of each connection.
func (h *harness) heads() []int {
	var out []int
	for i, e := range h.queue {
		first := true
		for _, o := range h.queue[:i] {
			if o.from == e.from && o.to == e.to {
				first = false
				break
			}
		}
		if first {
			out = append(out, i)
		}
	}
	return out
}

// TestRejoinDefersJoins: a node rejoining after its parent failed knows no
// root. In the fixed variant it holds a Join it receives meanwhile and
// handles it once it has rejoined (the joiner need not wait for its join
// timer); in the buggy variant it takes the joiner and splits the tree.
func TestRejoinDefersJoins(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			h := newHarness(t, 5, v.cfg)
			h.join(0, 0)
			for id := NodeID(1); id < 4; id++ {
				h.join(id, 0)
				h.run()
			}
			h.nodes[3].Error(h.ctx(3), &timedsim.TransportError{Transport: "tcp", Peer: 0, Err: timedsim.ErrConnectionBroken})
			h.nodes[0].Error(h.ctx(0), &timedsim.TransportError{Transport: "tcp", Peer: 3, Err: timedsim.ErrConnectionBroken})
			h.join(4, 3)
			deliver[Join](h, 4, 3)
			h.run()
			if v.cfg.Fixed {
				checkTree(t, h, 0, DefaultMaxChildren)
				return
			}
			if got := Roots(h); !slices.Equal(got, []NodeID{0, 3}) {
				t.Fatalf("roots %v, want [n0 n3]:%s", got, h.describe())
			}
		})
	}
}

package randtree

import (
	"testing"
)

// Tests of resets and broken connections: the root's
// reset, a stale broken-connection upcall, and the recovery protocol's
// check of the tree links.

// TestRootResetTieBreak: the root n0 of a tree {n0: n1, n1: n2} resets.
// n1 loses its parent and rejoins through its peer set {n1, n0}, where n0
// is in Init; n2 rejoins at n1 as before; then n0 restarts and joins at
// n1. Every node is joining and none knows a root. The fixed variant used
// to hold every Join at such a node, so the tree never formed again; now
// n1 makes the more fit joiner n0 a root and joins under it, and the
// Joins it held follow.
func TestRootResetTieBreak(t *testing.T) {
	h := newHarness(t, 3, Config{Fixed: true, MaxChildren: 1})
	h.join(1, 1)
	h.join(0, 1)
	h.run()
	h.join(2, 1)
	h.run()
	checkTree(t, h, 0, 1) // a chain n0 - n1 - n2

	h.reset(0)
	h.broken(1, 0)
	h.run() // n1's Join reaches n0 in Init and is ignored
	h.fire(2, TimerRecovery)
	h.run() // n2 checks its parent n1: still its child
	if n := h.nodes[1]; n.State() != Joining || n.Root() != None {
		t.Fatalf("n1 should be rejoining, knowing no root: %v", n)
	}
	h.join(0, 1)
	h.run()
	checkTree(t, h, 0, 1)
}

// TestStepDownTargetFails: the root n1 steps down for the more fit joiner
// n0 and joins under it, and n0 resets before it has heard of it. n1 must
// forget n0 as its root: otherwise it forwards every Join to n0, n0's own
// Join included, which n0 drops as its own, and no tree forms.
func TestStepDownTargetFails(t *testing.T) {
	h := newHarness(t, 2, Config{Fixed: true})
	h.join(1, 1)
	h.join(0, 1)
	deliver[Join](h, 0, 1) // n1: ForceRoot to n0, and a Join
	h.reset(0)             // both lost
	h.broken(1, 0)
	if n := h.nodes[1]; n.State() != Joining || n.Root() != None {
		t.Fatalf("n1 should know no root: %v", n)
	}
	h.run()
	h.join(0, 1)
	h.run()
	checkTree(t, h, 0, DefaultMaxChildren)
}

// TestStaleBrokenUpcall: an upcall "connection broken" can be about a
// peer's former incarnation and come after the new one has rejoined. The
// parent side: n2, a child of the root n1, resets and rejoins under n1
// before n1 learns that their old connection broke; the upcall drops the
// new child, and n1 tells it (Dropped), so that it rejoins. The child
// side: n2 joins the root n1, which resets (the Join is lost) and starts
// again; n2 joins under the new n1 on its join timer, and n1 steps down
// for n0; then n2's upcall about n1's former incarnation makes it rejoin,
// through n1 to n0, and it tells n1 it left (Remove). Both variants, with
// no recovery round.
func TestStaleBrokenUpcall(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name+"/parent", func(t *testing.T) {
			h := newHarness(t, 2, v.cfg)
			h.join(0, 0)
			h.join(1, 0)
			h.run()
			h.reset(1)
			h.join(1, 0)
			h.run()
			h.broken(0, 1) // about n1's former incarnation
			h.run()
			checkTree(t, h, 0, DefaultMaxChildren)
		})
		t.Run(v.name+"/child", func(t *testing.T) {
			h := newHarness(t, 3, v.cfg)
			h.join(1, 1)
			h.join(2, 1)
			h.reset(1) // n2's Join is lost
			h.join(1, 1)
			h.fire(2, TimerJoin)
			h.run()
			h.join(0, 1)
			deliver[Join](h, 0, 1) // n1 steps down for n0
			h.broken(2, 1)         // about n1's former incarnation
			h.run()
			if !KidsMatch(h) || !AllJoined(h) {
				t.Fatalf("kids do not match:%s", h.describe())
			}
			if v.cfg.Fixed {
				checkTree(t, h, 0, DefaultMaxChildren)
			} // the buggy n1 takes n2 while joining (Figure 1): two trees
		})
	}
}

// TestRecoveryChecksKids: whatever left a tree link one-sided, one
// recovery round repairs it (MaceMC's kids-match). A parent that lists a
// node whose parent is another tells it its root; the node answers Remove.
// A node whose parent does not list it asks (ParentCheck); the parent
// answers Dropped, and the node rejoins.
func TestRecoveryChecksKids(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			h := newHarness(t, 3, v.cfg)
			h.join(0, 0)
			h.join(1, 0)
			h.run()
			h.join(2, 0)
			h.run()
			checkTree(t, h, 0, DefaultMaxChildren)

			h.nodes[2].addChild(1) // n2 lists n1, whose parent is n0
			h.fire(2, TimerRecovery)
			h.run()
			checkTree(t, h, 0, DefaultMaxChildren)

			h.nodes[0].removeChild(2) // n0 forgets n2, which names it
			h.fire(2, TimerRecovery)
			h.run()
			checkTree(t, h, 0, DefaultMaxChildren)
		})
	}
}

// TestStaleForceRoot: a stale Join of n0 (its former incarnation's,
// forwarded by n2) reaches the root n1 after n0 reset: n1 makes n0 a root
// and joins under it, but n0, in Init, rejects the ForceRoot (Remove). n1
// must then forget n0 as its root, or it sends every Join to n0, which
// holds n1's and drops its own, and no tree forms again.
func TestStaleForceRoot(t *testing.T) {
	h := newHarness(t, 3, Config{Fixed: true})
	h.join(1, 1)
	h.nodes[1].Deliver(h.ctx(1), 2, Join{Who: 0})
	h.run() // n0, in Init, answers the ForceRoot with Remove and ignores the Join
	if n := h.nodes[1]; n.State() != Joining || n.Root() != None {
		t.Fatalf("n1 should be joining, knowing no root: %v", n)
	}
	h.join(0, 1)
	h.run()
	h.join(2, 1)
	h.run()
	checkTree(t, h, 0, DefaultMaxChildren)
}

package chord

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// ringOf checks that the nodes ids (joined) form the correct ring among
// themselves: successor and predecessor the next and previous in key
// order.
func ringOf(h *harness, ids []NodeID) bool {
	s := slices.Clone(ids)
	slices.SortFunc(s, func(a, b NodeID) int {
		if Key(a) < Key(b) {
			return -1
		}
		return 1
	})
	for i, id := range s {
		n := h.nodes[id]
		if n.State() != Joined || n.Succ() != s[(i+1)%len(s)] || n.Pred() != s[(i+len(s)-1)%len(s)] {
			return false
		}
	}
	return true
}

// trueSucc is the first of nodes 0 … n−1 at or after key.
func trueSucc(n int, key uint32) NodeID {
	best, bestD := None, uint64(0)
	for id := range NodeID(n) {
		d := uint64(Key(id) - key) // 0 when the key is the node's own
		if best == None || d < bestD {
			best, bestD = id, d
		}
	}
	return best
}

// TestIntervals: the ring intervals, including the wrap-around and the
// one-node ring's full turn.
func TestIntervals(t *testing.T) {
	cases := []struct {
		x, a, b    uint32
		open, half bool
	}{
		{5, 1, 10, true, true},
		{10, 1, 10, false, true},
		{1, 1, 10, false, false},
		{0, 0xfffffff0, 5, true, true},
		{0xfffffff5, 0xfffffff0, 5, true, true},
		{6, 0xfffffff0, 5, false, false},
		{7, 3, 3, true, true}, // (a, a): the whole ring but a
		{3, 3, 3, false, true},
	}
	for _, c := range cases {
		if got := between(c.x, c.a, c.b); got != c.open {
			t.Errorf("between(%d, %d, %d) = %v", c.x, c.a, c.b, got)
		}
		if got := upTo(c.x, c.a, c.b); got != c.half {
			t.Errorf("upTo(%d, %d, %d) = %v", c.x, c.a, c.b, got)
		}
	}
	seen := map[uint32]NodeID{}
	for id := range NodeID(100000) {
		if o, ok := seen[Key(id)]; ok {
			t.Fatalf("Key(%v) = Key(%v)", id, o)
		}
		seen[Key(id)] = id
	}
}

// TestSelfLoop is MaceMC's Chord bug switched back on (Config.SelfLoop):
// the first Notify gives the one-node ring a predecessor but no
// successor, and no stabilize round gives it one.
func TestSelfLoop(t *testing.T) {
	h := newHarness(t, 2, Config{SelfLoop: true})
	h.join(0, 0)
	h.join(1, 0)
	h.run()
	h.stabilize(5)
	if n := h.nodes[0]; n.Pred() != 1 || n.Succ() != 0 || AllNodes(h) {
		t.Fatalf("want a self-loop with a predecessor:%s", h.describe())
	}
}

// TestOneNodeRing is MaceMC's Chord bug as a test: a one-node ring is its
// own predecessor and successor, and the first Notify gives it a
// successor as well as a predecessor.
func TestOneNodeRing(t *testing.T) {
	h := newHarness(t, 2, Config{})
	h.join(0, 0)
	if n := h.nodes[0]; n.State() != Joined || n.Pred() != 0 || n.Succ() != 0 || !SelfPred(h) {
		t.Fatalf("bootstrap: %v", n)
	}
	h.join(1, 0)
	deliver[Join](h, 1, 0)
	deliver[JoinReply](h, 0, 1)
	deliver[Notify](h, 1, 0)
	if !ringOf(h, []NodeID{0, 1}) || !SelfPred(h) || len(h.queue) != 0 {
		t.Fatalf("two-node ring not formed:%s\nin flight %v", h.describe(), h.queue)
	}
}

// TestSequentialJoins: nodes that join one at a time, each through a
// random node already on the ring, form the correct ring after each join
// without any timer: the JoinReply places the joiner, its Notify makes it
// its successor's predecessor, and the successor tells the old
// predecessor at once.
func TestSequentialJoins(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		for _, n := range []int{2, 3, 8, 24} {
			h := newHarness(t, n, Config{JoinRace: !fixed})
			h.quiet = true
			r := rand.New(rand.NewPCG(uint64(n), 7))
			h.join(0, 0)
			joined := []NodeID{0}
			for id := NodeID(1); int(id) < n; id++ {
				h.join(id, joined[r.IntN(len(joined))])
				h.run()
				joined = append(joined, id)
				if !ringOf(h, joined) {
					t.Fatalf("fixed=%v n=%d: after %v joined, not a ring:%s", fixed, n, id, h.describe())
				}
			}
			if !NewRingOrder(n).Ring(h) || !AllNodes(h) || !SuccReflexive(h) || Rings(h) != 1 {
				t.Fatalf("fixed=%v n=%d: properties fail on the ring:%s", fixed, n, h.describe())
			}
		}
	}
}

// buildRing joins n nodes one at a time and then refreshes fingers.
func buildRing(t *testing.T, n, fixRounds int) *harness {
	h := newHarness(t, n, Config{})
	h.quiet = true
	r := rand.New(rand.NewPCG(uint64(n), 9))
	h.join(0, 0)
	for id := NodeID(1); int(id) < n; id++ {
		h.join(id, NodeID(r.IntN(int(id))))
		h.run()
	}
	for range fixRounds {
		for id := range NodeID(n) {
			h.fire(id, TimerFixFingers)
			h.run()
		}
	}
	return h
}

// TestFixFingers: after enough fix-fingers rounds every finger is the
// first node at or after key+2^i.
func TestFixFingers(t *testing.T) {
	const n = 16
	h := buildRing(t, n, 400)
	for id := range NodeID(n) {
		nd := h.nodes[id]
		for i := range Bits {
			want := trueSucc(n, nd.Key()+1<<i)
			if got := nd.Finger(i); got != want {
				t.Errorf("%v finger %d = %v, want %v", id, i, got, want)
			}
		}
	}
}

// TestLookupReachesOwner: a Lookup for any key from any node is answered
// by the key's predecessor, whose successor list starts with the key's
// owner, in O(log n) hops once the fingers are fixed (successor-only
// routing would take up to n−1).
func TestLookupReachesOwner(t *testing.T) {
	const n = 32
	h := buildRing(t, n, 400)
	r := rand.New(rand.NewPCG(3, 3))
	maxHops, total := 0, 0
	for from := range NodeID(n) {
		for range 40 {
			key := r.Uint32()
			owner := trueSucc(n, key)
			sent := len(h.sent)
			h.nodes[from].Deliver(h.ctx(from), from, Lookup{Key: key, Who: from, Kind: LookupFinger})
			h.run()
			var reply *LookupReply
			var replier NodeID
			hops := 0
			for _, e := range h.sent[sent:] {
				switch m := e.msg.(type) {
				case Lookup:
					hops++
				case LookupReply:
					if e.to == from && m.Key == key {
						reply, replier = &m, e.from
					}
				}
			}
			if reply == nil {
				// Only the key's predecessor answers itself silently.
				if NewRingOrder(n).Succ(from) != owner {
					t.Fatalf("lookup %08x from %v: no reply, and %v is not the predecessor of owner %v", key, from, from, owner)
				}
				continue
			}
			if reply.Succs[0] != owner || NewRingOrder(n).Succ(replier) != owner {
				t.Fatalf("lookup %08x from %v: answered by %v with successors %v, owner %v", key, from, replier, reply.Succs, owner)
			}
			maxHops = max(maxHops, hops)
			total += hops
		}
	}
	t.Logf("hops: max %d, mean %.2f", maxHops, float64(total)/(n*40))
	if lim := bits.Len(uint(n)) + 1; maxHops > lim {
		t.Errorf("a lookup took %d hops, want at most %d", maxHops, lim)
	}
}

// TestJoinWhileJoining is the bug: node 2 joins through node 1 while node
// 1 is still joining through node 0. The buggy node 1 takes itself for a
// one-node ring and answers; its own JoinReply is dropped, and two rings
// remain through any number of stabilize rounds until node 1's recovery
// timer fires. The fixed node 1 holds the Join and routes it once joined:
// one ring, without a timer.
func TestJoinWhileJoining(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		h := newHarness(t, 3, Config{JoinRace: !fixed})
		h.join(0, 0)
		h.join(1, 0)
		h.join(2, 1)
		deliver[Join](h, 2, 1) // n1 is joining: its Join is still in flight
		h.run()
		ring := NewRingOrder(3)
		if fixed {
			if !ring.Ring(h) {
				t.Fatalf("fixed: no ring:%s", h.describe())
			}
			continue
		}
		if len(sentOf[JoinReply](h)) != 2 || h.nodes[1].Pred() != 2 {
			t.Fatalf("buggy: n1 did not answer n2 as a one-node ring:%s", h.describe())
		}
		h.stabilize(10)
		if ring.Ring(h) || AllNodes(h) || Rings(h) != 2 {
			t.Fatalf("buggy: want two rings after stabilizing, got %d:%s", Rings(h), h.describe())
		}
		h.fire(1, TimerRecovery)
		h.run()
		h.stabilize(5)
		if !ring.Ring(h) {
			t.Fatalf("buggy: recovery did not merge the rings:%s", h.describe())
		}
	}
}

// TestRandomInterleavings: nodes join through random earlier nodes while
// messages are delivered in random (per-connection FIFO) order and
// stabilize and fix-fingers timers fire at random. The fixed protocol
// always ends in the correct ring without the recovery timer, and the
// safety property holds after every step. The buggy protocol needs the
// recovery timer in some of the interleavings, and with it, it too ends
// in the ring.
func TestRandomInterleavings(t *testing.T) {
	const seeds, n = 200, 6
	for _, fixed := range []bool{true, false} {
		needRecovery := 0
		for seed := range uint64(seeds) {
			h := newHarness(t, n, Config{JoinRace: !fixed})
			h.quiet, h.seed = true, seed
			r := rand.New(rand.NewPCG(seed, 11))
			h.join(0, 0)
			next := NodeID(1)
			for step := 0; ; step++ {
				if step > 10000 {
					t.Fatalf("seed %d: no quiescence", seed)
				}
				if !SelfPred(h) {
					t.Fatalf("fixed=%v seed %d: self-pred violated:%s", fixed, seed, h.describe())
				}
				x := r.IntN(10)
				switch {
				case x < 3 && int(next) < n:
					h.join(next, NodeID(r.IntN(int(next))))
					next++
				case x < 9 && len(h.queue) > 0:
					heads := []int{}
					for i, e := range h.queue {
						first := true
						for _, o := range h.queue[:i] {
							first = first && (o.from != e.from || o.to != e.to)
						}
						if first {
							heads = append(heads, i)
						}
					}
					h.deliverAt(heads[r.IntN(len(heads))])
				case x == 9:
					id := NodeID(r.IntN(n))
					name := []string{TimerStabilize, TimerFixFingers}[r.IntN(2)]
					if h.TimerPending(id, name) {
						h.fire(id, name)
					}
				}
				if int(next) == n && len(h.queue) == 0 {
					break
				}
			}
			h.stabilize(n + 2)
			ring := NewRingOrder(n)
			if ring.Ring(h) {
				continue
			}
			if fixed {
				t.Fatalf("seed %d: fixed variant not a ring after stabilizing:%s", seed, h.describe())
			}
			needRecovery++
			for id := NodeID(1); int(id) < n; id++ {
				if h.TimerPending(id, TimerRecovery) {
					h.fire(id, TimerRecovery)
					h.run()
				}
			}
			h.stabilize(n + 2)
			if !ring.Ring(h) {
				t.Fatalf("seed %d: buggy variant not a ring after recovery:%s", seed, h.describe())
			}
		}
		t.Logf("fixed=%v: %d of %d interleavings needed recovery", fixed, needRecovery, seeds)
		if !fixed && needRecovery == 0 {
			t.Errorf("buggy: no interleaving of %d needed the recovery timer", seeds)
		}
	}
}

// TestOneNodeRingLearnsFromLookup: a one-node ring that learns a node
// other than through Notify (here a recovery Lookup's sender) gains a
// successor and forgets that it was its own predecessor (Mace's Chord17),
// so the safety property self-pred holds.
func TestOneNodeRingLearnsFromLookup(t *testing.T) {
	h := newHarness(t, 2, Config{})
	h.join(0, 0)
	h.nodes[0].Deliver(h.ctx(0), 1, Lookup{Key: Key(1), Who: 1, Kind: LookupRecovery})
	if n := h.nodes[0]; n.Succ() != 1 || n.Pred() != None || !SelfPred(h) {
		t.Fatalf("after a recovery lookup: %v", n)
	}
	if got := sentOf[LookupReply](h); len(got) != 1 || got[0].to != 1 {
		t.Fatalf("replies %v", got)
	}
}

// TestSilentPred is the buggy variant's bug (Config.SilentPred, the kind
// MacePC §5.4 reports for Chord): state a node loses or ignores without
// telling the node that needs it, repaired only by stabilize.
//
// Two nodes j1 and j2 join through the one-node ring n0 at the same time,
// j1 nearer after n0 than j2, and both get n0 as predecessor and
// successor. j2's Notify reaches n0 first and becomes n0's predecessor;
// then j1's arrives, from a node farther than the predecessor. The fixed
// n0 answers j1 with its predecessor (GetPredReply), and j1 moves to j2
// at once: the ring is correct with no timer. The buggy n0 ignores j1
// ("ignored: predecessor nearer"), and only stabilize rounds repair the
// ring (j1's finds j2, and j2, taking j1 as predecessor, drops n0
// silently: n0's round finds j1). Sequential joins show the other half: the buggy successor
// replaces its predecessor without telling it ("lost: old predecessor not
// told"), and some join leaves the ring wrong until a stabilize round.
func TestSilentPred(t *testing.T) {
	// j1, j2: the two nodes among 1 … 9 nearest after n0, j1 first.
	var ids []NodeID
	for id := NodeID(1); id < 10; id++ {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b NodeID) int {
		if dist(Key(0), Key(a)) < dist(Key(0), Key(b)) {
			return -1
		}
		return 1
	})
	j1, j2 := ids[0], ids[1]
	for _, silent := range []bool{false, true} {
		h := newHarness(t, 10, Config{SilentPred: silent})
		h.join(0, 0)
		h.join(j1, 0)
		h.join(j2, 0)
		deliver[Join](h, j1, 0)
		deliver[Join](h, j2, 0)
		deliver[JoinReply](h, 0, j1)
		deliver[JoinReply](h, 0, j2)
		deliver[Notify](h, j2, 0)
		deliver[Notify](h, j1, 0)
		h.run()
		joined := []NodeID{0, j1, j2}
		if got := ringOf(h, joined); got == silent {
			t.Fatalf("silent=%v: ring %v without a timer:%s", silent, got, h.describe())
		}
		if got := h.noted(0, NoteNotNearer); got != silent {
			t.Errorf("silent=%v: noted %q: %v", silent, NoteNotNearer, got)
		}
		if silent {
			h.stabilize(3)
			if !ringOf(h, joined) {
				t.Fatalf("stabilize did not repair the ring:%s", h.describe())
			}
		}
	}

	h := newHarness(t, 12, Config{SilentPred: true})
	h.quiet = true
	r := rand.New(rand.NewPCG(12, 7))
	h.join(0, 0)
	joined := []NodeID{0}
	wrong := 0
	for id := NodeID(1); id < 12; id++ {
		h.join(id, joined[r.IntN(len(joined))])
		h.run()
		joined = append(joined, id)
		if !ringOf(h, joined) {
			wrong++
			if !h.noted(h.nodes[id].Succ(), NoteDropped) {
				t.Errorf("after %v joined the ring is wrong, but its successor dropped no predecessor silently", id)
			}
			h.stabilize(len(joined))
			if !ringOf(h, joined) {
				t.Fatalf("stabilize did not repair the ring after %v joined:%s", id, h.describe())
			}
		}
	}
	if wrong == 0 {
		t.Errorf("no sequential join left the ring wrong")
	}
}

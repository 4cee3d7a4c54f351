package dht

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

func TestDigits(t *testing.T) {
	id := ID(0x12ab34cd)
	var got []int
	for i := range Digits {
		got = append(got, Digit(id, i))
	}
	if want := []int{1, 2, 0xa, 0xb, 3, 4, 0xc, 0xd}; !slices.Equal(got, want) {
		t.Fatalf("digits %v, want %v", got, want)
	}
	for _, c := range []struct {
		a, b ID
		want int
	}{{0x12ab34cd, 0x12ab34cd, 8}, {0x12ab34cd, 0x12ab30cd, 5}, {0x12ab34cd, 0x92ab34cd, 0}, {0x12ab34cd, 0x13ab34cd, 1}} {
		if got := SharedPrefix(c.a, c.b); got != c.want {
			t.Errorf("SharedPrefix(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if Dist(1, 0xffffffff) != 2 || CW(0xffffffff, 1) != 2 || CW(1, 0xffffffff) != 0xfffffffe {
		t.Fatal("circular distances")
	}
}

func TestNodeIDs(t *testing.T) {
	ids := NodeIDs(1000, 7)
	seen := map[ID]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate id %v", id)
		}
		seen[id] = true
	}
	if !slices.Equal(ids[:10], NodeIDs(10, 7)) || slices.Equal(ids[:10], NodeIDs(10, 8)) {
		t.Fatal("ids are not a function of (index, salt)")
	}
}

// TestLeafSetReference: after any sequence of adds, each side holds the h
// nearest learned nodes in that direction, nearest first (a naive
// reference), and Add reports evictions exactly.
func TestLeafSetReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		h := 1 + rng.IntN(5)
		ids := NodeIDs(2+rng.IntN(20), uint64(trial))
		self := Peer{Node: 0, ID: ids[0]}
		l := NewLeafSet(self, h)
		var learned []Peer
		for k := range 3 * len(ids) {
			p := Peer{Node: timedsim.NodeID(rng.IntN(len(ids))), ID: 0}
			p.ID = ids[p.Node]
			before := l.Members()
			added, evicted := l.Add(p)
			if p.Node != 0 && !slices.Contains(learned, p) {
				learned = append(learned, p)
			}
			wantL := nearest(learned, h, func(q Peer) uint32 { return CW(q.ID, self.ID) })
			wantR := nearest(learned, h, func(q Peer) uint32 { return CW(self.ID, q.ID) })
			if !slices.Equal(l.Left(), wantL) || !slices.Equal(l.Right(), wantR) {
				t.Fatalf("trial %d add %d (%v): left %v right %v, want %v %v", trial, k, p, l.Left(), l.Right(), wantL, wantR)
			}
			if added != (l.Contains(p.Node) && !slices.Contains(before, p)) {
				t.Fatalf("trial %d: added=%v for %v", trial, added, p)
			}
			for _, b := range before {
				if gone := !l.Contains(b.Node); gone != slices.Contains(evicted, b) {
					t.Fatalf("trial %d: %v gone=%v but evicted=%v", trial, b, gone, evicted)
				}
			}
		}
	}
}

func nearest(ps []Peer, h int, dist func(Peer) uint32) []Peer {
	s := slices.Clone(ps)
	slices.SortFunc(s, func(a, b Peer) int { return int(int64(dist(a)) - int64(dist(b))) })
	return s[:min(h, len(s))]
}

// fullState is a node that knows every node: its routing table has every
// node it can hold and its leaf set the H nearest.
type fullState struct {
	Core
	leaf LeafSet
}

func (s *fullState) Leaves() ([]Peer, []Peer, bool) {
	return s.leaf.Left(), s.leaf.Right(), len(s.leaf.Left()) == s.leaf.h && len(s.leaf.Right()) == s.leaf.h
}

// completeStates returns, for every node, a joined state that knows every
// node (leaf sets of h per side).
func completeStates(ids []ID, ring *Ring, h int) []*fullState {
	states := make([]*fullState, len(ids))
	for i := range states {
		s := &fullState{Core: NewCore(timedsim.NodeID(i), ids, Params{}), leaf: NewLeafSet(ring.Peer(timedsim.NodeID(i)), h)}
		s.IsJoined = true
		for j := range ids {
			if j != i {
				s.Table.Add(ring.Peer(timedsim.NodeID(j)))
				s.leaf.Add(ring.Peer(timedsim.NodeID(j)))
			}
		}
		states[i] = s
	}
	return states
}

// TestRouting: with complete state, a route from any node to any key ends
// at the key's numerically closest node within ⌈log16 n⌉+1 hops, and the
// stopping condition holds; a node that forgets its successor breaks it.
func TestRouting(t *testing.T) {
	for _, n := range []int{1, 2, 5, 40, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ids := NodeIDs(n, 3)
			ring := NewRing(ids, 1)
			states := completeStates(ids, ring, 4)
			get := func(id timedsim.NodeID) State { return states[id] }
			if !ring.Stable(get) {
				t.Fatal("complete state is not stable")
			}
			rng := rand.New(rand.NewPCG(5, 6))
			for range 2000 {
				key := ID(rng.Uint32())
				owner := timedsim.NodeID(0)
				for id := range timedsim.NodeID(n) {
					if closer(ids[id], ids[owner], key) {
						owner = id
					}
				}
				from := timedsim.NodeID(rng.IntN(n))
				if end, hops := ring.Route(get, from, key, 10); end != owner || hops > ring.MaxHops {
					t.Fatalf("route %v → %v ends at %v after %d hops, owner %v", from, key, end, hops, owner)
				}
			}
			if n < 3 {
				return
			}
			// Forget node 0's successor: node 0 no longer knows its
			// neighbours.
			s := states[0]
			s.leaf = NewLeafSet(s.Me, 4)
			for j := 1; j < n; j++ {
				if p := ring.Peer(timedsim.NodeID(j)); p.Node != ring.Succ(0) {
					s.leaf.Add(p)
				}
			}
			if ring.Stable(get) {
				t.Fatal("stable without node 0's successor")
			}
		})
	}
}

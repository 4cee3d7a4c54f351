package dht

import (
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// State is what routing and the stopping condition read of a node: its own
// peer, whether it has joined, its leaf set's two sides (nearest first),
// whether a side is full (H members: otherwise the node believes it knows
// the whole ring), its routing table, and a version that changes whenever
// any of these does.
type State interface {
	Self() Peer
	Joined() bool
	Leaves() (left, right []Peer, full bool)
	RoutingTable() *Table
	Version() uint64
}

// NextHop is Pastry's routing step at a node with state s for key:
//
//  1. If the key is within the leaf set's range (or the node believes it
//     knows the whole ring), the member or the node itself numerically
//     closest to the key.
//  2. Otherwise the routing table entry that shares one more digit with
//     the key than the node does.
//  3. Otherwise (the rare case) any known node that shares at least as
//     many digits with the key and is numerically closer to it.
//
// It returns s.Self() when the node is the destination.
func NextHop(s State, key ID) Peer {
	self := s.Self()
	if key == self.ID {
		return self
	}
	left, right, full := s.Leaves()
	if !full || inRange(self.ID, left, right, key) {
		best := self
		for _, side := range [2][]Peer{left, right} {
			for _, p := range side {
				if closer(p.ID, best.ID, key) {
					best = p
				}
			}
		}
		return best
	}
	t := s.RoutingTable()
	r := SharedPrefix(self.ID, key)
	if p, ok := t.Entry(r, Digit(key, r)); ok {
		return p
	}
	best := self
	consider := func(p Peer) {
		if SharedPrefix(p.ID, key) >= r && closer(p.ID, best.ID, key) {
			best = p
		}
	}
	for _, side := range [2][]Peer{left, right} {
		for _, p := range side {
			consider(p)
		}
	}
	for row := r; row < Digits; row++ {
		for c := range Base {
			if p, ok := t.Entry(row, c); ok {
				consider(p)
			}
		}
	}
	return best
}

// inRange reports whether key lies between the farthest left and the
// farthest right member (the arc through the owner).
func inRange(self ID, left, right []Peer, key ID) bool {
	if len(left) == 0 || len(right) == 0 {
		return false
	}
	l, r := left[len(left)-1].ID, right[len(right)-1].ID
	return CW(l, key) <= CW(l, r)
}

// Ring is the true ring of a scenario: every node's identifier, its
// immediate neighbours, and the hop bound of the routing check.
type Ring struct {
	ids        []ID
	pred, succ []timedsim.NodeID
	// MaxHops bounds the hops of every route in RoutesWithin.
	MaxHops int
}

// NewRing returns the ring of the given identifiers with the hop bound
// ⌈log_{2^B} n⌉ + slack (at least 1).
func NewRing(ids []ID, slack int) *Ring {
	n := len(ids)
	order := make([]timedsim.NodeID, n)
	for i := range order {
		order[i] = timedsim.NodeID(i)
	}
	slices.SortFunc(order, func(a, b timedsim.NodeID) int {
		switch {
		case ids[a] < ids[b]:
			return -1
		case ids[a] > ids[b]:
			return 1
		}
		return 0
	})
	r := &Ring{ids: slices.Clone(ids), pred: make([]timedsim.NodeID, n), succ: make([]timedsim.NodeID, n)}
	for i, id := range order {
		r.pred[id] = order[(i+n-1)%n]
		r.succ[id] = order[(i+1)%n]
	}
	hops := 0
	for k := 1; k < n; k *= Base {
		hops++
	}
	r.MaxHops = max(1, hops+slack)
	return r
}

// ID is node id's identifier.
func (r *Ring) ID(id timedsim.NodeID) ID { return r.ids[id] }

// Peer is node id as a Peer.
func (r *Ring) Peer(id timedsim.NodeID) Peer { return Peer{Node: id, ID: r.ids[id]} }

// Pred and Succ are node id's true immediate neighbours.
func (r *Ring) Pred(id timedsim.NodeID) timedsim.NodeID { return r.pred[id] }

// Succ is node id's true clockwise neighbour.
func (r *Ring) Succ(id timedsim.NodeID) timedsim.NodeID { return r.succ[id] }

// KnowsNeighbours reports whether node s is joined and the nearest member
// of its leaf set counterclockwise is its true predecessor and the nearest
// clockwise its true successor (whatever side they are stored on).
func (r *Ring) KnowsNeighbours(s State) bool {
	if !s.Joined() {
		return false
	}
	self := s.Self()
	if len(r.ids) == 1 {
		return true
	}
	left, right, _ := s.Leaves()
	pred, succ := self, self
	for _, side := range [2][]Peer{left, right} {
		for _, p := range side {
			if pred == self || CW(p.ID, self.ID) < CW(pred.ID, self.ID) {
				pred = p
			}
			if succ == self || CW(self.ID, p.ID) < CW(self.ID, succ.ID) {
				succ = p
			}
		}
	}
	return pred.Node == r.pred[self.Node] && succ.Node == r.succ[self.Node]
}

// Route follows NextHop from node from toward key through the states
// given by get and returns the node where the route ends (the first node
// that is its own next hop) and the number of hops; it gives up after
// limit hops (returning hops > limit). A next hop that is not one of the
// nodes ends the route there.
func (r *Ring) Route(get func(timedsim.NodeID) State, from timedsim.NodeID, key ID, limit int) (end timedsim.NodeID, hops int) {
	cur := from
	for {
		next := NextHop(get(cur), key)
		if next.Node == cur {
			return cur, hops
		}
		hops++
		if hops > limit || next.Node < 0 || int(next.Node) >= len(r.ids) || r.ids[next.Node] != next.ID {
			return next.Node, hops
		}
		cur = next.Node
	}
}

// RoutesWithin reports whether, for every ordered pair of nodes (a, b),
// the route from a toward b's identifier ends at b within MaxHops hops.
func (r *Ring) RoutesWithin(get func(timedsim.NodeID) State) bool {
	n := len(r.ids)
	for a := range timedsim.NodeID(n) {
		for b := range timedsim.NodeID(n) {
			if a == b {
				continue
			}
			if end, hops := r.Route(get, a, r.ids[b], r.MaxHops); end != b || hops > r.MaxHops {
				return false
			}
		}
	}
	return true
}

// Stable is the Pastry stopping condition of the MacePC paper (§5.2):
// every node knows its immediate neighbours, and every pair of nodes routes
// within MaxHops hops (⌈log_{2^B} n⌉ plus slack). The neighbour check is
// O(n); the routing check O(n² · MaxHops · H) and runs only when the first
// passes.
func (r *Ring) Stable(get func(timedsim.NodeID) State) bool {
	for id := range timedsim.NodeID(len(r.ids)) {
		if !r.KnowsNeighbours(get(id)) {
			return false
		}
	}
	return r.RoutesWithin(get)
}

// NewStable returns a stopping condition equal to Stable that keeps hints
// between calls (timedsim.Scenario.NewStop): the node whose neighbour check
// last failed, checked first (O(1) while it still fails), and the states
// (identity and Version) for which the routing check last failed, so that
// it is not repeated until some node's state changes.
func (r *Ring) NewStable(get func(w timedsim.World, id timedsim.NodeID) State) func(timedsim.World) bool {
	n := len(r.ids)
	hint := 0
	var failed []State // states at the last failed routing check
	var versions []uint64
	return func(w timedsim.World) bool {
		at := func(id timedsim.NodeID) State { return get(w, id) }
		if hint >= n {
			hint = 0
		}
		for i := range n {
			id := timedsim.NodeID((hint + i) % n)
			if !r.KnowsNeighbours(at(id)) {
				hint = int(id)
				return false
			}
		}
		if failed != nil {
			same := true
			for id := range timedsim.NodeID(n) {
				s := at(id)
				if s != failed[id] || s.Version() != versions[id] {
					same = false
					break
				}
			}
			if same {
				return false
			}
		}
		if r.RoutesWithin(at) {
			failed = nil
			return true
		}
		failed, versions = failed[:0], versions[:0]
		for id := range timedsim.NodeID(n) {
			s := at(id)
			failed = append(failed, s)
			versions = append(versions, s.Version())
		}
		return false
	}
}

package dht

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/macepc/macepc/timedsim"
)

// ID is a position in Pastry's circular identifier space [0, 2^32).
type ID uint32

// B is the number of bits of a routing digit (Pastry's b): identifiers are
// read as Digits base-2^B digits, most significant first.
const (
	B      = 4
	Base   = 1 << B
	Digits = 32 / B
)

// String renders an id as 8 hex digits, one per routing digit.
func (id ID) String() string { return fmt.Sprintf("%08x", uint32(id)) }

// Digit is digit i (0 is the most significant) of id.
func Digit(id ID, i int) int { return int(id>>(32-B*(i+1))) & (Base - 1) }

// SharedPrefix is the number of leading digits a and b have in common
// (Digits if a == b).
func SharedPrefix(a, b ID) int {
	if a == b {
		return Digits
	}
	return bits.LeadingZeros32(uint32(a^b)) / B
}

// CW is the clockwise distance from a to b: b − a mod 2^32.
func CW(a, b ID) uint32 { return uint32(b - a) }

// Dist is the circular (numerical) distance between a and b.
func Dist(a, b ID) uint32 { return min(uint32(b-a), uint32(a-b)) }

// closer reports whether a is numerically closer to key than b, ties going
// to the lower id, so that "closest" is a total order.
func closer(a, b, key ID) bool {
	da, db := Dist(a, key), Dist(b, key)
	return da < db || (da == db && a < b)
}

// Peer is a node as the protocol knows it: its simulator address and its
// identifier.
type Peer struct {
	Node timedsim.NodeID
	ID   ID
}

// String renders a peer as "n3:0a1b2c3d".
func (p Peer) String() string { return p.Node.String() + ":" + p.ID.String() }

// PeerSize is the wire size of a Peer: an IPv4 address and port (Mace's
// MaceKey) and a 4-byte identifier.
const PeerSize = 10

// NodeIDs assigns the identifiers of n nodes: node i gets a splitmix64
// hash of (salt, i), redrawn on the (rare) collision, so identifiers are
// uniform on the ring, distinct, and a pure function of n and salt.
func NodeIDs(n int, salt uint64) []ID {
	ids := make([]ID, n)
	seen := make(map[ID]bool, n)
	for i := range ids {
		for k := uint64(0); ; k++ {
			id := ID(splitmix(salt ^ splitmix(uint64(i)<<20|k)))
			if !seen[id] {
				seen[id], ids[i] = true, id
				break
			}
		}
	}
	return ids
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Table is Pastry's routing table: row r holds, for each digit value c, a
// node whose identifier shares r leading digits with the owner's and has c
// as digit r (column Digit(self, r) stays empty). The first node learned
// for a slot keeps it (the simulator has no proximity metric to prefer
// another).
type Table struct {
	self ID
	rows [Digits][Base]Peer
	has  [Digits][Base]bool
	n    int
}

// NewTable returns the empty routing table of the node with identifier
// self.
func NewTable(self ID) Table { return Table{self: self} }

// Add inserts p into its slot if the slot is empty; it reports whether the
// table changed.
func (t *Table) Add(p Peer) bool {
	if p.ID == t.self {
		return false
	}
	r := SharedPrefix(t.self, p.ID)
	c := Digit(p.ID, r)
	if t.has[r][c] {
		return false
	}
	t.rows[r][c], t.has[r][c] = p, true
	t.n++
	return true
}

// Entry is the peer in row r, column c, if any.
func (t *Table) Entry(r, c int) (Peer, bool) { return t.rows[r][c], t.has[r][c] }

// Row returns the peers of row r in column order.
func (t *Table) Row(r int) []Peer {
	var out []Peer
	for c := range Base {
		if t.has[r][c] {
			out = append(out, t.rows[r][c])
		}
	}
	return out
}

// Len is the number of entries.
func (t *Table) Len() int { return t.n }

// Peers returns every entry, row by row.
func (t *Table) Peers() []Peer {
	out := make([]Peer, 0, t.n)
	for r := range Digits {
		out = append(out, t.Row(r)...)
	}
	return out
}

// String renders the non-empty rows, e.g. "0:[n3:1… n9:f…] 1:[…]".
func (t *Table) String() string {
	var b strings.Builder
	for r := range Digits {
		row := t.Row(r)
		if len(row) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%v", r, row)
	}
	return b.String()
}

// LeafSet is Pastry's leaf set: the H nodes nearest to the owner
// counterclockwise (Left, nearest first) and clockwise (Right, nearest
// first) among the nodes it has learned. While fewer than H nodes are known
// on a side, every known node is on both sides, which means the owner
// believes it knows the whole ring.
type LeafSet struct {
	self        Peer
	h           int
	left, right []Peer
}

// NewLeafSet returns the empty leaf set of self with H = h nodes per side.
// It panics if h < 1.
func NewLeafSet(self Peer, h int) LeafSet {
	if h < 1 {
		panic(fmt.Sprintf("dht: leaf set half size %d < 1", h))
	}
	return LeafSet{self: self, h: h}
}

// Left returns the counterclockwise side, nearest first (shared; do not
// modify).
func (l *LeafSet) Left() []Peer { return l.left }

// Right returns the clockwise side, nearest first (shared; do not modify).
func (l *LeafSet) Right() []Peer { return l.right }

// Contains reports whether p's node is in the leaf set.
func (l *LeafSet) Contains(n timedsim.NodeID) bool {
	return slices.ContainsFunc(l.left, func(q Peer) bool { return q.Node == n }) ||
		slices.ContainsFunc(l.right, func(q Peer) bool { return q.Node == n })
}

// Members returns the distinct members, left side first (nearest first),
// then the right side's members not on the left.
func (l *LeafSet) Members() []Peer {
	out := slices.Clone(l.left)
	for _, p := range l.right {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Add learns p. It reports whether p entered the leaf set and returns the
// members that p pushed out of it (off both sides). Adding the owner or a
// member is a no-op.
func (l *LeafSet) Add(p Peer) (added bool, evicted []Peer) {
	if p.ID == l.self.ID || l.Contains(p.Node) {
		return false, nil
	}
	var outL, outR Peer
	var okL, okR bool
	l.left, outL, okL, added = insertSide(l.left, p, l.h, func(q Peer) uint32 { return CW(q.ID, l.self.ID) })
	var addedR bool
	l.right, outR, okR, addedR = insertSide(l.right, p, l.h, func(q Peer) uint32 { return CW(l.self.ID, q.ID) })
	added = added || addedR
	for _, o := range []struct {
		p  Peer
		ok bool
	}{{outL, okL}, {outR, okR}} {
		if o.ok && !l.Contains(o.p.Node) && !slices.Contains(evicted, o.p) {
			evicted = append(evicted, o.p)
		}
	}
	return added, evicted
}

// insertSide inserts p into side (sorted by dist, at most h long) if it is
// among the h nearest; it returns the side, the member pushed out (if
// any) and whether p went in.
func insertSide(side []Peer, p Peer, h int, dist func(Peer) uint32) ([]Peer, Peer, bool, bool) {
	d := dist(p)
	i, _ := slices.BinarySearchFunc(side, d, func(q Peer, d uint32) int {
		switch dq := dist(q); {
		case dq < d:
			return -1
		case dq > d:
			return 1
		}
		return 0
	})
	if i >= h {
		return side, Peer{}, false, false
	}
	side = slices.Insert(side, i, p)
	if len(side) > h {
		out := side[h]
		return side[:h], out, true, true
	}
	return side, Peer{}, false, true
}

// String renders both sides, e.g. "left=[n2:… n7:…] right=[n5:…]".
func (l *LeafSet) String() string { return fmt.Sprintf("left=%v right=%v", l.left, l.right) }

// RandomEntry picks a non-empty row uniformly, then an entry of it
// uniformly, with rng (the routing-table maintenance's choice of whom to
// ask for a row); ok is false when the table is empty.
func (t *Table) RandomEntry(intn func(int) int) (row int, p Peer, ok bool) {
	var rows []int
	for r := range Digits {
		if len(t.Row(r)) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return 0, Peer{}, false
	}
	row = rows[intn(len(rows))]
	entries := t.Row(row)
	return row, entries[intn(len(entries))], true
}

// Clone is a deep copy of the leaf set.
func (l LeafSet) Clone() LeafSet {
	l.left, l.right = slices.Clone(l.left), slices.Clone(l.right)
	return l
}

package netmodel

import "math/bits"

// flowIndex maps (transport, src, dst) to a flow's index in Network.flows.
// Looking a flow up is on the path of every Send and QueueLen, and the
// map it used to be was the network model's largest cost in heavy
// workloads (Bullet′: 100 nodes, two transports, a queue check before
// every block). When every possible key fits in maxDenseFlows entries the
// index is a dense table instead, indexed by (t·nodes + src)·nodes + dst.
// Larger networks (thousands of nodes) use an open-addressing hash table
// of the keys in use: a Go map there cost a tenth of a Chord-like
// lookup workload's time (hashing, control-word matching) where the
// flat table is one multiply and, almost always, one probe. All give the
// same flows, so the choice never changes an execution.
type flowIndex struct {
	nodes int
	dense []int32 // flow index + 1; 0: no flow. nil: use sparse
	// sparse holds key(t, src, dst) → flow index for large networks.
	sparse flowTable
}

// maxDenseFlows bounds the dense table: 1<<20 entries are 4 MB per
// Network (one per worker); 100 nodes with two transports need 20,000.
const maxDenseFlows = 1 << 20

func newFlowIndex(transports, nodes int) flowIndex {
	if transports*nodes*nodes <= maxDenseFlows {
		return flowIndex{nodes: nodes, dense: make([]int32, transports*nodes*nodes)}
	}
	return flowIndex{nodes: nodes}
}

func (x *flowIndex) get(t, src, dst int) (int32, bool) {
	if x.dense != nil {
		v := x.dense[(t*x.nodes+src)*x.nodes+dst]
		return v - 1, v != 0
	}
	return x.sparse.get(key(t, src, dst))
}

func (x *flowIndex) set(t, src, dst int, fi int32) {
	if x.dense != nil {
		x.dense[(t*x.nodes+src)*x.nodes+dst] = fi + 1
		return
	}
	x.sparse.set(key(t, src, dst), fi)
}

// reset forgets every flow in flows, the flows it indexes: O(len(flows))
// for the dense table, not O(its size).
func (x *flowIndex) reset(flows []flow) {
	if x.dense == nil {
		x.sparse.reset()
		return
	}
	for i := range flows {
		f := &flows[i]
		x.dense[(int(f.transport)*x.nodes+int(f.src))*x.nodes+int(f.dst)] = 0
	}
}

// flowTable is an open-addressing hash table from a flow key to a flow
// index, with linear probing, a power-of-two size and at most half its
// slots used. Keys are only ever added (flows are never deleted before
// Reset), so there are no tombstones.
type flowTable struct {
	slots []flowSlot
	used  int
	shift uint8 // 64 − log2(len(slots))
}

type flowSlot struct {
	key uint64
	val int32 // flow index + 1; 0: empty
}

func (t *flowTable) home(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> t.shift) // Fibonacci hashing
}

func (t *flowTable) get(k uint64) (int32, bool) {
	if t.used == 0 {
		return -1, false
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.val == 0 {
			return -1, false
		}
		if s.key == k {
			return s.val - 1, true
		}
	}
}

// set adds k → fi, or replaces k's value.
func (t *flowTable) set(k uint64, fi int32) {
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.val == 0 {
			s.key, s.val = k, fi+1
			t.used++
			return
		}
		if s.key == k {
			s.val = fi + 1
			return
		}
	}
}

func (t *flowTable) grow() {
	old := t.slots
	n := max(2*len(old), 1024)
	t.slots = make([]flowSlot, n)
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	t.used = 0
	for _, s := range old {
		if s.val != 0 {
			t.set(s.key, s.val-1)
		}
	}
}

// reset empties the table, keeping its memory: O(its size), which is at
// most four times the flows of the largest execution it held.
func (t *flowTable) reset() {
	if t.used > 0 {
		clear(t.slots)
		t.used = 0
	}
}

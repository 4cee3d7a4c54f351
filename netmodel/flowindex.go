package netmodel

// flowIndex maps (transport, src, dst) to a flow's index in Network.flows.
// Looking a flow up is on the path of every Send and QueueLen, and the
// map it used to be was the network model's largest cost in heavy
// workloads (Bullet′: 100 nodes, two transports, a queue check before
// every block). When every possible key fits in maxDenseFlows entries the
// index is a dense table instead, indexed by (t·nodes + src)·nodes + dst;
// larger networks (thousands of nodes) keep the map. Both give the same
// flows, so the choice never changes an execution.
type flowIndex struct {
	nodes int
	dense []int32 // flow index + 1; 0: no flow. nil: use sparse
	// sparse is key(t, src, dst) → flow index.
	sparse map[uint64]int32
}

// maxDenseFlows bounds the dense table: 1<<20 entries are 4 MB per
// Network (one per worker); 100 nodes with two transports need 20,000.
const maxDenseFlows = 1 << 20

func newFlowIndex(transports, nodes int) flowIndex {
	if transports*nodes*nodes <= maxDenseFlows {
		return flowIndex{nodes: nodes, dense: make([]int32, transports*nodes*nodes)}
	}
	return flowIndex{nodes: nodes, sparse: make(map[uint64]int32)}
}

func (x *flowIndex) get(t, src, dst int) (int32, bool) {
	if x.dense != nil {
		v := x.dense[(t*x.nodes+src)*x.nodes+dst]
		return v - 1, v != 0
	}
	fi, ok := x.sparse[key(t, src, dst)]
	return fi, ok
}

func (x *flowIndex) set(t, src, dst int, fi int32) {
	if x.dense != nil {
		x.dense[(t*x.nodes+src)*x.nodes+dst] = fi + 1
		return
	}
	x.sparse[key(t, src, dst)] = fi
}

// reset forgets every flow in flows, the flows it indexes: O(len(flows))
// for the dense table, not O(its size).
func (x *flowIndex) reset(flows []flow) {
	if x.dense == nil {
		clear(x.sparse)
		return
	}
	for i := range flows {
		f := &flows[i]
		x.dense[(int(f.transport)*x.nodes+int(f.src))*x.nodes+int(f.dst)] = 0
	}
}

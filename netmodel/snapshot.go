package netmodel

// CopyFrom makes n's state (connections, queued transmissions, send queues,
// the partition, LastSend) a copy of src's, so that the two continue
// independently from the same point: the simulator's snapshots fork
// executions this way instead of replaying their prefix. n and src must
// have been made by New with the same configuration and number of nodes
// (it panics otherwise: a caller bug). n keeps its own memory where it
// can; nothing of src's is shared afterwards. Tickets issued by src before
// the copy are valid on n.
func (n *Network) CopyFrom(src *Network) {
	if n == src {
		return
	}
	if len(n.nodes) != len(src.nodes) || len(n.trans) != len(src.trans) {
		panic("netmodel: CopyFrom a network of another shape")
	}
	n.index.reset(n.flows)
	n.clearQueues()
	// Grow n.flows to src's length.
	for len(n.flows) < len(src.flows) {
		if len(n.flows) < cap(n.flows) {
			n.flows = n.flows[:len(n.flows)+1]
		} else {
			n.flows = append(n.flows, flow{})
		}
	}
	n.flows = n.flows[:len(src.flows)]
	copy(n.flows, src.flows)
	for i := range src.flows {
		s := &src.flows[i]
		n.index.set(int(s.transport), int(s.src), int(s.dst), int32(i))
		if s.flags&flagMulti != 0 { // the transmissions not known to be finished
			for i >= len(n.queues) {
				n.queues = append(n.queues, txQueue{})
			}
			sq := &src.queues[i]
			n.queues[i].tx = append(n.queues[i].tx[:0], sq.tx[sq.head:]...)
			n.queues[i].head = 0
		}
	}
	for i := range src.nodes {
		d, s := &n.nodes[i], &src.nodes[i]
		d.out = append(d.out[:0], s.out...)
		d.active = append(d.active[:0], s.active...)
		d.latency, d.bandwidth = s.latency, s.bandwidth
	}
	copy(n.groups, src.groups)
	n.last = src.last
}

// Clone returns a new Network in src's state (CopyFrom into a copy of
// src's empty network). The configuration and the link overrides, which
// never change after New, are shared.
func (src *Network) Clone() *Network {
	n := &Network{cfg: src.cfg, trans: src.trans, heavy: src.heavy, shape: src.shape, links: src.links,
		nodes: make([]nodeState, len(src.nodes)), groups: make([]int32, len(src.nodes)),
		index: newFlowIndex(len(src.trans), len(src.nodes))}
	n.CopyFrom(src)
	return n
}

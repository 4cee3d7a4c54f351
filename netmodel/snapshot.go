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
	// Grow n.flows to src's length, keeping the tx buffers of n's flows.
	for len(n.flows) < len(src.flows) {
		if len(n.flows) < cap(n.flows) {
			n.flows = n.flows[:len(n.flows)+1]
		} else {
			n.flows = append(n.flows, flow{})
		}
	}
	n.flows = n.flows[:len(src.flows)]
	for i := range src.flows {
		d, s := &n.flows[i], &src.flows[i]
		tx := append(d.tx[:0], s.tx[s.head:]...) // the transmissions not known to be finished
		*d = *s
		d.tx, d.head = tx, 0
		n.index.set(int(s.transport), int(s.src), int(s.dst), int32(i))
	}
	for i := range src.nodes {
		d, s := &n.nodes[i], &src.nodes[i]
		d.out = append(d.out[:0], s.out...)
		d.active = append(d.active[:0], s.active...)
		d.group = s.group
		d.latency, d.bandwidth = s.latency, s.bandwidth
	}
	n.last = src.last
}

// Clone returns a new Network in src's state (CopyFrom into a copy of
// src's empty network). The configuration and the link overrides, which
// never change after New, are shared.
func (src *Network) Clone() *Network {
	n := &Network{cfg: src.cfg, trans: src.trans, heavy: src.heavy, shape: src.shape, links: src.links,
		nodes: make([]nodeState, len(src.nodes)), index: newFlowIndex(len(src.trans), len(src.nodes))}
	n.CopyFrom(src)
	return n
}

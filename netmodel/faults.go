package netmodel

import (
	"cmp"
	"fmt"
	"slices"
)

// ResetNode breaks every reliable connection of node (both directions, all
// transports): messages in flight on them are lost and their queues are
// emptied. It returns the peers that had a connection with node, sorted
// ascending and without duplicates, so the simulator can give them error
// upcalls; node itself is not listed even if it had a connection to
// itself (which is broken too). Datagrams are connectionless and not
// affected.
func (n *Network) ResetNode(node int) []int {
	conns := n.ResetNodeConns(node)
	var peers []int
	for _, c := range conns {
		if len(peers) == 0 || peers[len(peers)-1] != c.B {
			peers = append(peers, c.B)
		}
	}
	return peers
}

// ResetNodeConns is ResetNode returning each broken connection with its
// transport: A is node, B the peer; sorted by peer, then transport.
// Self-connections are broken but not listed.
func (n *Network) ResetNodeConns(node int) []Conn {
	n.checkNode(node)
	var conns []Conn
	for _, fi := range n.nodes[node].out {
		f := &n.flows[fi]
		if !f.open() {
			continue
		}
		if peer := int(f.dst); peer != node {
			conns = append(conns, Conn{Transport: int(f.transport), A: node, B: peer})
		}
		n.breakConn(fi)
	}
	slices.SortFunc(conns, compareConn)
	return conns
}

// Break breaks the reliable connections between a and b on every
// transport, losing the messages in flight on them. It reports whether
// any existed.
func (n *Network) Break(a, b int) bool { return len(n.BreakConns(a, b)) > 0 }

// BreakConns is Break returning the broken connections (A = a, B = b),
// in transport order.
func (n *Network) BreakConns(a, b int) []Conn {
	n.checkNode(a)
	n.checkNode(b)
	var conns []Conn
	for t, tr := range n.trans {
		if !tr.reliable {
			continue
		}
		if fi, ok := n.index.get(t, a, b); ok && n.flows[fi].open() {
			n.breakConn(fi)
			conns = append(conns, Conn{Transport: t, A: a, B: b})
		}
	}
	return conns
}

// SetPartition splits the nodes into groups: the nodes of groups[i] form
// group i+1, and all nodes not listed form group 0 together. Messages only
// pass within a group: a reliable Send to another group returns
// Unreachable, a datagram is Dropped. Reliable connections that cross
// groups break at once (their messages in flight are lost), and datagrams
// in flight across groups are lost on delivery. A new partition replaces
// the previous one. It returns an error, and changes nothing, if a node is
// out of range or listed twice.
func (n *Network) SetPartition(groups [][]int) error {
	_, err := n.PartitionConns(groups)
	return err
}

// PartitionConns is SetPartition returning the connections it broke, with
// A < B (or A == B), sorted by A, B, then transport.
func (n *Network) PartitionConns(groups [][]int) ([]Conn, error) {
	g := make([]int32, len(n.nodes))
	for i, grp := range groups {
		for _, v := range grp {
			if v < 0 || v >= len(n.nodes) {
				return nil, fmt.Errorf("netmodel: partition group %d: node %d out of range [0,%d)", i, v, len(n.nodes))
			}
			if g[v] != 0 {
				return nil, fmt.Errorf("netmodel: partition: node %d in groups %d and %d", v, g[v]-1, i)
			}
			g[v] = int32(i + 1)
		}
	}
	for i := range n.nodes {
		n.groups[i] = g[i]
	}
	var conns []Conn
	for fi := range n.flows {
		f := &n.flows[fi]
		if !f.reliable() || !f.open() || g[f.src] == g[f.dst] {
			continue
		}
		a, b := int(f.src), int(f.dst)
		if a > b {
			a, b = b, a
		}
		conns = append(conns, Conn{Transport: int(f.transport), A: a, B: b})
		n.breakConn(int32(fi))
	}
	slices.SortFunc(conns, compareConn)
	return conns, nil
}

// Heal ends the partition: every node can reach every other again.
// Connections broken by the partition stay broken until the next send.
func (n *Network) Heal() {
	clear(n.groups)
}

// Reachable reports whether a message from a can reach b under the
// current partition.
func (n *Network) Reachable(a, b int) bool {
	n.checkNode(a)
	n.checkNode(b)
	return n.groups[a] == n.groups[b]
}

func compareConn(x, y Conn) int {
	if c := cmp.Compare(x.A, y.A); c != 0 {
		return c
	}
	if c := cmp.Compare(x.B, y.B); c != 0 {
		return c
	}
	return cmp.Compare(x.Transport, y.Transport)
}

// Package netmodel decides, for each message a simulated node sends, when
// it arrives or why the send fails. It re-creates the network model of
// MacePC (paper 004, §4 "Scalable Network Simulation") with the numbers of
// the Mace source, and adds the transports and faults the timed simulator
// needs: a TCP-like reliable transport with a bounded send queue, a
// UDP-like datagram transport, node resets, connection breaks and
// partitions.
//
// A Network holds the network state of one simulated execution. The
// simulator (package timedsim) owns it, calls Send when a handler sends a
// message and Delivered when the message's arrival event runs.
//
// # The model
//
// A flow is one direction src→dst of one transport; a reliable connection
// is the pair of flows a→b and b→a. The delay of a message of size bytes
// sent at now on flow f is transmission plus propagation/queueing:
//
//	transmission = size·8 bit / (bandwidth_f / heavy)
//	txStart      = max(now, txEnd of f's previous message)
//	txEnd        = txStart + transmission
//	propagation  = min(Pareto(α, xm = latency_f), 60s·(size/1500+1))
//	arrive       = txEnd + propagation                    (reliable: then max with f's last arrival)
//	arrive       = txEnd + propagation + U[0, ReorderWindow)  (datagram)
//
// heavy is the number of the sender's flows, over all transports and
// destinations, that have more than HeavyFlowBytes queued at now (bytes of
// messages whose transmission has not ended), counting f with the new
// message included, and at least 1. Light flows are not counted, so
// control traffic does not slow down bulk flows and a lone small message
// gets the full bandwidth; a small message sent while heavy flows are
// active shares the bandwidth with them. Transmissions on one flow are
// serialised. This is the paper's first-hop-bottleneck model: "if the
// bandwidth is configured at 8000 Kbps, and there are two simultaneous
// flows, the transmission delay for a message corresponds to the time it
// takes to send the message over a 4000 Kbps link" and "this threshold is
// set to 300 bytes".
//
// Defaults: bandwidth 8000 kbit/s (1500 bytes take 1.5 ms), latency 1 ms,
// Pareto shape α = 3 (mean delay α·xm/(α−1) = 1.5 ms, finite variance),
// heavy-flow threshold 300 bytes, reliable send queue 20 messages, cap of
// the Pareto draw 60 s·(size/1500+1) with integer division. The paper
// gives 8000 kbit/s, 1 ms and 300 bytes; the Pareto shape, the cap and the
// queue of 20 are the Mace source's, as recorded in DESIGN.md §5. The
// paper describes a fixed propagation
// delay plus a Pareto queueing delay; as in Mace, the latency here is the
// Pareto scale xm, which is also the minimum delay, so one draw models
// both. Latency and bandwidth can be overridden per directed link
// (LinkOverride, Symmetric) and per sending node (NodeOverride: a node's
// uplink); a link override wins over a node override, field by field.
//
// Reliable transports (TCP-like): per flow, messages arrive in send order
// (arrive = max(computed, last arrival)). A connection's send queue holds
// at most QueueCap messages sent and not yet delivered, per direction;
// a Send beyond it returns QueueFull and changes nothing. A connection
// exists once either end sent to the other; it has an epoch, and breaking
// it (ResetNode, Break, SetPartition) starts a new epoch, empties its
// queues and transmissions, and loses every message in flight: Delivered
// returns false for their tickets.
//
// Datagram transports (UDP-like): no FIFO clamp (the Pareto jitter alone
// can reorder datagrams; ReorderWindow adds more), loss with DropProb,
// never QueueFull. A lost datagram still occupies the sender's uplink
// (it is lost in the network, after transmission). Datagrams have no
// connections, so resets and Break do not affect them.
//
// Partitions: SetPartition puts the nodes of groups[i] in group i+1 and
// every node not listed in group 0 (together). Across groups a reliable
// Send returns Unreachable and a datagram is Dropped. Connections that
// cross groups break when the partition is set, not at the next send,
// so that messages in flight across the new partition are lost rather
// than delivered; datagrams in flight across it are lost on delivery.
// Heal removes the partition.
//
// A node may send to itself; the same formulas apply (a message to self
// takes a transmission time and a Pareto delay like any other).
//
// # Usage
//
// One Network per worker, Reset between executions:
//
//	net, err := netmodel.New(scenario.Network, nodes) // Config{} = one reliable "tcp"
//	if err != nil { ... }
//	tcp, _ := net.TransportIndex("tcp")
//
// When the handler of node src, running at simulated time now with the
// step's random source r, sends msg to dst:
//
//	arrive, tk, st := net.Send(now, tcp, src, dst, msg.Size(), r)
//	switch st {
//	case netmodel.Sent: // schedule the delivery event at arrive, keeping tk
//	case netmodel.QueueFull, netmodel.Unreachable: // error upcall at src
//	case netmodel.Dropped: // a lost datagram: nothing happens
//	}
//
// When the delivery event runs:
//
//	if net.Delivered(tk) { /* run dst's Deliver handler */ } // else the message was lost
//
// Faults (driven by the execution's randomness or the scenario):
//
//	for _, c := range net.ResetNodeConns(v) { /* error upcall at c.B on transport c.Transport */ }
//	net.BreakConns(a, b)        // both a and b get upcalls
//	net.PartitionConns(groups)  // likewise for every broken connection
//	net.Heal()
//
// and before the next execution: net.Reset().
//
// Send and Delivered do not allocate once the connections of an execution
// exist (they are the simulator's hot path); faults and configuration may.
//
// # Determinism
//
// A Network is a pure function of its configuration and the sequence of
// calls made on it, including the values the passed *rand.Rand returns.
// It reads no clock, keeps no package-level state, and never lets map
// iteration order decide anything (maps are only used for lookups; lists
// that are iterated are slices whose order depends only on the call
// sequence; returned lists are sorted). Send draws from r in the fixed
// order documented on Send and only what it needs, so replaying the same
// calls with the same seeds yields identical arrivals, statuses and
// tickets, and Reset gives the same results as a fresh Network.
// Floating-point formulas avoid multiply-add chains, but bit-identical
// results are only promised on one architecture (math.Pow may differ).
//
// For each sender, the times passed to Send must not decrease (the
// simulator's per-node clocks guarantee it): transmissions that ended
// before now are forgotten lazily.
package netmodel

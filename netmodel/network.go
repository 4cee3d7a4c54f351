package netmodel

import (
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/macepc/macepc/internal/simtime"
)

// Status is the fate of a Send.
type Status int

const (
	// Sent: the message is on its way and arrives at the returned time,
	// unless its connection breaks first (see Network.Delivered).
	Sent Status = iota
	// QueueFull: the reliable connection already holds QueueCap messages
	// that were sent and not yet delivered. Nothing changed.
	QueueFull
	// Dropped: a datagram was lost (random loss or a partition).
	Dropped
	// Unreachable: a reliable send across a partition.
	Unreachable
)

// String returns "sent", "queue-full", "dropped" or "unreachable".
func (s Status) String() string {
	switch s {
	case Sent:
		return "sent"
	case QueueFull:
		return "queue-full"
	case Dropped:
		return "dropped"
	case Unreachable:
		return "unreachable"
	}
	return "status(?)"
}

// Ticket identifies one message in flight: its flow and the flow's epoch
// at send time. It is an 8-byte value; the zero Ticket (returned by a
// failed Send) identifies no message. A Ticket is only meaningful to the
// Network that issued it, within one execution (until Network.Reset).
type Ticket struct {
	id    int32 // flow index + 1; 0 = none
	epoch uint32
}

// Valid reports whether t was returned by a successful Send.
func (t Ticket) Valid() bool { return t.id != 0 }

// SendDetail explains the most recent Send (Network.LastSend): the parts
// of the delay formula, for event logs and tests.
type SendDetail struct {
	Status                    Status
	Transport, Src, Dst, Size int
	// HeavyFlows is the bandwidth divisor used (at least 1). Zero if the
	// send failed before transmission (QueueFull, Unreachable).
	HeavyFlows int
	// TxStart and TxEnd bound the message's transmission on its flow.
	TxStart, TxEnd time.Duration
	// Propagation is the capped Pareto draw; Reorder the datagram's extra
	// uniform delay. Quantile is the draw's uniform variate: the share of
	// the link's delays shorter than Propagation (before the cap).
	Propagation, Reorder time.Duration
	Quantile             float64
	// Arrive is the arrival time (0 unless Sent). For a reliable message
	// Arrive − (TxEnd + Propagation) is the wait imposed by FIFO order.
	Arrive time.Duration
}

// Conn names one reliable connection that an operation broke.
type Conn struct {
	Transport int
	A, B      int
}

// Network is the network state of one simulated execution: connections,
// queued transmissions, send queues and the partition. It is not safe for
// concurrent use; give each worker its own Network and Reset it between
// executions.
type Network struct {
	cfg   Config // with defaults
	trans []transport
	heavy int64   // HeavyFlowBytes
	shape float64 // Pareto α
	nodes []nodeState
	links map[uint64]linkParam // directed overrides; read-only after New
	index flowIndex            // (transport, src, dst) → flow
	flows []flow
	// queues[fi]: flow fi's pending transmissions while it has more than
	// one (flagMulti); empty otherwise. Kept apart from flows so that a
	// flow is one cache line.
	queues []txQueue
	// groups[v]: node v's partition group (0: no partition). Apart from
	// nodes, since a send reads the receiver's.
	groups []int32
	last   SendDetail
}

type transport struct {
	reliable bool
	queueCap int32 // < 0: unbounded
	drop     float64
	reorder  time.Duration
}

type linkParam struct {
	latency   float64 // ns, 0 = not set
	bandwidth float64 // kbit/s, 0 = not set
}

type nodeState struct {
	out    []int32 // reliable flows leaving this node (all ever created)
	active []int32 // flows leaving this node that may have bytes queued
	// link defaults of flows leaving this node
	latency   float64
	bandwidth float64
}

// A flow is one direction (src→dst) of one transport. For a reliable
// transport two flows make a connection. It is 64 bytes, one cache line:
// a send reads and writes most of it.
//
// Its pending transmissions (sent and not known to have ended, FIFO) end
// at increasing times, the last at lastTx, and total queued bytes. While
// there is at most one, lastTx and queued describe it and nothing else is
// kept; from two on (flagMulti) they are listed in Network.queues. Once
// pruned at now, a flow has none left exactly when lastTx <= now.
type flow struct {
	lastTx     time.Duration
	lastArrive time.Duration
	queued     int64   // bytes of the pending transmissions
	latency    float64 // ns (Pareto xm)
	bandwidth  float64 // kbit/s
	epoch      uint32
	inflight   int32 // sent, not yet delivered
	src, dst   int32
	rev        int32 // reverse flow of a reliable connection, -1 until opened
	transport  uint16
	flags      uint8
}

// Flow flags.
const (
	flagReliable uint8 = 1 << iota
	flagOpen           // reliable: the connection exists
	flagActive         // listed in nodes[src].active
	flagMulti          // more than one pending transmission, in Network.queues
)

func (f *flow) reliable() bool { return f.flags&flagReliable != 0 }
func (f *flow) open() bool     { return f.flags&flagOpen != 0 }

// txQueue lists a flow's pending transmissions from head.
type txQueue struct {
	tx   []txEntry
	head int32
}

type txEntry struct {
	end  time.Duration
	size int64
}

func key(t, src, dst int) uint64 { return uint64(t)<<48 | uint64(src)<<24 | uint64(dst) }

// New returns the empty network of nodes nodes configured by cfg (zero
// fields take their defaults).
func New(cfg Config, nodes int) (*Network, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(nodes); err != nil {
		return nil, err
	}
	n := &Network{
		cfg:    cfg,
		trans:  make([]transport, len(cfg.Transports)),
		heavy:  int64(cfg.HeavyFlowBytes),
		shape:  cfg.ParetoShape,
		nodes:  make([]nodeState, nodes),
		groups: make([]int32, nodes),
		index:  newFlowIndex(len(cfg.Transports), nodes),
	}
	for i, t := range cfg.Transports {
		n.trans[i] = transport{
			reliable: t.Kind == Reliable,
			queueCap: int32(t.SendQueueCap()),
			drop:     t.DropProb,
			reorder:  t.ReorderWindow,
		}
	}
	for i := range n.nodes {
		n.nodes[i].latency = float64(cfg.Latency)
		n.nodes[i].bandwidth = cfg.BandwidthKbps
	}
	for _, o := range cfg.NodeOverrides {
		if o.Latency != 0 {
			n.nodes[o.Node].latency = float64(o.Latency)
		}
		if o.BandwidthKbps != 0 {
			n.nodes[o.Node].bandwidth = o.BandwidthKbps
		}
	}
	if len(cfg.Overrides) > 0 {
		n.links = make(map[uint64]linkParam, len(cfg.Overrides))
		for _, o := range cfg.Overrides {
			k := uint64(o.From)<<24 | uint64(o.To)
			p := n.links[k]
			if o.Latency != 0 {
				p.latency = float64(o.Latency)
			}
			if o.BandwidthKbps != 0 {
				p.bandwidth = o.BandwidthKbps
			}
			n.links[k] = p
		}
	}
	return n, nil
}

// Reset returns n to its initial empty state (no connections, nothing
// queued, no partition) for the next execution, keeping its memory.
// Tickets issued before Reset must not be used afterwards.
func (n *Network) Reset() {
	n.index.reset(n.flows)
	n.clearQueues()
	n.flows = n.flows[:0]
	for i := range n.nodes {
		ns := &n.nodes[i]
		ns.out = ns.out[:0]
		ns.active = ns.active[:0]
	}
	clear(n.groups)
	n.last = SendDetail{}
}

// Nodes returns the number of nodes.
func (n *Network) Nodes() int { return len(n.nodes) }

// Config returns the configuration with defaults filled in (a copy).
func (n *Network) Config() Config { return n.cfg.WithDefaults() }

// TransportIndex returns the index of the transport called name.
func (n *Network) TransportIndex(name string) (int, bool) { return n.cfg.TransportIndex(name) }

// LastSend explains the most recent call to Send.
func (n *Network) LastSend() SendDetail { return n.last }

func (n *Network) checkNode(v int) {
	if uint(v) >= uint(len(n.nodes)) {
		panic("netmodel: node out of range")
	}
}

func (n *Network) checkTransport(t int) {
	if uint(t) >= uint(len(n.trans)) {
		panic("netmodel: transport out of range")
	}
}

// Send computes the fate of one message of size bytes that src sends to
// dst on transport at time now. For each sender, now must not decrease
// from one call to the next (the simulator's per-node clock guarantees
// it). It panics if transport, src or dst is out of range or size is
// negative.
//
// On Sent it returns the arrival time and a Ticket that the simulator
// hands to Delivered when the message arrives. Otherwise arrive is 0 and
// the Ticket is zero.
//
// r is drawn from in this fixed order, and only when needed: for a
// datagram not lost to a partition, one Float64 for the loss if
// DropProb > 0; then, if the message survives, one Float64 for the Pareto
// delay, then one Float64 for the reorder delay if ReorderWindow > 0. A
// reliable Sent message draws one Float64 (the Pareto delay); QueueFull
// and Unreachable draw nothing.
func (n *Network) Send(now time.Duration, transport, src, dst, size int, r *rand.Rand) (arrive time.Duration, tk Ticket, st Status) {
	n.checkTransport(transport)
	n.checkNode(src)
	n.checkNode(dst)
	if size < 0 {
		panic("netmodel: negative message size")
	}
	tr := &n.trans[transport]
	n.last = SendDetail{Transport: transport, Src: src, Dst: dst, Size: size}
	reachable := n.groups[src] == n.groups[dst]

	if tr.reliable {
		if !reachable {
			// SetPartition already broke crossing connections; this is
			// a safety net that costs a lookup only on this error path.
			if fi, ok := n.index.get(transport, src, dst); ok && n.flows[fi].open() {
				n.breakConn(fi)
			}
			n.last.Status = Unreachable
			return 0, Ticket{}, Unreachable
		}
		fi := n.flowFor(transport, src, dst)
		if !n.flows[fi].open() {
			n.openConn(fi)
		}
		f := &n.flows[fi]
		if !admits(tr.queueCap, f.inflight) {
			n.last.Status = QueueFull
			return 0, Ticket{}, QueueFull
		}
		txEnd := n.transmit(fi, now, size)
		prop, q := n.propagation(f.latency, size, r)
		arrive = max(simtime.Add(txEnd, prop), f.lastArrive)
		f.lastArrive = arrive
		f.inflight++
		n.last.Propagation, n.last.Quantile = prop, q
		n.last.Arrive = arrive
		return arrive, Ticket{id: fi + 1, epoch: f.epoch}, Sent
	}

	fi := n.flowFor(transport, src, dst)
	txEnd := n.transmit(fi, now, size)
	if !reachable || (tr.drop > 0 && r.Float64() < tr.drop) {
		n.last.Status = Dropped
		return 0, Ticket{}, Dropped
	}
	f := &n.flows[fi]
	prop, q := n.propagation(f.latency, size, r)
	var extra time.Duration
	if tr.reorder > 0 {
		extra = time.Duration(r.Float64() * float64(tr.reorder))
	}
	arrive = simtime.Add(simtime.Add(txEnd, prop), extra)
	f.inflight++
	n.last.Propagation, n.last.Quantile = prop, q
	n.last.Reorder = extra
	n.last.Arrive = arrive
	return arrive, Ticket{id: fi + 1, epoch: f.epoch}, Sent
}

// transmit queues size bytes on flow fi at now and returns the end of
// their transmission. It records TxStart, TxEnd and HeavyFlows in n.last.
func (n *Network) transmit(fi int32, now time.Duration, size int) time.Duration {
	f := &n.flows[fi]
	n.prune(fi, f, now)
	heavy := n.countHeavy(now, int(f.src), fi)
	if f.queued+int64(size) > n.heavy {
		heavy++
	}
	heavy = max(heavy, 1)
	// size·8 bits / (bandwidth·1000/heavy bits/s), in ns.
	x := float64(size) * 8e6 * float64(heavy) / f.bandwidth
	if x > float64(MaxDelay) { // a huge message on a thin link: never
		x = float64(MaxDelay)
	}
	tx := time.Duration(math.Round(x))
	start := max(now, f.lastTx)
	end := simtime.Add(start, tx)
	n.push(fi, f, now, end, int64(size))
	if f.flags&flagActive == 0 {
		f.flags |= flagActive
		ns := &n.nodes[f.src]
		ns.active = append(ns.active, fi)
	}
	n.last.HeavyFlows = heavy
	n.last.TxStart = start
	n.last.TxEnd = end
	return end
}

// countHeavy prunes src's active flows at now, drops the idle ones from
// the list, and counts those other than self with more than HeavyFlowBytes
// queued. The list's order depends only on the call sequence.
func (n *Network) countHeavy(now time.Duration, src int, self int32) int {
	ns := &n.nodes[src]
	act := ns.active
	heavy := 0
	for i := 0; i < len(act); {
		fi := act[i]
		g := &n.flows[fi]
		if g.lastTx <= now { // nothing pending: prune's common case, inline
			g.queued = 0
			if g.flags&flagMulti != 0 {
				n.dropQueue(fi, g)
			}
			g.flags &^= flagActive
			last := len(act) - 1
			act[i] = act[last]
			act = act[:last]
			continue
		}
		if g.flags&flagMulti != 0 {
			n.pruneQueue(fi, g, now)
		}
		if fi != self && g.queued > n.heavy {
			heavy++
		}
		i++
	}
	ns.active = act
	return heavy
}

// maxCapMinutes bounds the propagation cap's minutes (size/1500+1), so that
// the cap is at most MaxDelay.
const maxCapMinutes = int(MaxDelay / time.Minute)

// propagation draws the Pareto propagation+queueing delay with scale xm
// (ns), capped at 60s·(size/1500+1) as in Mace. For Mace's shape 3 the
// inverse CDF xm/(1-u)^(1/3) uses math.Cbrt instead of gonum's math.Pow:
// the same value up to floating-point rounding (tests allow 1 ns), and
// about a fifth of the simulator's per-event time saved.
func (n *Network) propagation(xm float64, size int, r *rand.Rand) (time.Duration, float64) {
	var d float64
	u := r.Float64()
	if n.shape == 3 {
		d = xm / math.Cbrt(1-u)
	} else {
		d = distuv.Pareto{Xm: xm, Alpha: n.shape}.Quantile(u)
	}
	k := size/1500 + 1
	if k > maxCapMinutes { // a huge message's cap would not fit a Duration
		k = maxCapMinutes
	}
	if c := float64(60*time.Second) * float64(k); d > c {
		d = c
	}
	return time.Duration(math.Round(d)), u
}

// prune forgets flow fi's transmissions that ended by now (countHeavy
// has its own copy).
func (n *Network) prune(fi int32, f *flow, now time.Duration) {
	// Transmissions end in FIFO order and the last ends at lastTx, so
	// when lastTx has passed they all have (the common case of small
	// messages): forget them without reading them.
	if f.lastTx <= now {
		f.queued = 0
		if f.flags&flagMulti != 0 {
			n.dropQueue(fi, f)
		}
		return
	}
	if f.flags&flagMulti != 0 {
		n.pruneQueue(fi, f, now)
	}
	// else: the one pending transmission ends at lastTx, after now
}

// dropQueue forgets flow fi's list of transmissions.
//
//go:noinline
func (n *Network) dropQueue(fi int32, f *flow) {
	f.flags &^= flagMulti
	q := &n.queues[fi]
	q.tx, q.head = q.tx[:0], 0
}

// pruneQueue forgets the listed transmissions of flow fi that ended by
// now, the last one excepted (it ends at lastTx, after now).
//
//go:noinline
func (n *Network) pruneQueue(fi int32, f *flow, now time.Duration) {
	q := &n.queues[fi]
	h := int(q.head)
	for q.tx[h].end <= now {
		f.queued -= q.tx[h].size
		h++
	}
	if h == len(q.tx)-1 { // one left: lastTx and queued describe it
		f.flags &^= flagMulti
		q.tx, h = q.tx[:0], 0
	}
	q.head = int32(h)
}

// push appends a transmission of size bytes ending at end to flow fi,
// pruned at now.
func (n *Network) push(fi int32, f *flow, now, end time.Duration, size int64) {
	switch {
	case f.lastTx <= now: // none pending
	case f.flags&flagMulti == 0: // one pending: list it with the new one
		for int(fi) >= len(n.queues) {
			n.queues = append(n.queues, txQueue{})
		}
		q := &n.queues[fi]
		q.tx = append(q.tx[:0], txEntry{end: f.lastTx, size: f.queued}, txEntry{end: end, size: size})
		q.head = 0
		f.flags |= flagMulti
	default:
		q := &n.queues[fi]
		if len(q.tx) == cap(q.tx) && q.head > 0 {
			m := copy(q.tx, q.tx[q.head:])
			q.tx = q.tx[:m]
			q.head = 0
		}
		q.tx = append(q.tx, txEntry{end: end, size: size})
	}
	f.lastTx = end
	f.queued += size
}

// clearQueues empties the transmission lists of the flows that have one.
func (n *Network) clearQueues() {
	for i := range n.flows {
		if n.flows[i].flags&flagMulti != 0 {
			q := &n.queues[i]
			q.tx, q.head = q.tx[:0], 0
		}
	}
}

// flowFor returns the flow transport/src→dst, creating it if needed.
func (n *Network) flowFor(t, src, dst int) int32 {
	if fi, ok := n.index.get(t, src, dst); ok {
		return fi
	}
	if len(n.flows) >= math.MaxInt32-1 {
		panic("netmodel: too many flows")
	}
	fi := int32(len(n.flows))
	if len(n.flows) < cap(n.flows) {
		n.flows = n.flows[:fi+1]
		n.flows[fi] = flow{} // reuse memory after Reset
	} else {
		n.flows = append(n.flows, flow{})
	}
	ns := &n.nodes[src]
	f := &n.flows[fi]
	f.src, f.dst = int32(src), int32(dst)
	f.rev = -1
	f.transport = uint16(t)
	if n.trans[t].reliable {
		f.flags = flagReliable
	}
	f.latency, f.bandwidth = ns.latency, ns.bandwidth
	if p, ok := n.links[uint64(src)<<24|uint64(dst)]; ok {
		if p.latency != 0 {
			f.latency = p.latency
		}
		if p.bandwidth != 0 {
			f.bandwidth = p.bandwidth
		}
	}
	if f.reliable() {
		ns.out = append(ns.out, fi)
	}
	n.index.set(t, src, dst, fi)
	return fi
}

// openConn opens the reliable connection of flow fi (both directions).
func (n *Network) openConn(fi int32) {
	rv := n.flows[fi].rev
	if rv < 0 {
		f := &n.flows[fi]
		rv = n.flowFor(int(f.transport), int(f.dst), int(f.src))
		n.flows[fi].rev = rv
		n.flows[rv].rev = fi
	}
	n.flows[fi].flags |= flagOpen
	n.flows[rv].flags |= flagOpen
}

// breakConn breaks the reliable connection of flow fi (both directions):
// a new epoch, nothing queued or in flight.
func (n *Network) breakConn(fi int32) {
	n.resetFlow(fi)
	if rv := n.flows[fi].rev; rv >= 0 && rv != fi {
		n.resetFlow(rv)
	}
}

func (n *Network) resetFlow(fi int32) {
	f := &n.flows[fi]
	f.epoch++
	f.flags &^= flagOpen
	f.inflight = 0
	if f.flags&flagMulti != 0 {
		n.dropQueue(fi, f)
	}
	f.queued = 0
	f.lastTx = 0
	f.lastArrive = 0
	// flagActive stays: the flow leaves its sender's active list at the
	// next count.
}

// Delivered is called when the message of tk arrives. It frees the
// message's slot in its send queue and reports whether to deliver it:
// false if its reliable connection broke after the send (the message is
// lost), or if a datagram's endpoints are now in different partition
// groups. It returns false for the zero Ticket, and panics if a ticket is
// delivered twice while its connection is intact (as far as that is
// detectable).
func (n *Network) Delivered(tk Ticket) bool {
	i := int(tk.id) - 1
	if uint(i) >= uint(len(n.flows)) {
		return false
	}
	f := &n.flows[i]
	if f.epoch != tk.epoch {
		return false
	}
	if f.inflight <= 0 {
		panic("netmodel: Delivered called more often than Send succeeded")
	}
	f.inflight--
	if f.reliable() {
		return true
	}
	return n.groups[f.src] == n.groups[f.dst]
}

// QueueLen returns the number of messages sent from src to dst on
// transport and not yet delivered (for a reliable transport, the send
// queue that QueueCap bounds).
func (n *Network) QueueLen(transport, src, dst int) int {
	n.checkTransport(transport)
	n.checkNode(src)
	n.checkNode(dst)
	if fi, ok := n.index.get(transport, src, dst); ok {
		return int(n.flows[fi].inflight)
	}
	return 0
}

// HeavyFlows returns the number of src's outgoing flows (all transports,
// all destinations) with more than HeavyFlowBytes not yet transmitted at
// now. It may be 0; a Send divides the bandwidth by the count including
// its own message, and by at least 1. Like Send, it forgets transmissions
// that ended by now, so now must not be later than src's next Send.
func (n *Network) HeavyFlows(now time.Duration, src int) int {
	n.checkNode(src)
	return n.countHeavy(now, src, -1)
}

// Connected reports whether the reliable connection between a and b on
// transport exists (either sent to the other since it last broke).
// It is false for a datagram transport.
func (n *Network) Connected(transport, a, b int) bool {
	n.checkTransport(transport)
	n.checkNode(a)
	n.checkNode(b)
	fi, ok := n.index.get(transport, a, b)
	return ok && n.flows[fi].open()
}

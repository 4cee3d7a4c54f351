package realnet

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Config is one real execution of a scenario.
type Config struct {
	// System, Variant and Params name the scenario in the traces' headers
	// (Params: its parameter values, if any).
	System, Variant string
	Params          map[string]string
	// Scenario is the scenario to run; its faults are not supported (a
	// real run's faults are the real network's).
	Scenario *timedsim.Scenario
	// Run numbers the execution (the traces' run field).
	Run int
	// Seed seeds the driver's application events and the nodes' ctx.Rand.
	Seed uint64
	// TimeScale is the real duration of one scenario second (timers and
	// application events fire TimeScale times their scenario delay);
	// 0 means 1.
	TimeScale float64
	// Timeout ends a run whose stopping condition has not held after this
	// much real time; 0 means the scenario's Timeout times TimeScale.
	Timeout time.Duration
	// Dir, if not empty, is where the node traces are written
	// (NodeFileName per node); "" records nothing.
	Dir string
	// Host is the address the nodes listen on; "" means 127.0.0.1.
	Host string
	// Peers, if not empty, runs one node per process: this process runs
	// node Node only, and Peers[i] is node i's address, host:port, where
	// its transport t listens on port+t (TCP for a reliable transport,
	// UDP for a datagram one); Host is then ignored (this node listens on
	// its own Peers entry's port on every interface). Messages are encoded
	// with Codec, built from the service's MessageTypes. The stopping
	// condition, a predicate over every node's state, cannot be evaluated
	// in one process: the run ends at Timeout or when ctx is cancelled,
	// and Replay of the gathered traces finds the step where it held.
	Peers []string
	Node  int
	// Linger, with Peers, keeps the node's sockets open this long after
	// its run ended, handling nothing: a peer whose run ends within Linger
	// after this one's sees no connection break (one that ends later
	// records broken-connection upcalls, and they replay as such).
	Linger time.Duration
	// Deadline, if not zero, ends the run at this instant instead of after
	// Timeout: processes started one after the other then end together
	// (as closely as their clocks agree).
	Deadline time.Time
}

// Result is what a real execution did.
type Result struct {
	// Stopped reports whether the stopping condition held before the
	// timeout; ExecTime is the real time from the start to the check that
	// saw it hold (or to the timeout).
	Stopped  bool
	ExecTime time.Duration
	// Events is the number of handlers run, Messages the number of
	// messages delivered.
	Events, Messages int
	// Files are the node traces written (empty when not recording).
	Files []string
	// Ended says why a run with Peers ended: "timeout" or "interrupted"
	// (Stopped is always false: see Config.Peers).
	Ended string
}

// inKind is the kind of an event in a node's inbox.
type inKind uint8

const (
	inInit inKind = iota
	inDeliver
	inTimer
	inApp
	inError
)

type inEvent struct {
	kind      inKind
	from      timedsim.NodeID
	transport int
	id        uint64
	lamport   uint64
	sentNS    int64
	arrivedNS int64
	msg       timedsim.Message
	name      string
	gen       uint64
	app       int
	err       error
}

type msgKey struct {
	from timedsim.NodeID
	id   uint64
}

// runtime is one real execution.
type runtime struct {
	cfg    Config
	sc     *timedsim.Scenario
	ncfg   netmodel.Config
	trs    *timedsim.Transports // the service contract's transport rules
	scale  float64
	start  time.Time
	nodes  []*node // by ID; with Peers, nil but for the local node
	local  []*node // the nodes this process runs
	codec  *Codec  // with Peers
	apps   []timedsim.AppEvent
	addrs  [][]string // [node][transport]
	closer []io.Closer
	closeM sync.Mutex
	closed bool

	// state is held shared by each handler and exclusively by the stop
	// check, which reads every node's state.
	state   sync.RWMutex
	dirty   chan struct{}
	done    chan struct{}
	once    sync.Once
	stopped bool
	stopAt  time.Duration
	events  atomic.Int64
	msgs    atomic.Int64
	failure error
	failM   sync.Mutex

	// inflight holds the Go values of messages on the wire: a frame
	// carries the sender and message ID, and its payload bytes (as many
	// as the message's Size) are padding (see the package doc).
	inflight sync.Map // msgKey → timedsim.Message
}

type timerState struct {
	gen  uint64
	data any
}

type node struct {
	rt      *runtime
	id      timedsim.NodeID
	svc     timedsim.Service
	inbox   chan inEvent
	lamport uint64
	seq     int
	nextID  uint64
	timers  map[string]timerState
	gen     uint64
	rng     *rand.Rand
	draws   []uint64
	out     map[outKey]*outConn
	rec     *bufio.Writer
	file    *os.File
	enc     []byte

	// the running handler's effects
	ev      Event
	sends   []pendingSend
	pending map[outKey]int
	errs    []inEvent
	starts  []timerStart
}

type timerStart struct {
	name  string
	gen   uint64
	after time.Duration
}

type outKey struct {
	transport int
	to        timedsim.NodeID
}

type pendingSend struct {
	key outKey
	id  uint64
	msg timedsim.Message
}

type outConn struct {
	ch chan frame
}

type frame struct {
	from    timedsim.NodeID
	id      uint64
	lamport uint64
	sentNS  int64
	size    int
	payload []byte // the encoded message, with Peers
}

const frameHeader = 4 + 4 + 8 + 8 + 8 + 4 // length, from, id, lamport, sent, payload length

// Run runs one real execution of cfg.Scenario: every node in this process,
// on sockets bound to cfg.Host. It returns when the stopping condition
// holds, the timeout passes, ctx is cancelled, or a handler panics (an
// error).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	sc := cfg.Scenario
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	if cfg.TimeScale == 0 {
		cfg.TimeScale = 1
	}
	if !(cfg.TimeScale > 0) || cfg.TimeScale > 1e6 {
		return nil, fmt.Errorf("realnet: TimeScale %v is not a positive number", cfg.TimeScale)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Duration(float64(sc.Timeout) * cfg.TimeScale)
	}
	if !cfg.Deadline.IsZero() && time.Until(cfg.Deadline) <= 0 {
		return nil, fmt.Errorf("realnet: the deadline %s has passed", cfg.Deadline.UTC().Format(time.RFC3339Nano))
	}
	apps, faults := timedsim.DriverPlan(sc, cfg.Seed)
	if faults > 0 {
		return nil, fmt.Errorf("realnet: the scenario's driver schedules %d faults; a real run takes the real network's faults only", faults)
	}
	rt := &runtime{cfg: cfg, sc: sc, ncfg: sc.Network.WithDefaults(), trs: timedsim.NewTransports(sc.Network), scale: cfg.TimeScale, apps: apps,
		dirty: make(chan struct{}, 1), done: make(chan struct{}), nodes: make([]*node, sc.Nodes)}
	defer rt.closeAll()
	local := []int{}
	if len(cfg.Peers) > 0 {
		if len(cfg.Peers) != sc.Nodes {
			return nil, fmt.Errorf("realnet: %d peer addresses for %d nodes", len(cfg.Peers), sc.Nodes)
		}
		if cfg.Node < 0 || cfg.Node >= sc.Nodes {
			return nil, fmt.Errorf("realnet: node %d is not one of the %d nodes", cfg.Node, sc.Nodes)
		}
		local = append(local, cfg.Node)
	} else {
		for i := range sc.Nodes {
			local = append(local, i)
		}
	}
	for _, i := range local {
		n := &node{rt: rt, id: timedsim.NodeID(i), svc: sc.New(timedsim.NodeID(i)),
			inbox: make(chan inEvent, 1<<14), timers: map[string]timerState{},
			out: map[outKey]*outConn{}, pending: map[outKey]int{}}
		src := &recSource{pcg: rand.NewPCG(cfg.Seed, mix(uint64(i)+1)), out: &n.draws}
		n.rng = rand.New(src)
		if cfg.Dir != "" {
			if err := n.openTrace(); err != nil {
				return nil, err
			}
		}
		rt.nodes[i] = n
		rt.local = append(rt.local, n)
	}
	if len(cfg.Peers) > 0 {
		mt, ok := rt.local[0].svc.(MessageTyper)
		if !ok {
			return nil, fmt.Errorf("realnet: %s's service (%T) does not list its message types: one node per process encodes messages, and needs a MessageTypes() []timedsim.Message method on the service (see realnet.MessageTyper)", cfg.System, rt.local[0].svc)
		}
		c, err := NewCodec(mt.MessageTypes())
		if err != nil {
			return nil, err
		}
		rt.codec = c
	}
	if err := rt.listen(); err != nil {
		return nil, err
	}
	for _, n := range rt.local {
		n.inbox <- inEvent{kind: inInit, from: timedsim.None}
	}
	stop := sc.Stop
	if sc.NewStop != nil {
		stop = sc.NewStop()
	}
	rt.start = time.Now()
	var wg sync.WaitGroup
	for i, a := range apps {
		n := rt.nodes[a.Node]
		if n == nil {
			continue // another process's node
		}
		ev := inEvent{kind: inApp, from: timedsim.None, name: a.Name, app: i}
		if a.At <= 0 {
			n.inbox <- ev
			continue
		}
		t := time.AfterFunc(rt.real(a.At), func() { n.push(ev) })
		rt.addCloser(timerCloser{t})
	}
	rt.serve(&wg)
	for _, n := range rt.local {
		wg.Add(1)
		go func() { defer wg.Done(); n.loop() }()
	}
	// The coordinator: after any handler (coalesced), evaluate the
	// stopping condition over every node's state, holding the state lock
	// exclusively so that no handler runs meanwhile.
	limit := cfg.Timeout
	if !cfg.Deadline.IsZero() {
		limit = time.Until(cfg.Deadline)
	}
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	select {
	case rt.dirty <- struct{}{}: // check once before any handler ran
	default:
	}
coord:
	for {
		select {
		case <-rt.dirty:
			rt.state.Lock()
			if rt.isDone() {
				rt.state.Unlock()
				break coord
			}
			if rt.codec == nil && stop(world{rt}) {
				rt.stopped, rt.stopAt = true, time.Since(rt.start)
				rt.finish()
			}
			rt.state.Unlock()
		case <-rt.done:
			break coord
		case <-timeout.C:
			rt.finish()
		case <-ctx.Done():
			rt.finish()
		}
	}
	ended := time.Since(rt.start)
	if rt.codec != nil && cfg.Linger > 0 {
		// This node handles nothing more (done is closed), but its
		// connections stay open a while, so that a peer whose run ends a
		// little later does not see them break.
		rt.finish()
		select {
		case <-time.After(cfg.Linger):
		case <-ctx.Done():
		}
	}
	rt.closeAll()
	wg.Wait()
	res := &Result{Stopped: rt.stopped, Events: int(rt.events.Load()), Messages: int(rt.msgs.Load()), ExecTime: rt.stopAt}
	if !rt.stopped {
		res.ExecTime = ended
	}
	if rt.codec != nil {
		res.Ended = "timeout"
		if ctx.Err() != nil {
			res.Ended = "interrupted"
		}
	}
	var werr error
	for _, n := range rt.local {
		if n.file != nil {
			if err := n.closeTrace(rt.stopped); err != nil && werr == nil {
				werr = err
			}
			res.Files = append(res.Files, n.file.Name())
		}
	}
	rt.failM.Lock()
	defer rt.failM.Unlock()
	if rt.failure != nil {
		return res, rt.failure
	}
	if werr != nil {
		return res, werr
	}
	if err := ctx.Err(); err != nil && !rt.stopped && rt.codec == nil {
		return res, fmt.Errorf("realnet: run %d interrupted: %w", cfg.Run, err)
	}
	return res, nil
}

func (rt *runtime) real(d time.Duration) time.Duration {
	return time.Duration(float64(d) * rt.scale)
}

func (rt *runtime) isDone() bool {
	select {
	case <-rt.done:
		return true
	default:
		return false
	}
}

func (rt *runtime) finish() { rt.once.Do(func() { close(rt.done) }) }

func (rt *runtime) fail(err error) {
	rt.failM.Lock()
	if rt.failure == nil {
		rt.failure = err
	}
	rt.failM.Unlock()
	rt.finish()
}

type timerCloser struct{ t *time.Timer }

func (c timerCloser) Close() error { c.t.Stop(); return nil }

// addCloser registers what closeAll closes; after closeAll it closes c
// at once.
func (rt *runtime) addCloser(c io.Closer) {
	rt.closeM.Lock()
	closed := rt.closed
	if !closed {
		rt.closer = append(rt.closer, c)
	}
	rt.closeM.Unlock()
	if closed {
		c.Close()
	}
}

func (rt *runtime) closeAll() {
	rt.finish()
	rt.closeM.Lock()
	cs := rt.closer
	rt.closer, rt.closed = nil, true
	rt.closeM.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// listen opens every node's sockets: a TCP listener per reliable
// transport, a UDP socket per datagram transport.
func (rt *runtime) listen() error {
	rt.addrs = make([][]string, rt.sc.Nodes)
	if len(rt.cfg.Peers) > 0 {
		for i, p := range rt.cfg.Peers {
			host, port, err := net.SplitHostPort(p)
			if err != nil {
				return fmt.Errorf("realnet: peer %d: %w", i, err)
			}
			base, err := strconv.Atoi(port)
			if err != nil || base < 1 || base+len(rt.ncfg.Transports)-1 > 65535 {
				return fmt.Errorf("realnet: peer %d: port %q is not a number in [1, %d]", i, port, 65536-len(rt.ncfg.Transports))
			}
			for t := range rt.ncfg.Transports {
				rt.addrs[i] = append(rt.addrs[i], net.JoinHostPort(host, strconv.Itoa(base+t)))
			}
		}
	}
	for _, n := range rt.local {
		i := n.id
		for t, tc := range rt.ncfg.Transports {
			bind := net.JoinHostPort(rt.cfg.Host, "0")
			if len(rt.cfg.Peers) > 0 {
				_, port, _ := net.SplitHostPort(rt.addrs[i][t])
				bind = net.JoinHostPort("", port)
			}
			var addr string
			if tc.Kind == netmodel.Reliable {
				l, err := net.Listen("tcp", bind)
				if err != nil {
					return fmt.Errorf("realnet: node %d: %w", i, err)
				}
				rt.addCloser(l)
				addr = l.Addr().String()
			} else {
				c, err := net.ListenPacket("udp", bind)
				if err != nil {
					return fmt.Errorf("realnet: node %d: %w", i, err)
				}
				rt.addCloser(c)
				addr = c.LocalAddr().String()
			}
			if len(rt.cfg.Peers) == 0 {
				rt.addrs[i] = append(rt.addrs[i], addr)
			}
		}
	}
	return nil
}

// serve starts the receiving goroutines of every socket listen opened
// (they are the closers after the listeners, in order).
func (rt *runtime) serve(wg *sync.WaitGroup) {
	rt.closeM.Lock()
	socks := append([]io.Closer(nil), rt.closer...)
	rt.closeM.Unlock()
	k := 0 // listen added the sockets first, node by node
	for _, n := range rt.local {
		for t, tc := range rt.ncfg.Transports {
			s := socks[k]
			k++
			wg.Add(1)
			if tc.Kind == netmodel.Reliable {
				go func() { defer wg.Done(); rt.accept(n, t, s.(net.Listener), wg) }()
			} else {
				go func() { defer wg.Done(); rt.readUDP(n, t, s.(net.PacketConn)) }()
			}
		}
	}
}

func (rt *runtime) accept(n *node, t int, l net.Listener, wg *sync.WaitGroup) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		rt.addCloser(c)
		wg.Add(1)
		go func() { defer wg.Done(); rt.readTCP(n, t, c) }()
	}
}

func (rt *runtime) readTCP(n *node, t int, c net.Conn) {
	r := bufio.NewReader(c)
	var hdr [frameHeader]byte
	from := timedsim.None
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			rt.broken(n, t, from, err)
			return
		}
		f, plen := parseFrame(hdr[:])
		from = f.from
		if plen < 0 || plen > f.size-frameHeader {
			rt.fail(fmt.Errorf("realnet: node %v: a frame from %v with a payload of %d bytes in %d", n.id, f.from, plen, f.size))
			return
		}
		if plen > 0 {
			f.payload = make([]byte, plen)
			if _, err := io.ReadFull(r, f.payload); err != nil {
				rt.broken(n, t, from, err)
				return
			}
		}
		if _, err := r.Discard(f.size - frameHeader - plen); err != nil {
			rt.broken(n, t, from, err)
			return
		}
		rt.arrive(n, t, f)
	}
}

// broken reports a connection that ended while the run goes on as an
// ErrConnectionBroken upcall.
func (rt *runtime) broken(n *node, t int, peer timedsim.NodeID, err error) {
	if rt.isDone() || peer == timedsim.None {
		return
	}
	n.push(inEvent{kind: inError, from: peer, transport: t, err: timedsim.ErrConnectionBroken})
}

func (rt *runtime) readUDP(n *node, t int, c net.PacketConn) {
	buf := make([]byte, 65536)
	for {
		k, _, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		if k < frameHeader {
			continue
		}
		f, plen := parseFrame(buf[:frameHeader])
		if plen < 0 || frameHeader+plen > k {
			continue // truncated: a datagram lost
		}
		f.payload = append([]byte(nil), buf[frameHeader:frameHeader+plen]...)
		rt.arrive(n, t, f)
	}
}

func (rt *runtime) arrive(n *node, t int, f frame) {
	var msg timedsim.Message
	if rt.codec != nil {
		m, err := rt.codec.Decode(f.payload)
		if err != nil {
			rt.fail(fmt.Errorf("realnet: node %v, message %d of %v: %w", n.id, f.id, f.from, err))
			return
		}
		msg = m
	} else {
		m, ok := rt.inflight.LoadAndDelete(msgKey{f.from, f.id})
		if !ok {
			rt.fail(fmt.Errorf("realnet: node %v received message %d of %v, which no handler sent", n.id, f.id, f.from))
			return
		}
		msg = m.(timedsim.Message)
	}
	n.push(inEvent{kind: inDeliver, from: f.from, transport: t, id: f.id, lamport: f.lamport, sentNS: f.sentNS, arrivedNS: int64(time.Since(rt.start)), msg: msg})
}

func (f frame) encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(f.size))
	b = binary.BigEndian.AppendUint32(b, uint32(f.from))
	b = binary.BigEndian.AppendUint64(b, f.id)
	b = binary.BigEndian.AppendUint64(b, f.lamport)
	b = binary.BigEndian.AppendUint64(b, uint64(f.sentNS))
	b = binary.BigEndian.AppendUint32(b, uint32(len(f.payload)))
	b = append(b, f.payload...)
	for len(b) < f.size {
		b = append(b, 0)
	}
	return b
}

// parseFrame reads a frame's header and its payload's length.
func parseFrame(b []byte) (frame, int) {
	return frame{
		size:    int(binary.BigEndian.Uint32(b)),
		from:    timedsim.NodeID(binary.BigEndian.Uint32(b[4:])),
		id:      binary.BigEndian.Uint64(b[8:]),
		lamport: binary.BigEndian.Uint64(b[16:]),
		sentNS:  int64(binary.BigEndian.Uint64(b[24:])),
	}, int(int32(binary.BigEndian.Uint32(b[32:])))
}

// push puts an event in the node's inbox, unless the run is over.
func (n *node) push(ev inEvent) {
	select {
	case n.inbox <- ev:
	case <-n.rt.done:
	}
}

// loop is the node's event loop: one handler at a time, as in the
// simulator.
func (n *node) loop() {
	rt := n.rt
	for {
		select {
		case <-rt.done:
			return
		case ev := <-n.inbox:
			rt.state.RLock()
			if rt.isDone() {
				rt.state.RUnlock()
				return
			}
			ok := n.handle(ev)
			rt.state.RUnlock()
			if ok {
				select {
				case rt.dirty <- struct{}{}:
				default:
				}
			}
		}
	}
}

// handle runs one handler and performs its effects; false if the event
// was stale (a cancelled or replaced timer) and ran nothing.
func (n *node) handle(ev inEvent) bool {
	if ev.kind == inTimer {
		ts, ok := n.timers[ev.name]
		if !ok || ts.gen != ev.gen {
			return false
		}
		delete(n.timers, ev.name)
		return n.run(ev, ts.data)
	}
	return n.run(ev, nil)
}

func (n *node) run(ev inEvent, timerData any) bool {
	rt := n.rt
	e := &n.ev
	*e = Event{Seq: n.seq, Peer: -1, Draws: e.Draws[:0], Sends: e.Sends[:0], Timers: e.Timers[:0]}
	if ev.kind == inDeliver {
		n.lamport = max(n.lamport, ev.lamport)
	}
	n.lamport++
	e.Lamport = n.lamport
	n.draws = n.draws[:0]
	n.sends = n.sends[:0]
	clear(n.pending)
	n.errs = n.errs[:0]
	n.starts = n.starts[:0]
	start := time.Now()
	e.StartNS = int64(start.Sub(rt.start))
	now := time.Duration(float64(e.StartNS) / rt.scale)
	e.NowNS = int64(now)
	c := &ctx{n: n, now: now}
	var perr any
	func() {
		defer func() { perr = recover() }()
		switch ev.kind {
		case inInit:
			e.Kind = KindInit
			n.svc.Init(c)
		case inDeliver:
			e.Kind, e.Peer, e.Transport, e.Msg, e.SenderLamport, e.SentNS, e.ArrivedNS = KindDeliver, int32(ev.from), rt.ncfg.Transports[ev.transport].Name, ev.id, ev.lamport, ev.sentNS, ev.arrivedNS
			e.Name = Label(ev.msg)
			n.svc.Deliver(c, ev.from, ev.msg)
		case inTimer:
			e.Kind, e.Name = KindTimer, ev.name
			n.svc.Timer(c, ev.name, timerData)
		case inApp:
			e.Kind, e.Name, e.App = KindApp, ev.name, ev.app
			if h, ok := n.svc.(timedsim.AppHandler); ok {
				h.App(c, ev.name, rt.apps[ev.app].Data)
			}
		case inError:
			e.Kind, e.Peer, e.Transport, e.Msg = KindError, int32(ev.from), rt.ncfg.Transports[ev.transport].Name, ev.id
			e.Err = ErrKindBroken
			if ev.err == timedsim.ErrQueueFull {
				e.Err = ErrKindQueueFull
			}
			if h, ok := n.svc.(timedsim.ErrorHandler); ok {
				h.Error(c, &timedsim.TransportError{Transport: e.Transport, Peer: ev.from, Err: ev.err, Msg: ev.msg})
			}
		}
	}()
	c.dead = true
	dur := time.Since(start)
	e.DurNS = int64(dur)
	if perr != nil {
		rt.fail(fmt.Errorf("realnet: node %v panicked in its %s handler (event %d): %v", n.id, e.Kind, n.seq, perr))
		return false
	}
	if len(n.draws) > 0 {
		e.Draws = append(e.Draws, n.draws...)
	}
	n.seq++
	rt.events.Add(1)
	if ev.kind == inDeliver {
		rt.msgs.Add(1)
	}
	// Effects take place at the handler's end.
	sentNS := int64(time.Since(rt.start))
	for _, s := range n.sends {
		f := frame{from: n.id, id: s.id, lamport: e.Lamport, sentNS: sentNS}
		if rt.codec != nil {
			p, err := rt.codec.Encode(nil, s.msg)
			if err != nil {
				rt.fail(fmt.Errorf("realnet: node %v: %w", n.id, err))
				return false
			}
			f.payload = p
		} else {
			rt.inflight.Store(msgKey{n.id, s.id}, s.msg)
		}
		f.size = max(s.msg.Size(), frameHeader+len(f.payload))
		n.conn(s.key).send(rt, f)
	}
	for _, ts := range n.starts {
		if cur, ok := n.timers[ts.name]; !ok || cur.gen != ts.gen {
			continue // replaced or cancelled by the same handler
		}
		name, gen := ts.name, ts.gen
		t := time.AfterFunc(rt.real(ts.after), func() { n.push(inEvent{kind: inTimer, from: timedsim.None, name: name, gen: gen}) })
		rt.addCloser(timerCloser{t})
	}
	for _, er := range n.errs {
		go n.push(er)
	}
	if n.rec != nil {
		if err := n.write(e); err != nil {
			rt.fail(err)
		}
	}
	return true
}

// conn returns the node's outgoing connection for k, opening it (a TCP
// connection, or a UDP socket for a datagram transport) on first use.
func (n *node) conn(k outKey) *outConn {
	if c, ok := n.out[k]; ok {
		return c
	}
	rt := n.rt
	tc := rt.ncfg.Transports[k.transport]
	capacity := rt.trs.QueueCap(k.transport)
	if capacity < 0 {
		capacity = 1 << 12
	}
	c := &outConn{ch: make(chan frame, capacity)}
	n.out[k] = c
	addr := rt.addrs[k.to][k.transport]
	go func() {
		conn, err := rt.dial(tc.Kind, addr)
		if err != nil {
			rt.broken(n, k.transport, k.to, err)
			return
		}
		rt.addCloser(conn)
		var w io.Writer = conn
		bw := bufio.NewWriter(conn)
		if tc.Kind == netmodel.Reliable {
			w = bw
		}
		var buf []byte
		for {
			var f frame
			select {
			case f = <-c.ch:
			case <-rt.done:
				return
			}
			buf = f.encode(buf[:0])
			if tc.Kind != netmodel.Reliable && len(buf) > 65000 {
				buf = buf[:65000]
			}
			if _, err := w.Write(buf); err != nil {
				if tc.Kind == netmodel.Reliable {
					rt.broken(n, k.transport, k.to, err)
					return
				}
				continue // a datagram lost
			}
			if tc.Kind == netmodel.Reliable && len(c.ch) == 0 {
				if err := bw.Flush(); err != nil {
					rt.broken(n, k.transport, k.to, err)
					return
				}
			}
		}
	}()
	return c
}

// dial connects to addr. With Peers the peer's process may not listen
// yet: a refused connection is retried every 20 ms until the run ends.
func (rt *runtime) dial(kind netmodel.Kind, addr string) (net.Conn, error) {
	network := "udp"
	if kind == netmodel.Reliable {
		network = "tcp"
	}
	for {
		conn, err := net.Dial(network, addr)
		if err == nil || rt.codec == nil {
			return conn, err
		}
		select {
		case <-rt.done:
			return nil, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (c *outConn) send(rt *runtime, f frame) {
	select {
	case c.ch <- f:
	case <-rt.done:
	}
}

// ctx is a handler's timedsim.Context.
type ctx struct {
	n    *node
	now  time.Duration
	dead bool
}

func (c *ctx) Self() timedsim.NodeID { return c.n.id }
func (c *ctx) Nodes() int            { return c.n.rt.sc.Nodes }
func (c *ctx) Now() time.Duration    { return c.now }
func (c *ctx) Rand() *rand.Rand      { return c.n.rng }
func (c *ctx) Logf(string, ...any)   {}
func (c *ctx) Note(text string) {
	if err := timedsim.CheckNote(text); err != nil {
		panic(err.Error())
	}
}

func (c *ctx) Send(to timedsim.NodeID, msg timedsim.Message) error {
	return c.SendOn(c.n.rt.ncfg.Transports[0].Name, to, msg)
}

func (c *ctx) SendOn(transport string, to timedsim.NodeID, msg timedsim.Message) error {
	n := c.n
	if c.dead {
		return errors.New("realnet: Send after the handler returned")
	}
	t := sendTransport(n.rt.trs, n.rt.sc.Nodes, transport, to)
	k := outKey{t, to}
	n.nextID++
	s := Send{To: int32(to), Transport: transport, ID: n.nextID, Label: Label(msg)}
	queued := n.pending[k]
	if oc, ok := n.out[k]; ok {
		queued += len(oc.ch)
	}
	if !n.rt.trs.Admits(t, queued) {
		s.Err = ErrKindQueueFull
		n.ev.Sends = append(n.ev.Sends, s)
		// Unlike the simulators, realnet records the error event whether
		// or not the service handles errors (Refused's upcall), as its
		// traces always have and Replay expects.
		te, _ := n.rt.trs.Refused(n.svc, t, to, timedsim.ErrQueueFull, msg)
		n.errs = append(n.errs, inEvent{kind: inError, from: to, transport: t, id: s.ID, msg: msg, err: timedsim.ErrQueueFull})
		return te
	}
	n.pending[k]++
	n.ev.Sends = append(n.ev.Sends, s)
	n.sends = append(n.sends, pendingSend{key: k, id: s.ID, msg: msg})
	return nil
}

func (c *ctx) SetTimer(name string, after time.Duration, data any) {
	timedsim.TimerLabel(name) // a bad name panics, as in the simulators
	n := c.n
	after = max(after, 0)
	n.gen++
	n.timers[name] = timerState{gen: n.gen, data: data}
	n.starts = append(n.starts, timerStart{name, n.gen, after})
	n.ev.Timers = append(n.ev.Timers, TimerOp{Set: name, AfterNS: int64(after)})
}

func (c *ctx) CancelTimer(name string) {
	timedsim.TimerLabel(name)
	delete(c.n.timers, name)
	c.n.ev.Timers = append(c.n.ev.Timers, TimerOp{Cancel: name})
}

func (c *ctx) TimerPending(name string) bool {
	timedsim.TimerLabel(name)
	_, ok := c.n.timers[name]
	return ok
}

// world is the stopping condition's view of a real run (read under the
// exclusive state lock).
type world struct{ rt *runtime }

func (w world) Nodes() int                               { return len(w.rt.nodes) }
func (w world) Node(id timedsim.NodeID) timedsim.Service { return w.rt.nodes[id].svc }
func (w world) Now() time.Duration {
	return time.Duration(float64(time.Since(w.rt.start)) / w.rt.scale)
}
func (w world) Steps() int { return int(w.rt.events.Load()) }
func (w world) TimerPending(id timedsim.NodeID, name string) bool {
	_, ok := w.rt.nodes[id].timers[name]
	return ok
}

// Label is a message's event label, as the simulator names it ("Join",
// or a Labeler's MessageLabel): timedsim.MessageLabel, which panics on a
// label the simulator refuses.
func Label(msg timedsim.Message) string { return timedsim.MessageLabel(msg) }

// recSource is a node's PCG stream, recording every value drawn.
type recSource struct {
	pcg *rand.PCG
	out *[]uint64
}

func (r *recSource) Uint64() uint64 {
	v := r.pcg.Uint64()
	*r.out = append(*r.out, v)
	return v
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func (n *node) openTrace() error {
	rt := n.rt
	if err := os.MkdirAll(rt.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("realnet: %w", err)
	}
	f, err := os.Create(filepath.Join(rt.cfg.Dir, NodeFileName(int(n.id))))
	if err != nil {
		return fmt.Errorf("realnet: %w", err)
	}
	n.file, n.rec = f, bufio.NewWriterSize(f, 16<<10)
	h := Header{Format: Format, Version: Version, System: rt.cfg.System, Variant: rt.cfg.Variant, Params: rt.cfg.Params,
		Nodes: rt.sc.Nodes, Node: int(n.id), Run: rt.cfg.Run, Seed: rt.cfg.Seed, TimeScale: rt.scale}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("realnet: %w", err)
	}
	n.rec.Write(append(b, '\n'))
	return nil
}

func (n *node) write(e *Event) error {
	n.enc = append(appendEvent(n.enc[:0], e), '\n')
	_, err := n.rec.Write(n.enc)
	return err
}

func (n *node) closeTrace(stopped bool) error {
	var e End
	e.End.Events, e.End.Stopped = n.seq, stopped
	b, _ := json.Marshal(e)
	n.rec.Write(append(b, '\n'))
	err := n.rec.Flush()
	if cerr := n.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("realnet: %s: %w", n.file.Name(), err)
	}
	return nil
}

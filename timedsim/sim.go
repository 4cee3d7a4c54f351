package timedsim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
)

// event kinds
const (
	evInit uint8 = iota
	evApp
	evDeliver
	evTimer
	evError
	evReset
	evBreak
	evPartition
	evHeal
)

// anyInc marks an event that is valid whatever the node's incarnation
// (driver events).
const anyInc = ^uint32(0)

// record is a pending event's data; the queue holds its slot index.
type record struct {
	kind  uint8
	node  int32
	from  int32
	label int32 // label id (deliver: message type label; timer: timer label)
	timer int32 // timer kind id (timers)
	inc   uint32
	tk    netmodel.Ticket
	tr    int32 // transport index (deliver)
	msg   Message
	data  any // timer/app data, *TransportError, driverEvent index
	name  string
}

type node struct {
	svc    Service
	clock  time.Duration
	inc    uint32
	timers []int32 // per timer kind: pending slot or -1
}

type labelInfo struct {
	name string
	dist edd.Dist
}

type sendOp struct {
	tr    int
	to    int32
	msg   Message
	label int32
	size  int
	fail  error
}

type timerOp struct {
	kind   int32
	cancel bool
	after  time.Duration
	data   any
}

// Simulator runs executions of one scenario (Algorithm 1). It owns its
// world and reuses its memory across executions; it is not safe for
// concurrent use — the Explorer gives each worker its own.
type Simulator struct {
	sc      *Scenario
	opts    Options
	eddS    *edd.Set
	net     *netmodel.Network
	ncfg    netmodel.Config
	trNames []string

	nodes []node
	q     queue
	recs  []record
	free  []int32
	rnd   *stepRand

	// label interning (persists across executions)
	labels    []labelInfo
	msgLabel  map[reflect.Type]int32
	msgName   map[reflect.Type]string
	timerKind map[string]int32
	timerLbl  []int32 // timer kind -> label id
	timerName []string
	appLabel  map[string]int32
	errLabel  map[string]int32
	fixedLbl  map[string]int32
	compIdx   map[uint64]int32
	compName  []string

	// per-execution state
	counts     []int32
	compCounts []int32
	real       [][]time.Duration
	steps      int
	now        time.Duration
	drv        Driver

	// per-handler state
	ctx      nodeCtx
	sends    []sendOp
	tops     []timerOp
	sentLbls []int32
	logs     []string
	ev       *TimedEvent
	events   []TimedEvent
}

// NewSimulator prepares a simulator for sc.
func NewSimulator(sc *Scenario, opts Options) (*Simulator, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	ncfg := sc.Network.WithDefaults()
	net, err := netmodel.New(ncfg, sc.Nodes)
	if err != nil {
		return nil, err
	}
	s := &Simulator{
		sc: sc, opts: opts, net: net, ncfg: ncfg,
		eddS:      opts.EDD,
		nodes:     make([]node, sc.Nodes),
		rnd:       newStepRand(),
		msgLabel:  map[reflect.Type]int32{},
		msgName:   map[reflect.Type]string{},
		timerKind: map[string]int32{},
		appLabel:  map[string]int32{},
		errLabel:  map[string]int32{},
		fixedLbl:  map[string]int32{},
		compIdx:   map[uint64]int32{},
	}
	if s.eddS == nil {
		s.eddS = edd.NewSet(edd.DefaultSeed())
	}
	for _, t := range ncfg.Transports {
		s.trNames = append(s.trNames, t.Name)
	}
	s.ctx.s = s
	return s, nil
}

// Scenario returns the simulator's scenario.
func (s *Simulator) Scenario() *Scenario { return s.sc }

// Options returns the simulator's options.
func (s *Simulator) Options() Options { return s.opts }

func (s *Simulator) intern(name string) int32 {
	id := int32(len(s.labels))
	d, _, _ := s.eddS.Lookup(name)
	s.labels = append(s.labels, labelInfo{name: name, dist: d})
	s.counts = append(s.counts, 0)
	s.real = append(s.real, nil)
	return id
}

func (s *Simulator) fixedLabel(name string) int32 {
	if id, ok := s.fixedLbl[name]; ok {
		return id
	}
	id := s.intern(name)
	s.fixedLbl[name] = id
	return id
}

// msgTypeLabel interns "deliver <Type>" for msg's dynamic type.
func (s *Simulator) msgTypeLabel(msg Message) int32 {
	t := reflect.TypeOf(msg)
	if id, ok := s.msgLabel[t]; ok {
		return id
	}
	name := typeName(t)
	s.msgName[t] = name
	id := s.intern("deliver " + name)
	s.msgLabel[t] = id
	return id
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

func (s *Simulator) timerID(name string) int32 {
	if k, ok := s.timerKind[name]; ok {
		return k
	}
	k := int32(len(s.timerName))
	s.timerKind[name] = k
	s.timerName = append(s.timerName, name)
	s.timerLbl = append(s.timerLbl, s.intern("timer "+name))
	return k
}

func (s *Simulator) appID(name string) int32 {
	if id, ok := s.appLabel[name]; ok {
		return id
	}
	id := s.intern("app " + name)
	s.appLabel[name] = id
	return id
}

func (s *Simulator) errID(label string) int32 {
	if id, ok := s.errLabel[label]; ok {
		return id
	}
	id := s.intern(label)
	s.errLabel[label] = id
	return id
}

// composite counts "label → sent type" once per event.
func (s *Simulator) composite(label, sent int32) {
	key := uint64(uint32(label))<<32 | uint64(uint32(sent))
	id, ok := s.compIdx[key]
	if !ok {
		id = int32(len(s.compName))
		s.compIdx[key] = id
		sentName := s.labels[sent].name[len("deliver "):]
		s.compName = append(s.compName, s.labels[label].name+" → "+sentName)
		s.compCounts = append(s.compCounts, 0)
	}
	s.compCounts[id]++
}

func (s *Simulator) alloc() int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	s.recs = append(s.recs, record{})
	return int32(len(s.recs) - 1)
}

func (s *Simulator) release(slot int32) {
	s.recs[slot] = record{}
	s.free = append(s.free, slot)
}

func (s *Simulator) schedule(at time.Duration, r record) int32 {
	slot := s.alloc()
	s.recs[slot] = r
	s.q.push(at, slot)
	return slot
}

func (s *Simulator) resetState(p Path) {
	s.q.reset()
	for i := range s.q.pos {
		s.q.pos[i] = -1
	}
	s.free = s.free[:0]
	for i := len(s.recs) - 1; i >= 0; i-- {
		s.recs[i] = record{}
		s.free = append(s.free, int32(i))
	}
	s.net.Reset()
	for i := range s.counts {
		s.counts[i] = 0
		s.real[i] = s.real[i][:0]
	}
	for i := range s.compCounts {
		s.compCounts[i] = 0
	}
	s.steps = 0
	s.now = 0
	s.events = nil
	s.rnd.reset(p)
	for i := range s.nodes {
		n := &s.nodes[i]
		n.svc = s.sc.New(NodeID(i))
		n.clock = 0
		n.inc = 0
		for k := range n.timers {
			n.timers[k] = -1
		}
	}
}

// Run simulates the execution described by path p. It never panics on a
// user handler's panic: that ends the execution with Outcome Panicked.
func (s *Simulator) Run(p Path) *Result {
	if err := p.Validate(); err != nil {
		panic(err) // caller bug: paths from files are validated on read
	}
	s.resetState(p)
	res := &Result{Path: p}
	s.loop(res)
	s.finish(res)
	return res
}

func (s *Simulator) loop(res *Result) {
	defer func() {
		if v := recover(); v != nil {
			res.Outcome = Panicked
			res.Panic = &PanicInfo{Step: s.steps, Node: NodeID(s.ctx.node), Label: s.labels[s.ctx.label].name,
				Value: fmt.Sprint(v), Stack: string(debug.Stack())}
			if s.ev != nil { // keep the partial event in the log
				s.events = append(s.events, *s.ev)
				s.ev = nil
			}
			res.ExecTime = s.sc.Timeout
		}
	}()
	// Initial events: Init of every node at t=0, then the driver's events.
	initL := s.fixedLabel("init")
	for i := range s.nodes {
		s.schedule(0, record{kind: evInit, node: int32(i), label: initL, inc: 0})
	}
	s.drv = Driver{nodes: s.sc.Nodes, rng: s.rnd.R, events: s.drv.events[:0]}
	if s.sc.Driver != nil {
		s.rnd.driver()
		s.sc.Driver(&s.drv)
	}
	for i, de := range s.drv.events {
		r := record{node: int32(de.node), inc: anyInc, data: i, from: -1}
		switch de.kind {
		case drvApp:
			r.kind, r.label, r.data, r.name = evApp, s.appID(de.name), de.data, de.name
		case drvReset:
			r.kind, r.label = evReset, s.fixedLabel("reset")
		case drvBreak:
			r.kind, r.label, r.from = evBreak, s.fixedLabel("break"), int32(de.peer)
		case drvPartition:
			r.kind, r.label, r.node = evPartition, s.fixedLabel("partition"), 0
		case drvHeal:
			r.kind, r.label, r.node = evHeal, s.fixedLabel("heal"), 0
		}
		if r.node < 0 || int(r.node) >= len(s.nodes) {
			panic(fmt.Sprintf("timedsim: driver scheduled an event for node %d of %d", r.node, len(s.nodes)))
		}
		s.schedule(de.at, r)
	}

	every := s.sc.CheckEvery
	if every < 1 {
		every = 1
	}
	sinceCheck := 0
	for {
		if s.q.len() == 0 {
			res.Outcome = Stalled
			res.ExecTime = s.sc.Timeout
			return
		}
		front := s.q.front()
		if front.at > s.sc.Timeout {
			res.Outcome = TimedOut
			res.ExecTime = s.sc.Timeout
			return
		}
		e := s.q.pop()
		r := &s.recs[e.slot]
		n := &s.nodes[r.node]
		// Stale events: a reset node's timers and messages, messages on a
		// broken connection. They are dropped without being a step.
		if r.inc != anyInc && r.inc != n.inc {
			s.release(e.slot)
			continue
		}
		if s.opts.Semantics == Requeue && n.clock > e.at && r.kind <= evError {
			s.q.push(n.clock, e.slot)
			continue
		}
		if r.kind == evDeliver && !s.net.Delivered(r.tk) {
			s.release(e.slot)
			continue
		}
		if r.kind == evTimer {
			n.timers[r.timer] = -1
		}
		s.exec(e.at, e.slot)
		s.release(e.slot)
		s.steps++
		if s.opts.CheckSafety && len(s.sc.Safety) > 0 {
			for _, prop := range s.sc.Safety {
				if !prop.Check(world{s}) {
					res.Outcome = SafetyViolated
					res.Violation = prop.Name
					res.ExecTime = s.sc.Timeout
					return
				}
			}
		}
		sinceCheck++
		if sinceCheck >= every {
			sinceCheck = 0
			if s.sc.Stop(world{s}) {
				res.Outcome = Finished
				res.ExecTime = s.execTime()
				return
			}
		}
		if s.opts.MaxSteps > 0 && s.steps >= s.opts.MaxSteps {
			res.Outcome = StepLimit
			res.ExecTime = s.sc.Timeout
			return
		}
	}
}

func (s *Simulator) execTime() time.Duration {
	if s.opts.ExecTime == AvgClock {
		var sum time.Duration
		for i := range s.nodes {
			sum += s.nodes[i].clock
		}
		return sum / time.Duration(len(s.nodes))
	}
	return s.now
}

// exec runs one event as step s.steps.
func (s *Simulator) exec(at time.Duration, slot int32) {
	rec := s.recs[slot] // copy: scheduling below may grow s.recs
	r := &rec
	n := &s.nodes[r.node]
	start := at
	if n.clock > start {
		start = n.clock
	}
	s.rnd.step(s.steps)
	s.ctx.node, s.ctx.label, s.ctx.start = r.node, r.label, start
	s.sends, s.tops, s.sentLbls, s.logs = s.sends[:0], s.tops[:0], s.sentLbls[:0], s.logs[:0]
	if s.opts.Record {
		s.ev = &TimedEvent{Step: s.steps, Node: NodeID(r.node), From: None, Label: s.labels[r.label].name, Start: start}
		if r.kind == evDeliver {
			s.ev.From = NodeID(r.from)
		}
	}
	var t0 time.Time
	if s.opts.MeasureRealTime {
		t0 = time.Now()
	}
	timed := true // does the event take handler time on the node?
	switch r.kind {
	case evInit:
		n.svc.Init(&s.ctx)
	case evApp:
		if h, ok := n.svc.(AppHandler); ok {
			h.App(&s.ctx, r.name, r.data)
		}
	case evDeliver:
		n.svc.Deliver(&s.ctx, NodeID(r.from), r.msg)
	case evTimer:
		n.svc.Timer(&s.ctx, s.timerName[r.timer], r.data)
	case evError:
		if h, ok := n.svc.(ErrorHandler); ok {
			h.Error(&s.ctx, r.data.(*TransportError))
		}
	case evReset:
		timed = false
		s.resetNode(start, r.node)
	case evBreak:
		timed = false
		for _, c := range s.net.BreakConns(int(r.node), int(r.from)) {
			s.brokenUpcall(start, c.Transport, c.A, c.B)
			s.brokenUpcall(start, c.Transport, c.B, c.A)
		}
	case evPartition:
		timed = false
		s.partition(start, s.drv.events[r.data.(int)].groups)
	case evHeal:
		timed = false
		s.net.Heal()
	}
	var dur time.Duration
	if timed {
		if s.opts.MeasureRealTime {
			s.real[r.label] = append(s.real[r.label], time.Since(t0))
		}
		dur = s.labels[r.label].dist.Sample(s.rnd.fwR.Float64())
		n.clock = start + dur
	} else if n.clock < start {
		n.clock = start
	}
	end := start + dur
	if end > s.now {
		s.now = end
	}
	s.counts[r.label]++
	s.drain(r.node, r.label, end)
	if s.ev != nil {
		s.ev.Duration = dur
		s.ev.Logs = append([]string(nil), s.logs...)
		s.events = append(s.events, *s.ev)
		s.ev = nil
	}
}

// drain performs the handler's recorded effects at its end time.
func (s *Simulator) drain(src int32, label int32, end time.Duration) {
	n := &s.nodes[src]
	for i := range s.tops {
		op := &s.tops[i]
		for int(op.kind) >= len(n.timers) {
			n.timers = append(n.timers, -1)
		}
		if old := n.timers[op.kind]; old >= 0 {
			s.q.remove(old)
			s.release(old)
			n.timers[op.kind] = -1
		}
		if op.cancel {
			if s.ev != nil {
				s.ev.Timers = append(s.ev.Timers, TimerChange{Name: s.timerName[op.kind], Cancel: true})
			}
			continue
		}
		at := end + op.after
		n.timers[op.kind] = s.schedule(at, record{kind: evTimer, node: src, from: -1, label: s.timerLbl[op.kind], timer: op.kind, inc: n.inc, data: op.data})
		if s.ev != nil {
			s.ev.Timers = append(s.ev.Timers, TimerChange{Name: s.timerName[op.kind], At: at})
		}
	}
	for i := range s.sends {
		op := &s.sends[i]
		dup := false
		for _, l := range s.sentLbls {
			dup = dup || l == op.label
		}
		if !dup {
			s.sentLbls = append(s.sentLbls, op.label)
			s.composite(label, op.label)
		}
		st := netmodel.QueueFull
		var arrive time.Duration
		var tk netmodel.Ticket
		if op.fail == nil {
			arrive, tk, st = s.net.Send(end, op.tr, int(src), int(op.to), op.size, s.rnd.fwR)
		}
		switch st {
		case netmodel.Sent:
			s.schedule(arrive, record{kind: evDeliver, node: op.to, from: src, label: op.label, inc: anyInc, tk: tk, tr: int32(op.tr), msg: op.msg})
		case netmodel.QueueFull, netmodel.Unreachable:
			err := op.fail
			if err == nil { // the pre-check in Send should have caught it
				err = ErrQueueFull
				if st == netmodel.Unreachable {
					err = ErrUnreachable
				}
			}
			s.errorUpcall(end, src, &TransportError{Transport: s.trNames[op.tr], Peer: NodeID(op.to), Err: err, Msg: op.msg})
		}
		if s.ev != nil {
			s.ev.Sends = append(s.ev.Sends, SentMessage{To: NodeID(op.to), Transport: s.trNames[op.tr],
				Type: s.labels[op.label].name[len("deliver "):], Size: op.size, Arrive: arrive, Status: st.String()})
		}
	}
}

func (s *Simulator) errorUpcall(at time.Duration, node int32, te *TransportError) {
	if _, ok := s.nodes[node].svc.(ErrorHandler); !ok {
		return
	}
	s.schedule(at, record{kind: evError, node: node, from: int32(te.Peer), label: s.errID(te.kindLabel()), inc: s.nodes[node].inc, data: te})
}

// brokenUpcall tells node that its connection to peer on transport tr
// broke; the news takes one link latency to arrive.
func (s *Simulator) brokenUpcall(at time.Duration, tr, node, peer int) {
	s.errorUpcall(at+s.ncfg.Latency, int32(node), &TransportError{Transport: s.trNames[tr], Peer: NodeID(peer), Err: ErrConnectionBroken})
}

func (s *Simulator) resetNode(at time.Duration, id int32) {
	n := &s.nodes[id]
	n.inc++
	if n.inc == anyInc {
		n.inc = 0
	}
	for k := range n.timers {
		if old := n.timers[k]; old >= 0 {
			s.q.remove(old)
			s.release(old)
			n.timers[k] = -1
		}
	}
	n.svc = s.sc.New(NodeID(id))
	for _, c := range s.net.ResetNodeConns(int(id)) {
		s.brokenUpcall(at, c.Transport, c.B, int(id))
	}
	s.schedule(at, record{kind: evInit, node: id, from: -1, label: s.fixedLabel("init"), inc: n.inc})
}

func (s *Simulator) partition(at time.Duration, groups [][]int) {
	conns, err := s.net.PartitionConns(groups)
	if err != nil {
		panic(err) // driver bug
	}
	// Connections that cross the new partition broke: both ends are told,
	// once per pair and transport (the list is sorted, so duplicates of the
	// two directions are adjacent).
	for i, c := range conns {
		if i > 0 && conns[i-1] == c {
			continue
		}
		s.brokenUpcall(at, c.Transport, c.A, c.B)
		if c.A != c.B {
			s.brokenUpcall(at, c.Transport, c.B, c.A)
		}
	}
}

func (s *Simulator) finish(res *Result) {
	res.Finished = res.Outcome == Finished
	res.Steps = s.steps
	res.EndTime = s.now
	res.Counts = make(map[string]int)
	for i, c := range s.counts {
		if c > 0 {
			res.Counts[s.labels[i].name] = int(c)
		}
	}
	res.Composite = make(map[string]int)
	for i, c := range s.compCounts {
		if c > 0 {
			res.Composite[s.compName[i]] = int(c)
		}
	}
	res.NodeClocks = make([]time.Duration, len(s.nodes))
	for i := range s.nodes {
		res.NodeClocks[i] = s.nodes[i].clock
	}
	if s.opts.MeasureRealTime {
		res.RealTimes = make(map[string][]time.Duration)
		for i, r := range s.real {
			if len(r) > 0 {
				res.RealTimes[s.labels[i].name] = append([]time.Duration(nil), r...)
			}
		}
	}
	if s.opts.Record {
		res.Events = s.events
		s.events = nil
	}
}

// world is the read-only view handed to stopping conditions.
type world struct{ s *Simulator }

func (w world) Nodes() int             { return len(w.s.nodes) }
func (w world) Node(id NodeID) Service { return w.s.nodes[id].svc }
func (w world) Now() time.Duration     { return w.s.now }
func (w world) Steps() int             { return w.s.steps }
func (w world) TimerPending(id NodeID, name string) bool {
	k, ok := w.s.timerKind[name]
	if !ok {
		return false
	}
	t := w.s.nodes[id].timers
	return int(k) < len(t) && t[k] >= 0
}

// nodeCtx is the Context handed to handlers; one per simulator, re-aimed
// at each event.
type nodeCtx struct {
	s     *Simulator
	node  int32
	label int32
	start time.Duration
}

func (c *nodeCtx) Self() NodeID       { return NodeID(c.node) }
func (c *nodeCtx) Nodes() int         { return len(c.s.nodes) }
func (c *nodeCtx) Now() time.Duration { return c.start }
func (c *nodeCtx) Rand() *rand.Rand   { return c.s.rnd.R }

func (c *nodeCtx) Send(to NodeID, msg Message) error { return c.send(0, to, msg) }

func (c *nodeCtx) SendOn(transport string, to NodeID, msg Message) error {
	for i, n := range c.s.trNames {
		if n == transport {
			return c.send(i, to, msg)
		}
	}
	panic(fmt.Sprintf("timedsim: SendOn: no transport %q in the scenario's network config (have %v)", transport, c.s.trNames))
}

func (c *nodeCtx) send(tr int, to NodeID, msg Message) error {
	s := c.s
	if to < 0 || int(to) >= len(s.nodes) {
		panic(fmt.Sprintf("timedsim: %v sent %T to nonexistent node %d", NodeID(c.node), msg, to))
	}
	op := sendOp{tr: tr, to: int32(to), msg: msg, label: s.msgTypeLabel(msg), size: msg.Size()}
	tc := &s.ncfg.Transports[tr]
	if tc.Kind == netmodel.Reliable {
		if !s.net.Reachable(int(c.node), int(to)) {
			op.fail = ErrUnreachable
		} else if tc.QueueCap >= 0 {
			q := s.net.QueueLen(tr, int(c.node), int(to))
			for i := range s.sends {
				if s.sends[i].tr == tr && s.sends[i].to == op.to && s.sends[i].fail == nil {
					q++
				}
			}
			if q >= tc.QueueCap {
				op.fail = ErrQueueFull
			}
		}
	}
	s.sends = append(s.sends, op)
	if op.fail != nil {
		return &TransportError{Transport: tc.Name, Peer: to, Err: op.fail, Msg: msg}
	}
	return nil
}

func (c *nodeCtx) SetTimer(name string, after time.Duration, data any) {
	if after < 0 {
		after = 0
	}
	c.s.tops = append(c.s.tops, timerOp{kind: c.s.timerID(name), after: after, data: data})
}

func (c *nodeCtx) CancelTimer(name string) {
	c.s.tops = append(c.s.tops, timerOp{kind: c.s.timerID(name), cancel: true})
}

func (c *nodeCtx) TimerPending(name string) bool {
	k := c.s.timerID(name)
	for i := len(c.s.tops) - 1; i >= 0; i-- {
		if c.s.tops[i].kind == k {
			return !c.s.tops[i].cancel
		}
	}
	t := c.s.nodes[c.node].timers
	return int(k) < len(t) && t[k] >= 0
}

func (c *nodeCtx) Logf(format string, args ...any) {
	if c.s.opts.Record {
		c.s.logs = append(c.s.logs, fmt.Sprintf(format, args...))
	}
}

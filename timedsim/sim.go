package timedsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/simtime"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/internal/visible"
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
	// deliver: the sender's incarnation and departure time
	srcInc uint32
	depart time.Duration
	// cause is the step whose handler or fault made the event (-1: the
	// initial Inits and the driver's events), sendIdx a delivered
	// message's index among that step's sends, ready the time the event
	// was scheduled for (TimedEvent.Cause, CauseSend, Ready).
	cause, sendIdx int32
	ready          time.Duration
	tk             netmodel.Ticket
	msg            Message
	data           any // timer/app data, *TransportError, driverEvent index
}

// node is one node's state, 128 bytes: the loop reads the first 64 at
// every event of the node (the service, clock, incarnation and busy-node
// queue), the rest only for timers and resets.
type node struct {
	svc   Service
	clock time.Duration
	inc   uint32
	// Busy-node queue (Requeue semantics): head is the slot of the one
	// waiting-class entry of this node in the heap (-1: none); the later
	// arrivals wait in wait[whead:], off the heap, and are promoted one at
	// a time when the node runs. Re-queueing every waiting event after
	// every handler would cost O(K) heap operations per step for a node
	// with K events waiting (quadratic at an overloaded root).
	head   int32
	wait   []waiter
	whead  int
	resets []time.Duration // resets[k]: when incarnation k ended
	timers []int32         // per timer kind: pending slot or -1
	_      [16]byte        // to 128 bytes, so that the hot half is one cache line
}

// waiter is an event waiting for its busy node, with the re-queue counter
// it got when it arrived: at the same instant, waiting events of different
// nodes run in the order they arrived.
type waiter struct {
	slot int32
	seq  uint64
}

// unqueue removes a pending event from the heap or from its node's wait
// list (a cancelled timer, a reset node's timers).
func (s *Simulator) unqueue(slot int32) {
	if s.q.remove(slot) {
		if n := &s.nodes[s.recs[slot].node]; n.head == slot {
			n.head = -1
		}
		return
	}
	n := &s.nodes[s.recs[slot].node]
	for i := n.whead; i < len(n.wait); i++ {
		if n.wait[i].slot == slot {
			copy(n.wait[i:], n.wait[i+1:])
			n.wait = n.wait[:len(n.wait)-1]
			return
		}
	}
}

// promote puts node id's next waiting event into the heap at the node's
// clock when it has none there: the node ran an event, or its head was
// dropped or cancelled.
func (s *Simulator) promote(id int32, at time.Duration) {
	n := &s.nodes[id]
	if n.head >= 0 || n.whead == len(n.wait) {
		return
	}
	w := n.wait[n.whead]
	n.whead++
	switch {
	case n.whead == len(n.wait):
		n.wait, n.whead = n.wait[:0], 0
	case n.whead > 64 && 2*n.whead > len(n.wait): // a node that never drains
		k := copy(n.wait, n.wait[n.whead:])
		n.wait, n.whead = n.wait[:k], 0
	}
	n.head = w.slot
	s.q.pushWaiting(max(at, n.clock), w.slot, w.seq)
}

type labelInfo struct {
	name string
	dist edd.Dist
	// nothing is the composite id of "name → (nothing)", or -1 until a
	// handler of this label first sends nothing.
	nothing int32
	// notes maps the notes made by handlers of this label to the composite
	// ids of "name → note" (a label has few: a scan beats a map).
	notes []labelNote
}

type labelNote struct{ note, comp int32 }

// Simulator runs executions of one scenario (Algorithm 1). It owns its
// world and reuses its memory across executions; it is not safe for
// concurrent use — the Explorer gives each worker its own.
type Simulator struct {
	sc      *Scenario
	stopFn  func(World) bool // Stop, or the condition NewStop made
	opts    Options
	eddS    *edd.Set
	net     *netmodel.Network
	ncfg    netmodel.Config
	trNames []string // trs.Names()

	nodes []node
	q     queue
	recs  []record
	free  []int32
	rnd   *stepRand

	// descPanic is the execution's first panic of a Describe, recorded
	// (Result.DescribePanic).
	descPanic *PanicInfo

	// label interning (persists across executions)
	labels    []labelInfo
	msgLabel  map[reflect.Type]int32 // or labeledType
	namedLbl  map[string]int32       // Labeler name -> label id
	timerKind map[string]int32
	timerLbl  []int32 // timer kind -> label id
	timerName []string
	appLabel  map[string]int32
	errLabel  map[string]int32
	fixedLbl  map[string]int32
	compIdx   map[uint64]int32 // (label, sent label) -> composite id
	timerComp map[uint64]int32 // (label, timer kind, cancel) -> composite id
	compName  []string
	noteID    map[string]int32
	noteName  []string
	// msgRecent holds the last few entries of msgLabel looked up: a
	// protocol sends few message types, and comparing a type with four
	// costs less than hashing it into the map on every send. It is a
	// memo of msgLabel and is cleared whenever msgLabel is replaced.
	msgRecent recent[reflect.Type]
	// compRecent is the same for compIdx, which every send looks up: it
	// is cleared whenever compIdx is replaced.
	compRecent recent[uint64]

	// per-execution state
	counts     []int32
	compCounts []int32
	winCounts  []int32 // counts of events starting before Options.CountWindow
	winComp    []int32
	real       [][]time.Duration
	steps      int
	now        time.Duration // latest end time of any executed event
	lastEnd    time.Duration // end time of the last executed event
	where      string        // what user code is running (PanicInfo)
	whereNode  NodeID        // the node whose constructor is running
	drv        Driver

	// per-handler state
	ctxs     [ctxRing]atomic.Pointer[nodeCtx] // the Contexts handed to handlers, in turn (late.go)
	ctxMem   [ctxRing]nodeCtx                 // what ctxs points at until a goroutine keeps one
	runs     uint64                           // executions started
	ctxDone  uint64                           // the state of this execution's Contexts whose handler returned
	late     [runMask + 1]atomic.Pointer[nodeCtx]
	start    time.Duration // the running handler's start (the count window)
	cause    int32         // the running step (-1 outside a step): the cause of what it schedules
	nsent    int32         // sends of the running handler so far
	sentLbls []int32       // message labels the current handler sent (composites)
	noted    []int32       // notes the current handler made
	timered  []int32       // timer composites the current handler counted
	ev       *TimedEvent
	events   []TimedEvent

	// the handler watchdog (Options.HandlerTimeout; watchdog.go)
	watch *watch
	hung  bool // an abandoned execution still runs on this simulator

	// snapshots (snapshot.go): the loop pauses when it is about to run
	// step pauseAt (-1: never) and keeps its own state in paused;
	// resume is the loop state a fork starts from; tablesOf is the
	// snapshot whose label tables this simulator's extend.
	pauseAt  int
	paused   bool
	resume   loopState
	tablesOf *Snapshot

	// trs is the service contract's transport rules (rules.go); it is
	// last so that the fields of the hot loop keep their places.
	trs *Transports
}

// newStop returns the scenario's stopping condition, made by NewStop if
// set (a panic there is an error, not a crash).
func newStop(sc *Scenario) (stop func(World) bool, err error) {
	if sc.NewStop == nil {
		return sc.Stop, nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("timedsim: scenario's NewStop panicked: %v", v)
		}
	}()
	if stop = sc.NewStop(); stop == nil {
		return nil, fmt.Errorf("timedsim: scenario's NewStop returned nil")
	}
	return stop, nil
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
	stopFn, err := newStop(sc)
	if err != nil {
		return nil, err
	}
	s := &Simulator{
		sc: sc, stopFn: stopFn, opts: opts, net: net, ncfg: ncfg, trs: NewTransports(ncfg),
		eddS:      opts.EDD,
		nodes:     make([]node, sc.Nodes),
		rnd:       newStepRand(),
		msgLabel:  map[reflect.Type]int32{},
		namedLbl:  map[string]int32{},
		timerKind: map[string]int32{},
		appLabel:  map[string]int32{},
		errLabel:  map[string]int32{},
		fixedLbl:  map[string]int32{},
		compIdx:   map[uint64]int32{},
		timerComp: map[uint64]int32{},
		noteID:    map[string]int32{},
		pauseAt:   -1,
	}
	if s.eddS == nil {
		s.eddS = edd.NewSet(edd.DefaultSeed())
	}
	s.trNames = s.trs.Names()
	for i := range s.ctxs {
		s.ctxMem[i].s = s
		if opts.HandlerTimeout <= 0 {
			s.ctxMem[i].state.Store(ctxLive) // unwatched: always live (late.go)
		}
		s.ctxs[i].Store(&s.ctxMem[i])
	}
	return s, nil
}

// Scenario returns the simulator's scenario.
func (s *Simulator) Scenario() *Scenario { return s.sc }

// Options returns the simulator's options.
func (s *Simulator) Options() Options { return s.opts }

func (s *Simulator) intern(name string) int32 {
	id := int32(len(s.labels))
	d, _, _ := s.eddS.Lookup(name)
	s.labels = append(s.labels, labelInfo{name: name, dist: d, nothing: -1})
	s.counts = append(s.counts, 0)
	s.winCounts = append(s.winCounts, 0)
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

// labeledType marks a message type in msgLabel whose label comes from its
// MessageLabel method (Labeler), looked up per message in namedLbl.
const labeledType = -1

// msgTypeLabel interns "deliver <Type>" for msg's dynamic type, or
// "deliver <MessageLabel()>" for a Labeler.
func (s *Simulator) msgTypeLabel(msg Message) int32 {
	t := reflect.TypeOf(msg)
	id, ok := s.msgRecent.get(t)
	if !ok {
		id, ok = s.msgLabel[t]
		if !ok {
			id = labeledType
			if _, lab := msg.(Labeler); !lab {
				id = s.intern("deliver " + MessageLabel(msg))
			}
			s.msgLabel[t] = id
		}
		s.msgRecent.put(t, id)
	}
	if id != labeledType {
		return id
	}
	name := msg.(Labeler).MessageLabel()
	if id, ok := s.namedLbl[name]; ok {
		return id
	}
	id = s.intern("deliver " + MessageLabel(msg)) // checks name
	s.namedLbl[name] = id
	return id
}

func typeName(t reflect.Type) string {
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
	label := TimerLabel(name) // a bad name panics, in the handler: its finding
	k := int32(len(s.timerName))
	s.timerKind[name] = k
	s.timerName = append(s.timerName, name)
	s.timerLbl = append(s.timerLbl, s.intern(label))
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
	if id, ok := s.compRecent.get(key); ok {
		s.countComposite(id)
		return
	}
	id, ok := s.compIdx[key]
	if !ok {
		id = s.newComposite(CompositeLabel(s.labels[label].name, s.labels[sent].name[len("deliver "):]))
		s.compIdx[key] = id
	}
	s.compRecent.put(key, id)
	s.countComposite(id)
}

// note counts "label → note" once per event (Context.Note).
func (s *Simulator) note(label int32, text string) {
	id, ok := s.noteID[text]
	if !ok {
		if err := CheckNote(text); err != nil {
			panic(err.Error())
		}
		id = int32(len(s.noteName))
		s.noteID[text] = id
		s.noteName = append(s.noteName, text)
	}
	for _, n := range s.noted {
		if n == id {
			return
		}
	}
	s.noted = append(s.noted, id)
	l := &s.labels[label]
	cid := int32(-1)
	for _, ln := range l.notes {
		if ln.note == id {
			cid = ln.comp
			break
		}
	}
	if cid < 0 {
		cid = s.newComposite(CompositeLabel(l.name, text))
		l.notes = append(l.notes, labelNote{note: id, comp: cid})
	}
	s.countComposite(cid)
	if s.ev != nil {
		s.ev.Notes = append(s.ev.Notes, s.noteName[id])
	}
}

// timerEffect counts "label → (set NAME)" or "label → (cancel NAME)" once
// per event (TimerComposite): setting or cancelling a timer is an effect
// of a handler as a send is, and a handler that made one did not do
// nothing.
func (s *Simulator) timerEffect(label, timer int32, cancel bool) {
	key := uint64(uint32(label))<<32 | uint64(uint32(timer))<<1
	if cancel {
		key |= 1
	}
	id, ok := s.timerComp[key]
	if !ok {
		id = s.newComposite(CompositeLabel(s.labels[label].name, TimerComposite(s.timerName[timer], cancel)))
		s.timerComp[key] = id
	}
	for _, t := range s.timered {
		if t == id {
			return
		}
	}
	s.timered = append(s.timered, id)
	s.countComposite(id)
}

// sentNothing counts "label → (nothing)" for a handler that sent no
// message and made no note; its composite id is kept with the label,
// without the map.
func (s *Simulator) sentNothing(label int32) {
	l := &s.labels[label]
	if l.nothing < 0 {
		l.nothing = s.newComposite(CompositeLabel(l.name, SentNothing))
	}
	s.countComposite(l.nothing)
}

func (s *Simulator) newComposite(name string) int32 {
	id := int32(len(s.compName))
	s.compName = append(s.compName, name)
	s.compCounts = append(s.compCounts, 0)
	s.winComp = append(s.winComp, 0)
	return id
}

func (s *Simulator) countComposite(id int32) {
	s.compCounts[id]++
	if s.start < s.opts.CountWindow {
		s.winComp[id]++
	}
}

func (s *Simulator) alloc() int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	if len(s.recs) >= maxSlots {
		panic(fmt.Sprintf("timedsim: more than %d pending events", maxSlots))
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
	r.cause, r.ready = s.cause, at
	s.recs[slot] = r
	s.q.push(at, slot)
	return slot
}

func (s *Simulator) resetState(p Path) {
	s.descPanic = nil
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
		s.winCounts[i] = 0
		s.real[i] = s.real[i][:0]
	}
	for i := range s.compCounts {
		s.compCounts[i] = 0
		s.winComp[i] = 0
	}
	s.steps = 0
	s.newRun()
	s.resume = loopState{}
	s.now, s.lastEnd = 0, 0
	s.events = nil
	s.rnd.reset(p)
	s.where = inConstructor
	for i := range s.nodes {
		n := &s.nodes[i]
		s.whereNode = NodeID(i)
		n.svc = s.sc.New(NodeID(i))
		n.clock = 0
		n.inc = 0
		n.resets = n.resets[:0]
		n.head, n.wait, n.whead = -1, n.wait[:0], 0
		for k := range n.timers {
			n.timers[k] = -1
		}
	}
}

// newRun starts an execution's Contexts (late.go).
func (s *Simulator) newRun() {
	s.runs++
	run := s.runs & runMask
	s.late[run].Store(nil)
	s.ctxDone = run << ctxRunShift
	if s.watch != nil {
		s.ctxDone |= ctxWatched
	}
}

// Run simulates the execution described by path p. A panic in user code —
// a handler, the constructor, the driver, the stopping condition or a
// property — does not escape: the execution ends with Outcome Panicked and
// Result.Panic says where, so the path can be replayed.
func (s *Simulator) Run(p Path) *Result { return s.RunContext(context.Background(), p) }

// RunContext is Run that also ends (with Outcome Interrupted) when ctx is
// cancelled; ctx is polled every few thousand steps, so even a livelocked
// execution can be interrupted.
//
// With Options.HandlerTimeout, a handler that does not return in time ends
// the execution with Outcome Hung; the Simulator cannot run another one.
func (s *Simulator) RunContext(ctx context.Context, p Path) *Result {
	if err := p.Validate(); err != nil {
		panic(err) // caller bug: paths from files are validated on read
	}
	if s.hung {
		panic("timedsim: Simulator reused after an execution hung (Outcome Hung): make a new one")
	}
	if s.opts.HandlerTimeout > 0 {
		return s.runWatched(p, func() *Result { return s.run(ctx, p) })
	}
	return s.run(ctx, p)
}

func (s *Simulator) run(ctx context.Context, p Path) *Result {
	res := &Result{Path: p}
	s.guard(res, func() {
		s.resetState(p)
		if s.opts.Record && s.opts.RecordStates {
			res.InitialStates = make([]string, len(s.nodes))
			for i := range s.nodes {
				res.InitialStates[i] = s.describe(i, -1)
			}
		}
		s.begin()
		s.loop(ctx, res)
	})
	s.checkLate(res)
	s.finish(res)
	return res
}

// Where user code was running, for PanicInfo.
const (
	inConstructor = "constructor"
	inDriver      = "driver"
	inHandler     = "handler"
	inStop        = "stopping condition"
	inSafety      = "safety property"
)

// guard runs f and turns a panic in it into Outcome Panicked.
func (s *Simulator) guard(res *Result, f func()) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		info := &PanicInfo{Where: s.where, Step: s.steps, Node: None, Value: visible.String(fmt.Sprint(v)), Stack: string(debug.Stack())}
		switch s.where {
		case inHandler:
			c := s.ctxs[s.steps&(ctxRing-1)].Load()
			info.Node, info.Label = NodeID(c.node), s.labels[c.label].name
		case inConstructor:
			info.Node = s.whereNode
		}
		res.Outcome, res.Panic, res.ExecTime = Panicked, info, s.sc.Timeout
		// The panicking handler's Context is done.
		if s.watch != nil {
			s.ctxs[s.steps&(ctxRing-1)].Load().done(s.ctxDone)
		}
		if s.ev != nil { // keep the partial event in the log
			s.events = append(s.events, *s.ev)
			s.ev = nil
		}
	}()
	f()
}

// begin schedules an execution's initial events: the Inits, then the
// driver's events.
func (s *Simulator) begin() {
	// Initial events: Init of every node at t=0, then the driver's events.
	s.cause = -1
	initL := s.fixedLabel("init")
	for i := range s.nodes {
		s.schedule(0, record{kind: evInit, node: int32(i), label: initL, inc: 0})
	}
	s.drv = Driver{nodes: s.sc.Nodes, rng: s.rnd.R, events: s.drv.events[:0]}
	if s.sc.Driver != nil {
		s.where = inDriver
		s.rnd.driver()
		s.sc.Driver(&s.drv)
	}
	for i, de := range s.drv.events {
		if s.opts.AppsOnly && de.kind != drvApp {
			continue
		}
		r := record{node: int32(de.node), inc: anyInc, data: i, from: -1}
		switch de.kind {
		case drvApp:
			r.kind, r.label, r.data = evApp, s.appID(de.name), de.data
		case drvReset:
			r.kind, r.label = evReset, s.fixedLabel("reset")
		case drvBreak:
			r.kind, r.label, r.from = evBreak, s.fixedLabel("break"), int32(de.peer)
			if de.peer < 0 || int(de.peer) >= len(s.nodes) {
				panic(fmt.Sprintf("timedsim: driver scheduled a break with node %d of %d", de.peer, len(s.nodes)))
			}
		case drvPartition:
			r.kind, r.label, r.node = evPartition, s.fixedLabel("partition"), 0
		case drvHeal:
			r.kind, r.label, r.node = evHeal, s.fixedLabel("heal"), 0
		}
		if r.node < 0 || int(r.node) >= len(s.nodes) {
			panic(fmt.Sprintf("timedsim: driver scheduled an event for node %d of %d", r.node, len(s.nodes)))
		}
		if de.at < 0 {
			panic(fmt.Sprintf("timedsim: driver scheduled an event at negative time %v", de.at))
		}
		s.schedule(de.at, r)
	}
}

// loopState is what the loop keeps between steps besides the simulator's
// fields (a snapshot's, see pauseAt).
type loopState struct {
	sinceCheck int
	late       bool
}

// loop runs the execution's steps from s.resume (an execution's start, or
// a snapshot's step).
func (s *Simulator) loop(ctx context.Context, res *Result) {
	every := s.sc.CheckEvery
	if every < 1 {
		every = 1
	}
	sinceCheck := s.resume.sinceCheck
	late := s.resume.late // Paper semantics dropped work that ran past the timeout
	// end reports an outcome other than Finished, after a last look at the
	// stopping condition if events ran since it was last evaluated.
	end := func(o Outcome) {
		if o != Interrupted && sinceCheck > 0 && s.stop() {
			res.Outcome, res.ExecTime = Finished, s.execTime()
			return
		}
		res.Outcome, res.ExecTime = o, s.sc.Timeout
		if o == Cut {
			res.ExecTime = s.opts.Deadline
		}
	}
	// Events that start after the deadline end the execution as those
	// after the timeout do, with outcome Cut. A time that saturated at
	// math.MaxInt64 (simtime.Add) is past any timeout, even math.MaxInt64:
	// it means never.
	timeout, past := min(s.sc.Timeout, math.MaxInt64-1), TimedOut
	if d := s.opts.Deadline; d > 0 && d < timeout {
		timeout, past = d, Cut
	}
	for {
		s.q.settle()
		if s.steps == s.pauseAt { // SnapshotAt's step: keep the state for its forks
			s.paused, s.resume = true, loopState{sinceCheck: sinceCheck, late: late}
			return
		}
		if s.q.len() == 0 {
			if late {
				end(past)
			} else {
				end(Stalled)
			}
			return
		}
		if s.steps&0xfff == 0 && ctx.Err() != nil {
			end(Interrupted)
			return
		}
		e := s.q.take() // removed by the first push of the handler, or by settle
		slot := e.slot()
		r := &s.recs[slot]
		n := &s.nodes[r.node]
		// Stale events: a reset node's timers and messages, messages on a
		// broken connection. They are dropped without being a step.
		if r.inc != anyInc && r.inc != n.inc {
			s.drop(slot, e.at)
			continue
		}
		start := e.at
		if r.kind <= evError && n.clock > start {
			if s.opts.Semantics == Requeue {
				// The node is busy: its events wait until it is free, in
				// arrival order (see node.head).
				if n.head < 0 || n.head == slot {
					n.head = slot
					s.q.requeue(n.clock)
				} else {
					s.q.settle()
					n.wait = append(n.wait, waiter{slot: slot, seq: s.q.nextWaitSeq()})
				}
				continue
			}
			start = n.clock
		}
		if start > timeout {
			if e.at > timeout {
				end(past)
				return
			}
			// Paper semantics: this node's work runs past the timeout, but
			// other nodes may still finish the task before it.
			late = true
			s.drop(slot, e.at)
			continue
		}
		if r.kind == evDeliver && (!s.net.Delivered(r.tk) || s.sentAfterCrash(r)) {
			s.drop(slot, e.at)
			continue
		}
		if r.kind == evTimer {
			n.timers[r.timer] = -1
		}
		s.where = inHandler
		node := r.node
		if n.head == slot {
			n.head = -1
		}
		s.exec(start, slot)
		s.release(slot)
		if nd := &s.nodes[node]; nd.whead < len(nd.wait) {
			s.promote(node, 0) // the node is free again: its next waiting event
		}
		s.steps++
		if s.opts.CheckSafety {
			s.where = inSafety
			for _, prop := range s.sc.Safety {
				if prop.Optional {
					continue
				}
				if !prop.Check(world{s}) {
					res.Outcome, res.Violation, res.ExecTime = SafetyViolated, prop.Name, s.sc.Timeout
					return
				}
			}
		}
		sinceCheck++
		if sinceCheck >= every {
			sinceCheck = 0
			if s.stop() {
				res.Outcome, res.ExecTime = Finished, s.execTime()
				return
			}
		}
		if s.opts.MaxSteps > 0 && s.steps >= s.opts.MaxSteps {
			end(StepLimit)
			return
		}
	}
}

func (s *Simulator) stop() bool {
	s.where = inStop
	return s.stopFn(world{s})
}

func (s *Simulator) execTime() time.Duration {
	if s.opts.ExecTime == AvgClock {
		// Σ clock/n without the sum, which overflows for clocks near the
		// end of time: Σ⌊c/n⌋ + ⌊Σ(c mod n)/n⌋ = ⌊Σc/n⌋.
		n := time.Duration(len(s.nodes))
		var q, r time.Duration
		for i := range s.nodes {
			q += s.nodes[i].clock / n
			r += s.nodes[i].clock % n
		}
		return q + r/n
	}
	return s.lastEnd
}

// exec runs one event as step s.steps, starting at start (for a handler,
// the later of its scheduled time and the node's clock; for a driver fault,
// its scheduled time: faults do not wait for busy nodes).
//
// The event's duration is drawn before its handler runs (it depends only on
// the label and the step's framework stream), so the handler's end time is
// known while it runs and its sends and timers are performed as it makes
// them, at that end time. The framework stream's draws are the same as if
// the effects were buffered and drained afterwards: the duration first,
// then the network's draws in send order.
func (s *Simulator) exec(start time.Duration, slot int32) {
	rec := s.recs[slot] // copy: scheduling below may grow s.recs
	r := &rec
	n := &s.nodes[r.node]
	s.rnd.step(s.steps)
	s.cause, s.nsent = int32(s.steps), 0
	timed := r.kind <= evError // handlers take time; driver faults do not
	var dur time.Duration
	if timed {
		dur = s.labels[r.label].dist.Sample(s.rnd.fwR.Float64())
	}
	end := simtime.Add(start, dur) // math.MaxInt64 (never) rather than wrapped around
	c := s.ctxs[s.steps&(ctxRing-1)].Load()
	watched := timed && s.watch != nil
	if watched {
		c = s.enterWatched(c, r.node, r.label, start, end)
	} else {
		c.node, c.label, c.start, c.end, c.step = r.node, r.label, start, end, s.steps
	}
	s.start = start
	s.sentLbls, s.noted, s.timered = s.sentLbls[:0], s.noted[:0], s.timered[:0]
	if s.opts.Record {
		s.ev = &TimedEvent{Step: s.steps, Node: NodeID(r.node), From: None, Label: s.labels[r.label].name, Start: start, Duration: dur,
			Cause: int(r.cause), CauseSend: -1, Ready: r.ready}
		switch r.kind {
		case evDeliver, evError, evBreak:
			s.ev.From = NodeID(r.from) // sender, failed peer, other end
			if r.kind == evDeliver {
				s.ev.Depart, s.ev.CauseSend = r.depart, int(r.sendIdx)
			}
		case evPartition, evHeal:
			s.ev.Node = None
		}
	}
	var t0 time.Time
	if s.opts.MeasureRealTime && timed {
		t0 = time.Now()
	}
	switch r.kind {
	case evInit:
		n.svc.Init(c)
	case evApp:
		if h, ok := n.svc.(AppHandler); ok {
			h.App(c, s.labels[r.label].name[len("app "):], r.data)
		}
	case evDeliver:
		n.svc.Deliver(c, NodeID(r.from), r.msg)
	case evTimer:
		n.svc.Timer(c, s.timerName[r.timer], r.data)
	case evError:
		if h, ok := n.svc.(ErrorHandler); ok {
			h.Error(c, r.data.(*TransportError))
		}
	case evReset:
		id := r.node
		if pick := s.drv.events[r.data.(int)].pickNode; pick != nil {
			chosen := s.choose(func() NodeID { return pick(world{s}) })
			if chosen == None {
				if s.ev != nil {
					s.ev.Node = None
				}
				break
			}
			if chosen < 0 || int(chosen) >= len(s.nodes) {
				panic(fmt.Sprintf("timedsim: Driver.ResetChosen chose node %d of %d", chosen, len(s.nodes)))
			}
			id = int32(chosen)
			if s.ev != nil {
				s.ev.Node = chosen
			}
		}
		s.resetNode(start, id)
	case evBreak:
		s.broken(start, s.net.BreakConns(int(r.node), int(r.from)), -1)
	case evPartition:
		de := &s.drv.events[r.data.(int)]
		groups := de.groups
		var length time.Duration
		if de.pickGroups != nil || de.pickOutage != nil {
			var chosen [][]NodeID
			s.choose(func() NodeID {
				if de.pickOutage != nil {
					chosen, length = de.pickOutage(world{s}, s.rnd.R)
				} else {
					chosen = de.pickGroups(world{s})
				}
				return None
			})
			if len(chosen) == 0 {
				break
			}
			groups = partitionGroups(len(s.nodes), chosen)
		}
		s.partition(start, groups)
		if de.pickOutage != nil && s.ev != nil {
			heals := "until a heal"
			if length > 0 {
				heals = "for " + units.Duration(length) + ", heals at " + units.Duration(simtime.Add(start, length))
			}
			var cut []string
			for _, g := range groups {
				names := make([]string, len(g))
				for i, n := range g {
					names[i] = NodeID(n).String()
				}
				cut = append(cut, "{"+strings.Join(names, " ")+"}")
			}
			s.ev.Logs = append(s.ev.Logs, fmt.Sprintf("outage: %s cut off %s", strings.Join(cut, " "), heals))
		}
		if length > 0 { // Driver.Outage: its own heal
			s.schedule(simtime.Add(start, length), record{kind: evHeal, label: s.fixedLabel("heal"), node: 0, inc: anyInc, data: -1, from: -1})
		}
	case evHeal:
		s.net.Heal()
	}
	if watched {
		c.done(s.ctxDone) // the handler returned
	}
	if s.opts.MeasureRealTime && timed {
		s.real[r.label] = append(s.real[r.label], time.Since(t0))
	}
	if timed && len(s.sentLbls) == 0 && len(s.noted) == 0 && len(s.timered) == 0 {
		s.sentNothing(r.label)
	}
	if timed && end > n.clock {
		n.clock = end
	}
	if end > s.now {
		s.now = end
	}
	s.lastEnd = end
	s.counts[r.label]++
	if start < s.opts.CountWindow {
		s.winCounts[r.label]++
	}
	if s.ev != nil {
		if s.opts.RecordStates && s.ev.Node != None {
			s.ev.State = s.describe(int(s.ev.Node), s.ev.Step)
		}
		s.events = append(s.events, *s.ev)
		s.ev = nil
	}
}

// choose runs a driver's state-dependent choice (Driver.ResetChosen,
// PartitionChosen, Outage); a panic in it is the driver's.
func (s *Simulator) choose(f func() NodeID) NodeID {
	s.where = inDriver
	id := f()
	s.where = inHandler
	return id
}

// errorUpcall schedules node's Error upcall te (Transports.Refused and
// Broken say which nodes get one).
func (s *Simulator) errorUpcall(at time.Duration, node int32, te *TransportError) {
	s.schedule(at, record{kind: evError, node: node, from: int32(te.Peer), label: s.errID(te.Label()), inc: s.nodes[node].inc, data: te})
}

// broken tells the ends of the broken connections conns (but skip) that
// they broke, as Transports.Broken says; the news takes one link latency
// to arrive.
func (s *Simulator) broken(at time.Duration, conns []netmodel.Conn, skip int) {
	at = simtime.Add(at, s.ncfg.Latency)
	s.trs.Broken(conns, skip, func(node int) Service { return s.nodes[node].svc }, func(node int, te *TransportError) {
		s.errorUpcall(at, int32(node), te)
	})
}

// drop releases a popped event that does not run; if it was its node's
// head of the busy queue, the next waiting event takes its place.
func (s *Simulator) drop(slot int32, at time.Duration) {
	id := s.recs[slot].node
	n := &s.nodes[id]
	s.release(slot)
	if n.head == slot {
		n.head = -1
		s.q.settle()
		s.promote(id, at)
	}
}

func (s *Simulator) resetNode(at time.Duration, id int32) {
	// The reset's own entry leaves the queue now: pushFirst and rewait
	// below must not move anything above a held front.
	s.q.settle()
	n := &s.nodes[id]
	n.resets = append(n.resets, at) // incarnation n.inc ended at `at`
	n.inc++
	if n.inc == anyInc {
		n.inc = 0
	}
	for k := range n.timers {
		if old := n.timers[k]; old >= 0 {
			s.unqueue(old)
			s.release(old)
			n.timers[k] = -1
		}
	}
	s.where, s.whereNode = inConstructor, NodeID(id)
	old := n.svc
	n.svc = s.sc.New(NodeID(id))
	s.where = inHandler
	RecoverDisk(old, n.svc)
	// The new incarnation starts at the reset time: its Init runs before
	// anything else it sees, then the events that were waiting for the old
	// incarnation to be free (driver events, datagrams), in arrival order.
	n.clock = at
	s.q.rewait(at, func(slot int32) bool { return s.recs[slot].node == id })
	slot := s.alloc()
	s.recs[slot] = record{kind: evInit, node: id, from: -1, label: s.fixedLabel("init"), inc: n.inc, cause: s.cause, ready: at}
	s.q.pushFirst(at, slot)
	s.broken(at, s.net.ResetNodeConns(int(id)), int(id))
}

// sentAfterCrash reports whether a delivered message left its sender after
// the sender was reset: a handler that was still running when its node was
// reset has its sends undone (reliable ones are lost with their connection
// anyway; this catches datagrams).
func (s *Simulator) sentAfterCrash(r *record) bool {
	src := &s.nodes[r.from]
	return r.srcInc != src.inc && int(r.srcInc) < len(src.resets) && r.depart > src.resets[r.srcInc]
}

func (s *Simulator) partition(at time.Duration, groups [][]int) {
	conns, err := s.net.PartitionConns(groups)
	if err != nil {
		panic(err) // driver bug
	}
	// Connections that cross the new partition broke: both ends are told,
	// once per pair and transport (the list is sorted, so duplicates of the
	// two directions are adjacent).
	s.broken(at, conns, -1)
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
	if s.opts.CountWindow > 0 {
		res.WindowCounts = make(map[string]int)
		for i, c := range s.winCounts {
			if c > 0 {
				res.WindowCounts[s.labels[i].name] = int(c)
			}
		}
		res.WindowComposite = make(map[string]int)
		for i, c := range s.winComp {
			if c > 0 {
				res.WindowComposite[s.compName[i]] = int(c)
			}
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
		res.FinalStates = make([]string, len(s.nodes))
		for i := range s.nodes {
			res.FinalStates[i] = s.describe(i, s.steps-1)
		}
		res.DescribePanic = s.descPanic
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
	s          *Simulator
	node       int32
	label      int32
	start, end time.Duration
	step       int // the step it was handed out for
	// name and events are what the watchdog reports of a hung handler: its
	// label and the event log before it (Record).
	name   string
	events []TimedEvent
	// state is what a goroutine may read of the Context at any time:
	// whether its handler is running, and which handler and execution it
	// was handed out to (late.go).
	state atomic.Uint64
}

func (c *nodeCtx) Self() NodeID { return NodeID(c.node) }
func (c *nodeCtx) Nodes() int   { return len(c.s.nodes) }
func (c *nodeCtx) Now() time.Duration {
	if !c.alive() {
		return 0
	}
	return c.start
}

func (c *nodeCtx) Rand() *rand.Rand {
	if !c.alive() {
		return rand.New(rand.NewPCG(0, 0)) // not the simulator's: nothing it draws changes the execution
	}
	if ev := c.s.ev; ev != nil { // recording: the draws go into the event
		c.s.rnd.rec.out = &ev.Draws
		return c.s.rnd.recR
	}
	return c.s.rnd.R
}

func (c *nodeCtx) Send(to NodeID, msg Message) error {
	if !c.alive() {
		return ErrAfterReturn
	}
	return c.send(0, to, msg)
}

func (c *nodeCtx) SendOn(transport string, to NodeID, msg Message) error {
	if !c.alive() {
		return ErrAfterReturn
	}
	if i, ok := c.s.trs.Index(transport); ok {
		return c.send(i, to, msg)
	}
	panic(fmt.Sprintf("timedsim: SendOn: no transport %q in the scenario's network config (have %v)", transport, c.s.trs.Names()))
}

// send hands msg to the network at the handler's end time.
func (c *nodeCtx) send(tr int, to NodeID, msg Message) error {
	s := c.s
	if to < 0 || int(to) >= len(s.nodes) {
		panic(fmt.Sprintf("timedsim: %v sent %T to nonexistent node %d", NodeID(c.node), msg, to))
	}
	label := s.msgTypeLabel(msg)
	dup := false
	for _, l := range s.sentLbls {
		dup = dup || l == label
	}
	if !dup {
		s.sentLbls = append(s.sentLbls, label)
		s.composite(c.label, label)
	}
	size := msg.Size()
	arrive, tk, st := s.net.Send(c.end, tr, int(c.node), int(to), size, s.rnd.fwR)
	idx := s.nsent
	s.nsent++
	if s.ev != nil {
		sm := SentMessage{To: to, Transport: s.trNames[tr],
			Type: s.labels[label].name[len("deliver "):], Size: size, Arrive: arrive, Status: st.String()}
		if st == netmodel.Sent {
			d := s.net.LastSend()
			sm.Net = NetDelay{TxStart: d.TxStart, TxEnd: d.TxEnd, Propagation: d.Propagation, Reorder: d.Reorder,
				Quantile: d.Quantile, HeavyFlows: d.HeavyFlows}
		}
		s.ev.Sends = append(s.ev.Sends, sm)
	}
	var err error
	switch st {
	case netmodel.Sent:
		slot := s.schedule(arrive, record{kind: evDeliver, node: int32(to), from: c.node, label: label, inc: anyInc, tk: tk, msg: msg,
			srcInc: s.nodes[c.node].inc, depart: c.end})
		s.recs[slot].sendIdx = idx
		return nil
	case netmodel.Dropped: // a datagram lost in the network: the sender cannot know
		return nil
	case netmodel.QueueFull:
		err = ErrQueueFull
	default:
		err = ErrUnreachable
	}
	return c.refused(tr, to, err, msg)
}

// refused is a send that transport tr refused with err, as
// Transports.Refused says: the error Send returns, and an upcall if the
// node handles errors. It is kept out of send, whose common path is the
// hot loop's.
//
//go:noinline
func (c *nodeCtx) refused(tr int, to NodeID, err error, msg Message) error {
	s := c.s
	te, upcall := s.trs.Refused(s.nodes[c.node].svc, tr, to, err, msg)
	if upcall {
		s.errorUpcall(c.end, c.node, te)
	}
	return te
}

func (c *nodeCtx) timerSlot(name string) (kind int32, slot *int32) {
	k := c.s.timerID(name)
	n := &c.s.nodes[c.node]
	for int(k) >= len(n.timers) {
		n.timers = append(n.timers, -1)
	}
	return k, &n.timers[k]
}

func (c *nodeCtx) SetTimer(name string, after time.Duration, data any) {
	if !c.alive() {
		return
	}
	if after < 0 {
		after = 0
	}
	s := c.s
	k, slot := c.timerSlot(name)
	if *slot >= 0 {
		s.unqueue(*slot)
		s.release(*slot)
	}
	s.timerEffect(c.label, k, false)
	at := simtime.Add(c.end, after) // a timer beyond the end of time fires never, not in the past
	*slot = s.schedule(at, record{kind: evTimer, node: c.node, from: -1, label: s.timerLbl[k], timer: k, inc: s.nodes[c.node].inc, data: data})
	if s.ev != nil {
		s.ev.Timers = append(s.ev.Timers, TimerChange{Name: name, At: at})
	}
}

func (c *nodeCtx) CancelTimer(name string) {
	if !c.alive() {
		return
	}
	s := c.s
	k, slot := c.timerSlot(name)
	if *slot >= 0 {
		s.unqueue(*slot)
		s.release(*slot)
		*slot = -1
	}
	s.timerEffect(c.label, k, true)
	if s.ev != nil {
		s.ev.Timers = append(s.ev.Timers, TimerChange{Name: name, Cancel: true})
	}
}

func (c *nodeCtx) TimerPending(name string) bool {
	if !c.alive() {
		return false
	}
	_, slot := c.timerSlot(name)
	return *slot >= 0
}

func (c *nodeCtx) Note(text string) {
	if !c.alive() {
		return
	}
	if c.s.opts.IgnoreNotes {
		if err := CheckNote(text); err != nil {
			panic(err.Error()) // the same caller bug either way
		}
		return
	}
	c.s.note(c.label, text)
}

func (c *nodeCtx) Logf(format string, args ...any) {
	if !c.alive() {
		return
	}
	if c.s.ev != nil {
		c.s.ev.Logs = append(c.s.ev.Logs, visible.String(fmt.Sprintf(format, args...))) // one line of the event log
	}
}

// describe is Describe of node i's service after step (-1: before the
// first), for the recorded states. A Describe that panics does not crash
// the run nor change its outcome (the execution is the same recorded or
// not): its text says so, "<Describe panicked: …>", and the first such
// panic is Result.DescribePanic (s.descPanic until the end), which
// locates it.
func (s *Simulator) describe(i, step int) (out string) {
	defer func() {
		if v := recover(); v != nil {
			val := visible.String(fmt.Sprint(v))
			out = "<Describe panicked: " + val + ">"
			if s.descPanic == nil {
				s.descPanic = &PanicInfo{Where: "Describe", Step: step, Node: NodeID(i), Value: val, Stack: string(debug.Stack())}
			}
		}
	}()
	return Describe(s.nodes[i].svc)
}

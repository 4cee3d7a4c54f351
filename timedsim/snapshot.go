package timedsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// Snapshots: MacePC's divergence search asks, for a prefix of p steps of
// an execution, whether some random continuation recovers, with k walks
// that all replay the same p steps before their own continuations (each a
// Path.Branch at p). A Snapshot is the simulator's state after those p
// steps, taken once; every walk forks from it and simulates only its
// continuation. A fork's result is the replay's, byte for byte: the step
// randomness is counter-based (stepRand), so nothing before step p
// depends on the branch's seed, and the snapshot holds everything else
// the simulation carries from one step to the next — the event queue and
// its records, the network's flows and queues, the nodes' clocks,
// incarnations, timers and busy queues, the counters, the driver's
// events and the loop's own state. The services' state is copied through
// Cloner; a scenario whose services do not implement it cannot be
// snapshot (ErrNotForkable) and its walks replay their prefixes.

// Cloner is implemented by services whose state a Snapshot can copy.
// Clone returns a deep copy of the service: a value that shares no
// mutable state with the receiver, so that either can run on without the
// other seeing it. A stopping condition or property that type-asserts the
// service must see the same type in the copy.
//
// A snapshot shares the messages in flight and the timer and application
// data between the executions forked from it (as a replay shares nothing,
// it re-creates them): a Cloner's handlers must not modify a message or
// timer data they are handed, nor keep it and modify it later. Each
// bundled system's tests check its Clone against replay
// (macepctest.CheckFork).
type Cloner interface {
	Clone() Service
}

// ErrNotForkable is the error of SnapshotAt for a scenario whose services
// do not implement Cloner (or a Cloner whose Clone panicked): its
// executions can only be replayed.
var ErrNotForkable = errors.New("timedsim: the services cannot be snapshot (they do not implement timedsim.Cloner)")

// Snapshot is a simulator's state after the first Steps steps of an
// execution, made by SnapshotAt, from which RunFrom forks executions that
// follow the same path for those steps. It is immutable: any number of
// simulators (of the same scenario and options) may fork from it, one
// goroutine each, at the same time.
type Snapshot struct {
	sc    *Scenario
	opts  Options
	path  Path
	steps int
	// end is the execution's result when it ended within its first
	// steps steps (then its forks all end so too); nil otherwise.
	end *Result

	nodes      []node // services are the snapshot's own copies
	q          queue
	recs       []record
	free       []int32
	net        *netmodel.Network
	counts     []int32
	compCounts []int32
	winCounts  []int32
	winComp    []int32
	real       [][]time.Duration
	now        time.Duration
	lastEnd    time.Duration
	resume     loopState
	drv        []driverEvent
	tables     labelTables
	// recorded executions (Options.Record): the prefix's event log and
	// initial states, and a Describe's panic in it
	events    []TimedEvent
	initial   []string
	descPanic *PanicInfo
}

// Steps is the number of steps the snapshot follows its path for.
func (sn *Snapshot) Steps() int { return sn.steps }

// Path is the path the snapshot was taken on.
func (sn *Snapshot) Path() Path { return sn.path }

// Ended reports whether the execution ended within the snapshot's steps:
// every fork then has the same result.
func (sn *Snapshot) Ended() bool { return sn.end != nil }

// labelTables are a simulator's interned labels, timer kinds and notes,
// whose ids the snapshot's records and counters hold.
type labelTables struct {
	labels    []labelInfo
	msgLabel  map[reflect.Type]int32
	namedLbl  map[string]int32
	timerKind map[string]int32
	timerLbl  []int32
	timerName []string
	appLabel  map[string]int32
	errLabel  map[string]int32
	fixedLbl  map[string]int32
	compIdx   map[uint64]int32
	timerComp map[uint64]int32
	compName  []string
	noteID    map[string]int32
	noteName  []string
}

// Forkable reports whether sc's services implement Cloner: the ones its
// constructor builds for every node (a Stack's layers too).
func Forkable(sc *Scenario) bool {
	ok := true
	func() {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		for i := range sc.Nodes {
			svc := sc.New(NodeID(i))
			if _, c := svc.(Cloner); !c {
				ok = false
				return
			}
			if st, isStack := svc.(*Stack); isStack && !st.forkable() {
				ok = false
				return
			}
		}
	}()
	return ok
}

// SnapshotAt runs the first steps steps of path p and returns the state
// after them. If the execution ends within those steps (it finishes,
// times out, panics, …) the snapshot holds its result, which every fork
// returns. steps must be at least 1: a branch at step 0 changes the
// driver's randomness, so nothing before step 0 can be shared.
//
// It returns ErrNotForkable for services that are not Cloners, ctx's
// error when ctx is cancelled, and an error when the execution hung
// (Outcome Hung: the Simulator is then unusable), used a Context after
// its handler returned. The caller then replays. With Options.Record the
// snapshot keeps the prefix's event log, which each fork's log starts with.
func (s *Simulator) SnapshotAt(ctx context.Context, p Path, steps int) (*Snapshot, error) {
	if err := p.Validate(); err != nil {
		panic(err) // caller bug, as in RunContext
	}
	switch {
	case steps < 1:
		return nil, fmt.Errorf("timedsim: a snapshot at step %d (a branch at step 0 changes the driver's draws)", steps)
	case s.hung:
		panic("timedsim: Simulator reused after an execution hung (Outcome Hung): make a new one")
	case !Forkable(s.sc):
		return nil, ErrNotForkable
	}
	var snap *Snapshot
	var err error
	body := func() *Result {
		s.pauseAt, s.paused = steps, false
		defer func() { s.pauseAt = -1 }()
		res := s.run(ctx, p)
		if !s.paused {
			if res.Outcome == Interrupted {
				err = ctx.Err()
				if err == nil {
					err = errors.New("timedsim: snapshot interrupted")
				}
				return res
			}
			snap = s.snapshotEnd(p, steps, res)
			return res
		}
		if res.Panic != nil { // checkLate: a Context used after its handler returned
			err = errors.New("timedsim: a Context was used after its handler returned within the snapshot's prefix")
			return res
		}
		snap, err = s.capture(p, steps)
		if snap != nil && s.opts.Record {
			snap.events, snap.initial, snap.descPanic = res.Events, res.InitialStates, res.DescribePanic
		}
		return res
	}
	var res *Result
	if s.opts.HandlerTimeout > 0 {
		res = s.runWatched(p, body)
	} else {
		res = body()
	}
	if res.Outcome == Hung {
		return nil, fmt.Errorf("timedsim: the snapshot's prefix hung at step %d", res.Steps)
	}
	return snap, err
}

// snapshotEnd is the snapshot of an execution that ended within its
// prefix.
func (s *Simulator) snapshotEnd(p Path, steps int, res *Result) *Snapshot {
	return &Snapshot{sc: s.sc, opts: s.opts, path: clonePath(p), steps: steps, end: res}
}

// capture copies the paused simulator's state into a snapshot.
func (s *Simulator) capture(p Path, steps int) (snap *Snapshot, err error) {
	sn := &Snapshot{sc: s.sc, opts: s.opts, path: clonePath(p), steps: steps,
		q:    queue{h: slices.Clone(s.q.h), pos: slices.Clone(s.q.pos), seq: s.q.seq, rseq: s.q.rseq, fseq: s.q.fseq},
		recs: slices.Clone(s.recs), free: slices.Clone(s.free), net: s.net.Clone(),
		counts: slices.Clone(s.counts), compCounts: slices.Clone(s.compCounts),
		winCounts: slices.Clone(s.winCounts), winComp: slices.Clone(s.winComp),
		now: s.now, lastEnd: s.lastEnd, resume: s.resume, drv: slices.Clone(s.drv.events),
		tables: s.copyTables()}
	sn.real = make([][]time.Duration, len(s.real))
	for i, r := range s.real {
		sn.real[i] = slices.Clone(r)
	}
	sn.nodes = make([]node, len(s.nodes))
	for i := range s.nodes {
		svc, err := cloneService(s.nodes[i].svc)
		if err != nil {
			return nil, err
		}
		sn.nodes[i] = copyNode(s.nodes[i], svc, nil)
	}
	return sn, nil
}

// cloneService is svc.Clone(); a service that is not a Cloner, or whose
// Clone panics or returns nil, is ErrNotForkable.
func cloneService(svc Service) (out Service, err error) {
	c, ok := svc.(Cloner)
	if !ok {
		return nil, ErrNotForkable
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: %T's Clone panicked: %v", ErrNotForkable, svc, v)
		}
	}()
	if out = c.Clone(); out == nil {
		return nil, fmt.Errorf("%w: %T's Clone returned nil", ErrNotForkable, svc)
	}
	return out, nil
}

// copyNode is a copy of n with service svc, reusing dst's memory.
func copyNode(n node, svc Service, dst *node) node {
	var d node
	if dst != nil {
		d = *dst
	}
	d.svc, d.clock, d.inc, d.head, d.whead = svc, n.clock, n.inc, n.head, 0
	d.resets = append(d.resets[:0], n.resets...)
	d.timers = append(d.timers[:0], n.timers...)
	d.wait = append(d.wait[:0], n.wait[n.whead:]...)
	return d
}

func clonePath(p Path) Path { return Path{Segments: slices.Clone(p.Segments)} }

// copyTables is a deep copy of s's label tables.
func (s *Simulator) copyTables() labelTables {
	t := labelTables{labels: slices.Clone(s.labels), msgLabel: maps.Clone(s.msgLabel), namedLbl: maps.Clone(s.namedLbl),
		timerKind: maps.Clone(s.timerKind), timerLbl: slices.Clone(s.timerLbl), timerName: slices.Clone(s.timerName),
		appLabel: maps.Clone(s.appLabel), errLabel: maps.Clone(s.errLabel), fixedLbl: maps.Clone(s.fixedLbl),
		compIdx: maps.Clone(s.compIdx), timerComp: maps.Clone(s.timerComp), compName: slices.Clone(s.compName), noteID: maps.Clone(s.noteID), noteName: slices.Clone(s.noteName)}
	for i := range t.labels {
		t.labels[i].notes = slices.Clone(t.labels[i].notes)
	}
	return t
}

// adoptTables makes s's label tables a copy of sn's. Tables only grow
// (an id, once given, names the same thing for good), so a simulator that
// adopted sn's tables before still extends them and keeps its own.
func (s *Simulator) adoptTables(sn *Snapshot) {
	if s.tablesOf == sn {
		return
	}
	t := sn.tables
	s.labels = slices.Clone(t.labels)
	for i := range s.labels {
		s.labels[i].notes = slices.Clone(s.labels[i].notes)
	}
	s.msgLabel, s.namedLbl, s.timerKind = maps.Clone(t.msgLabel), maps.Clone(t.namedLbl), maps.Clone(t.timerKind)
	s.msgRecent = recent[reflect.Type]{} // a memo of the msgLabel just replaced
	s.timerLbl, s.timerName = slices.Clone(t.timerLbl), slices.Clone(t.timerName)
	s.appLabel, s.errLabel, s.fixedLbl = maps.Clone(t.appLabel), maps.Clone(t.errLabel), maps.Clone(t.fixedLbl)
	s.compIdx, s.timerComp, s.compName = maps.Clone(t.compIdx), maps.Clone(t.timerComp), slices.Clone(t.compName)
	s.compRecent = recent[uint64]{} // a memo of the compIdx just replaced
	s.noteID, s.noteName = maps.Clone(t.noteID), slices.Clone(t.noteName)
	n, c := len(t.labels), len(t.compName)
	s.counts, s.winCounts = growTo(s.counts, n), growTo(s.winCounts, n)
	s.compCounts, s.winComp = growTo(s.compCounts, c), growTo(s.winComp, c)
	for len(s.real) < n {
		s.real = append(s.real, nil)
	}
	s.counts, s.winCounts, s.real = s.counts[:n], s.winCounts[:n], s.real[:n]
	s.compCounts, s.winComp = s.compCounts[:c], s.winComp[:c]
	s.tablesOf = sn
}

func growTo(a []int32, n int) []int32 {
	for len(a) < n {
		a = append(a, 0)
	}
	return a
}

// restore puts s in sn's state, to run path p on from it.
func (s *Simulator) restore(sn *Snapshot, p Path) {
	s.adoptTables(sn)
	s.descPanic = sn.descPanic
	s.q.h = append(s.q.h[:0], sn.q.h...)
	s.q.pos = append(s.q.pos[:0], sn.q.pos...)
	s.q.seq, s.q.rseq, s.q.fseq, s.q.held = sn.q.seq, sn.q.rseq, sn.q.fseq, false
	s.recs = append(s.recs[:0], sn.recs...)
	s.free = append(s.free[:0], sn.free...)
	s.net.CopyFrom(sn.net)
	// Counters: the snapshot's, zero for the labels interned since.
	copy(s.counts, sn.counts)
	clear(s.counts[len(sn.counts):])
	copy(s.winCounts, sn.winCounts)
	clear(s.winCounts[len(sn.winCounts):])
	copy(s.compCounts, sn.compCounts)
	clear(s.compCounts[len(sn.compCounts):])
	copy(s.winComp, sn.winComp)
	clear(s.winComp[len(sn.winComp):])
	for i := range s.real {
		var r []time.Duration
		if i < len(sn.real) {
			r = sn.real[i]
		}
		s.real[i] = append(s.real[i][:0], r...)
	}
	s.steps = sn.steps
	s.newRun()
	s.now, s.lastEnd, s.resume = sn.now, sn.lastEnd, sn.resume
	s.events = slices.Clone(sn.events) // nil unless recording
	s.rnd.reset(p)
	s.drv = Driver{nodes: s.sc.Nodes, rng: s.rnd.R, events: append(s.drv.events[:0], sn.drv...)}
	s.where = inHandler
	for i := range s.nodes {
		svc, err := cloneService(sn.nodes[i].svc)
		if err != nil {
			// The snapshot's Clone succeeded on an equal value: a Clone
			// that fails now is the service's bug.
			panic(err)
		}
		s.nodes[i] = copyNode(sn.nodes[i], svc, &s.nodes[i])
	}
}

// RunFrom runs the execution of path p from snapshot sn: the result is
// RunContext(ctx, p)'s, without simulating the snapshot's steps again. p
// must follow sn's path for its first sn.Steps() steps (as
// sn.Path().Branch(sn.Steps(), seed) does), and s must have sn's scenario
// and options; anything else is a caller bug (it panics). See Cloner for
// what a service's Clone must do for the result to be the replay's.
func (s *Simulator) RunFrom(ctx context.Context, sn *Snapshot, p Path) *Result {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	if err := sn.compatible(s, p); err != nil {
		panic(err)
	}
	if s.hung {
		panic("timedsim: Simulator reused after an execution hung (Outcome Hung): make a new one")
	}
	if sn.end != nil {
		return cloneResult(sn.end, p)
	}
	body := func() *Result {
		res := &Result{Path: p, InitialStates: slices.Clone(sn.initial)}
		s.guard(res, func() {
			s.restore(sn, p)
			s.loop(ctx, res)
		})
		s.checkLate(res)
		s.finish(res)
		return res
	}
	if s.opts.HandlerTimeout > 0 {
		return s.runWatched(p, body)
	}
	return body()
}

// compatible says why s cannot fork path p from sn.
func (sn *Snapshot) compatible(s *Simulator, p Path) error {
	switch {
	case s.sc != sn.sc:
		return errors.New("timedsim: RunFrom a snapshot of another scenario")
	case s.opts != sn.opts:
		return errors.New("timedsim: RunFrom a snapshot taken with other options")
	}
	if !SamePrefix(sn.path, p, sn.steps) {
		return fmt.Errorf("timedsim: RunFrom: path %v does not follow the snapshot's path %v for its first %d steps", p, sn.path, sn.steps)
	}
	return nil
}

// SamePrefix reports whether paths a and b draw the same randomness
// before step steps: the same driver seed and the same segments starting
// before steps.
func SamePrefix(a, b Path, steps int) bool {
	na, nb := segmentsBefore(a, steps), segmentsBefore(b, steps)
	return na > 0 && na == nb && slices.Equal(a.Segments[:na], b.Segments[:nb])
}

// segmentsBefore is the number of p's segments that start before step.
func segmentsBefore(p Path, step int) int {
	k := 0
	for k < len(p.Segments) && p.Segments[k].From < step {
		k++
	}
	return k
}

// cloneResult is a fresh copy of a result for path p (a snapshot's ended
// execution, handed to each of its forks).
func cloneResult(r *Result, p Path) *Result {
	c := *r
	c.Path = p
	c.Counts, c.Composite = maps.Clone(r.Counts), maps.Clone(r.Composite)
	c.WindowCounts, c.WindowComposite = maps.Clone(r.WindowCounts), maps.Clone(r.WindowComposite)
	c.NodeClocks = slices.Clone(r.NodeClocks)
	c.Events, c.FinalStates, c.InitialStates = slices.Clone(r.Events), slices.Clone(r.FinalStates), slices.Clone(r.InitialStates)
	if r.RealTimes != nil {
		c.RealTimes = make(map[string][]time.Duration, len(r.RealTimes))
		for k, v := range r.RealTimes {
			c.RealTimes[k] = slices.Clone(v)
		}
	}
	if r.Panic != nil {
		pi := *r.Panic
		c.Panic = &pi
	}
	return &c
}

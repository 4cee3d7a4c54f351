package realnet

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Step is one event of a replay: the merged traces' event at its position.
type Step struct {
	Node  timedsim.NodeID
	Event *Event
	File  string
	Line  int
}

// String names the step's event and where the trace has it.
func (s Step) String() string {
	e := s.Event
	what := e.Kind
	switch e.Kind {
	case KindDeliver:
		what = fmt.Sprintf("deliver %s from n%d", e.Name, e.Peer)
	case KindTimer, KindApp:
		what = e.Kind + " " + e.Name
	case KindError:
		what = fmt.Sprintf("error %s (peer n%d)", e.Err, e.Peer)
	}
	return fmt.Sprintf("%v %s (%s:%d)", s.Node, what, s.File, s.Line)
}

// Merge orders the events of every node's trace consistently with
// happens-before: by Lamport clock, ties by node ID. A node's events keep
// their order (its clock increases), and a delivery follows the send it
// delivers (its clock exceeds the sender's).
func Merge(rt *RunTrace) []Step {
	var out []Step
	for id, t := range rt.Nodes {
		for i := range t.Events {
			out = append(out, Step{Node: timedsim.NodeID(id), Event: &t.Events[i], File: t.File, Line: t.Lines[i]})
		}
	}
	slices.SortStableFunc(out, func(a, b Step) int {
		if c := cmp.Compare(a.Event.Lamport, b.Event.Lamport); c != 0 {
			return c
		}
		return cmp.Compare(a.Node, b.Node)
	})
	return out
}

// Violation is a property that failed in a replay.
type Violation struct {
	Property string
	// Safety properties are checked after every step; liveness properties
	// at the end of the trace.
	Liveness bool
	// Step is the index in the merged order of the event after which the
	// property failed first (the last step for a liveness property).
	Step int
	// Nodes are the nodes of that event: its node, and the sender of a
	// delivery or the peer of an error.
	Nodes []timedsim.NodeID
	// Event is that event.
	Event string
	// Time is the event's real start, since the run's start.
	Time time.Duration
}

// Nondeterminism says where a replay departed from the trace: the
// protocol's code, given the recorded inputs, did not do what the trace
// says it did.
type Nondeterminism struct {
	Step  int
	Node  timedsim.NodeID
	Event string
	What  string
}

func (n *Nondeterminism) Error() string {
	return fmt.Sprintf("realnet: nondeterminism at step %d, %s: %s", n.Step, n.Event, n.What)
}

// ReplayResult is what a replay found.
type ReplayResult struct {
	// Steps is the number of events replayed (all of them, unless
	// Nondeterminism stopped the replay), of Total.
	Steps, Total int
	// Sends are the sends the replayed handlers made, per node in order;
	// each matched the trace's (or Nondeterminism says which did not).
	Sends [][]Send
	// StopStep is the first step after which the stopping condition held,
	// -1 if it never did.
	StopStep int
	// Violations are the first failure of each property, in the order
	// found.
	Violations []Violation
	// Nondeterminism, if not nil, is the first departure from the trace;
	// the replay stopped there.
	Nondeterminism *Nondeterminism
	// States are the nodes' states (timedsim.Describe) after the last
	// step replayed, when ReplayOptions.States asks for them.
	States []string
	// Initial and Recorded, when ReplayOptions.Record asks for them, are
	// each node's state before the first step and, for every step
	// replayed, its node's state after it and the notes its handler made
	// (Recorded[i] is step i). With a Nondeterminism, Recorded also has
	// the departing step, its state as before that step (the handler
	// stopped part way).
	Initial  []string
	Recorded []Recorded
}

// Recorded is what a recording replay saw at one step.
type Recorded struct {
	// State is the step's node's state (timedsim.Describe) after it.
	State string
	// Notes are the handler's ctx.Note texts, in order.
	Notes []string
}

// ReplayOptions configures a replay.
type ReplayOptions struct {
	// Steps, if positive, replays only the first Steps events.
	Steps int
	// Optional names optional properties to check besides the required
	// ones.
	Optional []string
	// States asks for the nodes' states after the last step replayed.
	States bool
	// Record asks for every node's state after every step and the notes
	// of every handler (ReplayResult.Initial and Recorded): what
	// Execution shows in explore.html. It costs a Describe per step.
	Record bool
}

// Replay re-executes a real run's traces on the scenario sc, which must be
// the one the traces were recorded with (same system, variant, parameters
// and node count): each handler runs on the recorded input with the
// recorded draws, in the merged order, and must send what the trace says
// it sent. After every step the scenario's safety properties are checked
// over all nodes' states, at the end its liveness properties.
//
// A stopping condition or property that panics ends the replay with an
// error naming it and the step.
func Replay(sc *timedsim.Scenario, rt *RunTrace, opts ReplayOptions) (res *ReplayResult, err error) {
	where := "the scenario's constructor"
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("realnet: %s panicked: %v", where, p)
		}
	}()
	h := rt.Nodes[0].Header
	if sc.Nodes != h.Nodes {
		return nil, fmt.Errorf("realnet: %s: the traces have %d nodes, the scenario %d", rt.Dir, h.Nodes, sc.Nodes)
	}
	r := &replayer{sc: sc, ncfg: sc.Network.WithDefaults(), trs: timedsim.NewTransports(sc.Network), inflight: map[msgKey]timedsim.Message{}, failed: map[msgKey]*timedsim.TransportError{}}
	r.apps, _ = timedsim.DriverPlan(sc, h.Seed)
	for i := range sc.Nodes {
		r.nodes = append(r.nodes, &rnode{id: timedsim.NodeID(i), svc: sc.New(timedsim.NodeID(i)), timers: map[string]any{}})
	}
	for _, n := range r.nodes {
		n.rng = rand.New(&n.src)
	}
	r.record = opts.Record
	r.res = &ReplayResult{}
	if opts.Record {
		where = "Describe before the first step"
		for _, n := range r.nodes {
			r.res.Initial = append(r.res.Initial, timedsim.Describe(n.svc))
		}
	}
	where = "the replay"
	safety := selectProps(sc.Safety, opts.Optional)
	steps := Merge(rt)
	r.merged = steps
	res = r.res
	res.Total, res.StopStep, res.Sends = len(steps), -1, make([][]Send, sc.Nodes)
	seen := map[string]bool{}
	stop := sc.Stop
	if sc.NewStop != nil {
		stop = sc.NewStop()
	}
	w := rworld{r}
	for i, st := range steps {
		if opts.Steps > 0 && i >= opts.Steps {
			break
		}
		r.step = i
		nd, notes := r.run(st)
		if nd != nil {
			nd.Step, nd.Node, nd.Event = i, st.Node, st.String()
			res.Nondeterminism = nd
			if opts.Record {
				res.Recorded = append(res.Recorded, Recorded{State: r.lastState(st.Node), Notes: notes})
			}
			r.states(res, opts)
			return res, nil
		}
		if opts.Record {
			where = fmt.Sprintf("Describe after step %d", i)
			res.Recorded = append(res.Recorded, Recorded{State: timedsim.Describe(r.nodes[st.Node].svc), Notes: notes})
		}
		res.Steps = i + 1
		r.now = max(r.now, time.Duration(st.Event.NowNS))
		for _, p := range safety {
			where = fmt.Sprintf("safety property %s at step %d", p.Name, i)
			if !seen[p.Name] && !p.Check(w) {
				seen[p.Name] = true
				res.Violations = append(res.Violations, violation(p.Name, false, i, st))
			}
		}
		where = fmt.Sprintf("the stopping condition at step %d", i)
		if res.StopStep < 0 && stop(w) {
			res.StopStep = i
		}
	}
	if res.Steps > 0 && (opts.Steps <= 0 || opts.Steps >= len(steps)) {
		last := steps[res.Steps-1]
		for _, p := range selectProps(sc.Liveness, opts.Optional) {
			where = fmt.Sprintf("liveness property %s at the end", p.Name)
			if !p.Check(w) {
				res.Violations = append(res.Violations, violation(p.Name, true, res.Steps-1, last))
			}
		}
	}
	where = "Describe"
	r.states(res, opts)
	return res, nil
}

// lastState is node id's last recorded state.
func (r *replayer) lastState(id timedsim.NodeID) string {
	for i := len(r.res.Recorded) - 1; i >= 0; i-- {
		if r.merged[i].Node == id {
			return r.res.Recorded[i].State
		}
	}
	return r.res.Initial[id]
}

func (r *replayer) states(res *ReplayResult, opts ReplayOptions) {
	if !opts.States {
		return
	}
	for _, n := range r.nodes {
		res.States = append(res.States, timedsim.Describe(n.svc))
	}
}

func selectProps(ps []timedsim.Property, optional []string) []timedsim.Property {
	var out []timedsim.Property
	for _, p := range ps {
		if !p.Optional || slices.Contains(optional, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

func violation(name string, liveness bool, i int, st Step) Violation {
	v := Violation{Property: name, Liveness: liveness, Step: i, Nodes: []timedsim.NodeID{st.Node}, Event: st.String(), Time: time.Duration(st.Event.StartNS)}
	if st.Event.Peer >= 0 && timedsim.NodeID(st.Event.Peer) != st.Node {
		v.Nodes = append(v.Nodes, timedsim.NodeID(st.Event.Peer))
	}
	return v
}

type replayer struct {
	sc       *timedsim.Scenario
	ncfg     netmodel.Config
	trs      *timedsim.Transports // the service contract's transport rules
	nodes    []*rnode
	apps     []timedsim.AppEvent
	inflight map[msgKey]timedsim.Message         // sent and not yet delivered
	failed   map[msgKey]*timedsim.TransportError // refused sends (queue full), as the send returned them
	res      *ReplayResult
	merged   []Step
	step     int
	now      time.Duration
	record   bool
}

type rnode struct {
	id     timedsim.NodeID
	svc    timedsim.Service
	timers map[string]any
	rng    *rand.Rand
	src    drawSource
	nextID uint64
}

// drawSource hands out the recorded draws of the running handler.
type drawSource struct {
	draws []uint64
	i     int
	over  bool
}

func (d *drawSource) Uint64() uint64 {
	if d.i >= len(d.draws) {
		d.over = true
		return 0
	}
	v := d.draws[d.i]
	d.i++
	return v
}

// errDeparted stops a handler at its first departure from the trace.
var errDeparted = errors.New("departed")

// run replays one step; a non-nil result is a departure from the trace.
// When recording, it also returns the handler's notes.
func (r *replayer) run(st Step) (*Nondeterminism, []string) {
	c, nd := r.runCtx(st)
	if c == nil {
		return nd, nil
	}
	return nd, c.notes
}

func (r *replayer) runCtx(st Step) (c *rctx, nd *Nondeterminism) {
	n := r.nodes[st.Node]
	e := st.Event
	n.src = drawSource{draws: e.Draws}
	c = &rctx{r: r, n: n, e: e, now: time.Duration(e.NowNS)}
	var msg timedsim.Message
	var timerData any
	switch e.Kind {
	case KindDeliver:
		k := msgKey{timedsim.NodeID(e.Peer), e.Msg}
		m, ok := r.inflight[k]
		if !ok {
			return nil, &Nondeterminism{What: fmt.Sprintf("the trace delivers message %d of n%d, which the replay did not send (or delivered already)", e.Msg, e.Peer)}
		}
		if l := Label(m); l != e.Name {
			return nil, &Nondeterminism{What: fmt.Sprintf("message %d of n%d is a %s in the replay, a %s in the trace", e.Msg, e.Peer, l, e.Name)}
		}
		delete(r.inflight, k)
		msg = m
	case KindTimer:
		d, ok := n.timers[e.Name]
		if !ok {
			return nil, &Nondeterminism{What: fmt.Sprintf("timer %s fired in the trace but is not pending in the replay", e.Name)}
		}
		delete(n.timers, e.Name)
		timerData = d
	case KindApp:
		if e.App >= len(r.apps) || r.apps[e.App].Name != e.Name || r.apps[e.App].Node != st.Node {
			return nil, &Nondeterminism{What: fmt.Sprintf("app event %d (%s) is not the driver's event %d for this node", e.App, e.Name, e.App)}
		}
	}
	var perr any
	func() {
		defer func() { perr = recover() }()
		switch e.Kind {
		case KindInit:
			n.svc.Init(c)
		case KindDeliver:
			n.svc.Deliver(c, timedsim.NodeID(e.Peer), msg)
		case KindTimer:
			n.svc.Timer(c, e.Name, timerData)
		case KindApp:
			if h, ok := n.svc.(timedsim.AppHandler); ok {
				h.App(c, e.Name, r.apps[e.App].Data)
			}
		case KindError:
			// The upcall of a refused send is the error the send returned
			// (timedsim.Transports.Refused); a broken connection's is
			// Transports.Broken's, for the peer the trace names.
			te := &timedsim.TransportError{Transport: e.Transport, Peer: timedsim.NodeID(e.Peer), Err: timedsim.ErrConnectionBroken}
			if e.Err == ErrKindQueueFull {
				k := msgKey{st.Node, e.Msg}
				te = r.failed[k]
				delete(r.failed, k)
				if te == nil {
					c.depart("the trace reports send %d of n%d refused, which the replay did not refuse", e.Msg, st.Node)
				}
			}
			if h, ok := n.svc.(timedsim.ErrorHandler); ok {
				h.Error(c, te)
			}
		}
	}()
	c.dead = true
	if c.nd != nil {
		return c, c.nd
	}
	if perr != nil {
		return c, &Nondeterminism{What: fmt.Sprintf("the handler panicked in the replay: %v", perr)}
	}
	if c.sent < len(e.Sends) {
		s := e.Sends[c.sent]
		return c, &Nondeterminism{What: fmt.Sprintf("the trace's send %d (%s to n%d) is missing from the replay", s.ID, s.Label, s.To)}
	}
	if c.timerOps < len(e.Timers) {
		return c, &Nondeterminism{What: fmt.Sprintf("the trace's timer operation %+v is missing from the replay", e.Timers[c.timerOps])}
	}
	if n.src.over {
		return c, &Nondeterminism{What: fmt.Sprintf("the handler drew more random values than the %d recorded", len(e.Draws))}
	}
	if n.src.i < len(e.Draws) {
		return c, &Nondeterminism{What: fmt.Sprintf("the handler drew %d random values, the trace has %d", n.src.i, len(e.Draws))}
	}
	return c, nil
}

// rctx is a replayed handler's Context.
type rctx struct {
	r        *replayer
	n        *rnode
	e        *Event
	now      time.Duration
	sent     int
	timerOps int
	dead     bool
	nd       *Nondeterminism
	notes    []string // when recording
}

func (c *rctx) depart(format string, args ...any) {
	if c.nd == nil {
		c.nd = &Nondeterminism{What: fmt.Sprintf(format, args...)}
	}
	panic(errDeparted)
}

func (c *rctx) Self() timedsim.NodeID { return c.n.id }
func (c *rctx) Nodes() int            { return len(c.r.nodes) }
func (c *rctx) Now() time.Duration    { return c.now }
func (c *rctx) Rand() *rand.Rand      { return c.n.rng }
func (c *rctx) Logf(string, ...any)   {}
func (c *rctx) Note(text string) {
	if err := timedsim.CheckNote(text); err != nil {
		panic(err.Error())
	}
	if c.r.record && !c.dead {
		c.notes = append(c.notes, text)
	}
}

func (c *rctx) Send(to timedsim.NodeID, msg timedsim.Message) error {
	return c.SendOn(c.r.ncfg.Transports[0].Name, to, msg)
}

func (c *rctx) SendOn(transport string, to timedsim.NodeID, msg timedsim.Message) error {
	if c.dead {
		return errors.New("realnet: Send after the handler returned")
	}
	t := sendTransport(c.r.trs, len(c.r.nodes), transport, to)
	c.n.nextID++
	got := Send{To: int32(to), Transport: transport, ID: c.n.nextID, Label: Label(msg)}
	if c.sent >= len(c.e.Sends) {
		c.depart("the replay sends %s to n%d on %s, which the trace does not have", got.Label, to, transport)
	}
	want := c.e.Sends[c.sent]
	got.Err = want.Err
	if got != want {
		c.depart("the replay sends %s to n%d on %s (id %d) where the trace sends %s to n%d on %s (id %d)", got.Label, got.To, got.Transport, got.ID, want.Label, want.To, want.Transport, want.ID)
	}
	c.sent++
	c.r.res.Sends[c.n.id] = append(c.r.res.Sends[c.n.id], got)
	k := msgKey{c.n.id, got.ID}
	if want.Err == ErrKindQueueFull {
		// The real run's queue was full: the replay cannot count it, but
		// refuses the send by the contract's rule, as the run did.
		te, _ := c.r.trs.Refused(c.n.svc, t, to, timedsim.ErrQueueFull, msg)
		c.r.failed[k] = te
		return te
	}
	c.r.inflight[k] = msg
	return nil
}

func (c *rctx) op(got TimerOp) {
	if c.timerOps >= len(c.e.Timers) || c.e.Timers[c.timerOps] != got {
		c.depart("the replay's timer operation %+v is not the trace's", got)
	}
	c.timerOps++
}

func (c *rctx) SetTimer(name string, after time.Duration, data any) {
	timedsim.TimerLabel(name) // a bad name panics, as in the real run
	c.op(TimerOp{Set: name, AfterNS: int64(max(after, 0))})
	c.n.timers[name] = data
}

func (c *rctx) CancelTimer(name string) {
	timedsim.TimerLabel(name)
	c.op(TimerOp{Cancel: name})
	delete(c.n.timers, name)
}

func (c *rctx) TimerPending(name string) bool {
	timedsim.TimerLabel(name)
	_, ok := c.n.timers[name]
	return ok
}

// rworld is the properties' view of a replay.
type rworld struct{ r *replayer }

func (w rworld) Nodes() int                               { return len(w.r.nodes) }
func (w rworld) Node(id timedsim.NodeID) timedsim.Service { return w.r.nodes[id].svc }
func (w rworld) Now() time.Duration                       { return w.r.now }
func (w rworld) Steps() int                               { return w.r.step + 1 }
func (w rworld) TimerPending(id timedsim.NodeID, name string) bool {
	_, ok := w.r.nodes[id].timers[name]
	return ok
}

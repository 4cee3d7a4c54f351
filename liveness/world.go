package liveness

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Event kinds. The kinds before numKinds have a weight of their own
// (Config.Weights); the driver's faults weigh as application events.
type kind uint8

const (
	kindApp kind = iota
	kindDeliver
	kindTimer
	kindError
	kindReset
	kindBreak
	kindDrop
	kindCrash
	kindPartition
	numKinds
	kindScript // the driver's next fault
	kindHeal   // the heal of a driver's outage
)

// kindNames are the weight keys of the kinds (Config.Weights).
func kindNames() [numKinds]string {
	return [numKinds]string{"app", "message", "timer", "error", "reset", "break", "drop", "crash", "partition"}
}

// defaultWeights are Mace's random-walk weights: application 40, message
// 8, timer 1; transport errors count as network events, faults (resets,
// connection breaks, datagram drops, crash-stops, partitions) as rare.
func defaultWeights() [numKinds]int { return [numKinds]int{40, 8, 1, 8, 1, 1, 1, 1, 1} }

// weightKind is the kind whose weight e takes: its own, or the
// application's for the driver's faults, which are the script's as the
// application events are.
func (e event) weightKind() kind {
	if e.kind >= numKinds {
		return kindApp
	}
	return e.kind
}

// event is one enabled event.
type event struct {
	kind kind
	node int32 // the node whose handler runs (break: the lower-numbered end; -1: a driver's fault that names no node)
	idx  int32 // deliver, drop: index in w.conns; timer: index in the node's timers; error: index in w.errs
	pos  int32 // deliver, drop: index in the connection's queue (0 unless datagram); break: the other end
}

type msgRec struct {
	msg   timedsim.Message
	label string // "deliver <Type>"
	desc  string // Describe(msg), rendered lazily
	// sentStep and sentIndex locate the send in a Trace (-1 otherwise).
	sentStep, sentIndex int32
}

// conn is one direction of a connection (reliable: FIFO; datagram: any
// order). A reliable conn exists from the first send until a reset breaks
// it, even when empty, since a reset tells the other end.
type conn struct {
	tr       int32
	src, dst int32
	datagram bool
	q        []msgRec
}

func (c *conn) less(tr, src, dst int32) bool {
	if c.dst != dst {
		return c.dst < dst
	}
	if c.src != src {
		return c.src < src
	}
	return c.tr < tr
}

type timerRec struct {
	name, label string
	data        any
	desc        string
	described   bool
}

type errRec struct {
	node  int32
	te    *timedsim.TransportError
	label string
}

type wnode struct {
	svc       timedsim.Service
	timers    []timerRec // sorted by name
	app       int        // index of the next application event
	desc      string
	described bool
	// fp is the node's fingerprint (Fingerprinter) if fpDone; a step
	// that changes the node clears both caches.
	fp     []byte
	fpDone bool
	// shared: svc is a snapshot's copy (fork.go), which no execution
	// may change: own copies it before a handler runs on the node.
	shared bool
	// crashed: a crash-stop stopped the node for good.
	crashed bool
	// side is the node's side of the lasting partitions (0, or 1+id once
	// a partition cut it off), group its group in the driver's partition
	// (0 when there is none): two nodes communicate when both are equal.
	side, group int32
}

// settings are what a world needs of the Config, resolved.
type settings struct {
	sc       *timedsim.Scenario
	trs      *timedsim.Transports // the service contract's transport rules
	weights  map[string]int       // label overrides
	kindW    [numKinds]int
	unbiased bool
	faults   int
	breaks   int
	drops    int
	crashes  int
	parts    int // Config.Partitions
	safety   []timedsim.Property
	liveness []timedsim.Property
	// describeOnly hashes nodes by Describe alone (Config.describeOnly).
	describeOnly bool
}

// world is the untimed choice-scheduler world of one execution at a time
// (MaceMC's simulator): node services, pending events, and the step
// randomness. Each search worker owns one.
type world struct {
	set   *settings
	drv   schedule
	nodes []wnode
	conns []*conn
	spare []*conn
	errs  []errRec
	// resetsLeft, breaksLeft, dropsLeft, crashesLeft and partsLeft count
	// the faults still allowed in this execution.
	resetsLeft, breaksLeft, dropsLeft, crashesLeft, partsLeft int
	// script is the index of the driver's next fault, heals the number of
	// outages' heals pending.
	script, heals int
	step          int
	// stepNode is the node the running step acted on (a driver's chosen
	// reset's choice), -1 if none.
	stepNode int32

	segs               []timedsim.Segment
	seg                int
	choosePCG, handPCG rand.PCG
	chooseR, handR     *rand.Rand
	en                 []event
	ctx                wctx
	msgLabel           map[reflect.Type]string
	namedLabel         map[string]string // timedsim.Labeler name -> label
	timerLabel         map[string]string
	digest             *xxhash.Digest
	plain              map[reflect.Type]bool
	descs              map[any]string
	log                *[]string // event log, when recording
	tracer             *tracer   // TracePath's recorder, or nil
	panicked           string    // a handler's panic, ending the execution
	prefix             prefixCache
	scratch            []byte
	// describes counts the nodes' descriptions (checkDescribe); nondet is
	// the warning about the first Describe seen not to be deterministic.
	describes int
	nondet    string
	// The step's clock comparisons (timedsim.Elapsed): the answers
	// (bit k: the k-th comparison), given by the path's choice when
	// explicit, else drawn; and how many the step made.
	clockMask     int
	clockExplicit bool
	clockReads    int
}

// maxClockChoices is the number of a step's clock comparisons that are
// choices; later ones in the same step compare the logical clock.
const maxClockChoices = 8

// execChoice runs choice c of the enabled list en as the current step: the
// event c mod len(en), with the clock comparisons' answers c div len(en)
// (bit k for the k-th comparison of the step). It reports false if the
// handler panicked.
func (w *world) execChoice(en []event, c int) bool {
	w.clockMask, w.clockExplicit = c/len(en), true
	return w.execEvent(en[c%len(en)])
}

// execEvent runs e; its clock comparisons are choices drawn from the
// step's stream unless execChoice or choose gave them.
func (w *world) execEvent(e event) bool {
	w.clockReads = 0
	ok := w.exec(e)
	w.clockExplicit = false
	return ok
}

// chooseElapsed answers the step's next clock comparison.
func (w *world) chooseElapsed(since, d time.Duration) bool {
	k := w.clockReads
	w.clockReads++
	if k >= maxClockChoices {
		return logicalTime(w.step)-since >= d
	}
	if w.clockExplicit {
		return w.clockMask>>k&1 == 1
	}
	if w.chooseR.IntN(2) == 1 {
		w.clockMask |= 1 << k
		return true
	}
	return false
}

func newWorld(set *settings, drv schedule) *world {
	w := &world{set: set, drv: drv, msgLabel: map[reflect.Type]string{}, namedLabel: map[string]string{}, timerLabel: map[string]string{}, digest: xxhash.New(),
		plain: map[reflect.Type]bool{}, descs: map[any]string{}}
	w.chooseR = rand.New(&w.choosePCG)
	w.handR = rand.New(&w.handPCG)
	w.ctx.w = w
	w.nodes = make([]wnode, set.sc.Nodes)
	if len(w.drv.apps) < len(w.nodes) { // no driver
		w.drv.apps = make([][]appEvent, len(w.nodes))
	}
	return w
}

// start begins a new execution of path p: fresh services, Init on every
// node in node order (not a step: Inits touch only their own node and
// per-connection queues, so their order does not matter), and no pending
// event but theirs and the driver's.
func (w *world) start(p Path) {
	w.segs, w.seg, w.step = p.Segments, 0, 0
	for _, c := range w.conns {
		w.free(c)
	}
	w.conns = w.conns[:0]
	w.errs = w.errs[:0]
	w.resetsLeft, w.breaksLeft, w.dropsLeft = w.set.faults, w.set.breaks, w.set.drops
	w.crashesLeft, w.partsLeft = w.set.crashes, w.set.parts
	w.script, w.heals = 0, 0
	w.panicked = ""
	for i := range w.nodes {
		w.nodes[i] = wnode{timers: w.nodes[i].timers[:0]}
	}
	// Init draws from the path's driver seed, not its first segment: a
	// branch at prefix 0 (the critical-transition search) re-draws every
	// step but must keep the initial state.
	seed := p.Driver
	for i := range w.nodes {
		w.handPCG.Seed(seed, splitmix64(0x1417a3b25bd0c0a1^uint64(i)))
		if !w.guard(int32(i), func() {
			w.nodes[i].svc = w.set.sc.New(timedsim.NodeID(i))
			w.nodes[i].svc.Init(&w.ctx)
		}) {
			return
		}
	}
}

func (w *world) free(c *conn) {
	c.q = c.q[:0]
	w.spare = append(w.spare, c)
}

// panicText is a panic's value as the liveness mode's outputs show it:
// its hidden characters made visible (package internal/visible), so that
// a line break in it cannot forge a line of an event log.
func panicText(v any) string { return visible.String(fmt.Sprint(v)) }

// guard runs f as node's handler and turns a panic into w.panicked.
func (w *world) guard(node int32, f func()) (ok bool) {
	w.ctx.node = node
	defer func() {
		if v := recover(); v != nil {
			w.panicked = fmt.Sprintf("%v: %s", timedsim.NodeID(node), panicText(v))
			ok = false
		}
	}()
	f()
	return true
}

// enabled lists the enabled events in their canonical order: application
// events (the next of each node that is up, once the driver's faults
// before it have run), the driver's next fault (once the application
// events before it have run) and an outage's pending heal, then messages
// (by destination, sender, transport; a reliable connection offers its
// oldest message only, a datagram one every message), then timers (by
// node and name), transport error upcalls (by node, then age), and the
// chosen faults while their counts last: resets (by node), breaks (by
// pair), drops (like messages), crash-stops (by node) and partitions (by
// node). The list is valid until the next exec.
func (w *world) enabled() []event {
	en := w.en[:0]
	if w.panicked != "" {
		return en
	}
	for i := range w.nodes {
		n := &w.nodes[i]
		if apps := w.drv.apps[i]; !n.crashed && n.app < len(apps) && apps[n.app].faults <= w.script {
			en = append(en, event{kind: kindApp, node: int32(i)})
		}
	}
	if w.script < len(w.drv.faults) && w.scriptReady() {
		e := event{kind: kindScript, node: -1, pos: -1}
		if ev := &w.drv.faults[w.script].ev; ev.Node != timedsim.None {
			e.node, e.pos = int32(ev.Node), int32(ev.Peer)
		}
		en = append(en, e)
	}
	if w.heals > 0 {
		en = append(en, event{kind: kindHeal, node: -1})
	}
	for ci, c := range w.conns {
		if c.datagram {
			for p := range c.q {
				en = append(en, event{kind: kindDeliver, node: c.dst, idx: int32(ci), pos: int32(p)})
			}
		} else if len(c.q) > 0 {
			en = append(en, event{kind: kindDeliver, node: c.dst, idx: int32(ci)})
		}
	}
	for i := range w.nodes {
		for ti := range w.nodes[i].timers {
			en = append(en, event{kind: kindTimer, node: int32(i), idx: int32(ti)})
		}
	}
	for ei, e := range w.errs {
		en = append(en, event{kind: kindError, node: e.node, idx: int32(ei)})
	}
	if w.resetsLeft > 0 {
		for i := range w.nodes {
			if !w.nodes[i].crashed {
				en = append(en, event{kind: kindReset, node: int32(i)})
			}
		}
	}
	if w.breaksLeft > 0 {
		start := len(en)
		for _, c := range w.conns {
			if !c.datagram {
				a, b := min(c.src, c.dst), max(c.src, c.dst)
				if a != b && !slices.ContainsFunc(en[start:], func(e event) bool { return e.node == a && e.pos == b }) {
					en = append(en, event{kind: kindBreak, node: a, pos: b})
				}
			}
		}
		slices.SortFunc(en[start:], func(x, y event) int {
			if x.node != y.node {
				return int(x.node - y.node)
			}
			return int(x.pos - y.pos)
		})
	}
	if w.dropsLeft > 0 {
		for ci, c := range w.conns {
			if c.datagram {
				for p := range c.q {
					en = append(en, event{kind: kindDrop, node: c.dst, idx: int32(ci), pos: int32(p)})
				}
			}
		}
	}
	if w.crashesLeft > 0 {
		for i := range w.nodes {
			if !w.nodes[i].crashed {
				en = append(en, event{kind: kindCrash, node: int32(i)})
			}
		}
	}
	if w.partsLeft > 0 {
		for i := range w.nodes {
			if w.canIsolate(int32(i)) {
				en = append(en, event{kind: kindPartition, node: int32(i)})
			}
		}
	}
	w.en = en
	return en
}

// scriptReady reports whether the driver's next fault may run: every node
// that is up has run its application events before it.
func (w *world) scriptReady() bool {
	f := &w.drv.faults[w.script]
	for i := range w.nodes {
		if n := &w.nodes[i]; !n.crashed && n.app < f.apps[i] {
			return false
		}
	}
	return true
}

// canIsolate reports whether a partition may cut node id off: it is up
// and on the same side as another node that is up.
func (w *world) canIsolate(id int32) bool {
	n := &w.nodes[id]
	if n.crashed {
		return false
	}
	for j := range w.nodes {
		if o := &w.nodes[j]; int32(j) != id && !o.crashed && o.side == n.side {
			return true
		}
	}
	return false
}

// reachable reports whether a message from a can reach b: neither
// partition separates them (a crashed b is checked apart).
func (w *world) reachable(a, b int32) bool {
	x, y := &w.nodes[a], &w.nodes[b]
	return x.side == y.side && x.group == y.group
}

// seedStep seeds the step's two random streams: the scheduler's choice and
// the handler's Context.Rand.
func (w *world) seedStep() {
	for w.seg+1 < len(w.segs) && w.segs[w.seg+1].From <= w.step {
		w.seg++
	}
	s := w.segs[w.seg].Seed
	k := uint64(w.step) << 1
	w.choosePCG.Seed(s, splitmix64(k))
	w.handPCG.Seed(s, splitmix64(k|1))
}

// choose picks the step's event among en (not empty): choices[step] if
// the path has one (with its clock answers: execChoice), else a weighted
// draw. It seeds the step; run the event with execEvent.
func (w *world) choose(en []event, choices []int) (int, error) {
	w.seedStep()
	w.clockMask, w.clockExplicit = 0, false
	if w.step < len(choices) {
		c := choices[w.step]
		if c/len(en) >= 1<<maxClockChoices {
			return 0, fmt.Errorf("liveness: path chooses event %d at step %d, but only %d are enabled (stale path?)", c, w.step, len(en))
		}
		w.clockMask, w.clockExplicit = c/len(en), true
		return c % len(en), nil
	}
	if w.set.unbiased {
		return w.chooseR.IntN(len(en)), nil
	}
	total := 0
	for _, e := range en {
		total += w.weight(e)
	}
	if total == 0 {
		return w.chooseR.IntN(len(en)), nil
	}
	r := w.chooseR.IntN(total)
	for i, e := range en {
		if r -= w.weight(e); r < 0 {
			return i, nil
		}
	}
	panic("unreachable")
}

func (w *world) weight(e event) int {
	if len(w.set.weights) > 0 {
		if v, ok := w.set.weights[w.label(e)]; ok {
			return v
		}
	}
	return w.set.kindW[e.weightKind()]
}

// label is the event's label, as in timedsim: "app join", "deliver Join",
// "timer recovery", "error broken", "reset"; the chosen faults are
// "reset", "break", "drop", "crash" and "partition", the driver's
// "driver reset", "driver break", "driver partition" and "driver heal".
func (w *world) label(e event) string {
	switch e.kind {
	case kindApp:
		return w.drv.apps[e.node][w.nodes[e.node].app].label
	case kindDeliver:
		return w.conns[e.idx].q[e.pos].label
	case kindTimer:
		return w.nodes[e.node].timers[e.idx].label
	case kindError:
		return w.errs[e.idx].label
	case kindBreak:
		return "break"
	case kindDrop:
		return "drop"
	case kindCrash:
		return "crash"
	case kindPartition:
		return "partition"
	case kindScript:
		return w.drv.faults[w.script].label
	case kindHeal:
		return "driver heal"
	}
	return "reset"
}

// describeEvent renders an enabled event for logs: "n1 deliver Join from
// n0 Join{Who:n0 Down:false}", with the hidden characters of the
// protocol's text (an application event's name) made visible.
func (w *world) describeEvent(e event) string {
	var b strings.Builder
	if e.node >= 0 {
		b.WriteString(timedsim.NodeID(e.node).String() + " ")
	}
	b.WriteString(w.label(e))
	switch e.kind {
	case kindApp:
		ae := w.drv.apps[e.node][w.nodes[e.node].app]
		if ae.data != nil {
			b.WriteString(" " + safeDescribe(ae.data))
		}
	case kindDeliver:
		c := w.conns[e.idx]
		b.WriteString(" from " + timedsim.NodeID(c.src).String())
		if w.set.trs.Len() > 1 {
			b.WriteString(" on " + w.set.trs.Name(int(c.tr)))
		}
		b.WriteString(" " + w.msgDesc(c, int(e.pos)))
	case kindTimer:
		if t := &w.nodes[e.node].timers[e.idx]; t.data != nil {
			b.WriteString(" " + safeDescribe(t.data))
		}
	case kindError:
		te := w.errs[e.idx].te
		b.WriteString(" peer " + te.Peer.String())
	case kindBreak:
		b.WriteString(" " + timedsim.NodeID(e.pos).String())
	case kindDrop:
		c := w.conns[e.idx]
		b.WriteString(" from " + timedsim.NodeID(c.src).String() + " " + w.msgDesc(c, int(e.pos)))
	case kindPartition:
		b.WriteString(": cut off for good")
	case kindScript:
		ev := &w.drv.faults[w.script].ev
		switch {
		case ev.Kind == timedsim.ScriptBreak:
			b.WriteString(" " + ev.Peer.String())
		case ev.ChooseNode != nil, ev.ChooseGroups != nil:
			b.WriteString(" (chosen by the driver)")
		case ev.ChooseOutage != nil:
			b.WriteString(" (an outage chosen by the driver)")
		case ev.Kind == timedsim.ScriptPartition:
			b.WriteString(" " + groupsText(len(w.nodes), ev.Groups))
		}
	case kindHeal:
		b.WriteString(" (an outage's end)")
	}
	return visible.String(b.String())
}

// groupsText renders a driver's partition: its groups, then the nodes not
// listed, "{n2} {n0 n1}".
func groupsText(nodes int, groups [][]timedsim.NodeID) string {
	listed := make([]bool, nodes)
	var parts []string
	group := func(ids []timedsim.NodeID) {
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = id.String()
		}
		parts = append(parts, "{"+strings.Join(names, " ")+"}")
	}
	for _, g := range groups {
		for _, id := range g {
			if id >= 0 && int(id) < nodes {
				listed[id] = true
			}
		}
		group(g)
	}
	var rest []timedsim.NodeID
	for i, l := range listed {
		if !l {
			rest = append(rest, timedsim.NodeID(i))
		}
	}
	if len(rest) > 0 {
		group(rest)
	}
	return strings.Join(parts, " ")
}

// exec runs event e as the current step. It reports false if the handler
// panicked (w.panicked says how).
func (w *world) exec(e event) bool {
	w.stepNode = e.node
	var n *wnode
	if e.node >= 0 {
		n = &w.nodes[e.node]
		n.described, n.fpDone = false, false
		n.own()
	}
	var ok bool
	switch e.kind {
	case kindApp:
		ae := w.drv.apps[e.node][n.app]
		n.app++
		ok = w.guard(e.node, func() {
			if h, isApp := n.svc.(timedsim.AppHandler); isApp {
				h.App(&w.ctx, ae.name, ae.data)
			}
		})
	case kindDeliver:
		c := w.conns[e.idx]
		m := c.q[e.pos]
		c.q = slices.Delete(c.q, int(e.pos), int(e.pos)+1)
		ok = w.guard(e.node, func() { n.svc.Deliver(&w.ctx, timedsim.NodeID(c.src), m.msg) })
	case kindTimer:
		t := n.timers[e.idx]
		n.timers = slices.Delete(n.timers, int(e.idx), int(e.idx)+1)
		ok = w.guard(e.node, func() { n.svc.Timer(&w.ctx, t.name, t.data) })
	case kindError:
		er := w.errs[e.idx]
		w.errs = slices.Delete(w.errs, int(e.idx), int(e.idx)+1)
		ok = w.guard(e.node, func() {
			if h, isErr := n.svc.(timedsim.ErrorHandler); isErr {
				h.Error(&w.ctx, er.te)
			}
		})
	case kindReset:
		w.resetsLeft--
		ok = w.reset(e.node, true)
	case kindBreak:
		w.breaksLeft--
		w.breakPair(e.node, e.pos)
		ok = true
	case kindDrop:
		w.dropsLeft--
		c := w.conns[e.idx]
		c.q = slices.Delete(c.q, int(e.pos), int(e.pos)+1)
		ok = true
	case kindCrash:
		w.crashesLeft--
		w.crash(e.node)
		ok = true
	case kindPartition:
		w.partsLeft--
		w.nodes[e.node].side = e.node + 1
		w.cut()
		ok = true
	case kindScript:
		f := &w.drv.faults[w.script]
		w.script++
		ok = w.runFault(f)
	case kindHeal:
		w.heals--
		w.heal()
		ok = true
	}
	w.step++
	return ok
}

// breakPair breaks the reliable connections between a and b: their
// messages in flight are lost and both ends are told.
func (w *world) breakPair(a, b int32) {
	w.removeConns(func(c *conn) bool { return !c.datagram && (c.src == a && c.dst == b || c.src == b && c.dst == a) }, -1)
}

// crash is a crash-stop: node id stops for good. No handler of it runs
// again; its timers, pending error upcalls and remaining application
// events are gone, the messages in flight to and from it are lost, and the
// other end of each of its reliable connections gets an
// ErrConnectionBroken upcall, as for a reset. Later sends to it fail as
// sends across a partition do (send).
func (w *world) crash(id int32) {
	n := &w.nodes[id]
	n.crashed = true
	n.timers = n.timers[:0]
	w.errs = slices.DeleteFunc(w.errs, func(e errRec) bool { return e.node == id })
	w.removeConns(func(c *conn) bool { return c.src == id || c.dst == id }, id)
}

// cut applies a new partition: the connections between nodes that can no
// longer reach each other break (their messages in flight are lost, and
// both ends of a reliable one are told), as timedsim's partitions do.
func (w *world) cut() {
	w.removeConns(func(c *conn) bool { return !w.reachable(c.src, c.dst) }, -1)
}

// heal ends the driver's partition (not the lasting ones, which only the
// end of the execution ends).
func (w *world) heal() {
	for i := range w.nodes {
		w.nodes[i].group = 0
	}
}

// runFault runs one of the driver's faults as the timed simulator does
// (timedsim.Driver), with the world's state of this step for the
// driver's choices (ResetChosen, PartitionChosen, Outage) and the step's
// handler randomness for an outage's. A reset keeps the node's place in
// its application events, as in the timed simulator (a chosen reset,
// Config.Faults, restarts them), and does nothing to a crashed node; an
// outage's heal becomes pending (kindHeal), since time is not modelled.
// It reports false if the driver's choice panicked or was out of range,
// or the reset's Init panicked.
func (w *world) runFault(f *scriptFault) bool {
	ev := &f.ev
	switch ev.Kind {
	case timedsim.ScriptReset:
		id := ev.Node
		if ev.ChooseNode != nil {
			if !w.driverGuard(func() { id = ev.ChooseNode(w) }) {
				return false
			}
			w.logf("driver", "reset chooses %v", id)
			if id == timedsim.None {
				return true
			}
			if id < 0 || int(id) >= len(w.nodes) {
				w.panicked = fmt.Sprintf("driver: Driver.ResetChosen chose node %d of %d", id, len(w.nodes))
				return false
			}
			w.stepNode = int32(id)
		}
		if w.nodes[id].crashed {
			w.logf("driver", "%v has crashed for good: no reset", id)
			return true
		}
		return w.reset(int32(id), false)
	case timedsim.ScriptBreak:
		w.breakPair(int32(ev.Node), int32(ev.Peer))
	case timedsim.ScriptPartition:
		groups, heals := ev.Groups, false
		if ev.ChooseGroups != nil || ev.ChooseOutage != nil {
			var length time.Duration
			if !w.driverGuard(func() {
				if ev.ChooseOutage != nil {
					groups, length = ev.ChooseOutage(w, w.handR)
				} else {
					groups = ev.ChooseGroups(w)
				}
			}) {
				return false
			}
			if len(groups) == 0 {
				w.logf("driver", "no partition")
				return true
			}
			if err := checkGroups(len(w.nodes), groups); err != nil {
				w.panicked = "driver: " + err.Error()
				return false
			}
			heals = ev.ChooseOutage != nil && length > 0
			until := "until a heal"
			if heals {
				until = "until its own heal, pending from now on"
			}
			w.logf("driver", "partition %s %s", groupsText(len(w.nodes), groups), until)
		}
		for i := range w.nodes {
			w.nodes[i].group = 0
		}
		for gi, g := range groups {
			for _, id := range g {
				w.nodes[id].group = int32(gi + 1)
			}
		}
		w.cut()
		if heals {
			w.heals++
		}
	case timedsim.ScriptHeal:
		w.heal()
	}
	return true
}

// checkGroups checks a driver's chosen partition as timedsim does: no node
// out of range or listed twice.
func checkGroups(nodes int, groups [][]timedsim.NodeID) error {
	seen := make([]bool, nodes)
	for _, g := range groups {
		for _, id := range g {
			if id < 0 || int(id) >= nodes || seen[id] {
				return fmt.Errorf("Driver.PartitionChosen: node %d out of range [0,%d) or listed twice", id, nodes)
			}
			seen[id] = true
		}
	}
	return nil
}

// driverGuard runs a driver's choice and turns its panic into w.panicked.
func (w *world) driverGuard(f func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			w.panicked = "driver: " + panicText(v)
			ok = false
		}
	}()
	f()
	return true
}

// logf writes a line of who's to the event log, when recording.
func (w *world) logf(who, format string, args ...any) {
	if w.log != nil {
		*w.log = append(*w.log, "    "+who+": "+fmt.Sprintf(format, args...))
	}
}

// removeConns removes the connections that match (their messages in
// flight are lost) and queues the ErrConnectionBroken upcalls of their
// ends but skip (-1: none), as timedsim.Transports.Broken says.
func (w *world) removeConns(match func(c *conn) bool, skip int32) {
	kept := w.conns[:0]
	var broken []netmodel.Conn
	for _, c := range w.conns {
		if !match(c) {
			kept = append(kept, c)
			continue
		}
		if !c.datagram {
			broken = append(broken, netmodel.Conn{Transport: int(c.tr), A: int(c.src), B: int(c.dst)})
		}
		w.free(c)
	}
	w.conns = kept
	var upcalls []errRec
	w.set.trs.Broken(broken, int(skip), func(node int) timedsim.Service { return w.nodes[node].svc }, func(node int, te *timedsim.TransportError) {
		upcalls = append(upcalls, errRec{node: int32(node), te: te, label: te.Label()})
	})
	w.pushBroken(upcalls)
}

// pushBroken queues the upcalls of broken connections in the liveness
// mode's order: by node, peer and transport.
func (w *world) pushBroken(broken []errRec) {
	slices.SortStableFunc(broken, func(a, b errRec) int {
		if a.node != b.node {
			return int(a.node - b.node)
		}
		if a.te.Peer != b.te.Peer {
			return int(a.te.Peer - b.te.Peer)
		}
		return strings.Compare(a.te.Transport, b.te.Transport)
	})
	for _, b := range broken {
		w.pushErr(b)
	}
}

// reset is a fault: node id loses its state (a fresh service from the
// constructor runs Init, after recovering what the old one made durable if
// it is timedsim.Durable), its timers and pending error upcalls, and its
// connections (the messages in flight to and from it are lost, and the
// other end of each reliable connection gets an ErrConnectionBroken
// upcall); with restart, its application restarts from its first driver
// event.
func (w *world) reset(id int32, restart bool) bool {
	n := &w.nodes[id]
	n.timers = n.timers[:0]
	n.described, n.fpDone = false, false
	n.own()
	if restart {
		n.app = 0
	}
	w.errs = slices.DeleteFunc(w.errs, func(e errRec) bool { return e.node == id })
	w.removeConns(func(c *conn) bool { return c.src == id || c.dst == id }, id)
	return w.guard(id, func() {
		old := n.svc
		n.svc = w.set.sc.New(timedsim.NodeID(id))
		timedsim.RecoverDisk(old, n.svc) // what the node had made durable survives
		n.svc.Init(&w.ctx)
	})
}

// pushErr adds an error upcall after the others of its node.
func (w *world) pushErr(e errRec) {
	i := len(w.errs)
	for i > 0 && w.errs[i-1].node > e.node {
		i--
	}
	w.errs = slices.Insert(w.errs, i, e)
}

// send enqueues msg from the running node on transport tr.
func (w *world) send(tr int, to timedsim.NodeID, msg timedsim.Message) error {
	from := w.ctx.node
	if to < 0 || int(to) >= len(w.nodes) {
		panic(fmt.Sprintf("liveness: %v sent %T to nonexistent node %d", timedsim.NodeID(from), msg, to))
	}
	trs := w.set.trs
	name, datagram := trs.Name(tr), trs.Datagram(tr)
	if w.nodes[to].crashed || !w.reachable(from, int32(to)) {
		// A crashed node, or one across a partition: a datagram is lost
		// (the sender cannot know), a reliable send fails as across a
		// timedsim partition.
		label := w.deliverLabel(msg)
		if datagram {
			if w.tracer != nil {
				w.tracer.sent(int32(to), label, name, sendLost)
			}
			return nil
		}
		if w.tracer != nil {
			w.tracer.sent(int32(to), label, name, sendUnreachable)
		}
		return w.refused(tr, to, timedsim.ErrUnreachable, msg)
	}
	i, found := slices.BinarySearchFunc(w.conns, [3]int32{int32(tr), from, int32(to)}, func(c *conn, k [3]int32) int {
		if c.less(k[0], k[1], k[2]) {
			return -1
		}
		if c.tr == k[0] && c.src == k[1] && c.dst == k[2] {
			return 0
		}
		return 1
	})
	if !found {
		var c *conn
		if k := len(w.spare); k > 0 {
			c, w.spare = w.spare[k-1], w.spare[:k-1]
		} else {
			c = &conn{}
		}
		c.tr, c.src, c.dst, c.datagram = int32(tr), from, int32(to), datagram
		w.conns = slices.Insert(w.conns, i, c)
	}
	c := w.conns[i]
	label := w.deliverLabel(msg)
	if !trs.Admits(tr, len(c.q)) {
		if w.tracer != nil {
			w.tracer.sent(int32(to), label, name, sendQueueFull)
		}
		return w.refused(tr, to, timedsim.ErrQueueFull, msg)
	}
	m := msgRec{msg: msg, label: label, sentStep: -1, sentIndex: -1}
	if w.tracer != nil {
		m.sentStep, m.sentIndex = w.tracer.sent(int32(to), label, name, sendOK)
	}
	c.q = append(c.q, m)
	return nil
}

// refused is a send of the running node that transport tr refused with
// err, as timedsim.Transports.Refused says: the error the send returns,
// and an upcall queued if the node handles errors.
func (w *world) refused(tr int, to timedsim.NodeID, err error, msg timedsim.Message) error {
	from := w.ctx.node
	te, upcall := w.set.trs.Refused(w.nodes[from].svc, tr, to, err, msg)
	if upcall {
		w.pushErr(errRec{node: from, te: te, label: te.Label()})
	}
	return te
}

func (w *world) deliverLabel(msg timedsim.Message) string {
	if lab, ok := msg.(timedsim.Labeler); ok {
		if name := lab.MessageLabel(); name != "" {
			l, ok := w.namedLabel[name]
			if !ok {
				// A bad name panics, in the sending handler: its
				// finding, as in the timed simulator. Not cached: every
				// send panics.
				l = "deliver " + timedsim.MessageLabel(msg)
				w.namedLabel[name] = l
			}
			return l
		}
	}
	t := reflect.TypeOf(msg)
	if l, ok := w.msgLabel[t]; ok {
		return l
	}
	l := "deliver " + timedsim.MessageLabel(msg)
	w.msgLabel[t] = l
	return l
}

func (w *world) msgDesc(c *conn, i int) string {
	m := &c.q[i]
	if m.desc == "" {
		m.desc = w.valueDesc(m.msg)
	}
	return m.desc
}

// maxDescCache bounds the cache of descriptions of message and timer
// values.
const maxDescCache = 1 << 16

// valueDesc is safeDescribe(v), cached by value for values of plain types
// (no interfaces, pointers, slices, maps or funcs inside, so that equal
// values describe alike): the stateless DFS re-creates the same messages
// on every path, and describing them dominated the cost of hashing.
func (w *world) valueDesc(v any) string {
	if v == nil {
		return "nil"
	}
	t := reflect.TypeOf(v)
	ok, known := w.plain[t]
	if !known {
		ok = plainType(t)
		w.plain[t] = ok
	}
	if !ok {
		return safeDescribe(v)
	}
	if d, hit := w.descs[v]; hit {
		return d
	}
	d := safeDescribe(v)
	if len(w.descs) < maxDescCache {
		w.descs[v] = d
	}
	return d
}

// plainType reports whether values of t are compared by their contents
// alone: basic kinds, and arrays and structs of them.
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// nodeDesc is node i's Describe text, cached until a step changes the
// node. A Describe that panics ends the execution as a panicking handler
// does (w.panicked: "n1: Describe panicked: …"): the text is the state
// that the search hashes, and one text for every state would make every
// state a duplicate of the first, a false liveness violation.
func (w *world) nodeDesc(i int) string {
	n := &w.nodes[i]
	if !n.described {
		n.desc = w.describeNode(i)
		n.described = true
	}
	return n.desc
}

// describeNode describes node i's service, and now and then
// (checkDescribe) describes it again to see whether Describe is a pure
// function of the state, as state hashing needs: the first node seen to
// give two texts for one state makes w.nondet, the search's warning.
func (w *world) describeNode(i int) string {
	svc := w.nodes[i].svc
	text, p := tryDescribe(svc)
	if p == "" && w.nondet == "" && w.checkDescribe() {
		again, p2 := tryDescribe(svc)
		if p = p2; p == "" && again != text {
			w.nondet = nondetWarning(timedsim.NodeID(i), text, again)
		}
	}
	if p != "" {
		if w.panicked == "" {
			w.panicked = fmt.Sprintf("%v: Describe panicked: %s", timedsim.NodeID(i), p)
		}
		return "<Describe panicked: " + p + ">"
	}
	return text
}

// Describe's determinism is checked on the first describeCheckAll
// descriptions a world makes, then on one in describeCheckEvery: a
// second call on the same state, whose text must be the same. Go
// randomises a map's iteration order at every range loop, so a Describe
// that ranges over a map with a few entries gives two texts within a few
// checks; a sample of the descriptions costs a few percent of their time
// (bench/RESULTS.md), checking them all twice.
const (
	describeCheckAll   = 1024
	describeCheckEvery = 64
)

// checkDescribe counts a description and says whether to check it.
func (w *world) checkDescribe() bool {
	w.describes++
	return w.describes <= describeCheckAll || w.describes%describeCheckEvery == 0
}

// nondetWarning is the warning about node's Describe, which gave a and
// then b for one state: both, from a little before their first
// difference.
func nondetWarning(node timedsim.NodeID, a, b string) string {
	d := 0
	for d < len(a) && d < len(b) && a[d] == b[d] {
		d++
	}
	return fmt.Sprintf("node %v's Describe is not deterministic: two calls on the same state gave different text (a map iterated in Go's random order?): %s, then %s; "+
		"state hashing counts each such state as several, so the search's states are inflated, its duplicates missed, and state diffs can show differences that are not there: "+
		"make Describe (or String) a pure function of the state, sorting what it ranges over", node, excerpt(a, d), excerpt(b, d))
}

// excerpt is s from a little before byte d, at most maxExcerpt bytes of
// it, quoted.
func excerpt(s string, d int) string {
	const before, maxExcerpt = 24, 96
	from := max(0, d-before)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	to := min(len(s), from+maxExcerpt)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to--
	}
	out := `"` + s[from:to] + `"`
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

// tryDescribe is timedsim.Describe of v, or the value of its panic (with
// its hidden characters made visible).
func tryDescribe(v any) (text, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = visible.String(fmt.Sprint(r))
		}
	}()
	return timedsim.Describe(v), ""
}

// safeDescribe is the Describe text of a message, a timer's data or an
// application event's data, with a panic's value in the text: these are
// shown, and hashed with the state, but a panic in them is not yet a
// finding (the state's Describe is, nodeDesc).
func safeDescribe(v any) string {
	text, p := tryDescribe(v)
	if p != "" {
		return "<Describe panicked: " + p + ">"
	}
	return text
}

func (w *world) timerDesc(t *timerRec) string {
	if !t.described {
		if t.data != nil {
			t.desc = w.valueDesc(t.data)
		}
		t.described = true
	}
	return t.desc
}

// hash is the global state's fingerprint (MaceMC's state hashing): the
// canonical Describe of every node, its pending timers and next driver
// event, the pending messages of every connection in order, the pending
// error upcalls and the faults left; with crash-stops, partitions or a
// driver that scripts faults, also the crash-stops and partitions left,
// the driver's next fault, the outages' pending heals, the crashed nodes
// and the partition's sides (faultState). Step numbers and insertion
// counters are left out, so the same state reached by different orders
// hashes alike.
func (w *world) hash() uint64 {
	d := w.digest
	d.Reset()
	b := w.scratch[:0]
	for i := range w.nodes {
		b = b[:0]
		b = append(b, 'N')
		b = strconv.AppendInt(b, int64(w.nodes[i].app), 10)
		b = append(b, 0)
		d.Write(b)
		w.nodeState(i)
		for ti := range w.nodes[i].timers {
			t := &w.nodes[i].timers[ti]
			d.WriteString("\x00T")
			d.WriteString(t.name)
			d.WriteString("\x00")
			d.WriteString(w.timerDesc(t))
		}
		d.WriteString("\x00")
	}
	for _, c := range w.conns {
		b = b[:0]
		b = append(b, 'C')
		b = strconv.AppendInt(b, int64(c.tr), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.src), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.dst), 10)
		b = append(b, 0)
		d.Write(b)
		for i := range c.q {
			// The type too: two message types can describe alike
			// (mA(1), mB(1)) and must not hash alike.
			d.WriteString(reflect.TypeOf(c.q[i].msg).String())
			d.WriteString("\x00")
			d.WriteString(w.msgDesc(c, i))
			d.WriteString("\x00")
		}
	}
	for _, e := range w.errs {
		b = b[:0]
		b = append(b, 'E')
		b = strconv.AppendInt(b, int64(e.node), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(e.te.Peer), 10)
		b = append(b, 0)
		d.Write(b)
		d.WriteString(e.label)
		d.WriteString(e.te.Transport)
	}
	b = b[:0]
	b = append(b, 'R')
	b = strconv.AppendInt(b, int64(w.resetsLeft), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(w.breaksLeft), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(w.dropsLeft), 10)
	if w.set.crashes > 0 || w.set.parts > 0 || len(w.drv.faults) > 0 {
		// Only then, so that the fingerprints of every other search stay
		// those they were before crash-stops and partitions.
		b = w.faultState(b)
	}
	d.Write(b)
	w.scratch = b
	return d.Sum64()
}

// faultState appends the state of the crash-stops and partitions to b:
// the counts left, the driver's next fault and pending heals, then each
// node's "x" if it crashed, else the number of its class of nodes that
// can reach each other, numbered in order of their first node (so that
// cutting off either of two nodes, say, hashes alike).
func (w *world) faultState(b []byte) []byte {
	b = append(b, 0, 'K')
	for _, v := range [4]int{w.crashesLeft, w.partsLeft, w.script, w.heals} {
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ',')
	}
	var buf [8][2]int32
	classes := buf[:0] // (side, group) of each class
	for i := range w.nodes {
		n := &w.nodes[i]
		if n.crashed {
			b = append(b, 'x')
			continue
		}
		k := slices.Index(classes, [2]int32{n.side, n.group})
		if k < 0 {
			k = len(classes)
			classes = append(classes, [2]int32{n.side, n.group})
		}
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ',')
	}
	return b
}

// nodeText is node i's canonical state for diffs, one item a line: its
// Describe text, then its pending timers, the messages waiting for it,
// its pending error upcalls and its next application event (MaceMC Mdb's
// state dump: node state, in=[…], timer<…>).
func (w *world) nodeText(i int) []string {
	lines := strings.Split(w.nodeDesc(i), "\n")
	n := &w.nodes[i]
	if n.crashed {
		lines = append(lines, "crashed for good")
	} else if cut := w.cutOff(int32(i)); cut != "" {
		lines = append(lines, "cut off from "+cut)
	}
	for ti := range n.timers {
		t := &n.timers[ti]
		l := "timer " + t.name
		if t.data != nil {
			l += " " + w.timerDesc(t)
		}
		lines = append(lines, l)
	}
	for _, c := range w.conns {
		if int(c.dst) != i {
			continue
		}
		for k := range c.q {
			l := "in from " + timedsim.NodeID(c.src).String()
			if w.set.trs.Len() > 1 {
				l += " on " + w.set.trs.Name(int(c.tr))
			}
			lines = append(lines, l+" "+w.msgDesc(c, k))
		}
	}
	for _, e := range w.errs {
		if int(e.node) == i {
			lines = append(lines, e.label+" peer "+e.te.Peer.String())
		}
	}
	if n.app < len(w.drv.apps[i]) && !n.crashed {
		lines = append(lines, "next "+w.drv.apps[i][n.app].label)
	}
	for k, l := range lines {
		lines[k] = visible.String(l) // an application event's name
	}
	return lines
}

// cutOff lists the nodes a partition separates node id from, "" if none.
func (w *world) cutOff(id int32) string {
	var out []string
	for j := range w.nodes {
		if !w.reachable(id, int32(j)) {
			out = append(out, timedsim.NodeID(j).String())
		}
	}
	return strings.Join(out, " ")
}

// World view for properties.

func (w *world) Nodes() int                               { return len(w.nodes) }
func (w *world) Node(id timedsim.NodeID) timedsim.Service { return w.nodes[id].svc }
func (w *world) Now() time.Duration                       { return logicalTime(w.step) }
func (w *world) Steps() int                               { return w.step }
func (w *world) TimerPending(id timedsim.NodeID, name string) bool {
	return w.nodes[id].timerIndex(name) >= 0
}

// Crashed reports whether a crash-stop stopped node id for good
// (timedsim.Crashed).
func (w *world) Crashed(id timedsim.NodeID) bool { return w.nodes[id].crashed }

// logicalTime is the untimed world's clock: one millisecond per step.
func logicalTime(step int) time.Duration { return time.Duration(step) * time.Millisecond }

// timerIndex is the index of pending timer name, -1 if none. Nodes have
// few timers: a linear scan beats a binary search.
func (n *wnode) timerIndex(name string) int {
	for i := range n.timers {
		if n.timers[i].name == name {
			return i
		}
	}
	return -1
}

// wctx is the Context handed to handlers.
type wctx struct {
	w    *world
	node int32
}

var _ timedsim.Context = (*wctx)(nil)
var _ timedsim.ClockChooser = (*wctx)(nil)
var _ timedsim.World = (*world)(nil)
var _ timedsim.CrashView = (*world)(nil)

func (c *wctx) Self() timedsim.NodeID { return timedsim.NodeID(c.node) }
func (c *wctx) Nodes() int            { return len(c.w.nodes) }

// Now is the number of steps executed so far, in milliseconds: time is
// logical in the liveness mode.
func (c *wctx) Now() time.Duration { return logicalTime(c.w.step) }

// ChooseElapsed makes timedsim.Elapsed a choice point: the answer is the
// path's (the DFS explores both), or a fair coin in a random walk.
func (c *wctx) ChooseElapsed(since, d time.Duration) bool {
	b := c.w.chooseElapsed(since, d)
	if c.w.log != nil {
		*c.w.log = append(*c.w.log, fmt.Sprintf("    %v: clock choice: %s elapsed since %s: %t", timedsim.NodeID(c.node), units.Duration(d), units.Duration(since), b))
	}
	return b
}

func (c *wctx) Send(to timedsim.NodeID, msg timedsim.Message) error { return c.w.send(0, to, msg) }

func (c *wctx) SendOn(name string, to timedsim.NodeID, msg timedsim.Message) error {
	if i, ok := c.w.set.trs.Index(name); ok {
		return c.w.send(i, to, msg)
	}
	panic(fmt.Sprintf("liveness: SendOn: no transport %q in the scenario's network config", name))
}

// SetTimer schedules timer name; after is ignored: a pending timer may
// fire at any step (MaceMC).
func (c *wctx) SetTimer(name string, _ time.Duration, data any) {
	w := c.w
	n := &w.nodes[c.node]
	i := n.timerIndex(name)
	t := timerRec{name: name, label: w.timerLbl(name), data: data}
	if w.tracer != nil {
		w.tracer.timer(name, false)
	}
	if i >= 0 {
		n.timers[i] = t
		return
	}
	i = len(n.timers)
	for i > 0 && n.timers[i-1].name > name {
		i--
	}
	n.timers = slices.Insert(n.timers, i, t)
}

func (c *wctx) CancelTimer(name string) {
	n := &c.w.nodes[c.node]
	c.w.timerLbl(name) // a bad name panics
	if i := n.timerIndex(name); i >= 0 {
		if c.w.tracer != nil {
			c.w.tracer.timer(name, true)
		}
		n.timers = slices.Delete(n.timers, i, i+1)
	}
}

func (c *wctx) TimerPending(name string) bool {
	c.w.timerLbl(name) // a bad name panics
	return c.w.nodes[c.node].timerIndex(name) >= 0
}

func (c *wctx) Rand() *rand.Rand { return c.w.handR }

// timerLbl is timedsim.TimerLabel(name), cached: a bad name panics, in
// the handler that named it, as in the timed simulator.
func (w *world) timerLbl(name string) string {
	label, known := w.timerLabel[name]
	if !known {
		label = timedsim.TimerLabel(name)
		w.timerLabel[name] = label
	}
	return label
}

// Note checks the note and writes it to the event log when recording.
// A note is not state: it enters no hash, so it never prunes or splits
// the search.
func (c *wctx) Note(text string) {
	if err := timedsim.CheckNote(text); err != nil {
		panic(err.Error())
	}
	if c.w.log != nil {
		*c.w.log = append(*c.w.log, "    "+timedsim.NodeID(c.node).String()+": note: "+text)
	}
	if c.w.tracer != nil {
		c.w.tracer.note(text)
	}
}

// Logf writes a line to the event log when recording, with its hidden
// characters made visible: one line, which cannot forge another.
func (c *wctx) Logf(format string, args ...any) {
	if c.w.log != nil {
		*c.w.log = append(*c.w.log, "    "+timedsim.NodeID(c.node).String()+": "+visible.String(fmt.Sprintf(format, args...)))
	}
}

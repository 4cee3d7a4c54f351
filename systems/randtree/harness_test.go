package randtree

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// harness runs RandTree nodes without the simulator: handlers record their
// effects in a fake Context, and the test decides which message to deliver
// or which timer to fire next. Every connection (from, to) is FIFO, as
// timedsim's reliable transport is. Time does not pass: timers fire only
// when the test fires them.
type harness struct {
	t      *testing.T
	nodes  []*Node
	queue  []envelope // messages in flight, in send order
	timers []map[string]bool
	sent   []envelope // every message ever sent
	seed   uint64
	steps  int
	notes  []string // every note made, as "n1 ignored: not started"
}

type envelope struct {
	from, to NodeID
	msg      timedsim.Message
}

func (e envelope) String() string {
	return fmt.Sprintf("%v→%v %s%+v", e.from, e.to, reflect.TypeOf(e.msg).Name(), e.msg)
}

func newHarness(t *testing.T, n int, cfg Config) *harness {
	h := &harness{t: t, seed: 1}
	for id := range NodeID(n) {
		h.nodes = append(h.nodes, NewNode(id, cfg))
		h.timers = append(h.timers, map[string]bool{})
	}
	for id := range NodeID(n) {
		h.nodes[id].Init(h.ctx(id))
	}
	return h
}

func (h *harness) ctx(id NodeID) *fakeCtx {
	h.steps++
	return &fakeCtx{h: h, self: id, step: uint64(h.steps)}
}

// join runs joinOverlay at node id with the given peer set.
func (h *harness) join(id NodeID, peers ...NodeID) {
	h.t.Helper()
	h.t.Logf("app %v join %v", id, peers)
	h.nodes[id].App(h.ctx(id), AppJoin, peers)
}

// deliverAt delivers queue[i], which must be the oldest message of its
// connection.
func (h *harness) deliverAt(i int) envelope {
	h.t.Helper()
	e := h.queue[i]
	for _, o := range h.queue[:i] {
		if o.from == e.from && o.to == e.to {
			h.t.Fatalf("delivering %v would overtake %v on the same connection", e, o)
		}
	}
	h.queue = append(h.queue[:i], h.queue[i+1:]...)
	h.t.Logf("deliver %v", e)
	h.nodes[e.to].Deliver(h.ctx(e.to), e.from, e.msg)
	return e
}

// deliver delivers the oldest message from → to, which must be of type T;
// it returns the message.
func deliver[T timedsim.Message](h *harness, from, to NodeID) T {
	h.t.Helper()
	for i, e := range h.queue {
		if e.from == from && e.to == to {
			m, ok := e.msg.(T)
			if !ok {
				var want T
				h.t.Fatalf("next message %v→%v is %T, want %T", from, to, e.msg, want)
			}
			h.deliverAt(i)
			return m
		}
	}
	var want T
	h.t.Fatalf("no %T in flight %v→%v; in flight: %v", want, from, to, h.queue)
	return want
}

// run delivers messages in FIFO order until none is in flight.
func (h *harness) run() {
	h.t.Helper()
	for i := 0; len(h.queue) > 0; i++ {
		if i > 100000 {
			h.t.Fatalf("no quiescence after %d deliveries", i)
		}
		h.deliverAt(0)
	}
}

// fire fires timer name at node id, which must be pending.
func (h *harness) fire(id NodeID, name string) {
	h.t.Helper()
	if !h.timers[id][name] {
		h.t.Fatalf("timer %q of %v is not pending", name, id)
	}
	delete(h.timers[id], name)
	h.t.Logf("timer %v %s", id, name)
	h.nodes[id].Timer(h.ctx(id), name, nil)
}

// sentOf lists the messages of type T sent so far.
func sentOf[T timedsim.Message](h *harness) []envelope {
	var out []envelope
	for _, e := range h.sent {
		if _, ok := e.msg.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) describe() string {
	var b strings.Builder
	for _, n := range h.nodes {
		fmt.Fprintf(&b, "\n  %v", n)
	}
	return b.String()
}

// World view for the predicates of system.go.

func (h *harness) Nodes() int                            { return len(h.nodes) }
func (h *harness) Node(id NodeID) timedsim.Service       { return h.nodes[id] }
func (h *harness) Now() time.Duration                    { return 0 }
func (h *harness) Steps() int                            { return h.steps }
func (h *harness) TimerPending(id NodeID, n string) bool { return h.timers[id][n] }

var _ timedsim.World = (*harness)(nil)

type fakeCtx struct {
	h    *harness
	self NodeID
	step uint64
	rng  *rand.Rand
}

var _ timedsim.Context = (*fakeCtx)(nil)

func (c *fakeCtx) Self() NodeID       { return c.self }
func (c *fakeCtx) Nodes() int         { return len(c.h.nodes) }
func (c *fakeCtx) Now() time.Duration { return 0 }

func (c *fakeCtx) Send(to NodeID, msg timedsim.Message) error {
	if to == c.self {
		c.h.t.Fatalf("%v sends %T to itself", c.self, msg)
	}
	if to < 0 || int(to) >= len(c.h.nodes) {
		c.h.t.Fatalf("%v sends %T to %v, not a node", c.self, msg, to)
	}
	if msg.Size() <= 0 {
		c.h.t.Fatalf("%T has size %d", msg, msg.Size())
	}
	e := envelope{from: c.self, to: to, msg: msg}
	c.h.queue = append(c.h.queue, e)
	c.h.sent = append(c.h.sent, e)
	return nil
}

func (c *fakeCtx) SendOn(transport string, to NodeID, msg timedsim.Message) error {
	c.h.t.Fatalf("unexpected SendOn(%q)", transport)
	return nil
}

func (c *fakeCtx) SetTimer(name string, after time.Duration, data any) {
	if after <= 0 {
		c.h.t.Fatalf("timer %q set with delay %v", name, after)
	}
	c.h.timers[c.self][name] = true
}

func (c *fakeCtx) CancelTimer(name string)       { delete(c.h.timers[c.self], name) }
func (c *fakeCtx) TimerPending(name string) bool { return c.h.timers[c.self][name] }

func (c *fakeCtx) Rand() *rand.Rand {
	if c.rng == nil {
		c.rng = rand.New(rand.NewPCG(c.h.seed, c.step))
	}
	return c.rng
}

func (c *fakeCtx) Note(text string) {
	if err := timedsim.CheckNote(text); err != nil {
		c.h.t.Fatalf("%v: %v", c.self, err)
	}
	c.h.notes = append(c.h.notes, c.self.String()+" "+text)
}

// noted reports whether node id made note text since the harness started.
func (h *harness) noted(id NodeID, text string) bool {
	return slices.Contains(h.notes, id.String()+" "+text)
}

func (c *fakeCtx) Logf(format string, args ...any) {
	c.h.t.Logf("  %v: %s", c.self, fmt.Sprintf(format, args...))
}

// reset is a node reset as timedsim and the liveness mode make it: node id
// gets a fresh Node in Init, its timers and the messages in flight to and
// from it are lost. The broken-connection upcalls of its peers are the
// test's to deliver (broken), when it chooses: possibly after the new
// incarnation's messages, as the liveness mode may.
func (h *harness) reset(id NodeID) {
	h.t.Helper()
	h.t.Logf("reset %v", id)
	h.queue = slices.DeleteFunc(h.queue, func(e envelope) bool { return e.from == id || e.to == id })
	h.timers[id] = map[string]bool{}
	h.nodes[id] = NewNode(id, h.nodes[id].cfg)
	h.nodes[id].Init(h.ctx(id))
}

// broken delivers at node id the upcall "connection to peer broken".
func (h *harness) broken(id, peer NodeID) {
	h.t.Helper()
	h.t.Logf("error %v: broken peer %v", id, peer)
	h.nodes[id].Error(h.ctx(id), &timedsim.TransportError{Transport: "tcp", Peer: peer, Err: timedsim.ErrConnectionBroken})
}

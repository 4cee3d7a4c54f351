package timedsim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Messages of the two layers of stackScenario.
type (
	Beat  struct{ N int }     // lower layer
	Chunk struct{ Bytes int } // upper layer
)

func (Beat) Size() int    { return 16 }
func (c Chunk) Size() int { return c.Bytes }

// lower beats to the next node every 100 ms, three times, and hands every
// beat it receives to the layer above through an upcall.
type lower struct {
	self  timedsim.NodeID
	beats int
	up    func(ctx timedsim.Context, n int)
}

func (l *lower) Init(ctx timedsim.Context) { ctx.SetTimer("beat", 100*time.Millisecond, nil) }
func (l *lower) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	l.up(ctx, msg.(Beat).N)
}
func (l *lower) Timer(ctx timedsim.Context, name string, data any) {
	if name != "beat" {
		panic("lower got timer " + name)
	}
	l.beats++
	ctx.Send((l.self+1)%timedsim.NodeID(ctx.Nodes()), Beat{l.beats})
	if l.beats < 3 {
		ctx.SetTimer("beat", 100*time.Millisecond, nil)
	}
}

// upper sends a chunk on the bounded "data" transport for every beat it
// hears, after checking that it fits; a chunk that does not fit waits for
// its own "retry" timer (namespaced "upper.retry"). It records what it
// saw of the send queue.
type upper struct {
	self   timedsim.NodeID
	heard  []int
	fitted []bool
	got    int
	errs   int
}

func (u *upper) Init(timedsim.Context) {}
func (u *upper) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	u.got += msg.(Chunk).Bytes
}
func (u *upper) heard1(ctx timedsim.Context, n int) {
	u.heard = append(u.heard, n)
	u.send(ctx)
}
func (u *upper) send(ctx timedsim.Context) {
	to := (u.self + 1) % timedsim.NodeID(ctx.Nodes())
	fits := timedsim.Fits(ctx, "data", to)
	u.fitted = append(u.fitted, fits)
	if !fits {
		ctx.SetTimer("retry", 10*time.Millisecond, nil)
		return
	}
	ctx.SendOn("data", to, Chunk{Bytes: 150_000})
}
func (u *upper) Timer(ctx timedsim.Context, name string, data any) {
	if name != "retry" {
		panic("upper got timer " + name)
	}
	u.send(ctx)
}
func (u *upper) Error(ctx timedsim.Context, err *timedsim.TransportError) { u.errs++ }

func stackScenario() *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: 2,
		New: func(id timedsim.NodeID) timedsim.Service {
			up := &upper{self: id}
			var st *timedsim.Stack
			lo := &lower{self: id}
			lo.up = func(ctx timedsim.Context, n int) { up.heard1(st.Context(ctx, "upper"), n) }
			st = timedsim.NewStack(
				timedsim.Layer{Name: "lower", Service: lo, Owns: func(m timedsim.Message) bool { _, ok := m.(Beat); return ok }},
				timedsim.Layer{Name: "upper", Service: up},
			)
			return st
		},
		Stop: func(w timedsim.World) bool {
			for id := range timedsim.NodeID(w.Nodes()) {
				if w.Node(id).(*timedsim.Stack).Layer("upper").(*upper).got < 3*150_000 {
					return false
				}
			}
			return true
		},
		Timeout: 10 * time.Second,
		Network: netmodel.Config{BandwidthKbps: 8000, Transports: []netmodel.TransportConfig{
			{Name: "control", Kind: netmodel.Reliable, QueueCap: -1},
			{Name: "data", Kind: netmodel.Reliable, QueueCap: 1},
		}},
	}
}

// TestStack: a Stack dispatches messages by ownership, timers by their
// layer's namespace (labels "timer lower.beat", "timer upper.retry"), and
// an upcall made through Stack.Context sets the upper layer's timers in
// its own namespace; SendQueue and Fits see through a layer's context, so
// a layer that checks whether a message fits never gets ErrQueueFull.
func TestStack(t *testing.T) {
	sim, err := timedsim.NewSimulator(stackScenario(), timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(1))
	if !r.Finished {
		t.Fatalf("outcome %v, want finished", r.Outcome)
	}
	for _, l := range []string{"timer lower.beat", "deliver Beat", "deliver Chunk", "timer upper.retry"} {
		if r.Counts[l] == 0 {
			t.Errorf("no %q event; counts %v", l, r.Counts)
		}
	}
	if r.Counts["timer lower.beat"] != 6 {
		t.Errorf("%d beats, want 3 per node", r.Counts["timer lower.beat"])
	}
	// 150 KB take 150 ms to transmit at 8 Mbit/s and beats come every
	// 100 ms: the second chunk finds the first still queued and waits for
	// its retry timer.
	if st := r.FinalStates; len(st) != 2 || !strings.HasPrefix(st[0], "lower: lower{") || !strings.Contains(st[0], " | upper: upper{") {
		t.Fatalf("final states %q", st)
	}
	if c := r.Counts["error queue-full"]; c != 0 {
		t.Errorf("%d queue-full errors although every send checked Fits", c)
	}
}

// TestSendQueue: QueueLen counts the messages sent and not yet delivered,
// QueueCap is the transport's (negative for unbounded), and a context that
// cannot tell makes Fits answer true.
func TestSendQueue(t *testing.T) {
	var seen [][3]int
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: func(id timedsim.NodeID) timedsim.Service {
			return &probe{id: id, seen: &seen}
		},
		Stop:    func(w timedsim.World) bool { return w.Node(1).(*probe).got },
		Timeout: time.Second,
		Network: netmodel.Config{Transports: []netmodel.TransportConfig{
			{Name: "control", Kind: netmodel.Reliable, QueueCap: -1},
			{Name: "data", Kind: netmodel.Reliable, QueueCap: 1},
		}},
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := sim.Run(timedsim.SeedPath(1)); !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	want := [][3]int{{0, 1, 1}, {1, 1, 0}, {1, -1, 1}}
	if !slices.Equal(seen, want) {
		t.Errorf("(queued, cap, fits) = %v, want %v", seen, want)
	}
	if !timedsim.Fits(fakeCtx{}, "data", 1) {
		t.Error("Fits on a context that cannot tell: false, want true")
	}
	if _, _, ok := timedsim.SendQueue(fakeCtx{}, "data", 1); ok {
		t.Error("SendQueue on a context that cannot tell: ok")
	}
}

type probe struct {
	id   timedsim.NodeID
	seen *[][3]int
	got  bool
}

func (p *probe) record(ctx timedsim.Context, tr string) {
	n, c, _ := timedsim.SendQueue(ctx, tr, 1)
	f := 0
	if timedsim.Fits(ctx, tr, 1) {
		f = 1
	}
	*p.seen = append(*p.seen, [3]int{n, c, f})
}

func (p *probe) Init(ctx timedsim.Context) {
	if p.id != 0 {
		return
	}
	p.record(ctx, "data") // nothing queued: (0, 1, fits)
	ctx.SendOn("data", 1, Chunk{Bytes: 1000})
	p.record(ctx, "data") // one queued: (1, 1, does not fit)
	ctx.SendOn("control", 1, Chunk{Bytes: 1000})
	p.record(ctx, "control") // unbounded: (1, -1, fits)
}
func (p *probe) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	p.got = true
}
func (p *probe) Timer(timedsim.Context, string, any) {}

// fakeCtx is a Context that knows nothing of send queues.
type fakeCtx struct{ timedsim.Context }

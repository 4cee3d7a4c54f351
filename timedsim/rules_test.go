package timedsim_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// The transports' names and send-queue bounds: QueueCap 0 is the
// default, a negative one and a datagram transport are unbounded, and an
// empty list is the default reliable "tcp".
func TestTransportsBounds(t *testing.T) {
	trs := timedsim.NewTransports(netmodel.Config{Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable},
		{Name: "data", Kind: netmodel.Reliable, QueueCap: 1},
		{Name: "ctl", Kind: netmodel.Reliable, QueueCap: -1},
		{Name: "udp", Kind: netmodel.Datagram},
	}})
	type row struct {
		name     string
		cap      int
		datagram bool
		admits   [2]bool // at cap-1 and at cap queued (cap 1 << 20 for unbounded)
	}
	want := []row{
		{"tcp", netmodel.DefaultQueueCap, false, [2]bool{true, false}},
		{"data", 1, false, [2]bool{true, false}},
		{"ctl", -1, false, [2]bool{true, true}},
		{"udp", -1, true, [2]bool{true, true}},
	}
	for i, w := range want {
		j, ok := trs.Index(w.name)
		c := w.cap
		if c < 0 {
			c = 1 << 20
		}
		got := row{trs.Name(j), trs.QueueCap(j), trs.Datagram(j), [2]bool{trs.Admits(j, c-1), trs.Admits(j, c)}}
		if !ok || j != i || got != w {
			t.Errorf("transport %q: index %d %t, %+v; want %d, %+v", w.name, j, ok, got, i, w)
		}
	}
	if _, ok := trs.Index("sctp"); ok || trs.Len() != 4 || !slices.Equal(trs.Names(), []string{"tcp", "data", "ctl", "udp"}) {
		t.Errorf("Index(sctp) found, or Len %d, Names %q", trs.Len(), trs.Names())
	}
	def := timedsim.NewTransports(netmodel.Config{})
	if def.Len() != 1 || def.Name(0) != netmodel.DefaultTransport || def.QueueCap(0) != netmodel.DefaultQueueCap {
		t.Errorf("default transports: %q, cap %d", def.Names(), def.QueueCap(0))
	}
}

type silent struct{}

func (silent) Init(timedsim.Context)                                       {}
func (silent) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (silent) Timer(timedsim.Context, string, any)                         {}

type listener struct{ silent }

func (listener) Error(timedsim.Context, *timedsim.TransportError) {}

// A refused send returns its error and upcalls only a service that
// handles errors; a broken connection tells each end once, but not the
// node that broke it, a node about itself, or a node without an Error
// method.
func TestTransportsRefusedAndBroken(t *testing.T) {
	trs := timedsim.NewTransports(netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "tcp"}, {Name: "data"}}})
	te, upcall := trs.Refused(listener{}, 1, 3, timedsim.ErrQueueFull, Blob{Bytes: 1})
	if !upcall || !errors.Is(te, timedsim.ErrQueueFull) || te.Transport != "data" || te.Peer != 3 || te.Msg != (Blob{Bytes: 1}) || te.Label() != "error queue-full" {
		t.Errorf("Refused: %+v upcall %t", te, upcall)
	}
	if _, upcall := trs.Refused(silent{}, 0, 1, timedsim.ErrUnreachable, nil); upcall {
		t.Error("Refused upcalls a service without an Error method")
	}
	svcs := []timedsim.Service{listener{}, listener{}, silent{}, listener{}}
	conns := []netmodel.Conn{
		{Transport: 0, A: 0, B: 1},
		{Transport: 0, A: 1, B: 0}, // the other direction: told once
		{Transport: 1, A: 0, B: 1},
		{Transport: 0, A: 1, B: 2}, // n2 has no Error method
		{Transport: 0, A: 3, B: 3}, // itself
		{Transport: 0, A: 3, B: 0}, // n3 is skipped
	}
	var got []string
	trs.Broken(conns, 3, func(n int) timedsim.Service { return svcs[n] }, func(n int, te *timedsim.TransportError) {
		if !errors.Is(te, timedsim.ErrConnectionBroken) || te.Msg != nil || te.Label() != "error broken" {
			t.Errorf("upcall %+v", te)
		}
		got = append(got, fmt.Sprintf("n%d about %v on %s", n, te.Peer, te.Transport))
	})
	want := []string{"n0 about n1 on tcp", "n1 about n0 on tcp", "n0 about n1 on data", "n1 about n0 on data", "n1 about n2 on tcp", "n0 about n3 on tcp"}
	if !slices.Equal(got, want) {
		t.Errorf("Broken told\n%q\nwant\n%q", got, want)
	}
}

// A break between a node and itself tells nobody, as a reset or a
// partition never tells a node about itself (and the liveness mode never
// did); a break between two nodes tells both.
func TestBreakTellsTheOtherEnd(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, _ string, _ any) {
			ctx.Send(0, Blob{Bytes: 10})
			ctx.Send(1, Blob{Bytes: 10})
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "send", nil)
			d.Break(time.Second, 0, 0)
			d.Break(2*time.Second, 0, 1)
		},
		Stop:    func(timedsim.World) bool { return false },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	var n0, n1 *scripted
	stop := sc.Stop
	sc.Stop = func(w timedsim.World) bool {
		n0, n1 = w.Node(0).(*scripted), w.Node(1).(*scripted)
		return stop(w)
	}
	r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	if r.Outcome != timedsim.Stalled {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if len(n0.errs) != 1 || n0.errs[0].Peer != 1 || len(n1.errs) != 1 || n1.errs[0].Peer != 0 || r.Counts["error broken"] != 2 {
		t.Fatalf("n0 told %v, n1 told %v (%d upcalls); want each told once about the other", n0.errs, n1.errs, r.Counts["error broken"])
	}
}

type named struct{ name string }

func (named) Size() int              { return 0 }
func (l named) MessageLabel() string { return l.name }

// MessageLabel names a message by its Labeler name, else its type
// (through pointers); a bad Labeler name and a nil message panic.
func TestMessageLabel(t *testing.T) {
	for _, c := range []struct {
		msg  timedsim.Message
		want string
	}{
		{Blob{}, "Blob"},
		{&Blob{}, "Blob"},
		{named{"MsgApp"}, "MsgApp"},
		{named{""}, "named"},
	} {
		if got := timedsim.MessageLabel(c.msg); got != c.want {
			t.Errorf("MessageLabel(%#v) = %q, want %q", c.msg, got, c.want)
		}
	}
	for _, m := range []timedsim.Message{named{"a\nb"}, nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MessageLabel(%#v) did not panic", m)
				}
			}()
			timedsim.MessageLabel(m)
		}()
	}
}

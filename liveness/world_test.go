package liveness

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// chatty sends its Init messages to node 1 on the scenario's transports,
// records what it receives and its error upcalls, and takes application
// events.
type chatty struct {
	Got, Errs, Apps []string
	Sent            int
	// notes makes every handler but Init note what it did (TestNotesNotState).
	notes bool `macepc:"-"`
}

func (n *chatty) Init(ctx timedsim.Context) {
	if ctx.Self() != 0 {
		return
	}
	for i := range 3 {
		if err := ctx.Send(1, msg{fmt.Sprint("r", i)}); err == nil {
			n.Sent++
		}
	}
	ctx.SendOn("udp", 1, msg{"d0"})
	ctx.SendOn("udp", 1, msg{"d1"})
	ctx.SetTimer("t", time.Hour, "data")
}
func (n *chatty) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	n.Got = append(n.Got, m.(msg).Name)
	n.note(ctx, "got: a message")
}
func (n *chatty) Timer(ctx timedsim.Context, name string, data any) { n.note(ctx, "ignored: timer") }
func (n *chatty) note(ctx timedsim.Context, text string) {
	if n.notes {
		ctx.Note(text)
	}
}
func (n *chatty) Error(_ timedsim.Context, err *timedsim.TransportError) {
	n.Errs = append(n.Errs, fmt.Sprint(err.Err, " ", err.Peer))
}
func (n *chatty) App(ctx timedsim.Context, name string, _ any) {
	n.Apps = append(n.Apps, name)
	n.note(ctx, "app: recorded")
}

func chattyWorld(t *testing.T, faults int) *world { return chattyNotes(t, faults, false) }

func chattyNotes(t *testing.T, faults int, notes bool) *world {
	t.Helper()
	return chattyWith(t, Config{Faults: faults}, notes)
}

// chattyWith is the chatty scenario's world with cfg's settings.
func chattyWith(t *testing.T, cfg Config, notes bool) *world {
	t.Helper()
	sc := &timedsim.Scenario{
		Nodes: 2,
		New:   func(timedsim.NodeID) timedsim.Service { return &chatty{notes: notes} },
		Driver: func(d *timedsim.Driver) {
			d.App(2*time.Second, 0, "second", nil)
			d.App(time.Second, 0, "first", nil)
			d.App(0, 1, "hello", nil)
		},
		Network: netmodel.Config{Transports: []netmodel.TransportConfig{
			{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 2},
			{Name: "udp", Kind: netmodel.Datagram},
		}},
		Liveness: []timedsim.Property{always},
	}
	cfg.Scenario = sc
	return startedWorld(t, cfg)
}

// startedWorld is the world of cfg (its Scenario set), started on the
// path of seed 1.
func startedWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	r, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	drv, err := driverSchedule(cfg.Scenario, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(r.set, drv)
	w.start(startPath(1))
	return w
}

func (w *world) enabledLabels() []string {
	var out []string
	for _, e := range w.enabled() {
		out = append(out, w.describeEvent(e))
	}
	return out
}

// TestEnabledEvents: the enabled list of MaceMC's scheduler, in canonical
// order: each node's next driver event in time order; the head of each
// reliable connection and every datagram; every pending timer; error
// upcalls (here the third reliable send, over the queue bound of 2).
func TestEnabledEvents(t *testing.T) {
	w := chattyWorld(t, 0)
	want := []string{
		"n0 app first",
		"n1 app hello",
		"n1 deliver msg from n0 on tcp msg{Name:\"r0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d1\"}",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
	}
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("enabled:\n%q\nwant\n%q", got, want)
	}
	if n0 := w.nodes[0].svc.(*chatty); n0.Sent != 2 {
		t.Fatalf("%d reliable sends succeeded, want 2 (queue bound)", n0.Sent)
	}
	// Delivering the second datagram first is allowed; the reliable
	// connection offers r1 after r0 only.
	w.exec(w.enabled()[4])
	w.exec(w.enabled()[2])
	got := w.enabledLabels()
	if !slices.Contains(got, "n1 deliver msg from n0 on tcp msg{Name:\"r1\"}") || slices.ContainsFunc(got, func(s string) bool { return s == "n1 deliver msg from n0 on udp msg{Name:\"d1\"}" }) {
		t.Fatalf("after d1 and r0: %q", got)
	}
	if n1 := w.nodes[1].svc.(*chatty); !slices.Equal(n1.Got, []string{"d1", "r0"}) {
		t.Fatalf("n1 got %v", n1.Got)
	}
	// The timer fires whenever chosen, whatever its delay.
	i := slices.Index(w.enabledLabels(), `n0 timer t "data"`)
	w.exec(w.enabled()[i])
	if w.TimerPending(0, "t") || w.Steps() != 3 || w.Now() != 3*time.Millisecond {
		t.Fatalf("timer still pending or steps %d, now %v", w.Steps(), w.Now())
	}
}

// TestReset: a fault resets a node: its state, timers and connections
// are lost, the other end of each reliable connection is told, and its
// application restarts.
func TestReset(t *testing.T) {
	w := chattyWorld(t, 1)
	w.exec(w.enabled()[0]) // n0 app first
	en := w.enabled()
	if got := w.label(en[len(en)-1]); got != "reset" || w.label(en[len(en)-2]) != "reset" {
		t.Fatalf("resets not enabled: %q", w.enabledLabels())
	}
	before := w.hash()
	w.exec(en[len(en)-2]) // reset n0
	n0 := w.nodes[0].svc.(*chatty)
	if n0.Sent != 2 || len(n0.Apps) != 0 {
		t.Fatalf("n0 after reset: %+v", n0)
	}
	// n0's old messages, timer and upcall are gone and its Init ran
	// again: fresh messages, timer and queue-full upcall; n1 is told that
	// its connection to n0 broke (n1 implements ErrorHandler); no resets
	// are left; n0's application starts over.
	want := []string{
		"n0 app first",
		"n1 app hello",
		"n1 deliver msg from n0 on tcp msg{Name:\"r0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d1\"}",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
		"n1 error broken peer n0",
	}
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("after reset:\n%q\nwant\n%q", got, want)
	}
	if w.hash() == before {
		t.Fatalf("reset did not change the state hash")
	}
	w.exec(w.enabled()[7])
	if n1 := w.nodes[1].svc.(*chatty); !slices.Equal(n1.Errs, []string{"timedsim: connection broken n0"}) {
		t.Fatalf("n1 errors %v", n1.Errs)
	}
}

// TestStateHash: the hash covers node states, timers and messages, and
// not the order in which independent events happened.
func TestStateHash(t *testing.T) {
	a, b := chattyWorld(t, 0), chattyWorld(t, 0)
	if a.hash() != b.hash() {
		t.Fatal("same state, different hashes")
	}
	// n0 app first and n1 app hello commute.
	a.exec(a.enabled()[0])
	a.exec(a.enabled()[slices.Index(a.enabledLabels(), "n1 app hello")])
	b.exec(b.enabled()[1])
	b.exec(b.enabled()[0])
	if a.hash() != b.hash() {
		t.Fatal("commuting events, different hashes")
	}
	h := a.hash()
	i := slices.Index(a.enabledLabels(), `n0 timer t "data"`)
	a.exec(a.enabled()[i]) // only removes the timer: the service does nothing
	if a.hash() == h {
		t.Fatal("a fired timer does not change the hash")
	}
}

// TestNotesNotState: Context.Note reaches the event log and nothing else:
// the same choices give the same state hash at every step with and
// without notes, so notes never prune or split the search.
func TestNotesNotState(t *testing.T) {
	plain, noted := chattyNotes(t, 1, false), chattyNotes(t, 1, true)
	var log []string
	noted.log = &log
	for step := 0; step < 8; step++ {
		if plain.hash() != noted.hash() {
			t.Fatalf("step %d: notes changed the state hash", step)
		}
		a, b := plain.enabledLabels(), noted.enabledLabels()
		if !slices.Equal(a, b) || len(a) == 0 {
			t.Fatalf("step %d: enabled %q vs %q", step, a, b)
		}
		i := (3 * step) % len(a)
		plain.exec(plain.enabled()[i])
		noted.exec(noted.enabled()[i])
	}
	if plain.hash() != noted.hash() {
		t.Fatal("notes changed the state hash")
	}
	for _, want := range []string{"    n1: note: got: a message", "    n0: note: app: recorded"} {
		if !slices.Contains(log, want) {
			t.Errorf("event log %q lacks %q", log, want)
		}
	}
}

// TestBreaksAndDrops: with Breaks and Drops, breaking a pair's reliable
// connections and losing each datagram in flight are choices; a break
// loses the reliable messages between the pair (not the datagrams) and
// tells both ends; each fault uses one from its own count.
func TestBreaksAndDrops(t *testing.T) {
	w := chattyWith(t, Config{Breaks: 1, Drops: 2}, false)
	base := []string{
		"n0 app first",
		"n1 app hello",
		"n1 deliver msg from n0 on tcp msg{Name:\"r0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d1\"}",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
	}
	want := append(slices.Clone(base), "n0 break n1", "n1 drop from n0 msg{Name:\"d0\"}", "n1 drop from n0 msg{Name:\"d1\"}")
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("enabled:\n%q\nwant\n%q", got, want)
	}
	h0 := w.hash()
	w.exec(w.enabled()[8]) // drop d0
	want = slices.Delete(slices.Clone(want), 8, 9)
	want = slices.Delete(want, 3, 4)
	if got := w.enabledLabels(); !slices.Equal(got, want) || w.dropsLeft != 1 {
		t.Fatalf("after dropping d0 (%d drops left):\n%q\nwant\n%q", w.dropsLeft, w.enabledLabels(), want)
	}
	if w.hash() == h0 {
		t.Fatal("a drop did not change the state hash")
	}
	w.exec(w.enabled()[6]) // break n0-n1
	want = []string{
		"n0 app first",
		"n1 app hello",
		"n1 deliver msg from n0 on udp msg{Name:\"d1\"}",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
		"n0 error broken peer n1",
		"n1 error broken peer n0",
		"n1 drop from n0 msg{Name:\"d1\"}",
	}
	if got := w.enabledLabels(); !slices.Equal(got, want) || w.breaksLeft != 0 {
		t.Fatalf("after the break (%d left):\n%q\nwant\n%q", w.breaksLeft, w.enabledLabels(), want)
	}
	// Without Breaks or Drops, neither is a choice.
	if got := chattyWorld(t, 0).enabledLabels(); !slices.Equal(got, base) {
		t.Fatalf("no faults: %q", got)
	}
}

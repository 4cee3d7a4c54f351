package timedsim_test

import (
	"bytes"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// noter is gossip with notes: it says whether a Rumor taught it anything
// (twice when not, to check that a note counts once per event), notes a
// tick that drew itself and so sent nothing, and notes every third tick
// besides sending. Its randomness and effects are gossip's exactly.
type noter struct{ gossip }

func (n *noter) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	news := false
	for i, k := range msg.(Rumor).Known {
		news = news || k && !n.known[i]
	}
	n.gossip.Deliver(ctx, from, msg)
	if news {
		ctx.Note("merged: news")
		return
	}
	ctx.Note("ignored: no news")
	ctx.Note("ignored: no news")
}

func (n *noter) Timer(ctx timedsim.Context, name string, data any) {
	before := n.ticks
	n.gossip.Timer(ctx, name, data)
	if before%3 == 2 {
		ctx.Note("tick: every third")
	}
}

func noterScenario(nodes int, noted bool) *timedsim.Scenario {
	sc := gossipScenario(nodes)
	if noted {
		sc.New = func(id timedsim.NodeID) timedsim.Service { return &noter{gossip{id: id}} }
		sc.Stop = func(w timedsim.World) bool {
			for i := 0; i < w.Nodes(); i++ {
				if !w.Node(timedsim.NodeID(i)).(*noter).all() {
					return false
				}
			}
			return true
		}
	}
	return sc
}

// TestNote: a handler's notes enter its event's composite labels once per
// distinct note, in the plain and the windowed counts, replace "→
// (nothing)" for a handler that sent nothing, appear in the event log, and
// change nothing else about the execution.
func TestNote(t *testing.T) {
	plain, err := timedsim.NewSimulator(noterScenario(8, false), timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(noterScenario(8, true), timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	base, r := plain.Run(timedsim.SeedPath(3)), sim.Run(timedsim.SeedPath(3))
	if r.ExecTime != base.ExecTime || r.Steps != base.Steps || !reflect.DeepEqual(r.Counts, base.Counts) {
		t.Fatalf("notes changed the execution: %v %d steps vs %v %d", r.ExecTime, r.Steps, base.ExecTime, base.Steps)
	}
	want := map[string]int{}
	kinds := map[string]int{} // events by their notes
	for _, e := range r.Events {
		addComposite(want, e)
		kinds[strings.Join(e.Notes, "+")]++
		for _, n := range e.Notes[min(1, len(e.Notes)):] {
			if n == e.Notes[0] {
				t.Fatalf("step %d: note %q recorded twice", e.Step, n)
			}
		}
	}
	if !reflect.DeepEqual(r.Composite, want) {
		t.Errorf("composite %v, want (from the event log) %v", r.Composite, want)
	}
	for _, k := range []string{"merged: news", "ignored: no news", "tick: every third"} {
		if kinds[k] == 0 {
			t.Errorf("no event noted only %q: %v", k, kinds)
		}
	}
	deliver := func(what string) string { return timedsim.CompositeLabel("deliver Rumor", what) }
	// Every Rumor delivery notes, so none counts as sending nothing; the
	// notes split the deliveries that the plain run lumps together.
	if got := r.Composite[deliver(timedsim.SentNothing)]; got != 0 {
		t.Errorf("%d Rumor deliveries counted as (nothing) though each noted", got)
	}
	if n, i := r.Composite[deliver("merged: news")], r.Composite[deliver("ignored: no news")]; n+i != base.Composite[deliver(timedsim.SentNothing)] || n == 0 || i == 0 {
		t.Errorf("notes split %d deliveries into %d + %d", base.Composite[deliver(timedsim.SentNothing)], n, i)
	}
	// A tick that sent and noted counts under both.
	if r.Composite[timedsim.CompositeLabel("timer tick", "tick: every third")] == 0 || r.Composite[timedsim.CompositeLabel("timer tick", "Rumor")] != base.Composite[timedsim.CompositeLabel("timer tick", "Rumor")] {
		t.Errorf("tick composites %v, plain %v", r.Composite, base.Composite)
	}

	var log bytes.Buffer
	if err := timedsim.WriteEventLog(&log, timedsim.LogHeader{System: "noter", Path: timedsim.SeedPath(3)}, r); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(log.String(), "\n        note: ignored: no news\n"), kinds["ignored: no news"]; got != want {
		t.Errorf("event log has %d lines 'note: ignored: no news', want %d:\n%s", got, want, log.String())
	}

	// Windowed counts: the events that started before the window.
	window := r.Events[len(r.Events)/2].Start
	wantWin := map[string]int{}
	for _, e := range r.Events {
		if e.Start < window {
			addComposite(wantWin, e)
		}
	}
	ws, err := timedsim.NewSimulator(noterScenario(8, true), timedsim.Options{CountWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	for rep := 0; rep < 2; rep++ { // a reused simulator starts from zero
		wr := ws.Run(timedsim.SeedPath(3))
		if !reflect.DeepEqual(wr.WindowComposite, wantWin) {
			t.Errorf("windowed composite %v, want %v", wr.WindowComposite, wantWin)
		}
		if !maps.Equal(wr.Composite, r.Composite) {
			t.Errorf("recording changed the composite counts")
		}
	}
}

// notedPing is ping-pong (systems/pingpong) that notes every delivery,
// twice over for every other Pong.
type notedPing struct{ pingpong.Node }

func (n *notedPing) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	n.Node.Deliver(ctx, from, msg)
	if _, ok := msg.(pingpong.Pong); ok && n.Pongs()%2 == 0 {
		ctx.Note("pong: even")
		ctx.Note("pong: even")
	}
	ctx.Note("delivered: counted")
}

// notedPingScenario plays ping-pong forever on nodes nodes.
func notedPingScenario(nodes int) *timedsim.Scenario {
	sc := pingpong.Scenario(nodes, -1)
	plain := sc.New
	sc.New = func(id timedsim.NodeID) timedsim.Service { return &notedPing{*plain(id).(*pingpong.Node)} }
	sc.Timeout = 1000 * time.Hour
	return sc
}

// TestNoteAllocs: in the steady state a note allocates nothing (notes are
// interned like labels): an execution of twice as many noting events
// allocates as much as one of half as many.
func TestNoteAllocs(t *testing.T) {
	sc := notedPingScenario(4)
	run := func(steps int) func() {
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{MaxSteps: steps, CountWindow: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		r := sim.Run(timedsim.SeedPath(1)) // interns every label and note
		if r.Composite[timedsim.CompositeLabel("deliver Pong", "pong: even")] == 0 {
			t.Fatalf("no note counted: %v", r.Composite)
		}
		return func() { sim.Run(timedsim.SeedPath(1)) }
	}
	short, long := run(2000), run(4000)
	if a, b := testing.AllocsPerRun(3, short), testing.AllocsPerRun(3, long); a != b {
		t.Errorf("2000 events allocate %v times, 4000 events %v times: notes allocate in the steady state", a, b)
	}
}

// TestCheckNote: the rules of a note's text, and the panic of a handler
// that breaks them (a caller bug, reported where it happened).
func TestCheckNote(t *testing.T) {
	for _, ok := range []string{"ignored: not joined", "dropped stale reply", "evicted a leaf-set member", "x y", "état: ignoré"} {
		if err := timedsim.CheckNote(ok); err != nil {
			t.Errorf("CheckNote(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "dropped", "Remove", timedsim.SentNothing, " padded", "two\nlines", "tab\there", "a → b",
		strings.Repeat("x ", timedsim.MaxNoteLen), "bad \xff utf8"} {
		err := timedsim.CheckNote(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "timedsim: ") {
			t.Errorf("CheckNote(%q) = %v, want a timedsim error", bad, err)
		}
	}
	sc := pingpong.Scenario(2, 3)
	sc.New = func(id timedsim.NodeID) timedsim.Service { return &badNote{} }
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(1))
	if r.Outcome != timedsim.Panicked || r.Panic.Label != "init" || !strings.Contains(r.Panic.Value, `timedsim: note "dropped" reads as a message type name`) {
		t.Errorf("outcome %v, panic %+v", r.Outcome, r.Panic)
	}
}

type badNote struct{ pingpong.Node }

func (*badNote) Init(ctx timedsim.Context) { ctx.Note("dropped") }

// TestIgnoreNotes: with Options.IgnoreNotes the same path runs
// the same execution (times, steps, plain counts) while no label carries
// a note, and a handler that only noted counts as having done nothing, as
// a protocol written without notes would.
func TestIgnoreNotes(t *testing.T) {
	sc := noterScenario(6, true)
	run := func(ignore bool) *timedsim.Result {
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{IgnoreNotes: ignore, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		return sim.Run(timedsim.SeedPath(3))
	}
	with, without := run(false), run(true)
	if with.ExecTime != without.ExecTime || with.Steps != without.Steps || !maps.Equal(with.Counts, without.Counts) {
		t.Fatalf("ignoring notes changed the execution: %v/%d vs %v/%d", with.ExecTime, with.Steps, without.ExecTime, without.Steps)
	}
	noted := 0
	for l, n := range with.Composite {
		if strings.Contains(l, "ignored: no news") {
			noted += n
		}
	}
	if noted == 0 {
		t.Fatal("the test's premise: some handler noted 'ignored: no news'")
	}
	for l := range without.Composite {
		if strings.Contains(l, "ignored: no news") || strings.Contains(l, "merged: news") || strings.Contains(l, "tick: every third") {
			t.Fatalf("label %q carries a note with IgnoreNotes", l)
		}
	}
	if without.Composite["deliver Rumor → (nothing)"] < noted {
		t.Fatalf("the %d Rumors that only noted do not count as (nothing): %v", noted, without.Composite)
	}
	for _, e := range without.Events {
		if len(e.Notes) > 0 {
			t.Fatalf("step %d records notes %v with IgnoreNotes", e.Step, e.Notes)
		}
	}
	// The config hash tells the two apart, and a path file keeps the
	// choice.
	if timedsim.ConfigHash("g", "v", sc, timedsim.Options{}) == timedsim.ConfigHash("g", "v", sc, timedsim.Options{IgnoreNotes: true}) {
		t.Fatal("IgnoreNotes does not change the config hash")
	}
	pf, err := timedsim.NewPathFile("g", "v", sc, timedsim.Options{IgnoreNotes: true}, timedsim.SeedPath(3), "")
	if err != nil {
		t.Fatal(err)
	}
	if o, err := pf.Options(); err != nil || !o.IgnoreNotes {
		t.Fatalf("path file options %+v, %v", o, err)
	}
}

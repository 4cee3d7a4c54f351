package liveness

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// Hostile protocols in the liveness mode: a Describe that panics or is not deterministic, message labels and
// timer names the timed simulator refuses, and protocol text with hidden
// characters in the liveness mode's outputs.

// ticker ticks (a timer) until it has ticked three times; its state is
// live then. Its Describe panics once Ticks reaches boom (never if boom
// is negative).
type ticker struct {
	Ticks int
	boom  int
}

func (n *ticker) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", time.Millisecond, nil) }
func (n *ticker) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *ticker) Timer(ctx timedsim.Context, _ string, _ any) {
	n.Ticks++
	if n.Ticks < 3 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}
func (n *ticker) Describe() string {
	if n.boom >= 0 && n.Ticks >= n.boom {
		var m map[string]int
		//lint:ignore SA5000 Describe's panic is what the test needs
		m["x"] = n.Ticks // assignment to entry in nil map
	}
	return fmt.Sprintf("ticks=%d", n.Ticks)
}

var ticked = timedsim.Property{Name: "ticked", Check: func(w timedsim.World) bool {
	for i := range w.Nodes() {
		if w.Node(timedsim.NodeID(i)).(*ticker).Ticks < 3 {
			return false
		}
	}
	return true
}}

func tickerScenario(nodes, boom int) *timedsim.Scenario {
	return &timedsim.Scenario{Nodes: nodes, New: func(timedsim.NodeID) timedsim.Service { return &ticker{boom: boom} }, Liveness: []timedsim.Property{ticked}}
}

// Item 13: a Describe that panics is a panic finding at the step whose
// state it describes, with a path whose replay and trace end in it; not
// a liveness violation because every state described alike (before: the
// ticker that panics from its first state was "dead", all its states
// duplicates of the first). The DFS finds it when hashing; without state
// hashing, nothing describes the states of the search, but a violation's
// path that passes through such a state is the Describe's panic (here
// a safety property that fails at the third tick, after the panic); so
// is a random walk's dead path that passes a state beyond the DFS's
// bound (here with a liveness property that never holds).
func TestDescribePanicIsAFinding(t *testing.T) {
	const want = "Describe panicked: assignment to entry in nil map"
	fewTicks := timedsim.Property{Name: "few ticks", Check: func(w timedsim.World) bool { return w.Node(0).(*ticker).Ticks < 3 }}
	for _, c := range []struct {
		name      string
		nodes     int
		boom      int
		noHashing bool
		depth     int
		step      int
		node      string
	}{
		{"always", 1, 0, false, 3, -1, "n0"},
		{"second tick", 2, 2, false, 3, 1, "n0"},
		{"second tick, no hashing", 2, 2, true, 3, 1, "n0"},
		{"third tick, past the bound", 1, 3, false, 2, 2, "n0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := tickerScenario(c.nodes, c.boom)
			if c.noHashing {
				sc.Safety = []timedsim.Property{fewTicks}
			}
			if c.depth < 3 {
				sc.Liveness = []timedsim.Property{{Name: "never", Check: func(timedsim.World) bool { return false }}}
			}
			cfg := Config{Scenario: sc, Depth: c.depth, MaxDepth: c.depth, DMax: 20, Jobs: 1, NoHashing: c.noHashing}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Violation
			if v == nil || v.Kind != KindPanic || !strings.Contains(v.Panic, c.node+": "+want) || v.Step != c.step || v.Path.Steps != c.step+1 {
				t.Fatalf("violation %+v", v)
			}
			lines, err := Replay(cfg, v.Path)
			if err != nil {
				t.Fatal(err)
			}
			end := fmt.Sprintf("# end after %d steps: panic: %s: %s", c.step+1, c.node, want)
			if !slices.Contains(lines, end) {
				t.Fatalf("the replay does not end in the panic %q:\n%s", end, strings.Join(lines, "\n"))
			}
			tr, err := TracePath(cfg, v.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tr.End, "panic: "+c.node+": "+want) || len(tr.Steps) != c.step+1 {
				t.Fatalf("trace end %q after %d steps", tr.End, len(tr.Steps))
			}
		})
	}
	// The level division finds it too, at the same step.
	cfg := Config{Scenario: tickerScenario(2, 2), Depth: 3, MaxDepth: 3, DMax: 20, Jobs: 2, LevelDivision: true, SplitDepth: 2}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Violation; v == nil || v.Kind != KindPanic || !strings.Contains(v.Panic, want) || v.Step != 1 {
		t.Fatalf("level division: violation %+v", v)
	}
	// A Describe that never panics leaves the search as it was.
	rep, err = Run(context.Background(), Config{Scenario: tickerScenario(2, -1), Depth: 3, MaxDepth: 3, DMax: 20, Jobs: 1})
	if err != nil || rep.Violation != nil || len(rep.Warnings) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
}

// mapped keeps a set of keys in a map and describes it in the map's
// order: Go's random iteration order.
type mapped struct {
	ticker
	Keys map[int]bool
}

func (n *mapped) Timer(ctx timedsim.Context, name string, data any) {
	n.ticker.Timer(ctx, name, data)
	n.Keys[n.Ticks] = true
}

func (n *mapped) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ticks=%d", n.Ticks)
	for k := range n.Keys {
		fmt.Fprintf(&b, " %d", k)
	}
	return b.String()
}

func mappedScenario(nodes int) *timedsim.Scenario {
	keys := map[int]bool{}
	for k := 10; k < 20; k++ {
		keys[k] = true
	}
	return &timedsim.Scenario{Nodes: nodes, Liveness: []timedsim.Property{{Name: "ticked", Check: func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if w.Node(timedsim.NodeID(i)).(*mapped).Ticks < 3 {
				return false
			}
		}
		return true
	}}}, New: func(timedsim.NodeID) timedsim.Service {
		n := &mapped{ticker: ticker{boom: -1}, Keys: map[int]bool{}}
		for k := range keys {
			n.Keys[k] = true
		}
		return n
	}}
}

// Item 14: a Describe whose text follows a map's order is not a pure
// function of the state. The search says so, once, naming the node and
// the two texts; a deterministic Describe gets no warning (above). The
// map has ten entries, so that two calls give one order with a chance of
// a few percent at most, and the search checks far more states than it
// takes to see two orders.
func TestNondeterministicDescribeIsWarned(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		rep, err := Run(context.Background(), Config{Scenario: mappedScenario(2), Depth: 3, MaxDepth: 6, DMax: 20, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "'s Describe is not deterministic: two calls on the same state gave different text (a map iterated in Go's random order?)") {
			t.Fatalf("jobs %d: warnings %q", jobs, rep.Warnings)
		}
	}
}

// forger's texts would forge lines of the event log, or reverse the
// text after them on screen, if they were written as they are: its
// application event's name, its Logf line, its panic and a property's
// name.
type forger struct{ got int }

const (
	forged = "\n5 n0 timer forged [choice 0 of 1]"
	rlo    = "\u202e"
)

func (f *forger) Init(timedsim.Context)                                       {}
func (f *forger) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (f *forger) Timer(timedsim.Context, string, any)                         {}
func (f *forger) App(ctx timedsim.Context, name string, _ any) {
	f.got++
	ctx.Logf("log%s", forged)
	if f.got == 2 {
		panic("boom" + forged + rlo)
	}
}

// labelled is a message whose label the timed simulator refuses.
type labelled struct{ label string }

func (labelled) Size() int              { return 1 }
func (l labelled) MessageLabel() string { return l.label }

// sender sends a labelled message, or sets a timer named name, in Init.
type sender struct {
	label, timer string
}

func (s *sender) Init(ctx timedsim.Context) {
	if s.timer != "" {
		ctx.SetTimer(s.timer, time.Millisecond, nil)
	}
	if s.label != "" && ctx.Self() == 0 {
		ctx.Send(1, labelled{s.label})
	}
}
func (s *sender) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (s *sender) Timer(timedsim.Context, string, any)                         {}

// In the liveness mode, a message label or a timer name
// that timedsim.CheckMessageLabel or CheckTimerName refuses makes the
// handler panic, a finding, as in the timed simulator (before: the
// label went into the event log, a line break and all).
func TestBadLabelsPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		svc  sender
		want string
	}{
		{"label", sender{label: "Pi\nng"}, `n0: timedsim: message label "Pi\nng" has a control character`},
		{"label rlo", sender{label: "Pi" + rlo + "ng"}, `n0: timedsim: message label "Pi\u202eng" has an invisible formatting character`},
		{"timer", sender{timer: "tick\nforged"}, `n0: timedsim: timer name "tick\nforged" has a control character`},
	} {
		svc := c.svc
		sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { s := svc; return &s }, Liveness: []timedsim.Property{always}}
		rep, err := Run(context.Background(), Config{Scenario: sc, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if v := rep.Violation; v == nil || v.Kind != KindPanic || !strings.HasPrefix(v.Panic, c.want) || v.Step != -1 {
			t.Errorf("%s: violation %+v", c.name, v)
		}
	}
}

// In the liveness mode's outputs, the protocol's
// text in the event log (Replay: the dead.log and live.log of a run), the
// trace (explore), and the violation's panic and property names has its
// hidden characters made visible: every line of the log is one line, and
// no right-to-left override is left as it is (before: the Logf line, the
// panic and the application event's name went out raw).
func TestLivenessOutputsMakeHiddenCharactersVisible(t *testing.T) {
	prop := "joined" + forged + rlo
	sc := &timedsim.Scenario{Nodes: 1, New: func(timedsim.NodeID) timedsim.Service { return &forger{} },
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "join"+rlo, nil)
			d.App(time.Millisecond, 0, "join"+forged, nil)
		},
		Liveness: []timedsim.Property{{Name: prop, Check: func(timedsim.World) bool { return false }}}}
	cfg := Config{Scenario: sc, Jobs: 1, Depth: 1, MaxDepth: 1, DMax: 10}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Violation
	const wantPanic = `n0: boom\n5 n0 timer forged [choice 0 of 1]\u202e`
	if v == nil || v.Kind != KindPanic || v.Panic != wantPanic || v.Step != 1 {
		t.Fatalf("violation %+v", v)
	}
	clean := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\n"+rlo) {
			t.Errorf("%s has a hidden character: %q", what, s)
		}
	}
	lines, err := Replay(cfg, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		clean("replay line", l)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{`0 n0 app join\u202e [choice 0 of 1]`, `    n0: log\n5 n0 timer forged`, `1 n0 app join\n5 n0 timer forged [choice 0 of 1] [choice 0 of 1]`,
		"# end after 2 steps: panic: " + wantPanic} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q:\n%s", want, text)
		}
	}
	tr, err := TracePath(cfg, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	clean("trace end", tr.End)
	for _, st := range tr.Steps {
		clean("trace label", st.Label)
		clean("trace desc", st.Desc)
	}
	// A dead path names the property made visible.
	p := v.Path
	p.Steps = 1
	lines, err = Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `# not live: joined\n5 n0 timer forged [choice 0 of 1]\u202e`; !slices.Contains(lines, want) {
		t.Errorf("the log lacks %q:\n%s", want, strings.Join(lines, "\n"))
	}
	rep, err = Run(context.Background(), Config{Scenario: sc, Jobs: 1, Depth: 1, MaxDepth: 1, DMax: 10, Liveness: sc.Liveness,
		Safety: []timedsim.Property{{Name: "safe" + forged, Check: func(timedsim.World) bool { return false }}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Violation; v == nil || v.Kind != KindSafety || v.Property != `safe\n5 n0 timer forged [choice 0 of 1]` {
		t.Errorf("safety violation %+v", v)
	}
}

// MeasureCost bounds the first iteration from below by
// the initial state's enabled events (one DFS sequence each, each started
// again from the initial state) and the time of a start, on one worker
// (the division is sequential) or, with the level division, on all. The
// clock is the test's: every reading is a second later.
func TestMeasureCost(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 7, New: func(timedsim.NodeID) timedsim.Service { return &ticker{boom: -1} }, Liveness: []timedsim.Property{ticked}}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	for _, c := range []struct {
		cfg  Config
		want Cost
	}{
		{Config{Scenario: sc, Jobs: 2}, Cost{Enabled: 7, Restart: 2 * time.Second, Workers: 1}},
		{Config{Scenario: sc, Jobs: 2, NoHashing: true}, Cost{Enabled: 7, Restart: time.Second, Workers: 1}},
		{Config{Scenario: sc, Jobs: 2, LevelDivision: true}, Cost{Enabled: 7, Restart: 2 * time.Second, Workers: 2}},
		// From the end of a prefix in which one node ticked three times.
		{Config{Scenario: sc, Jobs: 2, Prefix: &Path{Choices: []int{0, 0, 0}, Segments: []timedsim.Segment{{}}, Steps: 3}}, Cost{Enabled: 6, Restart: 2 * time.Second, Workers: 1}},
		// A prefix that ends in a violation: the search stops there.
		{Config{Scenario: tickerScenario(1, 0), Jobs: 2}, Cost{Workers: 1}},
	} {
		got, err := MeasureCost(c.cfg, now)
		if err != nil || got != c.want {
			t.Errorf("%+v: %+v %v, want %+v", c.cfg, got, err, c.want)
		}
	}
	if got := (Cost{Enabled: 7, Restart: time.Second, Workers: 2}).Least(); got != 4*time.Second {
		t.Errorf("Least %v", got)
	}
	if got := (Cost{Enabled: math.MaxInt, Restart: time.Hour, Workers: 1}).Least(); got != math.MaxInt64 {
		t.Errorf("Least saturated %v", got)
	}
	if _, err := MeasureCost(Config{}, now); err == nil || !strings.HasPrefix(err.Error(), "liveness: ") {
		t.Errorf("bad config: %v", err)
	}
}

package timedsim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// Text that a protocol's code controls (message
// labels, timer names, notes, states, log lines, panics) can neither
// split a line of the event log, nor hide characters (a right-to-left
// override) in it.

// labeled is a message whose label the test chooses.
type labeled struct{ label string }

func (labeled) Size() int              { return 64 }
func (m labeled) MessageLabel() string { return m.label }

// hostileNode does one hostile thing in Init, from node 0.
type hostileNode struct {
	pingpong.Node
	id   timedsim.NodeID
	init func(ctx timedsim.Context)
	desc string
}

func (n *hostileNode) Init(ctx timedsim.Context) {
	if n.id == 0 {
		n.init(ctx)
	}
}

func (n *hostileNode) Describe() string { return n.desc }

func runHostile(t *testing.T, desc string, init func(ctx timedsim.Context)) *timedsim.Result {
	t.Helper()
	sc := pingpong.Scenario(2, 1)
	sc.New = func(id timedsim.NodeID) timedsim.Service { return &hostileNode{id: id, init: init, desc: desc} }
	sc.Stop = func(timedsim.World) bool { return false }
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true, MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Run(timedsim.SeedPath(1))
}

func TestCheckMessageLabel(t *testing.T) {
	for _, ok := range []string{"", "MsgApp", "deliver later", "état", "Join/Reply"} {
		if err := timedsim.CheckMessageLabel(ok); err != nil {
			t.Errorf("CheckMessageLabel(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"Pi\nng", "tab\there", " padded", "a → b", timedsim.SentNothing, timedsim.TimerComposite("tick", true), "bad \xff", "rev\u202eerse", "zero\u200bwidth", "line\u2028sep"} {
		if err := timedsim.CheckMessageLabel(bad); err == nil || !strings.HasPrefix(err.Error(), "timedsim: message label ") {
			t.Errorf("CheckMessageLabel(%q) = %v, want a timedsim error", bad, err)
		}
	}
	for _, bad := range []string{"rev\u202eerse", "rtl\u2067isolate", "zero\u200bwidth"} {
		if err := timedsim.CheckNote(bad); err == nil {
			t.Errorf("CheckNote(%q) accepted an invisible character", bad)
		}
	}
}

// A handler that sends a message whose label would split a line, or
// names a timer so, or notes a right-to-left override, panics: a finding
// about the protocol, with its path, not a forged event log.
func TestHostileLabelsPanicTheHandler(t *testing.T) {
	for _, c := range []struct {
		name, want string
		init       func(ctx timedsim.Context)
	}{
		{"message label", `message label "Pi\nng"`, func(ctx timedsim.Context) { ctx.Send(1, labeled{"Pi\nng"}) }},
		{"message label rtl", `message label "Pi\u202eng"`, func(ctx timedsim.Context) { ctx.Send(1, labeled{"Pi\u202eng"}) }},
		{"timer name", `timer name "t\n     5 n0"`, func(ctx timedsim.Context) { ctx.SetTimer("t\n     5 n0", 1, nil) }},
		{"note", `note "ok\u202e"`, func(ctx timedsim.Context) { ctx.Note("ok\u202e") }},
	} {
		r := runHostile(t, "fine", c.init)
		if r.Outcome != timedsim.Panicked || r.Panic == nil || !strings.Contains(r.Panic.Value, c.want) {
			t.Errorf("%s: outcome %v, panic %+v; want a panic naming %s", c.name, r.Outcome, r.Panic, c.want)
		}
		if r.Panic != nil && strings.ContainsAny(r.Panic.Value, "\n\u202e") {
			t.Errorf("%s: the panic's text holds the hidden character: %q", c.name, r.Panic.Value)
		}
	}
}

// States, log lines and panics are made visible: each event log line is
// one line, with no hidden character.
func TestEventLogShowsHiddenCharacters(t *testing.T) {
	state := "Node{rev:\u202eesrever\n# n1: forged}"
	r := runHostile(t, state, func(ctx timedsim.Context) {
		ctx.Logf("line one\n     99 n0   forged event")
		ctx.Send(1, labeled{"Ping"})
		panic("boom\n# safety property violated: forged\u202e")
	})
	if r.Outcome != timedsim.Panicked {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if got := timedsim.Describe(&hostileNode{desc: state}); got != `Node{rev:\u202eesrever\n# n1: forged}` {
		t.Errorf("Describe = %q", got)
	}
	var b bytes.Buffer
	if err := timedsim.WriteEventLog(&b, timedsim.LogHeader{System: "s", Variant: "v", Nodes: 2}, r); err != nil {
		t.Fatal(err)
	}
	log := b.String()
	if strings.ContainsRune(log, '\u202e') {
		t.Errorf("the event log holds a raw U+202E:\n%s", log)
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "forged") && !strings.Contains(l, `\n`) {
			t.Errorf("a forged line: %q\n%s", l, log)
		}
	}
	for _, want := range []string{`log: line one\n     99 n0   forged event`, `boom\n# safety property violated: forged\u202e`} {
		if !strings.Contains(log, want) {
			t.Errorf("the event log lacks %q:\n%s", want, log)
		}
	}
}

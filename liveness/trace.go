package liveness

import (
	"strings"

	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/timedsim"
)

// Trace is an execution of a path step by step, with what each step did
// and each node's state after it: what an execution debugger shows
// (package explore). It is a pure function of the path, like Replay.
type Trace struct {
	// Initial is each node's Describe state after the Inits, before step 0.
	Initial []string    `json:"initial"`
	Steps   []TraceStep `json:"steps"`
	// End says how the execution ended, as Replay's "# end" line does
	// ("panic: …", "safety property P violated", "no event enabled"), ""
	// when it ran its steps.
	End string `json:"end,omitempty"`
	// Failing lists the liveness properties that do not hold at the end
	// (not evaluated after a panic).
	Failing []string `json:"failing,omitempty"`
}

// TraceStep is one step of a Trace.
type TraceStep struct {
	// Node is the node the step acted on, -1 for a driver's fault that
	// names none (a partition, a heal).
	Node int `json:"node"`
	// From is a delivered message's sender or an error upcall's peer, -1
	// otherwise.
	From int `json:"from"`
	// Kind is the event's weight kind ("app", "message", "timer",
	// "error", "reset", "break", "drop", "crash", "partition") or, for the
	// driver's faults, the timed simulator's kind of the fault ("reset",
	// "break", "partition", "heal"); Label is the event's label ("deliver
	// Join", "driver reset"), Desc its full description as in Replay's
	// log.
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Desc  string `json:"desc"`
	// SentStep and SentIndex locate a delivered message's send: the step
	// that sent it (-1: an Init) and its index in that step's Sends.
	SentStep  int `json:"sent_step"`
	SentIndex int `json:"sent_index"`
	// Choice is the index of the event among Enabled events.
	Choice  int          `json:"choice"`
	Enabled int          `json:"enabled"`
	Sends   []TraceSend  `json:"sends,omitempty"`
	Timers  []TraceTimer `json:"timers,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
	// State is Describe of Node's service after the step (a reset: of its
	// fresh service, after its Init).
	State string `json:"state"`
}

// TraceSend is a message a step sent. Failed: its send queue was full;
// Unreachable: a reliable send failed because its destination had crashed
// or was across a partition; Lost: a datagram to such a node, lost.
type TraceSend struct {
	To          int    `json:"to"`
	Type        string `json:"type"`
	Transport   string `json:"transport"`
	Failed      bool   `json:"failed,omitempty"`
	Unreachable bool   `json:"unreachable,omitempty"`
	Lost        bool   `json:"lost,omitempty"`
}

// sendStatus is the fate of a send, for TraceSend.
type sendStatus uint8

const (
	sendOK sendStatus = iota
	sendQueueFull
	sendUnreachable
	sendLost
)

// TraceTimer is a timer a step set or cancelled.
type TraceTimer struct {
	Name   string `json:"name"`
	Cancel bool   `json:"cancel,omitempty"`
}

// tracer collects a Trace while a world runs a path.
type tracer struct {
	t   *Trace
	cur *TraceStep // the running step; nil during the Inits
}

// TracePath re-executes path p with cfg's scenario and settings, recording
// every step (see Trace).
func TracePath(cfg Config, p Path) (*Trace, error) {
	w, err := pathWorld(cfg, p)
	if err != nil {
		return nil, err
	}
	tr := &tracer{t: &Trace{Steps: []TraceStep{}}}
	w.tracer = tr
	res := w.walk(p, walkOptions{liveFrom: -1, describe: true, onEvent: func(step int, desc string, c, of int) {
		st := &tr.t.Steps[len(tr.t.Steps)-1]
		st.Desc, st.Choice, st.Enabled = desc, c, of
	}})
	if res.err != nil {
		return nil, res.err
	}
	if tr.t.Initial == nil { // no step ran: the world is in its initial state
		tr.t.Initial = make([]string, len(w.nodes))
		for i := range w.nodes {
			tr.t.Initial[i] = w.nodeDesc(i)
		}
	}
	switch {
	case res.panicked != "":
		tr.t.End = "panic: " + res.panicked
	case res.safety != "":
		tr.t.End = "safety property " + res.safety + " violated"
	case res.quiescent:
		tr.t.End = "no event enabled"
	}
	if res.panicked == "" {
		tr.t.Failing = w.failing()
	}
	return tr.t, nil
}

// begin starts recording step e (called before it runs).
func (tr *tracer) begin(w *world, e event) {
	if tr.t.Initial == nil {
		tr.t.Initial = make([]string, len(w.nodes))
		for i := range w.nodes {
			tr.t.Initial[i] = w.nodeDesc(i)
		}
	}
	st := TraceStep{Node: int(e.node), From: -1, Kind: w.traceKind(e), Label: visible.String(w.label(e)), SentStep: -1, SentIndex: -1}
	switch e.kind {
	case kindDeliver:
		c := w.conns[e.idx]
		m := &c.q[e.pos]
		st.From, st.SentStep, st.SentIndex = int(c.src), int(m.sentStep), int(m.sentIndex)
	case kindError:
		st.From = int(w.errs[e.idx].te.Peer)
	}
	tr.t.Steps = append(tr.t.Steps, st)
	tr.cur = &tr.t.Steps[len(tr.t.Steps)-1]
}

// traceKind is TraceStep.Kind of e.
func (w *world) traceKind(e event) string {
	switch e.kind {
	case kindScript:
		return w.drv.faults[w.script].ev.Kind.String()
	case kindHeal:
		return timedsim.ScriptHeal.String()
	}
	return kindNames()[e.kind]
}

// end records the state of the step's node after it ran (the node a
// driver's chosen reset chose).
func (tr *tracer) end(w *world, e event) {
	tr.cur.Node = int(w.stepNode)
	if w.stepNode >= 0 {
		tr.cur.State = w.nodeDesc(int(w.stepNode))
	}
	tr.cur = nil
}

// sent records a send of the running step; it returns the send's step
// and index for the message's record.
func (tr *tracer) sent(to int32, label, transport string, st sendStatus) (int32, int32) {
	if tr.cur == nil {
		return -1, -1
	}
	tr.cur.Sends = append(tr.cur.Sends, TraceSend{To: int(to), Type: visible.String(strings.TrimPrefix(label, "deliver ")), Transport: transport,
		Failed: st == sendQueueFull, Unreachable: st == sendUnreachable, Lost: st == sendLost})
	return int32(len(tr.t.Steps) - 1), int32(len(tr.cur.Sends) - 1)
}

func (tr *tracer) timer(name string, cancel bool) {
	if tr.cur != nil {
		tr.cur.Timers = append(tr.cur.Timers, TraceTimer{Name: name, Cancel: cancel})
	}
}

func (tr *tracer) note(text string) {
	if tr.cur != nil && !containsString(tr.cur.Notes, text) {
		tr.cur.Notes = append(tr.cur.Notes, text)
	}
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

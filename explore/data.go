package explore

import (
	"fmt"
	"strings"
	"time"

	"github.com/macepc/macepc/critpath"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/timedsim"
)

// Kinds of steps, as the chart draws them.
const (
	KindInit    = "init"
	KindApp     = "app"
	KindDeliver = "deliver"
	KindTimer   = "timer"
	KindError   = "error"
	KindReset   = "reset"
	KindFault   = "fault" // break, partition, heal
)

// Kinds of marks.
const (
	MarkDivergence = "divergence" // the divergence point of an anomaly (MacePC)
	MarkCritical   = "critical"   // the critical transition of a dead path (MaceMC)
	MarkFirstDiff  = "first-diff" // the first step where two paired executions differ
	MarkViolation  = "violation"  // a safety or liveness violation, or a panic
	MarkEnd        = "end"        // how the execution ended
)

// Data is everything explore.html shows.
type Data struct {
	// Title heads the page ("randtree/buggy, 3 nodes, seed 1").
	Title      string
	Executions []*Execution
	// Pairs are the executions shown side by side (Pair).
	Pairs []Pair
}

// Pair is two executions aligned at their common prefix: they take the
// same steps before FirstDiff (-1: none differs, one is a prefix of the
// other).
type Pair struct {
	A, B      int
	Name      string
	FirstDiff int
}

// Execution is one execution step by step.
type Execution struct {
	// Name is short ("anomalous", "similar", "dead", "live"); Title says
	// what it is in one line, with its seeds.
	Name, Title string
	Nodes       int
	// Timed: Start and Duration are simulated time; otherwise time is
	// logical (the liveness mode): step i is at i ms.
	Timed   bool
	Steps   []Step
	Initial []string // each node's state before step 0 ("" unknown)
	Marks   []Mark
	// Critical are the steps on the execution's critical path (package
	// critpath), ascending; explore.html highlights them.
	Critical []int
	// End says how the execution ended (outcome, execution time).
	End string
}

// Step is one step of an execution.
type Step struct {
	Node int // -1: no node (a partition or heal)
	From int // a delivered message's sender, an upcall's peer, -1
	Kind string
	// Label is the event label ("deliver Join"); Desc, if not empty, a
	// longer description (the liveness mode's event with its message).
	Label, Desc     string
	Start, Duration time.Duration
	// SentStep is a delivery's sending step and SentIndex the send's
	// index in its Sends (-1, -1: unknown).
	SentStep, SentIndex int
	Sends               []Send
	Timers              []Timer
	Notes               []string
	// State is Node's Describe state after the step.
	State string
}

// Send is a message a step sent.
type Send struct {
	To   int
	Type string
	// Status: "sent", "dropped" (lost in the network), "queue-full",
	// "unreachable" (failed sends).
	Status string
	// Recv is the step that delivered it, -1 if none did.
	Recv int
}

// Timer is a timer a step set (At: when it fires, timed only) or
// cancelled.
type Timer struct {
	Name   string
	Cancel bool
	At     time.Duration
}

// Mark is a step worth jumping to.
type Mark struct {
	Step int
	Kind string
	Text string
}

// Mark adds a mark at step (clamped to the execution's steps; nothing
// without steps).
func (e *Execution) Mark(step int, kind, text string) {
	if len(e.Steps) == 0 {
		return
	}
	step = max(0, min(step, len(e.Steps)-1))
	e.Marks = append(e.Marks, Mark{Step: step, Kind: kind, Text: text})
}

// FromTimed is a replayed timed execution: r must be recorded with
// timedsim.Options Record and RecordStates. A panic or safety violation
// is marked.
func FromTimed(name string, h timedsim.LogHeader, r *timedsim.Result) *Execution {
	e := &Execution{Name: name, Nodes: h.Nodes, Timed: true, Initial: initial(r.InitialStates, h.Nodes),
		Title: fmt.Sprintf("%s %s: %s/%s, %d nodes, path %s", name, "execution", h.System, h.Variant, h.Nodes, pathText(h.Path)),
		End:   fmt.Sprintf("%s after %d steps, execution time %s", r.Outcome, r.Steps, units.Duration(r.ExecTime))}
	type key struct {
		node int
		end  time.Duration
	}
	ended := map[key]int{} // the step of each node ending at a time
	for i := range r.Events {
		ev := &r.Events[i]
		s := Step{Node: int(ev.Node), From: int(ev.From), Label: ev.Label, Start: ev.Start, Duration: ev.Duration, SentStep: -1, SentIndex: -1,
			Kind: timedKind(ev.Label), Notes: ev.Notes, State: ev.State}
		for _, m := range ev.Sends {
			s.Sends = append(s.Sends, Send{To: int(m.To), Type: m.Type, Status: m.Status, Recv: -1})
		}
		for _, t := range ev.Timers {
			s.Timers = append(s.Timers, Timer{Name: t.Name, Cancel: t.Cancel, At: t.At})
		}
		if s.Kind == KindDeliver && ev.From != timedsim.None {
			if j, ok := ended[key{s.From, ev.Depart}]; ok {
				for k, m := range e.Steps[j].Sends {
					if m.To == s.Node && m.Recv < 0 && m.Status == "sent" && "deliver "+m.Type == ev.Label {
						s.SentStep, s.SentIndex = j, k
						e.Steps[j].Sends[k].Recv = i
						break
					}
				}
			}
		}
		if s.Node >= 0 {
			ended[key{s.Node, ev.Start + ev.Duration}] = i
		}
		e.Steps = append(e.Steps, s)
	}
	if p, err := critpath.Compute(r.Events); err == nil {
		e.Critical = p.Steps
	}
	if p := r.Panic; p != nil {
		e.Mark(p.Step, MarkViolation, "panic in the "+p.Where+": "+p.Value)
	}
	if p := r.DescribePanic; p != nil {
		e.Mark(p.Step, MarkViolation, p.DescribeText())
	}
	if r.Violation != "" {
		e.Mark(len(e.Steps)-1, MarkViolation, "safety property "+r.Violation+" violated")
	}
	e.Mark(len(e.Steps)-1, MarkEnd, e.End)
	return e
}

// initial is a copy of the initial states, "" for those unknown.
func initial(states []string, nodes int) []string {
	out := make([]string, nodes)
	copy(out, states)
	return out
}

// timedKind is the kind of a timed event by its label.
func timedKind(label string) string {
	word, _, _ := strings.Cut(label, " ")
	switch word {
	case "init", "app", "deliver", "timer", "error", "reset":
		return word
	}
	return KindFault
}

func pathText(p timedsim.Path) string { return p.String() }

// FromTrace is a liveness path's trace (liveness.TracePath). Time is
// logical. A panic or safety violation, and a dead end (liveness
// properties failing at the end), are marked.
func FromTrace(name, title string, tr *liveness.Trace) *Execution {
	e := &Execution{Name: name, Title: title, Nodes: len(tr.Initial), Initial: tr.Initial}
	for i, st := range tr.Steps {
		kind := st.Kind
		if kind == "message" {
			kind = KindDeliver
		}
		s := Step{Node: st.Node, From: st.From, Kind: kind, Label: st.Label, Desc: st.Desc, Start: time.Duration(i) * time.Millisecond,
			SentStep: st.SentStep, SentIndex: st.SentIndex, Notes: st.Notes, State: st.State}
		for _, m := range st.Sends {
			status := "sent"
			switch {
			case m.Failed:
				status = "queue-full"
			case m.Unreachable: // to a crashed node or across a partition
				status = "unreachable"
			case m.Lost:
				status = "dropped"
			}
			s.Sends = append(s.Sends, Send{To: m.To, Type: m.Type, Status: status, Recv: -1})
		}
		for _, t := range st.Timers {
			s.Timers = append(s.Timers, Timer{Name: t.Name, Cancel: t.Cancel})
		}
		if s.SentStep >= 0 && s.SentStep < i && s.SentIndex >= 0 && s.SentIndex < len(e.Steps[s.SentStep].Sends) {
			e.Steps[s.SentStep].Sends[s.SentIndex].Recv = i
		}
		e.Steps = append(e.Steps, s)
	}
	e.End = fmt.Sprintf("ended after %d steps", len(tr.Steps))
	if tr.End != "" {
		e.End += ": " + tr.End
	}
	if len(tr.Failing) > 0 {
		e.End += "; not live: " + strings.Join(tr.Failing, ", ")
	} else if !strings.HasPrefix(tr.End, "panic") {
		e.End += "; live"
	}
	if strings.HasPrefix(tr.End, "panic") || strings.HasPrefix(tr.End, "safety") {
		e.Mark(len(e.Steps)-1, MarkViolation, tr.End)
	}
	e.Mark(len(e.Steps)-1, MarkEnd, e.End)
	return e
}

// Pair shows executions a and b side by side, aligned at their common
// prefix, with the first step where they run different events (FirstDiff)
// marked in both.
func (d *Data) Pair(a, b int, name string) {
	x, y := d.Executions[a], d.Executions[b]
	first := FirstDiff(x, y)
	d.Pairs = append(d.Pairs, Pair{A: a, B: b, Name: name, FirstDiff: first})
	if first >= 0 {
		text := "first step where " + x.Name + " and " + y.Name + " run different events"
		if first < len(x.Steps) {
			x.Marks = append(x.Marks, Mark{Step: first, Kind: MarkFirstDiff, Text: text})
		}
		if first < len(y.Steps) {
			y.Marks = append(y.Marks, Mark{Step: first, Kind: MarkFirstDiff, Text: text})
		}
	}
}

// FirstDiff is the first step at which executions a and b run different
// events (timedsim.FirstDifferentEvent: node, sender, or label with its
// description), the length of the shorter if one is a prefix of the
// other, -1 if they run the same events. The report's event graph marks
// the same step.
func FirstDiff(a, b *Execution) int {
	return timedsim.FirstDifferentEvent(eventKeys(a), eventKeys(b))
}

func eventKeys(e *Execution) []timedsim.EventKey {
	keys := make([]timedsim.EventKey, len(e.Steps))
	for i, s := range e.Steps {
		label := s.Label
		if s.Desc != "" {
			label += "\x00" + s.Desc
		}
		keys[i] = timedsim.EventKey{Node: timedsim.NodeID(s.Node), From: timedsim.NodeID(s.From), Label: label}
	}
	return keys
}

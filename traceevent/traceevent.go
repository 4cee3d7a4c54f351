package traceevent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// Meta names the execution in the trace's metadata.
type Meta struct {
	// Title names the process (the execution), e.g. "randtree buggy,
	// path 0:42".
	Title string
	// Nodes is the number of nodes: every node gets a track, busy or not.
	Nodes int
}

// Event is one trace event. Fields that an event's phase does not use are
// left out.
type Event struct {
	Name string  `json:"name"`
	Cat  string  `json:"cat,omitempty"`
	Ph   string  `json:"ph"`
	Ts   float64 `json:"ts"`
	// Dur is a complete event's duration (nil for the other phases).
	Dur *float64 `json:"dur,omitempty"`
	Pid int      `json:"pid"`
	Tid int      `json:"tid"`
	// ID pairs a flow's start and end; BP "e" binds a flow's end to the
	// slice that encloses it; S is an instant event's scope ("t": its
	// thread).
	ID   string         `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is the JSON object format's top level.
type Trace struct {
	TraceEvents     []Event `json:"traceEvents"`
	DisplayTimeUnit string  `json:"displayTimeUnit"`
}

// pid is the one process of a trace.
const pid = 1

// tid is node n's thread: the format reserves no thread id, but a 0 reads
// as unset in some viewers.
func tid(n timedsim.NodeID) int { return int(n) + 1 }

// us converts a simulated time to the format's microseconds.
func us(d time.Duration) float64 { return float64(d) / 1e3 }

// Build converts the recorded events of an execution (timedsim.Result.Events,
// in step order) into a trace. Events without a node (the driver's) are
// left out; a delivered message whose send is not among events (a replay
// that started after it) has no flow.
func Build(m Meta, events []timedsim.TimedEvent) *Trace {
	t := &Trace{DisplayTimeUnit: "ms", TraceEvents: []Event{}}
	add := func(e Event) { t.TraceEvents = append(t.TraceEvents, e) }
	add(Event{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": m.Title}})
	nodes := m.Nodes
	for _, e := range events {
		if e.Node != timedsim.None {
			nodes = max(nodes, int(e.Node)+1)
		}
	}
	for n := 0; n < nodes; n++ {
		id := timedsim.NodeID(n)
		add(Event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid(id), Args: map[string]any{"name": id.String()}})
		add(Event{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid(id), Args: map[string]any{"sort_index": n}})
	}
	// The sends that were delivered within the events: only those get a
	// flow, so that every flow has both ends.
	type send struct{ step, i int }
	byStep := make(map[int]int, len(events))
	for i := range events {
		byStep[events[i].Step] = i
	}
	delivered := map[send]bool{}
	for i := range events {
		e := &events[i]
		if e.From == timedsim.None || e.CauseSend < 0 {
			continue
		}
		if _, ok := byStep[e.Cause]; ok {
			delivered[send{e.Cause, e.CauseSend}] = true
		}
	}
	for i := range events {
		e := &events[i]
		if e.Node == timedsim.None {
			continue
		}
		args := map[string]any{"step": e.Step}
		if e.From != timedsim.None {
			args["from"] = e.From.String()
		}
		if w := e.Start - e.Ready; w > 0 && e.Ready > 0 {
			args["waited_us"] = us(w)
		}
		if len(e.Notes) > 0 {
			args["notes"] = e.Notes
		}
		if len(e.Logs) > 0 {
			args["logs"] = e.Logs
		}
		if e.State != "" {
			args["state"] = e.State
		}
		th := tid(e.Node)
		dur := us(e.Duration)
		add(Event{Name: e.Label, Cat: "handler", Ph: "X", Ts: us(e.Start), Dur: &dur, Pid: pid, Tid: th, Args: args})
		// A flow ends on its delivery's slice.
		if e.From != timedsim.None && delivered[send{e.Cause, e.CauseSend}] {
			c := &events[byStep[e.Cause]]
			s := c.Sends[e.CauseSend]
			add(Event{Name: s.Type, Cat: "message", Ph: "f", BP: "e", Ts: us(e.Start), Pid: pid, Tid: th, ID: flowID(e.Cause, e.CauseSend)})
		}
		for j, s := range e.Sends {
			if delivered[send{e.Step, j}] {
				add(Event{Name: s.Type, Cat: "message", Ph: "s", Ts: us(e.Start), Pid: pid, Tid: th, ID: flowID(e.Step, j),
					Args: map[string]any{"to": s.To.String(), "transport": s.Transport, "bytes": s.Size, "arrive_us": us(s.Arrive)}})
				continue
			}
			if s.Status != "sent" {
				add(Event{Name: fmt.Sprintf("%s %s to %s", s.Status, s.Type, s.To), Cat: "lost", Ph: "i", S: "t", Ts: us(e.Start + e.Duration), Pid: pid, Tid: th,
					Args: map[string]any{"transport": s.Transport, "bytes": s.Size}})
			}
		}
		for _, tc := range e.Timers {
			name, a := "set timer "+tc.Name, map[string]any{"fires_us": us(tc.At)}
			if tc.Cancel {
				name, a = "cancel timer "+tc.Name, nil
			}
			add(Event{Name: name, Cat: "timer", Ph: "i", S: "t", Ts: us(e.Start + e.Duration), Pid: pid, Tid: th, Args: a})
		}
	}
	return t
}

// flowID names the flow of message i sent at step.
func flowID(step, i int) string { return strconv.Itoa(step) + "." + strconv.Itoa(i) }

// Write writes Build's trace as JSON, one event per line: compact for
// long executions, and diffable.
func Write(w io.Writer, m Meta, events []timedsim.TimedEvent) error {
	t := Build(m, events)
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"displayTimeUnit":` + strconv.Quote(t.DisplayTimeUnit) + `,"traceEvents":[`)
	for i := range t.TraceEvents {
		b, err := json.Marshal(&t.TraceEvents[i])
		if err != nil {
			return fmt.Errorf("traceevent: %w", err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("traceevent: %w", err)
	}
	return nil
}

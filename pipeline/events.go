package pipeline

import (
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// eventsBefore and eventsAfter bound the window of steps kept around the
// divergence step (the report shows a part of it).
const (
	eventsBefore = 32
	eventsAfter  = 96
)

// eventsFile is DIR/divergence-events.json: both executions' events
// around the divergence point in structured form, and each node's
// activity over the whole execution, for the report's event graph and
// per-node completion plot.
type eventsFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Nodes      int    `json:"nodes"`
	// Step is the divergence step; the window is steps [FromStep, ToStep)
	// of each execution (clipped to its length).
	Step       int          `json:"step"`
	FromStep   int          `json:"from_step"`
	ToStep     int          `json:"to_step"`
	Executions []eventsExec `json:"executions"`
}

type eventsExec struct {
	Name       string `json:"name"` // anomalous, similar
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Outcome    string `json:"outcome"`
	// NodeLastNS is, per node, the end time (start + duration) of its last
	// executed event in the whole execution, or of its first event noted
	// timedsim.NoteDone if it has one; -1 for a node that executed none. NodeEvents counts each node's events.
	NodeLastNS []int64      `json:"node_last_ns"`
	NodeEvents []int        `json:"node_events"`
	Events     []eventsItem `json:"events"`
}

type eventsItem struct {
	Step       int          `json:"step"`
	Node       int          `json:"node"`
	From       int          `json:"from"` // sender of a delivered message or peer of an error upcall; -1 none
	Label      string       `json:"label"`
	StartNS    int64        `json:"start_ns"`
	DurationNS int64        `json:"duration_ns"`
	Sends      []eventsSend `json:"sends,omitempty"`
	Timers     []eventsTmr  `json:"timers,omitempty"`
	Notes      []string     `json:"notes,omitempty"` // the handler's notes (timedsim.Context.Note)
}

type eventsSend struct {
	To        int    `json:"to"`
	Type      string `json:"type"`
	Transport string `json:"transport"`
	Size      int    `json:"size"`
	Status    string `json:"status"` // sent, queue-full, dropped, unreachable
	ArriveNS  int64  `json:"arrive_ns,omitempty"`
}

type eventsTmr struct {
	Name   string `json:"name"`
	Cancel bool   `json:"cancel,omitempty"`
	AtNS   int64  `json:"at_ns,omitempty"`
}

// newEventsFile builds divergence-events.json from the recorded
// anomalous execution and, if any, the similar fast one.
func newEventsFile(configHash string, nodes, step int, anomalous, similar *timedsim.Result) *eventsFile {
	ef := &eventsFile{Format: "macepc-divergence-events", Version: 1, ConfigHash: configHash, Nodes: nodes, Step: step,
		FromStep: max(0, step-eventsBefore), ToStep: max(0, step) + eventsAfter}
	add := func(name string, r *timedsim.Result) {
		ex := eventsExec{Name: name, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps, Outcome: r.Outcome.String(),
			NodeLastNS: make([]int64, nodes), NodeEvents: make([]int, nodes), Events: []eventsItem{}}
		for i := range ex.NodeLastNS {
			ex.NodeLastNS[i] = -1
		}
		done := map[int]int64{}
		for i := range r.Events {
			e := &r.Events[i]
			if n := int(e.Node); n >= 0 && n < nodes {
				ex.NodeLastNS[n] = max(ex.NodeLastNS[n], int64(e.Start+e.Duration))
				ex.NodeEvents[n]++
				if _, ok := done[n]; !ok && slices.Contains(e.Notes, timedsim.NoteDone) {
					done[n] = int64(e.Start + e.Duration)
				}
			}
			if e.Step < ef.FromStep || e.Step >= ef.ToStep {
				continue
			}
			it := eventsItem{Step: e.Step, Node: int(e.Node), From: int(e.From), Label: e.Label, StartNS: int64(e.Start), DurationNS: int64(e.Duration), Notes: e.Notes}
			for _, s := range e.Sends {
				es := eventsSend{To: int(s.To), Type: s.Type, Transport: s.Transport, Size: s.Size, Status: s.Status}
				if s.Status == "sent" {
					es.ArriveNS = int64(s.Arrive)
				}
				it.Sends = append(it.Sends, es)
			}
			for _, t := range e.Timers {
				et := eventsTmr{Name: t.Name, Cancel: t.Cancel}
				if !t.Cancel {
					et.AtNS = int64(t.At)
				}
				it.Timers = append(it.Timers, et)
			}
			ex.Events = append(ex.Events, it)
		}
		for n, t := range done {
			ex.NodeLastNS[n] = t
		}
		ef.Executions = append(ef.Executions, ex)
	}
	add("anomalous", anomalous)
	if similar != nil {
		add("similar", similar)
	}
	return ef
}

package pipeline

import (
	"slices"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// eventsBefore and eventsAfter bound the window of steps kept around the
// divergence step (the report shows a part of it).
const (
	eventsBefore = 32
	eventsAfter  = 96
)

// newEventsFile builds divergence-events.json from the recorded
// anomalous execution and, if any, the similar fast one.
func newEventsFile(configHash string, nodes, step int, anomalous, similar *timedsim.Result) *results.Events {
	ef := &results.Events{Format: results.FormatEvents, Version: 1, ConfigHash: configHash, Nodes: nodes, Step: step,
		FromStep: max(0, step-eventsBefore), ToStep: max(0, step) + eventsAfter}
	add := func(name string, r *timedsim.Result) {
		ex := results.EventsExec{Name: name, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps, Outcome: r.Outcome,
			NodeLastNS: make([]int64, nodes), NodeEvents: make([]int, nodes), Events: []results.EventsStep{}}
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
			it := results.EventsStep{Step: e.Step, Node: int(e.Node), From: int(e.From), Label: e.Label, StartNS: int64(e.Start), DurationNS: int64(e.Duration), Notes: e.Notes}
			for _, s := range e.Sends {
				es := results.EventsSend{To: int(s.To), Type: s.Type, Transport: s.Transport, Size: s.Size, Status: s.Status}
				if s.Status == "sent" {
					es.ArriveNS = int64(s.Arrive)
				}
				it.Sends = append(it.Sends, es)
			}
			for _, t := range e.Timers {
				et := results.EventsTimer{Name: t.Name, Cancel: t.Cancel}
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

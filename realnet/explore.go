package realnet

import (
	"fmt"
	"strings"
	"time"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/timedsim"
)

// Execution is a replayed real run as package explore shows it: the
// steps in the merged (happens-before) order that the replay checked its
// predicates in, each at its real start and with its real duration since
// the run's start, its sends linked to their deliveries, its timers (at
// the real time they were due), its notes and its node's state after it.
// Each violation and a departure from the trace are marked as explore
// marks a violation.
//
// res must come from Replay(sc, rt, ReplayOptions{Record: true}) of the
// same rt. Because the order is the Lamport order and the times are each
// node's real ones, a step can start before the step above it (on another
// node): the chart's rows are the order the predicates saw, not a
// timeline.
func Execution(rt *RunTrace, res *ReplayResult) (*explore.Execution, error) {
	h := rt.Nodes[0].Header
	if len(res.Initial) != h.Nodes {
		return nil, fmt.Errorf("realnet: %s: the replay did not record states (ReplayOptions.Record)", rt.Dir)
	}
	merged := Merge(rt)
	n := min(len(res.Recorded), len(merged))
	scale := h.TimeScale
	e := &explore.Execution{Name: "real", Nodes: h.Nodes, Timed: true, Initial: append([]string(nil), res.Initial...),
		Title: fmt.Sprintf("real run %d of %s/%s, %d nodes, seed %d, time scale %v: real times since the run's start, steps in happens-before (Lamport) order",
			h.Run, h.System, h.Variant, h.Nodes, h.Seed, scale)}
	type at struct{ step, index int }
	sent := map[msgKey]at{}
	for i := range n {
		st := merged[i]
		ev := st.Event
		s := explore.Step{Node: int(st.Node), From: -1, Kind: ev.Kind, Label: EventLabel(ev),
			Start: time.Duration(ev.StartNS), Duration: time.Duration(ev.DurNS), SentStep: -1, SentIndex: -1,
			Notes: res.Recorded[i].Notes, State: res.Recorded[i].State}
		if ev.Kind == KindDeliver || ev.Kind == KindError {
			s.From = int(ev.Peer)
		}
		if ev.Kind == KindDeliver {
			if a, ok := sent[msgKey{timedsim.NodeID(ev.Peer), ev.Msg}]; ok {
				s.SentStep, s.SentIndex = a.step, a.index
				e.Steps[a.step].Sends[a.index].Recv = i
			}
		}
		end := ev.StartNS + ev.DurNS
		for k, m := range ev.Sends {
			status := "sent"
			if m.Err == ErrKindQueueFull {
				status = "queue-full"
			} else {
				sent[msgKey{st.Node, m.ID}] = at{i, k}
			}
			s.Sends = append(s.Sends, explore.Send{To: int(m.To), Type: m.Label, Status: status, Recv: -1})
		}
		for _, op := range ev.Timers {
			if op.Cancel != "" {
				s.Timers = append(s.Timers, explore.Timer{Name: op.Cancel, Cancel: true})
				continue
			}
			s.Timers = append(s.Timers, explore.Timer{Name: op.Set, At: time.Duration(end) + time.Duration(float64(op.AfterNS)*scale)})
		}
		e.Steps = append(e.Steps, s)
	}
	var ends []string
	ends = append(ends, fmt.Sprintf("replayed %d of %d events", res.Steps, res.Total))
	if res.StopStep >= 0 {
		ends = append(ends, fmt.Sprintf("the stopping condition holds from step %d", res.StopStep))
	}
	if n > 0 {
		last := merged[n-1].Event
		ends = append(ends, "the last event ends "+units.Duration(time.Duration(last.StartNS+last.DurNS))+" into the run")
	}
	e.End = strings.Join(ends, "; ")
	for _, v := range res.Violations {
		kind := "safety"
		if v.Liveness {
			kind = "liveness"
		}
		names := make([]string, len(v.Nodes))
		for i, id := range v.Nodes {
			names[i] = id.String()
		}
		e.Mark(v.Step, explore.MarkViolation, fmt.Sprintf("%s property %s violated after this step (nodes %s, %s into the run)",
			kind, v.Property, strings.Join(names, " "), units.Duration(v.Time)))
	}
	if nd := res.Nondeterminism; nd != nil {
		e.Mark(nd.Step, explore.MarkViolation, "nondeterminism: the replay departs from the trace here: "+nd.What)
	}
	e.Mark(n-1, explore.MarkEnd, e.End)
	return e, nil
}

// WriteExplore writes explore.html for a replayed real run to path (see
// Execution).
func WriteExplore(path string, rt *RunTrace, res *ReplayResult) error {
	e, err := Execution(rt, res)
	if err != nil {
		return err
	}
	h := rt.Nodes[0].Header
	d := &explore.Data{Title: fmt.Sprintf("%s/%s, %d nodes, real run %d", h.System, h.Variant, h.Nodes, h.Run), Executions: []*explore.Execution{e}}
	return explore.WriteFile(path, d)
}

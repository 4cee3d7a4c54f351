package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// tev is one event of a synthetic divergence-events.json.
type tev = results.EventsStep

// eventsDir writes a results directory whose divergence-events.json holds
// the anomalous and the similar execution's events of steps [from, to)
// around the divergence step.
func eventsDir(t *testing.T, nodes, step, from, to int, anom, sim []tev) string {
	t.Helper()
	ex := func(name string, evs []tev) results.EventsExec {
		last, events := make([]int64, nodes), make([]int, nodes)
		for i := range last {
			last[i], events[i] = 1, 1
		}
		return results.EventsExec{Name: name, ExecTimeNS: 1_000_000_000, Steps: to, NodeLastNS: last, NodeEvents: events, Events: evs}
	}
	return resultsDir(t, map[string]any{
		results.FileSummary: toySummary(),
		results.FileProfile: toyProfile(1, 1, 1, 2, 1),
		results.FileEvents: &results.Events{Format: results.FormatEvents, Version: results.Version, Nodes: nodes, Step: step, FromStep: from, ToStep: to,
			Executions: []results.EventsExec{ex("anomalous", anom), ex("similar", sim)}},
	})
}

// sent is a message sent to node to, arriving at arriveNS.
func sent(to int, typ string, arriveNS int64) results.EventsSend {
	return results.EventsSend{To: to, Type: typ, Status: "sent", ArriveNS: arriveNS}
}

// chain is steps [from, to) of deliveries around three nodes, 1 ms apart.
func chain(from, to int) []tev {
	var out []tev
	for s := from; s < to; s++ {
		out = append(out, tev{Step: s, Node: s % 3, From: (s + 2) % 3, Label: "deliver Ping", StartNS: int64(s) * 1e6, DurationNS: 1000})
	}
	return out
}

// eventGraph renders the event graph of a directory.
func eventGraph(t *testing.T, dir string) (*report.EventGraphData, report.Rendered) {
	t.Helper()
	for _, f := range renderAll(t, dir) {
		if f.ID == "eventgraph" {
			if f.Missing != "" {
				t.Fatalf("event graph placeholder: %s", f.Missing)
			}
			return f.Data.(*report.EventGraphData), f
		}
	}
	t.Fatal("no event graph")
	return nil, report.Rendered{}
}

// The event graph reaches the first step at which the two executions run
// different events, even past the usual window, but shows at most 24
// steps; without it both panels can be identical.
func TestEventGraphReachesFirstDifference(t *testing.T) {
	for _, c := range []struct {
		name           string
		diff           int
		from, to       int // the window shown
		showsDivergent bool
	}{
		{"near", 14, 6, 22, true},            // d-4 to d+12
		{"past the window", 24, 6, 28, true}, // d-4 to diff+4
		{"far", 40, 20, 44, false},           // 24 steps up to diff+4
	} {
		t.Run(c.name, func(t *testing.T) {
			anom, sim := chain(0, 60), chain(0, 60)
			sim[c.diff].Node = (sim[c.diff].Node + 1) % 3
			d, f := eventGraph(t, eventsDir(t, 3, 10, 0, 60, anom, sim))
			if d.FirstDiff != c.diff || d.FromStep != c.from || d.ToStep != c.to {
				t.Fatalf("first difference %d, window [%d, %d); want %d, [%d, %d)", d.FirstDiff, d.FromStep, d.ToStep, c.diff, c.from, c.to)
			}
			if d.ToStep-d.FromStep > 24 {
				t.Errorf("%d steps shown", d.ToStep-d.FromStep)
			}
			if !strings.Contains(f.Guide, fmt.Sprintf("step %d, the first at which the two executions run different events", c.diff)) {
				t.Errorf("the guide does not name the first difference: %s", f.Guide)
			}
			if got := strings.Contains(f.Guide, "lies above the window"); got == c.showsDivergent {
				t.Errorf("guide says the divergence step is outside: %v, want %v", got, !c.showsDivergent)
			}
		})
	}
	// Executions that do not differ in the file's window: the usual window.
	d, f := eventGraph(t, eventsDir(t, 3, 10, 0, 60, chain(0, 60), chain(0, 60)))
	if d.FirstDiff != -1 || d.FromStep != 6 || d.ToStep != 22 || !strings.Contains(f.Guide, "differ only in timing") {
		t.Errorf("identical executions: first difference %d, window [%d, %d), guide %q", d.FirstDiff, d.FromStep, d.ToStep, f.Guide)
	}
}

// Arrival times written under the window tell near-simultaneous arrivals
// apart: 3 decimals printed both as 1.571s.
func TestEventGraphArrivalPrecision(t *testing.T) {
	ev := []tev{
		{Step: 0, Node: 0, From: -1, Label: "timer t", StartNS: 1_570_000_000, DurationNS: 1000,
			Sends: []results.EventsSend{sent(1, "A", 1571100000), sent(2, "B", 1571200000)}},
		{Step: 1, Node: 1, From: -1, Label: "timer t", StartNS: 1_570_500_000, DurationNS: 1000},
	}
	_, f := eventGraph(t, eventsDir(t, 3, 0, 0, 2, ev, ev))
	for _, want := range []string{"A 1.5711s", "B 1.5712s"} {
		if !bytes.Contains(f.SVG, []byte(want)) {
			t.Errorf("the event graph does not write %q", want)
		}
	}
}

// Labels stay inside the plot and off their neighbours: at time 0 every
// node's long label is cut short before the next column with "…", the
// last one before the right edge; the step number stays.
func TestEventGraphLabelsFit(t *testing.T) {
	long := "app join with a very long label that runs across several columns" + strings.Repeat(" and on", 20)
	var ev []tev
	for n := range 4 {
		ev = append(ev, tev{Step: n, Node: n, From: -1, Label: long, StartNS: 0, DurationNS: 0})
	}
	_, f := eventGraph(t, eventsDir(t, 4, 0, 0, 4, ev, ev))
	svg := string(f.SVG)
	if strings.Contains(svg, long) {
		t.Error("a label runs over its neighbour or off the plot at full length")
	}
	for n := range 4 {
		if !strings.Contains(svg, fmt.Sprintf(">%d app", n)) || !strings.Contains(svg, "…<") {
			t.Errorf("label of step %d not cut short with …", n)
		}
	}
}

// A delivery of a message sent before the window is flagged and drawn
// with a stub from its sender; one whose send is in the window is not.
func TestEventGraphSentBefore(t *testing.T) {
	ev := []tev{
		{Step: 0, Node: 2, From: 1, Label: "deliver Early", StartNS: 1000, DurationNS: 10},
		{Step: 1, Node: 0, From: -1, Label: "timer t", StartNS: 2000, DurationNS: 10, Sends: []results.EventsSend{sent(1, "Ping", 3000)}},
		{Step: 2, Node: 1, From: 0, Label: "deliver Ping", StartNS: 3000, DurationNS: 10},
		{Step: 3, Node: 1, From: 0, Label: "deliver Ping", StartNS: 4000, DurationNS: 10},
	}
	d, f := eventGraph(t, eventsDir(t, 3, 0, 0, 4, ev, ev))
	var got []bool
	for _, e := range d.Panels[0].Events {
		got = append(got, e.SentBefore)
	}
	if fmt.Sprint(got) != "[true false false true]" {
		t.Errorf("sent before the window: %v, want [true false false true] (the second Ping has no send in the window)", got)
	}
	if n := bytes.Count(f.SVG, []byte(">n1<")); n < 2*1+2 { // the axis labels (2 panels) and the stubs
		t.Errorf("the stubs do not name their sender: %d texts n1", n)
	}
}

// With more nodes than columns (Bullet′'s 100), the nodes that run no
// event of the window share one column, "K others", whose late arrivals
// are summed up per message type; every node that runs an event keeps its
// column. With few nodes, every node involved has its own.
func TestEventGraphFoldsIdleNodes(t *testing.T) {
	const nodes = 40
	var ev []tev
	for s := range 4 { // node s sends a Diff to ten of nodes 4 to 39, arriving after the window
		var sends []results.EventsSend
		for k := range 10 {
			sends = append(sends, sent(4+(10*s+k)%36, "Diff", 9_000_000+int64(k)*1000))
		}
		ev = append(ev, tev{Step: s, Node: s, From: -1, Label: "timer diff", StartNS: int64(s) * 1000, DurationNS: 10, Sends: sends})
	}
	d, f := eventGraph(t, eventsDir(t, nodes, 0, 0, 4, ev, ev))
	if fmt.Sprint(d.Nodes) != "[0 1 2 3]" || len(d.Folded) != 36 || d.Folded[0] != 4 || d.Folded[35] != 39 {
		t.Fatalf("columns %v, folded %v: want the 4 nodes that run events, and 4 to 39 folded", d.Nodes, d.Folded)
	}
	svg := string(f.SVG)
	for _, want := range []string{">36 others<", ">40 Diff 0.009–0.009009s<", `"36 others"`} {
		if !strings.Contains(svg, want) && !strings.Contains(f.Guide, strings.Trim(want, "><")) {
			t.Errorf("neither the event graph nor its guide has %q; guide: %s", want, f.Guide)
		}
	}
	if strings.Contains(svg, ">n39<") {
		t.Error("a folded node has a column of its own")
	}

	// Few nodes: nothing folds, even a node that only receives.
	few := []tev{{Step: 0, Node: 0, From: -1, Label: "timer t", StartNS: 0, DurationNS: 10, Sends: []results.EventsSend{sent(2, "Ping", 9000000)}}}
	d, _ = eventGraph(t, eventsDir(t, 3, 0, 0, 1, few, few))
	if fmt.Sprint(d.Nodes) != "[0 2]" || len(d.Folded) != 0 {
		t.Errorf("3 nodes: columns %v, folded %v; want [0 2] and none", d.Nodes, d.Folded)
	}
}

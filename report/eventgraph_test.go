package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// tev is one event of a synthetic divergence-events.json; sends is its
// "sends" JSON array ("" for none).
type tev struct {
	step, node, from int
	label            string
	startNS, durNS   int64
	sends            string
}

// eventsDir writes a results directory whose divergence-events.json holds
// the anomalous and the similar execution's events of steps [from, to)
// around the divergence step.
func eventsDir(t *testing.T, nodes, step, from, to int, anom, sim []tev) string {
	t.Helper()
	ex := func(name string, evs []tev) string {
		var es []string
		for _, e := range evs {
			s := fmt.Sprintf(`{"step":%d,"node":%d,"from":%d,"label":%q,"start_ns":%d,"duration_ns":%d`, e.step, e.node, e.from, e.label, e.startNS, e.durNS)
			if e.sends != "" {
				s += `,"sends":` + e.sends
			}
			es = append(es, s+"}")
		}
		last := make([]string, nodes)
		for i := range last {
			last[i] = "1"
		}
		return fmt.Sprintf(`{"name":%q,"exec_time_ns":1000000000,"steps":%d,"node_last_ns":[%s],"node_events":[%s],"events":[%s]}`,
			name, to, strings.Join(last, ","), strings.Join(last, ","), strings.Join(es, ","))
	}
	return writeFiles(t, map[string]string{
		results.FileSummary: summaryJSON,
		results.FileProfile: `{"format":"macepc-profile","version":1,"runs":1,"q1_ns":1,"median_ns":1,"q3_ns":1,"threshold_ns":2,"executions":[{"index":0,"exec_time_ns":1,"finished":true}]}`,
		results.FileEvents: fmt.Sprintf(`{"format":"macepc-divergence-events","version":1,"nodes":%d,"step":%d,"from_step":%d,"to_step":%d,"executions":[%s,%s]}`,
			nodes, step, from, to, ex("anomalous", anom), ex("similar", sim)),
	})
}

// chain is steps [from, to) of deliveries around three nodes, 1 ms apart.
func chain(from, to int) []tev {
	var out []tev
	for s := from; s < to; s++ {
		out = append(out, tev{step: s, node: s % 3, from: (s + 2) % 3, label: "deliver Ping", startNS: int64(s) * 1e6, durNS: 1000})
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
			sim[c.diff].node = (sim[c.diff].node + 1) % 3
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
		{step: 0, node: 0, from: -1, label: "timer t", startNS: 1_570_000_000, durNS: 1000,
			sends: `[{"to":1,"type":"A","status":"sent","arrive_ns":1571100000},{"to":2,"type":"B","status":"sent","arrive_ns":1571200000}]`},
		{step: 1, node: 1, from: -1, label: "timer t", startNS: 1_570_500_000, durNS: 1000},
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
		ev = append(ev, tev{step: n, node: n, from: -1, label: long, startNS: 0, durNS: 0})
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
		{step: 0, node: 2, from: 1, label: "deliver Early", startNS: 1000, durNS: 10},
		{step: 1, node: 0, from: -1, label: "timer t", startNS: 2000, durNS: 10, sends: `[{"to":1,"type":"Ping","status":"sent","arrive_ns":3000}]`},
		{step: 2, node: 1, from: 0, label: "deliver Ping", startNS: 3000, durNS: 10},
		{step: 3, node: 1, from: 0, label: "deliver Ping", startNS: 4000, durNS: 10},
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

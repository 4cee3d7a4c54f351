package explore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/internal/browsertest"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
	"github.com/macepc/macepc/traceevent"
)

// explore.html's "Perfetto trace" button builds, in the page, the same
// trace as `macepc replay --trace-events` (package traceevent) for the
// anomalous execution: the same slices, flows and instants on the same
// tracks at the same times. Arguments may differ (the page lacks the
// waits and log lines).
func TestExploreTraceMatchesReplay(t *testing.T) {
	bin := browsertest.Chromium(t, "explore.html")
	dir := macepc(t, "run", "--system", "randtree", "--variant", "buggy", "--seed", "1", "--edd", "../report/testdata/edd.json", "--progress", "never")
	b := openPage(t, bin, filepath.Join(dir, results.FileExplore))
	defer b.check(t)
	page := evalJS[string](t, b, "JSON.stringify(window.exploreTrace(0))")
	if evalJS[bool](t, b, `document.getElementById("trace").disabled`) {
		t.Error("the Perfetto trace button is disabled on a timed execution")
	}
	var got traceevent.Trace
	if err := json.Unmarshal([]byte(page), &got); err != nil {
		t.Fatalf("the page's trace is not JSON: %v", err)
	}
	pf, err := pipeline.ReadPathFile(filepath.Join(dir, "anomaly.path.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := pipeline.Replay(context.Background(), timedsim.Registry{randtree.System()}, pf, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The side panel gives a step's time as the event log does
	// (timedsim.FormatTime).
	ev := r.Result.Events[len(r.Result.Events)/2]
	b.jump(t, fmt.Sprintf("#%d", ev.Step))
	if h := evalJS[string](t, b, `document.querySelector("#stepinfo h3").textContent`); !strings.Contains(h, " · "+timedsim.FormatTime(ev.Start)+" (took ") {
		t.Errorf("step %d's heading %q lacks its time %q", ev.Step, h, timedsim.FormatTime(ev.Start))
	}
	want := traceevent.Build(traceevent.Meta{Nodes: pf.Nodes}, r.Result.Events)
	key := func(e traceevent.Event) string {
		d := -1.0
		if e.Dur != nil {
			d = *e.Dur
		}
		return fmt.Sprintf("%s|%s|%s|%d|%.3f|%.3f|%s|%s", e.Ph, e.Name, e.Cat, e.Tid, e.Ts, d, e.ID, e.BP)
	}
	keys := func(t *traceevent.Trace) []string {
		var out []string
		for _, e := range t.TraceEvents {
			if e.Name != "process_name" { // the title differs
				out = append(out, key(e))
			}
		}
		slices.Sort(out)
		return out
	}
	g, w := keys(&got), keys(want)
	if len(w) < 100 || !slices.Equal(g, w) {
		n := 0
		for i := 0; i < min(len(g), len(w)) && n < 5; i++ {
			if g[i] != w[i] {
				t.Errorf("first differences: page %q, replay %q", g[i], w[i])
				n++
			}
		}
		t.Fatalf("the page's trace (%d events) differs from replay's (%d)", len(g), len(w))
	}
}

// Event labels are never cut off at the pane's edge (before,
// "deliver Vo"): a long label in the rightmost lanes goes left of its dot, or is
// shortened with an ellipsis, and every label drawn lies between the
// gutter and the pane's right edge.
func TestExploreLabelsStayInThePane(t *testing.T) {
	bin := browsertest.Chromium(t, "explore.html")
	const nodes = 12
	var steps []explore.Step
	for i := 0; i < 40; i++ {
		n := i % nodes
		steps = append(steps, explore.Step{Node: n, From: (n + 1) % nodes, Kind: explore.KindDeliver, Label: "deliver VoteRequestWithALongName", SentStep: -1, SentIndex: -1,
			Start: time.Duration(i) * time.Millisecond, Duration: time.Microsecond, Notes: []string{"ignored: already voted in this term"}})
	}
	ex := &explore.Execution{Name: "votes", Title: "long labels", Nodes: nodes, Timed: true, Steps: steps, Initial: make([]string, nodes)}
	file := filepath.Join(t.TempDir(), results.FileExplore)
	if err := explore.WriteFile(file, &explore.Data{Title: "labels", Executions: []*explore.Execution{ex}}); err != nil {
		t.Fatal(err)
	}
	b := openPage(t, bin, file)
	defer b.check(t)
	b.keys(t, "+", "+", "+")
	var labels []struct {
		Text     string
		Side     string
		X0, X1   float64
		Min, Max float64
	}
	// After the next two frames, so that the zoom's redraw is done.
	js, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string]("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(JSON.stringify(window.exploreTiming.labels || [])))))", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js), &labels); err != nil {
		t.Fatal(err)
	}
	if len(labels) < nodes {
		t.Fatalf("%d labels drawn, want at least one per lane", len(labels))
	}
	moved := 0
	for _, l := range labels {
		if l.X0 < l.Min-0.5 || l.X1 > l.Max+0.5 {
			t.Errorf("label %q drawn over [%.0f, %.0f], outside the pane [%.0f, %.0f]", l.Text, l.X0, l.X1, l.Min, l.Max)
		}
		if l.Side != "right" {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no label was moved left or shortened: the test does not exercise the pane's edge")
	}
}

package explore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/internal/browsertest"
	"github.com/macepc/macepc/pipeline"
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
	b := openPage(t, bin, filepath.Join(dir, explore.FileHTML))
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

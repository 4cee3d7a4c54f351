package realnet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// run records one real run of sc into a fresh directory and reads it back.
func run(t *testing.T, sys, variant string, sc *timedsim.Scenario, r int, scale float64) *realnet.RunTrace {
	t.Helper()
	dir := filepath.Join(t.TempDir(), realnet.RunDirName(r))
	res, err := realnet.Run(context.Background(), realnet.Config{System: sys, Variant: variant, Scenario: sc, Run: r, Seed: uint64(r) + 1, Dir: dir, TimeScale: scale})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped {
		t.Fatalf("run %d of %s did not stop within its timeout: %+v", r, sys, res)
	}
	rt, err := realnet.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// recordedSends lists each node's sends as its trace has them.
func recordedSends(rt *realnet.RunTrace) [][]realnet.Send {
	out := make([][]realnet.Send, len(rt.Nodes))
	for i, tr := range rt.Nodes {
		for _, e := range tr.Events {
			out[i] = append(out[i], e.Sends...)
		}
	}
	return out
}

// WiDS Checker §3: a real run's log, replayed, reproduces the run event
// for event: every handler, given its recorded input and draws, sends what
// it sent in the real run.
func TestReplayReproducesRealRuns(t *testing.T) {
	cases := []struct {
		sys     timedsim.System
		variant string
		nodes   int
		runs    int
		scale   float64
	}{
		{pingpong.System(), "default", 8, 3, 1},
		// Scenario time runs 20 times faster than real time, so that a
		// run whose tree split waits 10 to 20 scenario seconds for its
		// recovery timers takes one real second at most.
		{randtree.System(), "buggy", 16, 3, 0.05},
	}
	for _, c := range cases {
		for r := range c.runs {
			t.Run(fmt.Sprintf("%s/%d", c.sys.Name, r), func(t *testing.T) {
				sc, err := c.sys.Scenario(c.variant, c.nodes)
				if err != nil {
					t.Fatal(err)
				}
				rt := run(t, c.sys.Name, c.variant, sc, r, c.scale)
				res, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Nondeterminism != nil {
					t.Fatalf("replay departs from the trace: %v", res.Nondeterminism)
				}
				if res.Steps != res.Total || res.Total == 0 {
					t.Fatalf("replayed %d of %d steps", res.Steps, res.Total)
				}
				want := recordedSends(rt)
				for i := range want {
					if !slices.Equal(res.Sends[i], want[i]) {
						t.Errorf("n%d: replayed sends %v, recorded %v", i, res.Sends[i], want[i])
					}
				}
				if res.StopStep < 0 {
					t.Errorf("the real run stopped, but its replay never satisfies the stopping condition")
				}
				for _, v := range res.Violations {
					t.Errorf("violation in a correct run: %+v", v)
				}
			})
		}
	}
}

// WiDS Checker §4: a global predicate over all nodes' states, checked
// after every replayed event, catches a bug no node's own log shows: two
// token holders at once. The violation is at the step where the token's
// first receiver takes it, before its acknowledgement reaches the sender;
// the fixed variant has none.
func TestReplayFindsGlobalViolation(t *testing.T) {
	for _, buggy := range []bool{true, false} {
		sc := tokenScenario(4, buggy)
		rt := run(t, "token", fmt.Sprint(buggy), sc, 0, 1)
		res, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Nondeterminism != nil {
			t.Fatal(res.Nondeterminism)
		}
		if !buggy {
			if len(res.Violations) != 0 {
				t.Errorf("fixed variant: %+v", res.Violations)
			}
			continue
		}
		if len(res.Violations) != 1 || res.Violations[0].Property != "one-holder" {
			t.Fatalf("buggy variant: violations %+v, want one-holder", res.Violations)
		}
		v := res.Violations[0]
		// The first delivery of a tokenMsg, wherever the merge puts it.
		first := -1
		for i, st := range realnet.Merge(rt) {
			if st.Event.Kind == realnet.KindDeliver && st.Event.Name == "tokenMsg" {
				first = i
				break
			}
		}
		if v.Step != first || !slices.Equal(v.Nodes, []timedsim.NodeID{1, 0}) {
			t.Errorf("violation at step %d on %v, want step %d (n1 takes the token from n0) on [n1 n0]: %+v", v.Step, v.Nodes, first, v)
		}
	}
}

// A protocol that reads the wall clock does not replay: the replay names
// the first event where it departs from the trace.
func TestReplayReportsNondeterminism(t *testing.T) {
	sc := wallScenario(4)
	rt := run(t, "wall", "", sc, 0, 1)
	res, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd := res.Nondeterminism
	if nd == nil {
		t.Fatal("a protocol that reads the wall clock replayed without a departure")
	}
	first := -1
	var node timedsim.NodeID
	for i, st := range realnet.Merge(rt) {
		if len(st.Event.Timers) > 0 {
			first, node = i, st.Node
			break
		}
	}
	if nd.Step != first || nd.Node != node {
		t.Errorf("departure at step %d on %v, want step %d on %v (the first lease timer): %v", nd.Step, nd.Node, first, node, nd)
	}
	if res.Steps != first {
		t.Errorf("replay ran %d steps, want it to stop at %d", res.Steps, first)
	}
	// explore.html shows the steps up to the departing one, marked.
	rec, err := realnet.Replay(wallScenario(4), rt, realnet.ReplayOptions{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := realnet.Execution(rt, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Steps) != first+1 || len(e.Marks) == 0 || e.Marks[0].Step != first || !strings.HasPrefix(e.Marks[0].Text, "nondeterminism: ") {
		t.Errorf("explore execution of %d steps, marks %+v; want %d steps, a nondeterminism mark at %d", len(e.Steps), e.Marks, first+1, first)
	}
}

// A property that panics ends the replay with an error naming it and its
// step, not a crash.
func TestReplayPropertyPanics(t *testing.T) {
	sc := tokenScenario(2, false)
	rt := run(t, "token", "false", sc, 0, 1)
	sc.Safety = []timedsim.Property{{Name: "bad", Check: func(w timedsim.World) bool {
		if w.Steps() == 3 {
			panic("boom")
		}
		return true
	}}}
	_, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
	if err == nil || err.Error() != "realnet: safety property bad at step 2 panicked: boom" {
		t.Errorf("got %v", err)
	}
}

// A violation found by replaying a real run is shown in explore.html: the
// replay's steps at their real start times, the violation step marked,
// and the states there show the two holders.
func TestReplayViolationExplore(t *testing.T) {
	sc := tokenScenario(4, true)
	rt := run(t, "token", "true", sc, 0, 1)
	plain, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := realnet.Replay(tokenScenario(4, true), rt, realnet.ReplayOptions{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != plain.Steps || !reflect.DeepEqual(res.Violations, plain.Violations) || len(res.Recorded) != res.Steps || len(res.Initial) != 4 {
		t.Fatalf("recording replay: %d steps, %d recorded, violations %+v; plain replay %d steps, %+v", res.Steps, len(res.Recorded), res.Violations, plain.Steps, plain.Violations)
	}
	if len(res.Violations) != 1 {
		t.Fatalf("violations %+v, want one", res.Violations)
	}
	v := res.Violations[0]
	e, err := realnet.Execution(rt, res)
	if err != nil {
		t.Fatal(err)
	}
	merged := realnet.Merge(rt)
	for i, s := range e.Steps {
		if ev := merged[i].Event; s.Start != time.Duration(ev.StartNS) || s.Duration != time.Duration(ev.DurNS) || s.Node != int(merged[i].Node) {
			t.Fatalf("step %d at %v for %v on n%d, the trace has %d ns for %d ns on %v", i, s.Start, s.Duration, s.Node, ev.StartNS, ev.DurNS, merged[i].Node)
		}
	}
	// After the violation step n1 has taken the token and n0 still holds
	// it: their last states up to that step say so.
	holding := map[int]string{}
	for _, s := range e.Steps[:v.Step+1] {
		holding[s.Node] = s.State
	}
	for _, n := range []int{0, 1} {
		if !strings.Contains(holding[n], "holding:true") {
			t.Errorf("n%d's state at the violation step is %q, want it holding the token", n, holding[n])
		}
	}
	// A delivery points at its send.
	d := e.Steps[v.Step]
	if d.SentStep < 0 || e.Steps[d.SentStep].Sends[d.SentIndex].Recv != v.Step {
		t.Errorf("the violating delivery's send is not linked: sent step %d index %d", d.SentStep, d.SentIndex)
	}

	file := filepath.Join(t.TempDir(), "explore.html")
	if err := realnet.WriteExplore(file, rt, res); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Executions []struct {
			Start []int64 `json:"start"`
			Marks []struct {
				Step int    `json:"step"`
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"marks"`
		} `json:"executions"`
	}
	const open = `<script type="application/json" id="explore-data">`
	_, rest, ok := strings.Cut(string(b), open)
	js, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("explore.html has no embedded data")
	}
	if err := json.Unmarshal([]byte(js), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Executions) != 1 {
		t.Fatalf("%d executions embedded", len(data.Executions))
	}
	x := data.Executions[0]
	if len(x.Start) != res.Steps || x.Start[v.Step] != merged[v.Step].Event.StartNS {
		t.Errorf("embedded starts: %d steps, step %d at %v ns; want %d steps, %d ns", len(x.Start), v.Step, x.Start[v.Step:v.Step+1], res.Steps, merged[v.Step].Event.StartNS)
	}
	found := false
	for _, m := range x.Marks {
		if m.Kind == "violation" && m.Step == v.Step && strings.Contains(m.Text, "one-holder") && strings.Contains(m.Text, "nodes n1 n0") {
			found = true
		}
	}
	if !found {
		t.Errorf("no violation mark at step %d: %+v", v.Step, x.Marks)
	}
}

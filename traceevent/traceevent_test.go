package traceevent_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
	"github.com/macepc/macepc/traceevent"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// record runs one execution of sc with recording on.
func record(t *testing.T, sc *timedsim.Scenario, seed uint64) *timedsim.Result {
	t.Helper()
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(seed))
	if !r.Finished || len(r.Events) == 0 {
		t.Fatalf("the execution did not finish: %s, %d events", r.Outcome, len(r.Events))
	}
	return r
}

// validate checks a trace against the rules of the Trace Event Format
// that viewers rely on, and returns its events by phase.
func validate(t *testing.T, b []byte, nodes int) map[string][]map[string]any {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	raw, ok := top["traceEvents"].([]any)
	if !ok {
		t.Fatalf("no traceEvents array: %v", top)
	}
	if u := top["displayTimeUnit"]; u != "ms" && u != "ns" {
		t.Errorf("displayTimeUnit %v, want ms or ns", u)
	}
	byPh := map[string][]map[string]any{}
	named := map[float64]bool{}
	for i, r := range raw {
		e, ok := r.(map[string]any)
		if !ok {
			t.Fatalf("event %d is not an object", i)
		}
		ph, _ := e["ph"].(string)
		if _, ok := e["name"].(string); !ok || ph == "" {
			t.Fatalf("event %d has no name or phase: %v", i, e)
		}
		if _, ok := e["pid"].(float64); !ok {
			t.Fatalf("event %d has no pid: %v", i, e)
		}
		byPh[ph] = append(byPh[ph], e)
		switch ph {
		case "M":
			if e["name"] == "thread_name" {
				named[e["tid"].(float64)] = true
			}
			continue
		case "X", "i", "s", "f":
		default:
			t.Fatalf("event %d has phase %q, which this package does not write", i, ph)
		}
		ts, ok := e["ts"].(float64)
		if !ok || ts < 0 {
			t.Fatalf("event %d has no timestamp >= 0: %v", i, e)
		}
		if _, ok := e["tid"].(float64); !ok {
			t.Fatalf("event %d has no tid: %v", i, e)
		}
		switch ph {
		case "X":
			if d, ok := e["dur"].(float64); !ok || d < 0 {
				t.Fatalf("complete event %d has no duration >= 0: %v", i, e)
			}
		case "i":
			if e["s"] != "t" && e["s"] != "p" && e["s"] != "g" {
				t.Fatalf("instant event %d has scope %v", i, e["s"])
			}
		case "s", "f":
			if _, ok := e["id"].(string); !ok {
				t.Fatalf("flow event %d has no id: %v", i, e)
			}
		}
	}
	if len(named) != nodes {
		t.Errorf("%d named threads, want one per node (%d)", len(named), nodes)
	}
	// A node runs one handler at a time: its slices must not overlap.
	slices := map[float64][][2]float64{}
	for _, e := range byPh["X"] {
		tid := e["tid"].(float64)
		if !named[tid] {
			t.Errorf("slice on unnamed thread %v", tid)
		}
		ts, d := e["ts"].(float64), e["dur"].(float64)
		slices[tid] = append(slices[tid], [2]float64{ts, ts + d})
	}
	for tid, ss := range slices {
		sort.Slice(ss, func(i, j int) bool { return ss[i][0] < ss[j][0] })
		for i := 1; i < len(ss); i++ {
			if ss[i][0] < ss[i-1][1]-1e-6 {
				t.Errorf("thread %v: slices [%v, %v] and [%v, %v] overlap", tid, ss[i-1][0], ss[i-1][1], ss[i][0], ss[i][1])
			}
		}
	}
	// Every flow has one start and one end, the end later, each inside a
	// slice of its thread (the format binds them to enclosing slices).
	inSlice := func(tid, ts float64) bool {
		for _, s := range slices[tid] {
			if ts >= s[0]-1e-6 && ts <= s[1]+1e-6 {
				return true
			}
		}
		return false
	}
	starts := map[string]map[string]any{}
	for _, e := range byPh["s"] {
		id := e["id"].(string)
		if starts[id] != nil {
			t.Fatalf("flow %s starts twice", id)
		}
		starts[id] = e
		if !inSlice(e["tid"].(float64), e["ts"].(float64)) {
			t.Errorf("flow %s starts outside a slice", id)
		}
	}
	ends := map[string]bool{}
	for _, e := range byPh["f"] {
		id := e["id"].(string)
		s := starts[id]
		switch {
		case s == nil:
			t.Fatalf("flow %s ends without a start", id)
		case ends[id]:
			t.Fatalf("flow %s ends twice", id)
		case e["bp"] != "e":
			t.Errorf("flow %s's end is not bound to its enclosing slice", id)
		case e["ts"].(float64) < s["ts"].(float64):
			t.Errorf("flow %s ends before it starts", id)
		case e["name"] != s["name"] || e["cat"] != s["cat"]:
			t.Errorf("flow %s's ends differ in name or category", id)
		case !inSlice(e["tid"].(float64), e["ts"].(float64)):
			t.Errorf("flow %s ends outside a slice", id)
		}
		ends[id] = true
	}
	if len(ends) != len(starts) {
		t.Errorf("%d flows start, %d end", len(starts), len(ends))
	}
	return byPh
}

// A RandTree execution: one slice per handler, one flow per delivered
// message, the timers as instants, and the format's rules hold.
func TestRandTreeTraceFollowsTheFormat(t *testing.T) {
	sc, err := randtree.Build("buggy", 8)
	if err != nil {
		t.Fatal(err)
	}
	r := record(t, sc, 3)
	var b bytes.Buffer
	if err := traceevent.Write(&b, traceevent.Meta{Title: "randtree buggy", Nodes: 8}, r.Events); err != nil {
		t.Fatal(err)
	}
	byPh := validate(t, b.Bytes(), 8)
	deliveries, timers := 0, 0
	for _, e := range r.Events {
		if e.From != timedsim.None {
			deliveries++
		}
		timers += len(e.Timers)
	}
	if len(byPh["X"]) != len(r.Events) || len(byPh["f"]) != deliveries || deliveries == 0 {
		t.Errorf("%d slices for %d events, %d flows for %d deliveries", len(byPh["X"]), len(r.Events), len(byPh["f"]), deliveries)
	}
	if timers == 0 || len(byPh["i"]) < timers {
		t.Errorf("%d instants for %d timer changes", len(byPh["i"]), timers)
	}
}

// A lost message is an instant on its sender's track, and a send that was
// not delivered within the events gets no half flow.
func TestLostAndUndeliveredMessages(t *testing.T) {
	ev := []timedsim.TimedEvent{
		{Step: 0, Node: 0, From: timedsim.None, Label: "init", Duration: time.Microsecond, Cause: -1, CauseSend: -1,
			Sends: []timedsim.SentMessage{{To: 1, Transport: "tcp", Type: "Ping", Size: 10, Status: "queue-full"}, {To: 1, Transport: "tcp", Type: "Ping", Status: "sent", Arrive: time.Millisecond}}},
	}
	var b bytes.Buffer
	if err := traceevent.Write(&b, traceevent.Meta{Title: "x", Nodes: 2}, ev); err != nil {
		t.Fatal(err)
	}
	byPh := validate(t, b.Bytes(), 2)
	if len(byPh["s"]) != 0 || len(byPh["f"]) != 0 || len(byPh["i"]) != 1 || byPh["i"][0]["name"] != "queue-full Ping to n1" {
		t.Errorf("flows %d/%d, instants %v", len(byPh["s"]), len(byPh["f"]), byPh["i"])
	}
}

// A pingpong execution's trace is pinned.
func TestPingPongGolden(t *testing.T) {
	r := record(t, pingpong.Scenario(2, 2), 1)
	var b bytes.Buffer
	if err := traceevent.Write(&b, traceevent.Meta{Title: "pingpong, path 0:1", Nodes: 2}, r.Events); err != nil {
		t.Fatal(err)
	}
	validate(t, b.Bytes(), 2)
	golden := filepath.Join("testdata", "pingpong.trace.json")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the trace differs from %s (if intended: go test ./traceevent -update, then review the diff)", golden)
	}
}

func ExampleBuild() {
	ev := []timedsim.TimedEvent{
		{Step: 0, Node: 0, From: timedsim.None, Label: "init", Duration: 2 * time.Microsecond, Cause: -1, CauseSend: -1,
			Sends: []timedsim.SentMessage{{To: 1, Transport: "tcp", Type: "Ping", Status: "sent", Arrive: time.Millisecond}}},
		{Step: 1, Node: 1, From: 0, Label: "deliver Ping", Start: time.Millisecond, Ready: time.Millisecond, Duration: time.Microsecond, Cause: 0, CauseSend: 0},
	}
	for _, e := range traceevent.Build(traceevent.Meta{Title: "ping", Nodes: 2}, ev).TraceEvents {
		if e.Ph != "M" {
			fmt.Printf("%s %s on thread %d at %g µs\n", e.Ph, e.Name, e.Tid, e.Ts)
		}
	}
	// Output:
	// X init on thread 1 at 0 µs
	// s Ping on thread 1 at 0 µs
	// X deliver Ping on thread 2 at 1000 µs
	// f Ping on thread 2 at 1000 µs
}

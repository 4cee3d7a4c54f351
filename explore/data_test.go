package explore

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/macepc/macepc/internal/golden"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// run replays seed's execution of sc with every node's state recorded.
func run(t testing.TB, sc *timedsim.Scenario, seed uint64, opts timedsim.Options) (*timedsim.Result, timedsim.LogHeader) {
	t.Helper()
	opts.Record, opts.RecordStates = true, true
	sim, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	p := timedsim.SeedPath(seed)
	return sim.Run(p), timedsim.LogHeader{System: "test", Variant: "v", Nodes: sc.Nodes, Path: p}
}

func randtreeRun(t testing.TB, nodes int, seed uint64) (*timedsim.Result, timedsim.LogHeader) {
	t.Helper()
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, sc, seed, timedsim.Options{})
}

// TestDeltasReconstructStates: the state of every node after every step,
// rebuilt from the embedded checkpoints and deltas, is the node's last
// recorded state up to that step (its initial state before its first
// step), and at the end its final state; the
// deltas make the states several times smaller than storing them whole.
func TestDeltasReconstructStates(t *testing.T) {
	r, h := randtreeRun(t, 40, 3)
	e := FromTimed("anomalous", h, r)
	w, err := encodeExec(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Node) != r.Steps || r.Steps < 200 {
		t.Fatalf("%d steps encoded of %d", len(w.Node), r.Steps)
	}
	want := append([]string(nil), r.InitialStates...)
	full, stored := 0, 0
	for s, ev := range r.Events {
		if ev.Node != timedsim.None {
			want[ev.Node] = ev.State
		}
		for n := range h.Nodes {
			got, err := w.stateAt(s, n)
			if err != nil {
				t.Fatal(err)
			}
			if got != want[n] {
				t.Fatalf("n%d after step %d: reconstructed %q, want %q", n, s, got, want[n])
			}
		}
		full += len(ev.State)
	}
	for n, st := range r.FinalStates {
		if got, _ := w.stateAt(r.Steps-1, n); got != st {
			t.Errorf("n%d at the end: %q, final state %q", n, got, st)
		}
	}
	for _, txt := range w.StText {
		stored += len(txt)
	}
	checkpoints := 0
	for _, p := range w.StPre {
		if p < 0 {
			checkpoints++
		}
	}
	if checkpoints == len(w.StPre) {
		t.Errorf("%d checkpoints of %d state entries: want deltas", checkpoints, len(w.StPre))
	}
	if stored*3 > full {
		t.Errorf("states take %d bytes as checkpoints and deltas, %d whole: want at most a third", stored, full)
	}
	t.Logf("%d steps: states %d bytes whole, %d stored (%d entries, %d checkpoints)", r.Steps, full, stored, len(w.StPre), checkpoints)
}

// TestDeltasNeedPeriodicCheckpoints: the same on a ping-pong of 150
// rounds, whose two nodes change state at every step: every Checkpoint-th
// change of a node is stored whole, the others as deltas (the first one
// against the initial state).
func TestDeltasNeedPeriodicCheckpoints(t *testing.T) {
	r, h := run(t, pingpong.Scenario(2, 150), 1, timedsim.Options{})
	w, err := encodeExec(FromTimed("pingpong", h, r))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), r.InitialStates...)
	for s, ev := range r.Events {
		want[ev.Node] = ev.State
		for n := range want {
			if got, err := w.stateAt(s, n); err != nil || got != want[n] {
				t.Fatalf("n%d after step %d: reconstructed %q (%v), want %q", n, s, got, err, want[n])
			}
		}
	}
	changes := map[int]int{}
	for k, pre := range w.StPre {
		n := w.StNode[k]
		changes[n]++
		if whole := changes[n]%Checkpoint == 0; whole != (pre < 0) {
			t.Fatalf("entry %d, change %d of n%d: stored whole %v", k, changes[n], n, pre < 0)
		}
	}
	if changes[0] < 2*Checkpoint {
		t.Fatalf("n0 changed state %d times: too few for the test", changes[0])
	}
}

// TestDeltaRoundTrip is a quick check of delta and applyDelta on random
// edits of strings with multi-byte and astral characters (JavaScript
// counts UTF-16 units).
func TestDeltaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "é", "→", "😀", "[", "]"}
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 5000 {
		prev := word(rng.IntN(12))
		cur := prev
		switch rng.IntN(3) {
		case 0:
			cur = word(rng.IntN(12))
		case 1:
			k := rng.IntN(len([]rune(prev)) + 1)
			cur = string([]rune(prev)[:k]) + word(rng.IntN(3)) + string([]rune(prev)[k:])
		case 2:
			cur = prev + word(1)
		}
		pre, suf, mid := delta(prev, cur)
		got, err := applyDelta(prev, pre, suf, mid)
		if err != nil || got != cur {
			t.Fatalf("case %d: delta(%q, %q) = %d %d %q gives %q (%v)", i, prev, cur, pre, suf, mid, got, err)
		}
	}
}

// TestDeliveriesPointAtTheirSends: every delivery of a RandTree execution
// is traced to the send that made it, and the send back to it.
func TestDeliveriesPointAtTheirSends(t *testing.T) {
	r, h := randtreeRun(t, 12, 4)
	e := FromTimed("x", h, r)
	deliveries := 0
	for i, s := range e.Steps {
		if s.Kind != KindDeliver {
			continue
		}
		deliveries++
		if s.SentStep < 0 || s.SentStep >= i {
			t.Fatalf("step %d %s from n%d: sending step %d", i, s.Label, s.From, s.SentStep)
		}
		m := e.Steps[s.SentStep].Sends[s.SentIndex]
		if m.Recv != i || m.To != s.Node || "deliver "+m.Type != s.Label || e.Steps[s.SentStep].Node != s.From {
			t.Fatalf("step %d: its send %+v at step %d does not match", i, m, s.SentStep)
		}
	}
	if deliveries == 0 {
		t.Fatal("no delivery")
	}
}

// TestMarks: a safety violation and the end are marked at the last step,
// a panic at its step, and Pair marks the first differing step in both
// executions.
func TestMarks(t *testing.T) {
	r, h := randtreeRun(t, 12, 1)
	a := FromTimed("a", h, r)
	last := len(a.Steps) - 1
	if len(a.Marks) != 1 || a.Marks[0] != (Mark{Step: last, Kind: MarkEnd, Text: a.End}) {
		t.Fatalf("marks %+v, want the end at step %d", a.Marks, last)
	}
	r.Violation, r.Panic = "one-root", &timedsim.PanicInfo{Where: "handler", Step: 5, Value: "boom"}
	v := FromTimed("v", h, r)
	for _, m := range v.Marks {
		if m.Kind == MarkViolation && strings.Contains(m.Text, "boom") && m.Step != 5 {
			t.Errorf("panic marked at step %d, want 5", m.Step)
		}
		if m.Kind == MarkViolation && strings.Contains(m.Text, "one-root") && m.Step != last {
			t.Errorf("violation marked at step %d, want %d", m.Step, last)
		}
	}
	if len(v.Marks) != 3 {
		t.Errorf("marks %+v, want the panic, the violation and the end", v.Marks)
	}
	// b is a with a different event at step 40: the first difference is
	// there.
	b := FromTimed("b", h, r)
	b.Steps[40].Label += " changed"
	d := &Data{Executions: []*Execution{a, b}}
	d.Pair(0, 1, "a vs b")
	if d.Pairs[0].FirstDiff != 40 {
		t.Fatalf("first difference %d, want 40", d.Pairs[0].FirstDiff)
	}
	for _, e := range []*Execution{a, b} {
		found := false
		for _, m := range e.Marks {
			found = found || (m.Kind == MarkFirstDiff && m.Step == 40)
		}
		if !found {
			t.Errorf("%s: no first-diff mark at 40: %+v", e.Name, e.Marks)
		}
	}
	// Times, sends and states are not what makes two events differ (the
	// report's event graph must mark the same step): a longer step,
	// one more send or another state is the same event; another node or
	// sender is not.
	e := FromTimed("e", h, r)
	e.Steps[50].Duration++
	e.Steps[45].Sends = append(e.Steps[45].Sends, Send{To: 1, Type: "X", Status: "sent", Recv: -1})
	e.Steps[44].State += " changed"
	if got := FirstDiff(a, e); got != -1 {
		t.Errorf("other times, sends and states differ at %d", got)
	}
	e.Steps[60].From = e.Steps[60].Node
	if got := FirstDiff(a, e); got != 60 {
		t.Errorf("another sender at step 60 differs at %d", got)
	}
	if FirstDiff(a, a) != -1 {
		t.Error("an execution differs from itself")
	}
	c := FromTimed("c", h, r)
	c.Steps = c.Steps[:30]
	if got := FirstDiff(a, c); got != 30 {
		t.Errorf("a prefix differs at %d, want 30 (its length)", got)
	}
}

// TestGoldenTinyExecution pins the embedded data of a two-node ping-pong.
func TestGoldenTinyExecution(t *testing.T) {
	sc := pingpong.Scenario(2, 2)
	r, h := run(t, sc, 1, timedsim.Options{})
	h.System, h.Variant = "pingpong", "default"
	d := &Data{Title: "pingpong/default, 2 nodes", Executions: []*Execution{FromTimed("tiny", h, r)}}
	w, err := encode(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(w, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tiny.json", append(got, '\n'))
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got, *update)
}

// TestWriteIsDeterministicAndSelfContained: the same executions give the
// same bytes; the page has its data and script inline and names no URL
// to fetch.
func TestWriteIsDeterministicAndSelfContained(t *testing.T) {
	r, h := randtreeRun(t, 6, 2)
	var out [2]bytes.Buffer
	for i := range out {
		d := &Data{Title: "t </script>", Executions: []*Execution{FromTimed("a", h, r)}}
		if err := Write(&out[i], d); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Fatal("two writes of the same data differ")
	}
	page := out[0].String()
	if strings.Count(page, "</script>") != 2 {
		t.Errorf("%d script ends: the data or the title ends a script element", strings.Count(page, "</script>"))
	}
	for _, bad := range []string{"http://", "https://", "src=", "href=", "fetch(", "XMLHttpRequest", "import("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
}

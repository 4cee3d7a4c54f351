package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// hello is a small protocol of millisecond executions with a planted bug,
// the shape of a 5-node election: every node greets node 0,
// which welcomes it; a node that is welcomed is done. Node 0 silently
// drops a Hello with probability 1/400 (the bug), and the dropped node
// greets again when its 5 s retry timer fires. Normal executions take
// two message delays, a few milliseconds; the Pareto tail of the network
// makes some of them twice as slow; the bug makes them 5 s.
type hello struct {
	id      timedsim.NodeID
	welcome bool
}

type helloMsg struct{}

func (helloMsg) Size() int { return 16 }

type welcomeMsg struct{}

func (welcomeMsg) Size() int { return 16 }

func (h *hello) Init(ctx timedsim.Context) {
	if h.id != 0 {
		ctx.Send(0, helloMsg{})
		ctx.SetTimer("retry", 5*time.Second, nil)
	}
}

func (h *hello) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	switch m.(type) {
	case helloMsg:
		if ctx.Rand().IntN(400) == 0 {
			return // the bug: a Hello is lost in node 0's state
		}
		ctx.Send(from, welcomeMsg{})
	case welcomeMsg:
		h.welcome = true
		ctx.CancelTimer("retry")
	}
}

func (h *hello) Timer(ctx timedsim.Context, _ string, _ any) {
	if !h.welcome {
		ctx.Send(0, helloMsg{})
		ctx.SetTimer("retry", 5*time.Second, nil)
	}
}

func helloSystem() timedsim.System {
	return timedsim.System{
		Name: "hello", Doc: "test protocol: ms executions, a rare 5 s bug, network jitter",
		Variants:     []timedsim.Variant{{Name: "v"}},
		DefaultNodes: 5,
		Build: func(variant string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{
				Nodes: nodes,
				New:   func(id timedsim.NodeID) timedsim.Service { return &hello{id: id} },
				Stop: func(w timedsim.World) bool {
					for i := 1; i < w.Nodes(); i++ {
						if !w.Node(timedsim.NodeID(i)).(*hello).welcome {
							return false
						}
					}
					return true
				},
				Timeout: time.Minute, Network: netmodel.DefaultConfig(),
			}, nil
		},
	}
}

// helloEDD writes event durations of 10–20 µs, a handler's real cost.
func helloEDD(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "edd.json")
	var b bytes.Buffer
	if err := edd.Write(&b, edd.NewSet(edd.Uniform{Min: 10 * time.Microsecond, Max: 20 * time.Microsecond})); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type searchClasses struct {
	FirstIndex int `json:"first_index"`
	Anomalies  int `json:"anomalies"`
	Classes    []struct {
		Rank       int      `json:"rank"`
		Executions int      `json:"executions"`
		Slowdown   float64  `json:"slowdown"`
		Signature  []string `json:"signature"`
		Members    []int    `json:"members"`
	} `json:"classes"`
	Anomaly struct {
		Index      int   `json:"index"`
		ExecTimeNS int64 `json:"exec_time_ns"`
		Class      int   `json:"class"`
	} `json:"anomaly"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTriageFindsTheBugBehindTheJitter: the first
// anomaly of the hello protocol is network jitter, about twice the
// median. A search that stops there (--triage-runs 0 --fence-only,
// MacePC's phase 2) analyses the jitter; with the fence alone the search
// goes on, finds the 5 s executions, classes both kinds, and analyses the
// worst class: the bug. diverge --class 2 then analyses the jitter class
// on demand. With the default verdict the jitter is the normal
// tail, not a class of anomalies, and the bug is still found.
func TestTriageFindsTheBugBehindTheJitter(t *testing.T) {
	eddFile := helloEDD(t)
	run := func(dir string, extra ...string) (string, string, int) {
		t.Helper()
		var o, e bytes.Buffer
		args := append([]string{"run", "--system", "hello", "--seed", "3", "--edd", eddFile, "--out", dir, "--progress", "never"}, extra...)
		st := cli.Run(context.Background(), args, &o, &e, helloSystem())
		return o.String(), e.String(), st
	}

	first := filepath.Join(t.TempDir(), "first")
	out, errs, st := run(first, "--triage-runs", "0", "--fence-only")
	if st != cli.ExitFinding {
		t.Fatalf("--triage-runs 0: status %d\n%s%s", st, out, errs)
	}
	var fs searchClasses
	readJSON(t, filepath.Join(first, "search.json"), &fs)
	if len(fs.Classes) != 1 || fs.Anomaly.ExecTimeNS > int64(time.Second) {
		t.Fatalf("the first anomaly should be jitter, milliseconds (the test's premise): %+v", fs)
	}

	sig := filepath.Join(t.TempDir(), "significance")
	out, errs, st = run(sig)
	if st != cli.ExitFinding {
		t.Fatalf("default verdict: status %d\n%s%s", st, out, errs)
	}
	var ss struct {
		searchClasses
		Tail []struct {
			Slowdown float64 `json:"slowdown"`
		} `json:"tail"`
		TailExecutions int `json:"tail_executions"`
	}
	readJSON(t, filepath.Join(sig, "search.json"), &ss)
	if len(ss.Classes) != 1 || ss.Classes[0].Slowdown < 100 || ss.TailExecutions < 2 || len(ss.Tail) == 0 || ss.Tail[0].Slowdown > 10 {
		t.Errorf("default verdict: want the bug as the only class and the jitter as the normal tail: %+v", ss)
	}
	if !strings.Contains(out, "normal tail: ") {
		t.Errorf("the summary does not show the normal tail:\n%s", out)
	}

	dir := filepath.Join(t.TempDir(), "triaged")
	out, errs, st = run(dir, "--fence-only")
	if st != cli.ExitFinding {
		t.Fatalf("run: status %d\n%s%s", st, out, errs)
	}
	var s searchClasses
	readJSON(t, filepath.Join(dir, "search.json"), &s)
	t.Logf("first anomaly %d, %d anomalies, classes %+v", s.FirstIndex, s.Anomalies, s.Classes)
	if s.FirstIndex != fs.FirstIndex || len(s.Classes) < 2 {
		t.Fatalf("want the same first anomaly and at least two classes (the bug, the jitter): %+v", s)
	}
	bug, jitter := s.Classes[0], s.Classes[len(s.Classes)-1]
	if bug.Slowdown < 100 || s.Anomaly.Class != 1 || s.Anomaly.ExecTimeNS < int64(5*time.Second) {
		t.Errorf("class 1 is not the 5 s bug: %+v, analysed %+v", bug, s.Anomaly)
	}
	if jitter.Slowdown > 10 || jitter.Executions < 2 {
		t.Errorf("the last class is not the jitter: %+v", jitter)
	}
	members := 0
	for _, c := range s.Classes {
		members += len(c.Members)
	}
	if members != s.Anomalies {
		t.Errorf("%d anomalies, %d class members", s.Anomalies, members)
	}
	if !strings.Contains(out, "class 1: ") || !strings.Contains(out, "ANOMALY: class 1, execution") {
		t.Errorf("the summary does not list the classes:\n%s", out)
	}

	// diverge --class N analyses another class; an absent class is refused
	// before any file is touched.
	var o, e bytes.Buffer
	st = cli.Run(context.Background(), []string{"diverge", "--class", "99", "--out", dir, "--progress", "never"}, &o, &e, helloSystem())
	if st != cli.ExitError || !strings.Contains(e.String(), "--class 99: the search in") {
		t.Errorf("diverge --class 99: status %d %s", st, e.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "divergence.json")); err != nil {
		t.Errorf("a refused --class removed divergence.json: %v", err)
	}
	o.Reset()
	e.Reset()
	k := len(s.Classes)
	st = cli.Run(context.Background(), []string{"diverge", "--class", strings.TrimSpace(itoa(k)), "--out", dir, "--progress", "never"}, &o, &e, helloSystem())
	if st != cli.ExitFinding {
		t.Fatalf("diverge --class %d: status %d\n%s%s", k, st, o.String(), e.String())
	}
	var df struct {
		Anomaly struct {
			Index int `json:"index"`
			Class int `json:"class"`
		} `json:"anomaly"`
	}
	readJSON(t, filepath.Join(dir, "divergence.json"), &df)
	if df.Anomaly.Class != k || !containsInt(jitter.Members, df.Anomaly.Index) {
		t.Errorf("diverge --class %d analysed %+v, class members %v", k, df.Anomaly, jitter.Members)
	}
	sum := readSummary(t, dir)
	if sum.Anomaly.Class != k || sum.Anomaly.Index != df.Anomaly.Index {
		t.Errorf("summary.json after diverge --class %d: %+v", k, sum.Anomaly)
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestMinExcessOneNode: with one node a RandTree
// execution is two handlers, a microsecond, and one slow handler made it
// "7× the median" — an anomaly of nothing. The default minimum excess, one
// link latency, finds none and says why; --min-excess 0 restores the old
// threshold, under which such an execution is only the normal tail of the
// handlers' durations, and the fence alone flags it.
func TestMinExcessOneNode(t *testing.T) {
	dir := t.TempDir()
	const eddFile = "../systems/randtree/testdata/edd.json"
	out, errs, st := runRT(t, context.Background(), "run", "--nodes", "1", "--seed", "1", "--edd", eddFile, "--out", dir, "--progress", "never")
	if st != cli.ExitOK || !strings.Contains(errs, "less than one link latency (1 ms)") || !strings.Contains(out, "median + 1 ms (auto: one link latency (1 ms))") {
		t.Errorf("--nodes 1: status %d\n%s%s", st, out, errs)
	}
	if _, errs, st := runRT(t, context.Background(), "profile", "--nodes", "1", "--min-excess", "0", "--edd", eddFile, "--out", dir, "--progress", "never", "--profile-runs", "50"); st == cli.ExitError {
		t.Fatalf("profile --min-excess 0: %s", errs)
	}
	if out, errs, st := runRT(t, context.Background(), "search", "--out", dir, "--progress", "never", "--max-runs", "200", "--triage-runs", "0"); st != cli.ExitOK || !strings.Contains(out, "normal tail") {
		t.Errorf("--min-excess 0: the search did not call the microsecond jitter the normal tail (status %d)\n%s%s", st, out, errs)
	}
	if out, errs, st := runRT(t, context.Background(), "search", "--out", dir, "--progress", "never", "--max-runs", "200", "--triage-runs", "0", "--fence-only"); st != cli.ExitFinding {
		t.Errorf("--min-excess 0 --fence-only: the search found no microsecond anomaly (status %d)\n%s%s", st, out, errs)
	}
	for _, bad := range []string{"-1ms", "fast", "1"} {
		_, errs, st := runRT(t, context.Background(), "profile", "--min-excess", bad, "--out", t.TempDir(), "--progress", "never")
		if st != cli.ExitError || !strings.Contains(errs, "--min-excess must be auto or a duration") {
			t.Errorf("--min-excess %s: status %d %s", bad, st, errs)
		}
	}
}

// TestProfileTakesTheTrainingsConfiguration: profile
// after train profiles what was trained, and refuses to use the trained
// durations for another configuration.
func TestProfileTakesTheTrainingsConfiguration(t *testing.T) {
	dir := t.TempDir()
	if out, errs, st := runRT(t, context.Background(), "train", "--variant", "fixed", "--nodes", "16", "--seed", "7", "--train-runs", "3", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("train: %d\n%s%s", st, out, errs)
	}
	out, errs, st := runRT(t, context.Background(), "profile", "--profile-runs", "5", "--out", dir, "--progress", "never")
	if st != cli.ExitOK || !strings.Contains(out, "system=randtree variant=fixed nodes=16 seed=7") {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	var pf struct {
		Variant string `json:"variant"`
		Nodes   int    `json:"nodes"`
		Seed    uint64 `json:"seed"`
	}
	readJSON(t, filepath.Join(dir, "profile.json"), &pf)
	if pf.Variant != "fixed" || pf.Nodes != 16 || pf.Seed != 7 {
		t.Errorf("profile.json: %+v, want the training's fixed, 16 nodes, seed 7", pf)
	}
	for _, c := range []struct{ flag, value, msg string }{
		{"--variant", "buggy", "was trained with --variant fixed, not buggy"},
		{"--nodes", "32", "was trained with --nodes 16, not 32"},
		{"--semantics", "paper", "was trained with --semantics requeue, not paper"},
	} {
		_, errs, st := runRT(t, context.Background(), "profile", c.flag, c.value, "--profile-runs", "5", "--out", dir, "--progress", "never")
		if st != cli.ExitError || !strings.Contains(errs, c.msg) {
			t.Errorf("profile %s %s: status %d %s", c.flag, c.value, st, errs)
		}
	}
	// Another seed profiles other executions of what was trained.
	if _, errs, st := runRT(t, context.Background(), "profile", "--seed", "8", "--profile-runs", "5", "--out", dir, "--progress", "never"); st != cli.ExitOK {
		t.Errorf("profile --seed 8: status %d %s", st, errs)
	}
}

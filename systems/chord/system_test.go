package chord

import (
	"bytes"
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

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/timedsim"
)

// fastHandlers stands in for trained event durations: handlers take
// 0.1–2 µs, as the real ones measured in phase 1a do (the seed
// distribution's 1–10 ms per event makes every join tens of milliseconds
// long and the race window with it).
func fastHandlers() *edd.Set {
	return edd.NewSet(edd.Uniform{Min: 100 * time.Nanosecond, Max: 2 * time.Microsecond})
}

// explore runs n seeded executions of sc and returns their results.
func explore(t *testing.T, sc *timedsim.Scenario, n int, base uint64) []*timedsim.Result {
	t.Helper()
	e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CheckSafety: true, EDD: fastHandlers()}}
	res, done, err := e.Run(context.Background(), timedsim.Work{N: n, Path: timedsim.Seeded(base), Keep: true})
	if err != nil || done != n {
		t.Fatalf("explore: done %d of %d, err %v", done, n, err)
	}
	return res
}

// TestSystemScenario runs the bundled scenario (16 nodes) in the
// simulator: every fixed execution forms the ring in under a second; the
// join-race variant forms it too, thanks to recovery, but some executions
// take just over 60 s, and exactly those dropped a JoinReply (a joiner
// that had started a ring of its own: fewer "deliver JoinReply → Notify"
// than joiners).
func TestSystemScenario(t *testing.T) {
	const seeds, nodes = 200, 16
	for _, v := range []string{VariantFixed, VariantJoinRace} {
		sc, err := System().Scenario(v, nodes)
		if err != nil {
			t.Fatal(err)
		}
		slow := 0
		var worstFast time.Duration
		for i, r := range explore(t, sc, seeds, 1) {
			if !r.Finished {
				t.Fatalf("%s execution %d (%v): %v after %v (%s), %d steps", v, i, r.Path, r.Outcome, r.EndTime, r.Violation, r.Steps)
			}
			dropped := r.Composite["deliver JoinReply → Notify"] < nodes-1
			switch {
			case r.ExecTime > 60*time.Second && r.ExecTime < 62*time.Second:
				slow++
				if !dropped {
					t.Errorf("%s execution %d: slow (%v) but every JoinReply was taken", v, i, r.ExecTime)
				}
			case r.ExecTime < time.Second:
				worstFast = max(worstFast, r.ExecTime)
				if dropped {
					t.Errorf("%s execution %d: fast (%v) with a dropped JoinReply", v, i, r.ExecTime)
				}
			default:
				t.Errorf("%s execution %d: %v, neither fast nor repaired by recovery", v, i, r.ExecTime)
			}
		}
		t.Logf("%s: %d/%d executions slower than 60 s; slowest fast one %v", v, slow, seeds, worstFast)
		if v == VariantFixed && slow > 0 {
			t.Errorf("fixed variant: %d slow executions", slow)
		}
		// Latent: neither absent nor the common case (it would then be the
		// normal execution time).
		if v == VariantJoinRace && (slow == 0 || slow > seeds/5) {
			t.Errorf("join-race variant: %d of %d executions slow, want a latent bug (1 to %d)", slow, seeds, seeds/5)
		}
	}
}

// TestSystemDeterminism: the same path gives the same event log.
func TestSystemDeterminism(t *testing.T) {
	sc, err := Build(VariantBuggy, 16)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true, EDD: fastHandlers()})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		a, b := sim.Run(timedsim.SeedPath(seed)), sim.Run(timedsim.SeedPath(seed))
		if a.ExecTime != b.ExecTime || a.Steps != b.Steps || !reflect.DeepEqual(a.Events, b.Events) || len(a.Events) == 0 {
			t.Fatalf("seed %d: two runs differ: %v/%d vs %v/%d", seed, a.ExecTime, a.Steps, b.ExecTime, b.Steps)
		}
		if !slices.Equal(a.FinalStates, b.FinalStates) {
			t.Fatalf("seed %d: final states differ", seed)
		}
	}
}

// TestSystem checks the System's declaration and Build's errors.
func TestSystem(t *testing.T) {
	s := System()
	if s.Name != "chord" || s.ResolveVariant("") != VariantBuggy || s.DefaultNodes != 32 {
		t.Fatalf("system %+v", s)
	}
	if got := s.VariantNames(); !slices.Equal(got, []string{VariantBuggy, VariantFixed, VariantJoinRace, VariantNoRecovery, VariantSelfLoop}) {
		t.Fatalf("variants %v", got)
	}
	for _, n := range []int{1, 2, 32} {
		for _, v := range s.VariantNames() {
			sc, err := s.Scenario(v, n)
			if err != nil {
				t.Fatalf("%s/%d: %v", v, n, err)
			}
			if sc.Nodes != n || sc.Revision == "" {
				t.Fatalf("%s/%d: scenario %+v", v, n, sc)
			}
			cfg := sc.New(0).(*Node).cfg
			if cfg.SilentPred != (v == VariantBuggy) || cfg.JoinRace != (v == VariantJoinRace || v == VariantNoRecovery) ||
				cfg.NoRecovery != (v == VariantNoRecovery || v == VariantSelfLoop) || cfg.SelfLoop != (v == VariantSelfLoop) {
				t.Fatalf("%s: node config %+v", v, cfg)
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The self-loop never forms a ring of two or more nodes.
			if r := sim.Run(timedsim.SeedPath(1)); r.Finished != (v != VariantSelfLoop || n == 1) {
				t.Fatalf("%s/%d: %v", v, n, r.Outcome)
			}
		}
	}
	for _, bad := range []struct {
		variant string
		nodes   int
		want    string
	}{
		{"nope", 4, `no variant "nope"`},
		{VariantBuggy, -1, "need at least 1"},
	} {
		_, err := s.Scenario(bad.variant, bad.nodes)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Scenario(%q, %d): error %v, want %q", bad.variant, bad.nodes, err, bad.want)
		}
	}
	for _, w := range []Workload{{Nodes: 3, Gap: -1}, {Nodes: 3, Jitter: -1}, {Nodes: 3, Config: Config{Successors: -1}}} {
		if _, err := NewScenario(w); err == nil || !strings.HasPrefix(err.Error(), "chord: ") {
			t.Errorf("NewScenario(%+v): error %v", w, err)
		}
	}
}

// TestNewRingMatchesRing: the hinted stopping condition gives the same
// executions as the pure one.
func TestNewRingMatchesRing(t *testing.T) {
	for _, v := range []string{VariantFixed, VariantBuggy, VariantJoinRace} {
		for _, nodes := range []int{1, 2, 16} {
			pure, err := Build(v, nodes)
			if err != nil {
				t.Fatal(err)
			}
			pure.NewStop = nil
			hinted, _ := Build(v, nodes)
			a, _ := timedsim.NewSimulator(pure, timedsim.Options{EDD: fastHandlers()})
			b, _ := timedsim.NewSimulator(hinted, timedsim.Options{EDD: fastHandlers()})
			for i := range 30 {
				p := timedsim.SeedPath(timedsim.ExecutionSeed(9, i))
				ra, rb := a.Run(p), b.Run(p)
				if ra.Outcome != rb.Outcome || ra.ExecTime != rb.ExecTime || ra.Steps != rb.Steps {
					t.Fatalf("%s/%d execution %d: pure %v %v %d, hinted %v %v %d", v, nodes, i, ra.Outcome, ra.ExecTime, ra.Steps, rb.Outcome, rb.ExecTime, rb.Steps)
				}
			}
		}
	}
}

// TestProperties checks the properties on hand-built states against their
// definitions.
func TestProperties(t *testing.T) {
	h := newHarness(t, 4, Config{})
	set := func(id, pred NodeID, succ ...NodeID) {
		n := h.nodes[id]
		n.state, n.pred, n.succs = Joined, pred, succ
	}
	r := NewRingOrder(4)
	for id := range NodeID(4) {
		set(id, r.Pred(id), r.Succ(id))
	}
	if !r.Ring(h) || !AllJoined(h) || !AllNodes(h) || !PredNonNull(h) || !SuccReflexive(h) || !SelfPred(h) || Rings(h) != 1 {
		t.Fatalf("correct ring fails a property:%s", h.describe())
	}
	// Two rings: {a, b} and {c, d}.
	a, b, c, d := NodeID(0), NodeID(1), NodeID(2), NodeID(3)
	set(a, b, b)
	set(b, a, a)
	set(c, d, d)
	set(d, c, c)
	if r.Ring(h) || AllNodes(h) || !SuccReflexive(h) || Rings(h) != 2 {
		t.Fatalf("two rings: ring %v all-nodes %v succ-reflexive %v rings %d", r.Ring(h), AllNodes(h), SuccReflexive(h), Rings(h))
	}
	// MaceMC's symptom: a self-loop with a predecessor.
	set(d, c)
	set(c, d, d)
	if AllNodes(h) || SelfPred(h) != true {
		t.Fatalf("self-loop: all-nodes %v self-pred %v", AllNodes(h), SelfPred(h))
	}
	set(d, d, c) // its own predecessor, another successor
	if SelfPred(h) {
		t.Fatalf("self-pred holds for a node that is its own predecessor with successor %v", c)
	}
	h.nodes[a].pred = None
	if PredNonNull(h) {
		t.Fatal("pred-non-null holds with an unknown predecessor")
	}
	h.nodes[b].state = Joining
	if AllJoined(h) {
		t.Fatal("all-joined holds with a joining node")
	}
}

// TestPipeline runs the whole MacePC pipeline on 16 nodes: the join-race
// variant yields an anomaly whose divergence step lies strictly inside the
// execution and whose top correlation is the bug's ignored JoinReply, the
// fixed one none in 200 executions; a second join-race run with the first
// run's trained durations repeats the first exactly.
func TestPipeline(t *testing.T) {
	dir := t.TempDir()
	run := func(out string, extra ...string) (int, string) {
		args := append([]string{"run", "--system", "chord", "--nodes", "16", "--seed", "1", "--walks", "8", "--progress", "never", "--out", out}, extra...)
		var o, e bytes.Buffer
		st := cli.Run(context.Background(), args, &o, &e, System())
		return st, o.String() + e.String()
	}
	type summary struct {
		Anomaly struct {
			Found         bool    `json:"found"`
			ExecutionTime float64 `json:"execution_time"`
		} `json:"anomaly"`
		Divergence struct {
			Step       int `json:"step"`
			TotalSteps int `json:"total_steps"`
		} `json:"divergence"`
		Correlations []struct {
			Label string   `json:"label"`
			R     *float64 `json:"r"`
		} `json:"correlations"`
	}
	read := func(out string) summary {
		var s summary
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	buggy := filepath.Join(dir, "join-race")
	st, out := run(buggy, "--variant", VariantJoinRace)
	if st != 1 {
		t.Fatalf("buggy: exit %d, want 1 (anomaly):\n%s", st, out)
	}
	s := read(buggy)
	if !s.Anomaly.Found || s.Anomaly.ExecutionTime < 60 || s.Divergence.Step <= 0 || s.Divergence.Step >= s.Divergence.TotalSteps {
		t.Fatalf("buggy: summary %+v\n%s", s, out)
	}
	t.Logf("buggy: anomaly %.3fs, divergence step %d of %d", s.Anomaly.ExecutionTime, s.Divergence.Step, s.Divergence.TotalSteps)
	// The bug's trace ranks first among the correlations: the joining
	// node that takes a Join gives up its own join (it cancels its join
	// timer) and makes itself a ring, and its own JoinReply, dropped
	// because of that, ranks in the top 3 either way.
	race := []string{timedsim.CompositeLabel("deliver Join", timedsim.TimerComposite("join", true)), timedsim.CompositeLabel("deliver JoinReply", NoteNotJoining)}
	if c := s.Correlations; len(c) == 0 || !slices.Contains(race, c[0].Label) || c[0].R == nil || *c[0].R < 0.8 {
		t.Errorf("buggy: top correlation is not the race's (r ≥ 0.8): %+v", c)
	} else if !slices.ContainsFunc(c[:min(3, len(c))], func(x struct {
		Label string   `json:"label"`
		R     *float64 `json:"r"`
	}) bool {
		return x.Label == race[1]
	}) {
		t.Errorf("buggy: the ignored JoinReply is not in the top 3: %+v", c)
	}

	// The event log shows the handler's note under the event.
	if b, err := os.ReadFile(filepath.Join(buggy, "anomaly.log")); err != nil || !bytes.Contains(b, []byte("\n        note: "+NoteNotJoining+"\n")) {
		t.Errorf("anomaly.log lacks the note %q (%v)", NoteNotJoining, err)
	}

	again := filepath.Join(dir, "again")
	if st, out := run(again, "--variant", VariantJoinRace, "--edd", filepath.Join(buggy, "edd.json")); st != 1 {
		t.Fatalf("buggy again: exit %d:\n%s", st, out)
	}
	for _, f := range []string{"anomaly.log", "similar.log", "divergence.json"} {
		a, errA := os.ReadFile(filepath.Join(buggy, f))
		b, errB := os.ReadFile(filepath.Join(again, f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same edd.json (%v, %v)", f, errA, errB)
		}
	}

	fixed := filepath.Join(dir, "fixed")
	if st, out := run(fixed, "--variant", "fixed", "--max-runs", "200"); st != 0 {
		t.Fatalf("fixed: exit %d, want 0:\n%s", st, out)
	}
	if s := read(fixed); s.Anomaly.Found {
		t.Fatalf("fixed: anomaly %+v", s)
	}
}

func ExampleSystem() {
	sc, err := System().Scenario(VariantFixed, 8)
	if err != nil {
		panic(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		panic(err)
	}
	res := sim.Run(timedsim.SeedPath(1))
	fmt.Println(res.Outcome, res.ExecTime < time.Second)
	// Output: finished true
}

// TestLiveness runs the liveness mode (MaceMC's search with the scenario's
// liveness and safety properties) on three nodes of each variant: the
// join-race variant's split rings are repaired by the recovery timer,
// which the search's scheduler fires too, and the buggy variant's silent
// losses by stabilize, so none of them nor the fixed variant has a
// violation; without recovery the race is a dead state, and the critical
// transition is the joining node's delivery of a Join.
//
// The self-loop variant is MaceMC's Chord bug, and the search reports it
// as MaceMC's did (MaceMC paper §5): a violation of all-nodes on the first
// path walked, and no critical transition, class C2, since every execution is
// dead from the start (the bootstrap's first Notify makes it a self-loop
// with a predecessor, and nothing ever gives it a successor).
func TestLiveness(t *testing.T) {
	for _, v := range []string{VariantBuggy, VariantFixed, VariantJoinRace, VariantNoRecovery, VariantSelfLoop} {
		var o, e bytes.Buffer
		args := []string{"run", "--liveness", "--system", "chord", "--variant", v, "--nodes", "3", "--seed", "1", "--out", t.TempDir()}
		st := cli.Run(context.Background(), args, &o, &e, System())
		if v == VariantSelfLoop {
			if st != 1 || !strings.Contains(o.String(), "VIOLATION (liveness): all-nodes") || !strings.Contains(o.String(), " 1 random walks,") || !strings.Contains(o.String(), "no critical transition (C2)") {
				t.Fatalf("%s: exit %d, want all-nodes violated in the first path, C2:\n%s%s", v, st, o.String(), e.String())
			}
			continue
		}
		if v != VariantNoRecovery {
			if st != 0 || !strings.Contains(o.String(), "no violation") {
				t.Fatalf("%s: exit %d:\n%s%s", v, st, o.String(), e.String())
			}
			continue
		}
		if st != 1 || !strings.Contains(o.String(), "VIOLATION (liveness): all-nodes") || !strings.Contains(o.String(), "critical transition (C1)") || !strings.Contains(o.String(), "n1 deliver Join from n2") {
			t.Fatalf("%s: exit %d, want the race as the critical transition:\n%s%s", v, st, o.String(), e.String())
		}
	}
}

// TestSilentPredScenario: the buggy variant (Config.SilentPred) on the
// bundled scenario (32 nodes, the committed event durations). Stabilize
// repairs what it loses, so every execution forms the ring, long before
// the 60 s recovery; but a node that joined with a stale successor walks
// to its place one stabilize round (100 ms) per node it passes, and some
// executions end seconds after the fixed variant's slowest. The slow
// executions are the ones in which notifiers were ignored.
func TestSilentPredScenario(t *testing.T) {
	f, err := os.Open("testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	set, err := edd.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	const runs = 200
	var fixedMax time.Duration
	for _, v := range []string{VariantFixed, VariantBuggy} {
		sc, err := Build(v, 32)
		if err != nil {
			t.Fatal(err)
		}
		e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CheckSafety: true, EDD: set}}
		res, done, err := e.Run(context.Background(), timedsim.Work{N: runs, Path: timedsim.Seeded(1), Keep: true})
		if err != nil || done != runs {
			t.Fatal(err, done)
		}
		slow, ignored := 0, 0
		for i, r := range res {
			if !r.Finished || r.ExecTime > 10*time.Second {
				t.Fatalf("%s execution %d: %v at %v", v, i, r.Outcome, r.ExecTime)
			}
			if v == VariantFixed {
				fixedMax = max(fixedMax, r.ExecTime)
				continue
			}
			if r.ExecTime > 2*fixedMax {
				slow++
				if r.Composite[timedsim.CompositeLabel("deliver Notify", NoteNotNearer)] > 0 {
					ignored++
				}
			}
		}
		t.Logf("%s: slowest fixed %v; %d of %d buggy executions slower than twice that, %d of them with ignored notifiers", v, fixedMax, slow, runs, ignored)
		if v == VariantBuggy && (slow == 0 || slow > runs/4 || ignored != slow) {
			t.Errorf("buggy: %d slow executions (%d with ignored notifiers), want a latent bug", slow, ignored)
		}
	}
}

// TestPipelineSilentPred runs the whole pipeline on the buggy variant with
// the committed event durations (32 nodes, seed 1): an anomaly, a
// divergence step strictly inside it, and a label of the bug (a Notify
// whose handler dropped the old predecessor or ignored the notifier)
// first among the correlations.
func TestPipelineSilentPred(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignore-notes=%v", ignore), func(t *testing.T) { pipelineSilentPred(t, ignore) })
	}
}

// pipelineSilentPred runs the pipeline on the buggy variant; with the
// notes ignored the bug's label is the Notify handler's own, which the
// cause's unanswered requests point at (critpath.FindUnanswered).
func pipelineSilentPred(t *testing.T, ignoreNotes bool) {
	out := t.TempDir()
	var o, e bytes.Buffer
	args := []string{"run", "--system", "chord", "--variant", VariantBuggy, "--seed", "1",
		"--edd", "testdata/edd.json", "--progress", "never", "--out", out}
	if ignoreNotes {
		args = append(args, "--ignore-notes")
	}
	st := cli.Run(context.Background(), args, &o, &e, System())
	if st != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", st, o.String(), e.String())
	}
	var s struct {
		Anomaly struct {
			Found bool `json:"found"`
		} `json:"anomaly"`
		Divergence struct {
			Step       int `json:"step"`
			TotalSteps int `json:"total_steps"`
		} `json:"divergence"`
		Correlations []struct {
			Label string `json:"label"`
		} `json:"correlations"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !s.Anomaly.Found || s.Divergence.Step <= 0 || s.Divergence.Step >= s.Divergence.TotalSteps {
		t.Fatalf("summary %+v", s)
	}
	bug := []string{timedsim.CompositeLabel("deliver Notify", NoteDropped), timedsim.CompositeLabel("deliver Notify", NoteNotNearer)}
	if ignoreNotes {
		bug = []string{"deliver Notify", timedsim.CompositeLabel("deliver Notify", timedsim.SentNothing)}
	}
	if len(s.Correlations) == 0 || !slices.Contains(bug, s.Correlations[0].Label) {
		t.Errorf("top correlation is not the bug's: %+v", s.Correlations)
	}
}

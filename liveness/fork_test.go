package liveness

import (
	"context"
	"fmt"
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
			sn := w.snapshot(true)
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
	if sn := w.snapshot(true); (sn != nil) != clones {
		t.Fatalf("randtree: snapshot %v, its service a cloner %v", sn != nil, clones)
	}
}

// TestLevelDivisionForks: the level division's report, sequences and
// shards' merge are the same whether it forks its successors from a
// snapshot or replays each one (Config.Replay), on the ring (with resets
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
		forkedEqualsReplayed(t, name, cfg)
	}
}

// TestCriticalForksEqualReplay: the critical-transition search, whose
// probes fork their walks from a snapshot of the dead path's prefix, gives
// the same report (violation, probes, walks, critical step, live path,
// state diff) as with every walk replaying its prefix (Config.Replay), on
// 1 and 2 workers: RandTree's RT3 for four seeds, the trap system with the
// trap in the DFS part and in the random part, and the C2 re-checks.
func TestCriticalForksEqualReplay(t *testing.T) {
	cases := map[string]Config{
		"trap-dfs":  {Scenario: cloneable(trapSystem(1, 5)), Depth: 5, MaxDepth: 5, DMax: 50, Weights: trapWeights(), Seed: 2},
		"trap-walk": func() Config { c := rareTrap(); c.Scenario = cloneable(c.Scenario); return c }(),
		"trap-c2":   {Scenario: cloneable(trapSystem(1, 21)), Depth: 3, MaxDepth: 3, DMax: 20, Weights: trapWeights()},
	}
	for seed := uint64(1); seed <= 4; seed++ {
		cases["rt3-seed"+strconv.Itoa(int(seed))] = randtreeConfig(t, randtree.VariantLivenessBug, seed)
	}
	for name, cfg := range cases {
		var want *Report
		for _, replay := range []bool{true, false} {
			for _, jobs := range []int{1, 2} {
				cfg.Replay, cfg.Jobs = replay, jobs
				rep, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				c := rep.Critical
				if c == nil {
					t.Fatalf("%s: no critical transition: %+v", name, rep)
				}
				if mode := map[bool]string{true: WalksReplay, false: WalksSnapshot}[replay]; c.WalksFrom != mode || c.Replayed != 0 {
					t.Fatalf("%s, replay %v: walks from %q (%d probes replayed), want %q", name, replay, c.WalksFrom, c.Replayed, mode)
				}
				nc := *c
				nc.WalksFrom = ""
				rep.Critical = &nc
				if want == nil {
					want = rep
					continue
				}
				if !reflect.DeepEqual(rep, want) {
					t.Fatalf("%s, replay %v, %d jobs: report %+v\ncritical %+v\nwant %+v\ncritical %+v", name, replay, jobs, rep, rep.Critical, want, want.Critical)
				}
			}
		}
		t.Logf("%s: %s at step %d, %d probes, %d walks", name, want.Critical.Class, want.Critical.Step, len(want.Critical.Probes), want.Critical.Walks)
	}
}

// cloneable is the trap system with nodes that are cloners, so that its
// critical search forks (trapNode has no Clone: the other tests replay).
func cloneable(sc *timedsim.Scenario) *timedsim.Scenario {
	c := *sc
	c.New = func(timedsim.NodeID) timedsim.Service { return &cloneTrap{} }
	return &c
}

type cloneTrap struct{ trapNode }

func (n *cloneTrap) Clone() timedsim.Service {
	c := *n
	return &c
}

// TestSequentialDivisionForks: the sequential division and its prefix
// tasks give the same report and sequences whether they fork (the DFS
// restores the snapshot before a sequence's first fresh step, a leaf's
// walk goes on from its state, a seeded task's walk forks from the
// worker's snapshots) or replay everything (Config.Replay): RandTree with
// the division at the bound and below it (SplitDepth), with resets, breaks
// and drops, RT3 (a violation and its critical
// transition), on 1 and 2 workers, with small chunks of tasks so that the
// workers' snapshots are reused across chunks.
func TestSequentialDivisionForks(t *testing.T) {
	rt := randtreeConfig(t, randtree.VariantFixed, 1)
	rt.Depth, rt.DepthStep, rt.MaxDepth = 5, 4, 9
	split := rt
	split.SplitDepth = 4
	faults := rt
	faults.Faults, faults.Breaks, faults.Drops, faults.MaxDepth = 1, 1, 1, 7
	rt3 := randtreeConfig(t, randtree.VariantLivenessBug, 1)
	rt3split := rt3
	rt3split.SplitDepth = 3
	for name, cfg := range map[string]Config{
		"randtree": rt, "randtree-split": split, "randtree-faults": faults,
		"randtree-rt3": rt3, "randtree-rt3-split": rt3split,
	} {
		for _, jobs := range []int{1, 2} {
			cfg.Jobs, cfg.chunk = jobs, 7
			forkedEqualsReplayed(t, fmt.Sprintf("%s, %d jobs", name, jobs), cfg)
		}
	}
}

// forkedEqualsReplayed runs cfg's search forked and replayed (Config.Replay)
// and fails unless both visit the same sequences and report the same but
// for how the critical search's walks ran, on at least 50 paths.
func forkedEqualsReplayed(t *testing.T, what string, cfg Config) {
	t.Helper()
	replay := cfg
	replay.Replay = true
	want, wantRep := dfsVisits(t, replay)
	got, rep := dfsVisits(t, cfg)
	if rep.Critical != nil && wantRep.Critical != nil {
		// The one difference: how the critical search's walks ran.
		c, wc := *rep.Critical, *wantRep.Critical
		c.WalksFrom = wc.WalksFrom
		rep.Critical, wantRep.Critical = &c, &wc
	}
	if !slices.Equal(got, want) || !reflect.DeepEqual(rep, wantRep) {
		t.Fatalf("%s: forked %d sequences %+v\nreplayed %d %+v", what, len(got), rep, len(want), wantRep)
	}
	if wantRep.Stats.Paths < 50 {
		t.Fatalf("%s: %d paths: too small a test", what, wantRep.Stats.Paths)
	}
}

package randtree

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

var tune = flag.Bool("tune", false, "measure slow-execution fractions over many seeds and workloads (TestTune)")

// explore runs n seeded executions of sc and returns their results.
func explore(t *testing.T, sc *timedsim.Scenario, n int, base uint64) []*timedsim.Result {
	t.Helper()
	e := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CheckSafety: true}}
	res, done, err := e.Run(context.Background(), timedsim.Work{N: n, Path: timedsim.Seeded(base), Keep: true})
	if err != nil || done != n {
		t.Fatalf("explore: done %d of %d, err %v", done, n, err)
	}
	return res
}

// TestSystemScenario runs the bundled scenario in the simulator (MacePC
// §5.4): the fixed variant always forms its tree in under 5 s; the buggy
// variant always forms it too, thanks to the recovery protocol, but some
// executions take longer than 10 s, and those are the ones with the event
// "deliver JoinReply → Remove".
func TestSystemScenario(t *testing.T) {
	const seeds = 60
	for _, v := range []string{VariantFixed, VariantBuggy} {
		t.Run(v, func(t *testing.T) {
			sc, err := System().Scenario(v, 0)
			if err != nil {
				t.Fatal(err)
			}
			slow := 0
			var worstFast time.Duration
			for i, r := range explore(t, sc, seeds, 1) {
				if !r.Finished {
					t.Fatalf("execution %d (%v): %v after %v, %d steps", i, r.Path, r.Outcome, r.EndTime, r.Steps)
				}
				removes := r.Composite["deliver JoinReply → Remove"]
				switch {
				case r.ExecTime > 10*time.Second:
					slow++
					if removes == 0 {
						t.Errorf("execution %d: slow (%v) without a JoinReply → Remove", i, r.ExecTime)
					}
				case r.ExecTime > 5*time.Second:
					t.Errorf("execution %d: %v, neither fast nor repaired by recovery", i, r.ExecTime)
				default:
					worstFast = max(worstFast, r.ExecTime)
				}
			}
			t.Logf("%s: %d/%d executions slower than 10 s; slowest fast one %v", v, slow, seeds, worstFast)
			if v == VariantFixed && slow > 0 {
				t.Errorf("fixed variant: %d slow executions", slow)
			}
			if v == VariantBuggy && slow == 0 {
				t.Errorf("buggy variant: no execution slower than 10 s in %d", seeds)
			}
		})
	}
}

// TestSystemDeterminism: the same path gives the same execution.
func TestSystemDeterminism(t *testing.T) {
	sc, err := Build(VariantBuggy, 16)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		a, b := sim.Run(timedsim.SeedPath(seed)), sim.Run(timedsim.SeedPath(seed))
		if a.ExecTime != b.ExecTime || a.Steps != b.Steps || !reflect.DeepEqual(a.Events, b.Events) || len(a.Events) == 0 {
			t.Fatalf("seed %d: two runs differ: %v/%d vs %v/%d", seed, a.ExecTime, a.Steps, b.ExecTime, b.Steps)
		}
	}
}

// TestSystem checks the System's declaration and Build's errors.
func TestSystem(t *testing.T) {
	s := System()
	if s.Name != "randtree" || s.ResolveVariant("") != VariantBuggy || s.DefaultNodes != 32 {
		t.Fatalf("system %+v", s)
	}
	want := []string{VariantBuggy, VariantFixed, VariantLivenessBug, "rt1", "rt2", "rt4", "rt10", "rt11", "rt14", "rt16"}
	if got := s.VariantNames(); !slices.Equal(got, want) {
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
			if _, fixed := sc.New(0).(*Node); !fixed {
				t.Fatalf("constructor builds %T", sc.New(0))
			}
			// The MaceMC variants are the fixed protocol with one bug on.
			cfg := sc.New(0).(*Node).cfg
			if got, want := cfg.Fixed, v == VariantFixed || strings.HasPrefix(v, "rt"); got != want {
				t.Fatalf("%s: node Fixed=%v", v, got)
			}
			if bugs, ok := maceMCBugs(v); cfg.MaceMC != bugs || ok != strings.HasPrefix(v, "rt") {
				t.Fatalf("%s: node MaceMC %+v", v, cfg.MaceMC)
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
	if _, err := NewScenario(Workload{Nodes: 3, Bootstrap: 3}); err == nil {
		t.Errorf("bootstrap outside the nodes accepted")
	}
}

// TestTune measures, for several workloads, the fraction of executions
// slower than 10 s and the fast executions' quartiles. It documents how
// DefaultWorkload was chosen:
//
//	go test ./systems/randtree -run TestTune -v -args -tune
func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	const seeds = 1000
	for _, b := range []NodeID{1, 2, 4} {
		for _, spread := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second} {
			for _, fixed := range []bool{false, true} {
				w := DefaultWorkload(32)
				w.Bootstrap, w.Spread, w.Config.Fixed = b, spread, fixed
				sc, err := NewScenario(w)
				if err != nil {
					t.Fatal(err)
				}
				var fast []time.Duration
				slow, over5, unfinished := 0, 0, 0
				for _, r := range explore(t, sc, seeds, 7) {
					switch {
					case !r.Finished:
						unfinished++
					case r.ExecTime > 10*time.Second:
						slow++
					case r.ExecTime > 5*time.Second:
						over5++
					default:
						fast = append(fast, r.ExecTime)
					}
				}
				slices.Sort(fast)
				q := func(p float64) time.Duration { return fast[int(p*float64(len(fast)-1))] }
				t.Logf("bootstrap=%v spread=%v fixed=%v: slow %d/%d (%.1f%%), 5-10s %d, unfinished %d; fast Q1 %v median %v Q3 %v max %v",
					b, spread, fixed, slow, seeds, 100*float64(slow)/seeds, over5, unfinished,
					q(.25).Round(time.Millisecond), q(.5).Round(time.Millisecond), q(.75).Round(time.Millisecond), q(1).Round(time.Millisecond))
			}
		}
	}
}

// TestSpanningTreeReference compares SpanningTree with a naive reference
// on random small worlds, many of them nearly trees.
func TestSpanningTreeReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	agree := map[bool]int{}
	for i := range 20000 {
		n := 1 + rng.IntN(6)
		h := &harness{t: t}
		for id := range NodeID(n) {
			h.nodes = append(h.nodes, NewNode(id, Config{}))
		}
		randomTreeish(rng, h.nodes)
		got, want := SpanningTree(h), naiveSpanningTree(h.nodes)
		if got != want {
			t.Fatalf("world %d: SpanningTree %v, reference %v:%s", i, got, want, h.describe())
		}
		agree[got]++
	}
	t.Logf("agreed on %d trees and %d non-trees", agree[true], agree[false])
	if agree[true] < 1000 || agree[false] < 1000 {
		t.Fatalf("generator too lopsided: %v", agree)
	}
}

// TestPropertiesReference checks MaceMC's RandTree properties against
// plain definitions on random near-trees, and that a spanning tree
// satisfies them all.
func TestPropertiesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	valid := func(nodes []*Node, id NodeID) bool { return id >= 0 && int(id) < len(nodes) }
	props := []struct {
		name  string
		check func(timedsim.World) bool
		naive func([]*Node) bool
	}{
		{PropAllJoined, AllJoined, func(nodes []*Node) bool {
			for _, x := range nodes {
				if x.state != Joined {
					return false
				}
			}
			return true
		}},
		{PropOneRoot, OneRoot, func(nodes []*Node) bool {
			return len(slices.DeleteFunc(slices.Clone(nodes), func(x *Node) bool { return !x.IsRoot() })) == 1
		}},
		{PropKidsMatch, KidsMatch, func(nodes []*Node) bool {
			for _, x := range nodes {
				if x.parent != None && x.parent != x.self && (!valid(nodes, x.parent) || !nodes[x.parent].HasChild(x.self)) {
					return false
				}
				for _, c := range x.children {
					if c == x.self || !valid(nodes, c) || nodes[c].parent != x.self {
						return false
					}
				}
			}
			return true
		}},
		{PropNoLoops, NoLoops, func(nodes []*Node) bool {
			for _, x := range nodes {
				// n steps up the parents without an end: a loop.
				y := x
				for range len(nodes) + 1 {
					if y.parent == y.self || !valid(nodes, y.parent) {
						y = nil
						break
					}
					y = nodes[y.parent]
				}
				if y != nil {
					return false
				}
			}
			return true
		}},
	}
	holds := map[string]int{}
	for i := range 20000 {
		n := 1 + rng.IntN(6)
		if i%100 == 0 {
			n = 65 + rng.IntN(10) // NoLoops' allocating path
		}
		h := &harness{t: t}
		for id := range NodeID(n) {
			h.nodes = append(h.nodes, NewNode(id, Config{}))
		}
		randomTreeish(rng, h.nodes)
		tree := SpanningTree(h)
		for _, p := range props {
			got, want := p.check(h), p.naive(h.nodes)
			if got != want {
				t.Fatalf("world %d: %s %v, reference %v:%s", i, p.name, got, want, h.describe())
			}
			if tree && !got {
				t.Fatalf("world %d: a spanning tree violates %s:%s", i, p.name, h.describe())
			}
			if got {
				holds[p.name]++
			}
		}
	}
	t.Logf("properties held in %v of 20000 worlds", holds)
	for _, p := range props {
		if holds[p.name] < 1000 || holds[p.name] > 19000 {
			t.Errorf("generator too lopsided for %s: held %d times", p.name, holds[p.name])
		}
	}
}

// TestScenarioProperties: the scenario lists the properties; the
// liveness-bug variant leaves the optional recovery-timer out.
func TestScenarioProperties(t *testing.T) {
	names := func(ps []timedsim.Property) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, v := range System().VariantNames() {
		sc, err := System().Scenario(v, 3)
		if err != nil {
			t.Fatal(err)
		}
		wantSafety := []string{PropRecoveryTimer, PropNoLoops}
		if v == VariantLivenessBug { // recovery-timer is there, optional
			wantSafety = []string{PropNoLoops}
		}
		if got := names(timedsim.Required(sc.Safety)); !slices.Equal(got, wantSafety) {
			t.Errorf("%s: safety %v, want %v", v, got, wantSafety)
		}
		if got, want := names(sc.Liveness), []string{PropAllJoined, PropOneRoot, PropKidsMatch, PropSpanningTree}; !slices.Equal(got, want) {
			t.Errorf("%s: liveness %v, want %v", v, got, want)
		}
		n := sc.New(0).(*Node)
		if n.cfg.RecoveryOnlyJoined != (v == VariantLivenessBug) || n.cfg.Fixed != (v == VariantFixed || strings.HasPrefix(v, "rt")) {
			t.Errorf("%s: node config %+v", v, n.cfg)
		}
	}
}

// randomTreeish builds a random spanning tree and then, sometimes, breaks
// it in one of the ways a protocol can: an extra root, a parent loop, a
// missing or extra child pointer, a node not joined.
func randomTreeish(rng *rand.Rand, nodes []*Node) {
	n := len(nodes)
	perm := rng.Perm(n)
	for i, id := range perm {
		nd := nodes[id]
		nd.state = Joined
		if i == 0 {
			nd.parent = NodeID(id)
			continue
		}
		p := NodeID(perm[rng.IntN(i)])
		nd.parent = p
		nodes[p].addChild(NodeID(id))
	}
	pick := func() *Node { return nodes[rng.IntN(n)] }
	for range rng.IntN(3) {
		switch rng.IntN(7) {
		case 0:
			pick().state = Joining
		case 1:
			x := pick()
			x.parent = x.self
		case 2:
			x := pick()
			x.parent = NodeID(rng.IntN(n+1)) - 1
		case 3:
			x, y := pick(), pick()
			x.addChild(y.self)
		case 4:
			x := pick()
			if len(x.children) > 0 {
				x.removeChild(x.children[0])
			}
		case 5: // a two-node loop, pointers consistent
			x, y := pick(), pick()
			if x != y {
				for _, z := range nodes {
					z.removeChild(x.self)
					z.removeChild(y.self)
				}
				x.parent, y.parent = y.self, x.self
				x.addChild(y.self)
				y.addChild(x.self)
			}
		case 6:
			x := pick()
			x.addChild(x.self)
		}
	}
}

// naiveSpanningTree is the definition of SpanningTree, written plainly.
func naiveSpanningTree(nodes []*Node) bool {
	n := len(nodes)
	var roots []NodeID
	for _, x := range nodes {
		if x.state != Joined {
			return false
		}
		if x.parent == x.self {
			roots = append(roots, x.self)
		}
	}
	if len(roots) != 1 {
		return false
	}
	valid := func(id NodeID) bool { return id >= 0 && int(id) < n }
	for _, x := range nodes {
		if x.parent != x.self && (!valid(x.parent) || !nodes[x.parent].HasChild(x.self)) {
			return false
		}
		for _, c := range x.children {
			if c == x.self || !valid(c) || nodes[c].parent != x.self {
				return false
			}
		}
	}
	for _, x := range nodes {
		// Following parents reaches the root in fewer than n steps.
		y, steps := x, 0
		for y.parent != y.self {
			if steps++; steps >= n {
				return false
			}
			y = nodes[y.parent]
		}
	}
	return true
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
	fmt.Println(res.Outcome, res.ExecTime < 5*time.Second)
	// Output: finished true
}

// TestSystemFaults: after the tree has formed, the connection between n0
// and n1 breaks and n5 resets and rejoins. In the fixed variant the
// transport error upcalls repair the tree within a second. In the buggy
// variant a node rejoining after its parent's failure may take a joiner
// while joining (Figure 1's bug again) and leave the repair to the
// recovery protocol; it must still finish.
func TestSystemFaults(t *testing.T) {
	const at = 2 * time.Second
	for _, v := range []string{VariantFixed, VariantBuggy} {
		t.Run(v, func(t *testing.T) {
			sc, err := Build(v, 32)
			if err != nil {
				t.Fatal(err)
			}
			drive := sc.Driver
			sc.Driver = func(d *timedsim.Driver) {
				drive(d)
				d.Break(at, 0, 1)
				d.Reset(at, 5)
				d.App(at+time.Millisecond, 5, AppJoin, []NodeID{1})
			}
			sc.Stop = func(w timedsim.World) bool { return w.Now() > at && SpanningTree(w) }
			sc.NewStop = nil // NewStop would take precedence over this Stop
			broken, slow := 0, 0
			for i, r := range explore(t, sc, 30, 2) {
				if !r.Finished {
					t.Fatalf("execution %d (%v): %v at %v", i, r.Path, r.Outcome, r.EndTime)
				}
				if r.ExecTime > at+time.Second {
					slow++
					if v == VariantFixed {
						t.Errorf("execution %d (%v): repaired only at %v", i, r.Path, r.ExecTime)
					}
				}
				broken += r.Counts["error broken"]
			}
			t.Logf("%s: %d/30 executions took more than a second to repair", v, slow)
			if broken == 0 {
				t.Errorf("no broken-connection upcall")
			}
		})
	}
}

// TestNewSpanningTreeMatchesSpanningTree: the stateful stopping condition
// with hints gives exactly the executions of the pure one, on both variants
// (the buggy one splits trees, which exercises the two-roots hint), with a
// simulator reused across executions so hints carry over.
func TestNewSpanningTreeMatchesSpanningTree(t *testing.T) {
	for _, v := range []string{VariantFixed, VariantBuggy} {
		for _, nodes := range []int{1, 2, 32, 200} {
			pure, err := Build(v, nodes)
			if err != nil {
				t.Fatal(err)
			}
			pure.NewStop = nil
			hinted, _ := Build(v, nodes)
			a, _ := timedsim.NewSimulator(pure, timedsim.Options{})
			b, _ := timedsim.NewSimulator(hinted, timedsim.Options{})
			split := 0
			for i := 0; i < 40; i++ {
				p := timedsim.SeedPath(timedsim.ExecutionSeed(9, i))
				ra, rb := a.Run(p), b.Run(p)
				if ra.Outcome != rb.Outcome || ra.ExecTime != rb.ExecTime || ra.Steps != rb.Steps {
					t.Fatalf("%s/%d execution %d: pure %v %v %d, hinted %v %v %d", v, nodes, i, ra.Outcome, ra.ExecTime, ra.Steps, rb.Outcome, rb.ExecTime, rb.Steps)
				}
				if ra.Counts["deliver RootJoin"] > 0 {
					split++
				}
			}
			if v == VariantBuggy && nodes == 200 && split == 0 {
				t.Errorf("no execution with split trees: the two-roots hint was not exercised")
			}
		}
	}
}

// TestSystemRootReset: after the tree has formed, the
// root (n0) resets and rejoins through the bootstrap. Its children lose
// their parent and rejoin too, knowing no root, and so does every node
// that was waiting for them. The fixed variant used to defer every Join
// at such a node, so with the root gone every node was joining and
// deferring the others' Joins: no execution finished. A rootless joining
// node now makes a more fit joiner the root and joins under it, and the
// tree is whole again within a second; the buggy variant must finish too
// (its split trees wait for the recovery protocol).
func TestSystemRootReset(t *testing.T) {
	const at = 2 * time.Second
	for _, v := range []string{VariantFixed, VariantBuggy} {
		for _, nodes := range []int{3, 32} {
			t.Run(fmt.Sprintf("%s/%d", v, nodes), func(t *testing.T) {
				sc, err := Build(v, nodes)
				if err != nil {
					t.Fatal(err)
				}
				drive := sc.Driver
				sc.Driver = func(d *timedsim.Driver) {
					drive(d)
					d.Reset(at, 0)
					d.App(at+time.Millisecond, 0, AppJoin, []NodeID{1})
				}
				sc.Stop = func(w timedsim.World) bool { return w.Now() > at && SpanningTree(w) }
				sc.NewStop = nil
				slow, broken := 0, 0
				for i, r := range explore(t, sc, 50, 3) {
					if !r.Finished {
						t.Fatalf("execution %d (%v): %v at %v", i, r.Path, r.Outcome, r.EndTime)
					}
					if r.ExecTime > at+time.Second {
						slow++
						if v == VariantFixed {
							t.Errorf("execution %d (%v): repaired only at %v", i, r.Path, r.ExecTime)
						}
					}
					broken += r.Counts["error broken"]
				}
				t.Logf("%s, %d nodes: %d/50 executions took more than a second to repair", v, nodes, slow)
				if broken == 0 {
					t.Errorf("no broken-connection upcall: the root reset nothing")
				}
			})
		}
	}
}

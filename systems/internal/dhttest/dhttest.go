// Package dhttest holds the tests that the bundled Pastry and Bamboo
// systems share: sequential joins form the exact ring without maintenance,
// routing reaches the owner of any key, the same path gives the same
// execution, the hinted stopping condition agrees with the pure one, the
// buggy variant has slow executions and the fixed one none, and the whole
// macepc pipeline finds the anomaly and its divergence point.
package dhttest

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/internal/dht"
	"github.com/macepc/macepc/timedsim"
)

// Explore runs n seeded executions of sc and returns their results.
func Explore(t *testing.T, sc *timedsim.Scenario, n int, base uint64) []*timedsim.Result {
	t.Helper()
	e := &timedsim.Explorer{Scenario: sc}
	res, done, err := e.Run(context.Background(), timedsim.Work{N: n, Path: timedsim.Seeded(base), Keep: true})
	if err != nil || done != n {
		t.Fatalf("explore: done %d of %d, err %v", done, n, err)
	}
	return res
}

// ExactLeafSets reports whether every node's leaf set holds exactly its h
// nearest nodes on each side (fewer if the ring is small), whatever side
// the protocol stores them on.
func ExactLeafSets(ring *dht.Ring, n, h int, get func(timedsim.NodeID) dht.State) bool {
	for id := range timedsim.NodeID(n) {
		s := get(id)
		left, right, _ := s.Leaves()
		have := map[timedsim.NodeID]bool{}
		for _, p := range append(slices.Clone(left), right...) {
			have[p.Node] = true
		}
		want := map[timedsim.NodeID]bool{}
		for k, p := 0, id; k < h && ring.Pred(p) != id; k++ {
			p = ring.Pred(p)
			want[p] = true
		}
		for k, p := 0, id; k < h && ring.Succ(p) != id; k++ {
			p = ring.Succ(p)
			want[p] = true
		}
		if !reflect.DeepEqual(have, want) {
			return false
		}
	}
	return true
}

// SequentialJoins runs sc, whose nodes join one at a time (a spread much
// longer than a join) and whose maintenance never fires before the end: the
// joins alone must give every node its exact leaf set (h per side) and a
// stable ring, and, once they have, a route from any node toward any key
// must end at the node numerically closest to it.
func SequentialJoins(t *testing.T, sc *timedsim.Scenario, ring *dht.Ring, h int, state func(timedsim.Service) dht.State) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	routed, misrouted := 0, 0
	sc.NewStop = nil
	sc.Stop = func(w timedsim.World) bool {
		get := func(id timedsim.NodeID) dht.State { return state(w.Node(id)) }
		if !ExactLeafSets(ring, w.Nodes(), h, get) || !ring.Stable(get) {
			return false
		}
		for range 500 {
			key := dht.ID(rng.Uint32())
			from := timedsim.NodeID(rng.IntN(w.Nodes()))
			owner := timedsim.NodeID(0)
			for id := range timedsim.NodeID(w.Nodes()) {
				if d, o := dht.Dist(ring.ID(id), key), dht.Dist(ring.ID(owner), key); d < o || (d == o && ring.ID(id) < ring.ID(owner)) {
					owner = id
				}
			}
			end, hops := ring.Route(get, from, key, 2*ring.MaxHops)
			routed++
			if end != owner || hops > ring.MaxHops+1 {
				misrouted++
				t.Errorf("route from %v to key %v ends at %v after %d hops, owner %v", from, key, end, hops, owner)
			}
		}
		return true
	}
	for i, r := range Explore(t, sc, 5, 3) {
		if !r.Finished {
			t.Fatalf("execution %d: %v at %v: sequential joins did not form the ring", i, r.Outcome, r.EndTime)
		}
	}
	if routed == 0 || misrouted > 0 {
		t.Fatalf("%d of %d routes missed the key's owner", misrouted, routed)
	}
}

// Determinism: the same path gives the same event log.
func Determinism(t *testing.T, sc *timedsim.Scenario) {
	t.Helper()
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(3) {
		a, b := sim.Run(timedsim.SeedPath(seed)), sim.Run(timedsim.SeedPath(seed))
		if a.ExecTime != b.ExecTime || a.Steps != b.Steps || !reflect.DeepEqual(a.Events, b.Events) || !reflect.DeepEqual(a.FinalStates, b.FinalStates) || len(a.Events) == 0 {
			t.Fatalf("seed %d: two runs differ: %v/%d vs %v/%d", seed, a.ExecTime, a.Steps, b.ExecTime, b.Steps)
		}
	}
}

// HintedStop: the scenario's NewStop gives exactly the executions of its
// pure Stop, with one simulator reused across executions so hints carry
// over.
func HintedStop(t *testing.T, build func() (*timedsim.Scenario, error), n int) {
	t.Helper()
	pure, err := build()
	if err != nil {
		t.Fatal(err)
	}
	pure.NewStop = nil
	hinted, _ := build()
	a, _ := timedsim.NewSimulator(pure, timedsim.Options{})
	b, _ := timedsim.NewSimulator(hinted, timedsim.Options{})
	for i := range n {
		p := timedsim.SeedPath(timedsim.ExecutionSeed(9, i))
		ra, rb := a.Run(p), b.Run(p)
		if ra.Outcome != rb.Outcome || ra.ExecTime != rb.ExecTime || ra.Steps != rb.Steps {
			t.Fatalf("execution %d: pure %v %v %d, hinted %v %v %d", i, ra.Outcome, ra.ExecTime, ra.Steps, rb.Outcome, rb.ExecTime, rb.Steps)
		}
	}
}

// Summary is the part of macepc's summary.json the pipeline test reads.
type Summary struct {
	Profile struct {
		Q1, Median, Q3 float64
	} `json:"profile"`
	Anomaly struct {
		Found         bool    `json:"found"`
		ExecutionTime float64 `json:"execution_time"`
		Steps         int     `json:"steps"`
	} `json:"anomaly"`
	Divergence *struct {
		Step       int `json:"step"`
		TotalSteps int `json:"total_steps"`
	} `json:"divergence"`
	Correlations []struct {
		Label string   `json:"label"`
		R     *float64 `json:"r"`
	} `json:"correlations"`
}

// TopCorrelation is the label of the summary's first correlation, or "".
func (s *Summary) TopCorrelation() string {
	if len(s.Correlations) == 0 {
		return ""
	}
	return s.Correlations[0].Label
}

// Pipeline runs `macepc run` on sys with args after "--system NAME" and
// returns its exit status and summary.
func Pipeline(t *testing.T, sys timedsim.System, args ...string) (int, Summary) {
	t.Helper()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	all := append([]string{"run", "--system", sys.Name, "--out", dir, "--progress", "never"}, args...)
	st := cli.Run(context.Background(), all, &out, &errs, sys)
	t.Logf("macepc %v: status %d\n%s%s", all, st, out.String(), errs.String())
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return st, s
}

// MultipleOf reports whether d is within tol of a positive multiple of
// period.
func MultipleOf(d, period, tol time.Duration) bool {
	k := (d + period/2) / period
	return k > 0 && (d-k*period).Abs() <= tol
}

// BuildErrors checks that a system refuses an unknown variant, no nodes,
// a bootstrap outside the nodes and (newScenario with a negative leaf set
// half) a negative leaf set, each with an error naming the package.
func BuildErrors(t *testing.T, sys timedsim.System, newScenario func(w dht.Workload, leafHalf int) (*timedsim.Scenario, error), w dht.Workload) {
	t.Helper()
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), sys.Name+": ") {
			t.Errorf("%s: error %v, want one prefixed %q", what, err, sys.Name+": ")
		}
	}
	_, err := sys.Build("nope", 4)
	check("unknown variant", err)
	_, err = sys.Build("buggy", 0)
	check("0 nodes", err)
	_, err = newScenario(w, -1)
	check("negative leaf set", err)
	w.Bootstrap = timedsim.NodeID(w.Nodes)
	_, err = newScenario(w, 0)
	check("bootstrap outside the nodes", err)
}

// BenchmarkSystem runs BenchmarkExecutions on the bundled scenario of each
// variant of sys, with the seed event durations.
func BenchmarkSystem(b *testing.B, sys timedsim.System) {
	for _, v := range sys.VariantNames() {
		b.Run(v, func(b *testing.B) {
			sc, err := sys.Scenario(v, sys.DefaultNodes)
			if err != nil {
				b.Fatal(err)
			}
			BenchmarkExecutions(b, sc)
		})
	}
}

// BenchmarkExecutions runs executions of sc and reports events/s and
// executions/s.
func BenchmarkExecutions(b *testing.B, sc *timedsim.Scenario) {
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	events, runs := 0, 0
	for b.Loop() {
		r := sim.Run(timedsim.SeedPath(timedsim.ExecutionSeed(1, runs)))
		if !r.Finished {
			b.Fatalf("execution %d: %v", runs, r.Outcome)
		}
		events += r.Steps
		runs++
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "executions/s")
}

// LateBootstrap: every node but the bootstrap (node 0) starts at time 0
// with no boot delay, the bootstrap a second later, so every join request
// reaches a node not yet in the ring and is dropped; the joiners ask again
// after dht.JoinRetry, and the ring still forms.
func LateBootstrap(t *testing.T, sc *timedsim.Scenario) {
	t.Helper()
	sc.Driver = func(d *timedsim.Driver) {
		d.App(time.Second, 0, dht.AppStart, dht.Start{Bootstrap: 0})
		for id := timedsim.NodeID(1); int(id) < d.Nodes(); id++ {
			d.App(0, id, dht.AppStart, dht.Start{Bootstrap: 0})
		}
	}
	for i, r := range Explore(t, sc, 3, 4) {
		if !r.Finished || r.ExecTime < dht.JoinRetry || r.Counts["timer join"] == 0 {
			t.Fatalf("execution %d: %v at %v with %d join retries", i, r.Outcome, r.ExecTime, r.Counts["timer join"])
		}
	}
}

package divergence

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// randTreeCase is MacePC §5.4's RandTree case: the buggy variant with 32
// nodes, the Q3 of 50 normal executions (phase 1b), and the first
// execution slower than 5 s in a seeded exploration (phase 2).
type randTreeCase struct {
	sc  *timedsim.Scenario
	q3  time.Duration
	bad *timedsim.Result
}

// The seeds are fixed. About half of the buggy RandTree's slow executions
// are doomed by the driver's join schedule, which prefix 1 already
// replays (Step 0: the driver draws from the path's first segment); the
// others diverge some 35 to 45 steps in. anomalySeed's first slow
// execution is of the second kind, so the divergence step lies strictly
// inside the execution.
const (
	profileSeed   = 100 // base seed of the normal executions
	anomalySeed   = 3   // base seed of the anomaly search
	walkSeed      = 7   // Config.Seed of Find
	anomalousTime = 5 * time.Second
)

func newRandTreeCase(tb testing.TB) *randTreeCase {
	tb.Helper()
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, 0)
	if err != nil {
		tb.Fatal(err)
	}
	c := &randTreeCase{sc: sc}
	e := &timedsim.Explorer{Scenario: sc}

	// Phase 1b: Q3 of the execution times (gonum Empirical quantile, as
	// the anomaly package computes the profile).
	normal, done, err := e.Run(context.Background(), timedsim.Work{N: 50, Path: timedsim.Seeded(profileSeed), Keep: true})
	if err != nil || done != 50 {
		tb.Fatalf("profile: %d executions, %v", done, err)
	}
	xs := make([]float64, len(normal))
	for i, r := range normal {
		xs[i] = float64(r.ExecTime)
	}
	slices.Sort(xs)
	c.q3 = time.Duration(stat.Quantile(0.75, stat.Empirical, xs, nil))
	if c.q3 <= 0 || c.q3 >= time.Second {
		tb.Fatalf("Q3 of the normal executions is %v, want a normal RandTree join (< 1 s)", c.q3)
	}

	// Phase 2: the first execution (lowest index) slower than 5 s.
	_, _, err = e.Run(context.Background(), timedsim.Work{
		N:    1000,
		Path: timedsim.Seeded(anomalySeed),
		Each: func(i int, r *timedsim.Result) bool {
			if r.Finished && r.ExecTime > anomalousTime {
				c.bad = r
				return false
			}
			return true
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	if c.bad == nil {
		tb.Fatalf("no RandTree execution slower than %v in 1000", anomalousTime)
	}
	return c
}

func (c *randTreeCase) recovers(r *timedsim.Result) bool {
	return r.Finished && r.ExecTime <= c.q3
}

// eachCall is one call of Config.Each.
type eachCall struct {
	Prefix, Walk int
	Path         timedsim.Path
	ExecTime     time.Duration
	Steps        int
}

// find runs Find on the case with jobs workers and k walks, recording the
// Each calls.
func (c *randTreeCase) find(t *testing.T, jobs, k int) (*Report, []eachCall) {
	t.Helper()
	return c.findConfirm(t, jobs, k, DefaultConfirm)
}

// findConfirm is find with Config.Confirm = confirm.
func (c *randTreeCase) findConfirm(t *testing.T, jobs, k, confirm int) (*Report, []eachCall) {
	t.Helper()
	var calls []eachCall
	rep, err := Find(context.Background(), Config{
		Explorer: &timedsim.Explorer{Scenario: c.sc, Jobs: jobs},
		Walks:    k,
		Confirm:  confirm,
		Deadline: c.q3,
		Seed:     walkSeed,
		Recovers: c.recovers,
		Each: func(p, j int, r *timedsim.Result) {
			calls = append(calls, eachCall{p, j, r.Path, r.ExecTime, r.Steps})
		},
	}, c.bad.Path, c.bad.Steps)
	if err != nil {
		t.Fatalf("Find with %d jobs: %v", jobs, err)
	}
	return rep, calls
}

// TestPhase3aDivergenceRandTree runs divergence detection on an anomalous
// RandTree execution (the Figure 1 race) and checks the report against
// independent re-executions.
func TestPhase3aDivergenceRandTree(t *testing.T) {
	c := newRandTreeCase(t)
	const k = 20
	rep, calls := c.find(t, 1, k)
	t.Logf("Q3 %v; anomalous %v, %d steps (%v); divergence step %d of %d (%.0f%% ignorable), %d probes, %d executions",
		c.q3, c.bad.Path, c.bad.Steps, c.bad.ExecTime, rep.Step, rep.TotalSteps, 100*rep.IgnorableFraction, len(rep.Probes), rep.Executions)
	for _, p := range rep.Probes {
		t.Logf("  prefix %4d: %2d walks, recovered %-5v (walk %d)", p.Prefix, p.Walks, p.Recovered, p.RecoveredWalk)
	}
	if rep.Similar != nil {
		t.Logf("similar execution: walk %d, %v, %d steps", rep.SimilarWalk, rep.Similar.ExecTime, rep.Similar.Steps)
	}

	if rep.TotalSteps != c.bad.Steps || rep.Walks != k {
		t.Fatalf("TotalSteps %d Walks %d, want %d and %d", rep.TotalSteps, rep.Walks, c.bad.Steps, k)
	}
	if !(0 < rep.Step && rep.Step < rep.TotalSteps) {
		t.Fatalf("divergence step %d not strictly inside (0, %d)", rep.Step, rep.TotalSteps)
	}
	if want := float64(rep.Step) / float64(rep.TotalSteps); rep.IgnorableFraction != want {
		t.Errorf("IgnorableFraction %v, want %v", rep.IgnorableFraction, want)
	}
	if len(rep.Probes) > searchBound(rep.TotalSteps) {
		t.Errorf("%d probes, bound %d", len(rep.Probes), searchBound(rep.TotalSteps))
	}

	// Probe records: consistent with themselves and with the search. A
	// probe counts its first k walks in ExecTimes up to the first
	// recovering one; when none of them recovers it runs DefaultConfirm
	// confirmation walks, cut short, until one recovers.
	sum, eachWalks, confirmed := 0, 0, 0
	var at, after *ProbeRecord
	for i := range rep.Probes {
		p := &rep.Probes[i]
		sum += p.Walks
		eachWalks += min(p.Walks, k)
		full := min(p.Walks, k)
		switch {
		case p.Interrupted || p.Walks < 1 || p.Walks > k+DefaultConfirm:
			t.Fatalf("probe %+v: inconsistent", *p)
		case !p.Recovered && (p.RecoveredWalk != -1 || p.Walks != k+DefaultConfirm || p.Cut != DefaultConfirm || len(p.ExecTimes) != k):
			t.Errorf("probe %+v: a doomed prefix runs k walks and all confirmations", *p)
		case p.Recovered && p.RecoveredWalk != p.Walks-1:
			t.Errorf("probe %+v: does not stop at its recovering walk", *p)
		case p.Recovered && p.RecoveredWalk < k && (p.Cut != 0 || len(p.ExecTimes) != p.Walks):
			t.Errorf("probe %+v: recovered among the first k walks, yet ran confirmations", *p)
		case p.Recovered && p.RecoveredWalk >= k && (p.Cut != p.RecoveredWalk-k || len(p.ExecTimes) != k+1):
			t.Errorf("probe %+v: recovered by a confirmation walk, inconsistent counts", *p)
		}
		if p.Recovered && p.RecoveredWalk >= k {
			confirmed++
		}
		for j, et := range p.ExecTimes[:full] {
			fast := et <= c.q3
			if last := j == p.RecoveredWalk; fast != (last && p.Recovered) {
				t.Errorf("prefix %d walk %d: %v vs Q3 %v, but record %+v", p.Prefix, j, et, c.q3, *p)
			}
		}
		if p.Recovered != (p.Prefix <= rep.Step) {
			t.Errorf("probe at prefix %d recovered %v, but the divergence step is %d", p.Prefix, p.Recovered, rep.Step)
		}
		switch p.Prefix {
		case rep.Step:
			at = p
		case rep.Step + 1:
			after = p
		}
	}
	if sum != rep.Executions || len(calls) != eachWalks {
		t.Errorf("Executions %d, sum of probe walks %d; Each calls %d, walks among the first k %d", rep.Executions, sum, len(calls), eachWalks)
	}
	if confirmed == 0 {
		t.Errorf("no probe recovered by a confirmation walk: the seeds no longer exercise confirmation")
	}
	if at == nil || after == nil {
		t.Fatalf("no probe at prefix %d or %d: %+v", rep.Step, rep.Step+1, rep.Probes)
	}

	// Each: probe order, then walk index, the walks' paths and times.
	i := 0
	for _, p := range rep.Probes {
		for j := range min(p.Walks, k) {
			want := eachCall{p.Prefix, j, c.bad.Path.Branch(p.Prefix, WalkSeed(walkSeed, p.Prefix, j)), p.ExecTimes[j], 0}
			got := calls[i]
			got.Steps = 0
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Each call %d: %+v, want %+v", i, got, want)
			}
			i++
		}
	}

	// The similar fast execution: the recovering walk of prefix Step, fast,
	// and sharing the anomalous execution's first Step events.
	if rep.Similar == nil || rep.SimilarWalk != at.RecoveredWalk {
		t.Fatalf("Similar %v walk %d, probe at the divergence step %+v", rep.Similar, rep.SimilarWalk, *at)
	}
	if !c.recovers(rep.Similar) || rep.Similar.ExecTime != at.ExecTimes[min(rep.SimilarWalk, k)] {
		t.Errorf("Similar: %v %v, Q3 %v, probe %+v", rep.Similar.Outcome, rep.Similar.ExecTime, c.q3, *at)
	}
	wantPath := c.bad.Path.Branch(rep.Step, WalkSeed(walkSeed, rep.Step, rep.SimilarWalk))
	if !reflect.DeepEqual(rep.Similar.Path, wantPath) {
		t.Errorf("Similar path %v, want %v", rep.Similar.Path, wantPath)
	}
	sim, err := timedsim.NewSimulator(c.sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	badLog := sim.Run(c.bad.Path).Events
	simLog := sim.Run(rep.Similar.Path).Events
	if len(badLog) != c.bad.Steps || len(simLog) < rep.Step {
		t.Fatalf("replays: %d and %d events, anomalous has %d, step %d", len(badLog), len(simLog), c.bad.Steps, rep.Step)
	}
	if !reflect.DeepEqual(badLog[:rep.Step], simLog[:rep.Step]) {
		t.Errorf("the similar execution does not share the anomalous execution's first %d events", rep.Step)
	}
	ev := badLog[rep.Step]
	t.Logf("divergence point: step %d at %v, node %v: %s (from %v)", ev.Step, ev.Start, ev.Node, ev.Label, ev.From)

	// Prefix Step+1 really does not recover with the probe's walks, the
	// confirmation walks included: re-run them one by one, whole, outside
	// the explorer.
	sim, err = timedsim.NewSimulator(c.sc, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for j := range k + DefaultConfirm {
		r := sim.Run(c.bad.Path.Branch(rep.Step+1, WalkSeed(walkSeed, rep.Step+1, j)))
		if c.recovers(r) {
			t.Errorf("prefix %d walk %d recovers (%v), the report says none does", rep.Step+1, j, r.ExecTime)
		}
		if j < k && r.ExecTime != after.ExecTimes[j] {
			t.Errorf("prefix %d walk %d: %v, report %v", rep.Step+1, j, r.ExecTime, after.ExecTimes[j])
		}
	}

	// Metamorphic: the same report and Each sequence with 2 workers.
	rep2, calls2 := c.find(t, 2, k)
	if rep2.Step != rep.Step || rep2.Executions != rep.Executions || rep2.SimilarWalk != rep.SimilarWalk ||
		!reflect.DeepEqual(rep2.Probes, rep.Probes) {
		t.Errorf("2 workers: step %d, %d executions, probes %+v; 1 worker: step %d, %d executions, probes %+v",
			rep2.Step, rep2.Executions, rep2.Probes, rep.Step, rep.Executions, rep.Probes)
	}
	if !reflect.DeepEqual(rep2.Similar.Path, rep.Similar.Path) || rep2.Similar.ExecTime != rep.Similar.ExecTime || rep2.Similar.Steps != rep.Similar.Steps {
		t.Errorf("2 workers: similar %v %v; 1 worker: %v %v", rep2.Similar.Path, rep2.Similar.ExecTime, rep.Similar.Path, rep.Similar.ExecTime)
	}
	if !reflect.DeepEqual(calls2, calls) {
		t.Errorf("2 workers: Each sequence differs from 1 worker's (%d vs %d calls)", len(calls2), len(calls))
	}
}

// TestFindCriterionExtremes: a criterion nothing meets gives step -1 after
// probing prefixes 1 and 0 with all k walks; one everything meets gives
// step TotalSteps with one walk per probe.
func TestFindCriterionExtremes(t *testing.T) {
	c := newRandTreeCase(t)
	e := &timedsim.Explorer{Scenario: c.sc}

	never, err := Find(context.Background(), Config{Explorer: e, Recovers: func(*timedsim.Result) bool { return false }}, c.bad.Path, c.bad.Steps)
	if err != nil {
		t.Fatal(err)
	}
	if never.Step != -1 || never.Similar != nil || never.SimilarWalk != -1 || never.IgnorableFraction != 0 ||
		never.Walks != DefaultWalks || never.Executions != 2*DefaultWalks || len(never.Probes) != 2 ||
		never.Probes[0].Prefix != 1 || never.Probes[1].Prefix != 0 ||
		never.Probes[0].Walks != DefaultWalks || never.Probes[1].Walks != DefaultWalks {
		t.Errorf("never recovers: %+v", never)
	}
	confirmed, err := Find(context.Background(), Config{Explorer: e, Confirm: 7, Recovers: func(*timedsim.Result) bool { return false }}, c.bad.Path, c.bad.Steps)
	if err != nil {
		t.Fatal(err)
	}
	if confirmed.Step != -1 || confirmed.Executions != 2*(DefaultWalks+7) || confirmed.Confirm != 7 ||
		confirmed.Probes[0].Walks != DefaultWalks+7 || confirmed.Probes[0].Cut != 7 || len(confirmed.Probes[0].ExecTimes) != DefaultWalks {
		t.Errorf("never recovers, 7 confirmations: %+v", confirmed)
	}

	always, err := Find(context.Background(), Config{Explorer: e, Walks: 3, Recovers: func(*timedsim.Result) bool { return true }}, c.bad.Path, c.bad.Steps)
	if err != nil {
		t.Fatal(err)
	}
	if always.Step != c.bad.Steps || always.IgnorableFraction != 1 || always.SimilarWalk != 0 ||
		always.Executions != len(always.Probes) || always.Probes[len(always.Probes)-1].Prefix != c.bad.Steps {
		t.Errorf("always recovers: %+v", always)
	}
	// Prefix TotalSteps replays the whole anomalous execution.
	if always.Similar == nil || always.Similar.ExecTime != c.bad.ExecTime || always.Similar.Steps != c.bad.Steps {
		t.Errorf("always recovers: similar %+v, anomalous %v %d steps", always.Similar, c.bad.ExecTime, c.bad.Steps)
	}
}

// TestFindCancel: cancelling during a probe returns the context's error
// and a partial report whose last probe is marked interrupted, and whose
// counts agree with what Each saw.
func TestFindCancel(t *testing.T) {
	c := newRandTreeCase(t)
	full, _ := c.findConfirm(t, 1, DefaultWalks, 0)
	// mid is halfway through the first probe that does not recover: with
	// one worker, cancelling there interrupts that probe after exactly
	// DefaultWalks/2 walks.
	mid, midProbe := 0, -1
	for i, p := range full.Probes {
		if !p.Recovered {
			mid, midProbe = mid+DefaultWalks/2, i
			break
		}
		mid += p.Walks
	}
	if midProbe < 0 {
		t.Fatalf("every probe recovers: %+v", full.Probes)
	}
	for _, stopAfter := range []int{1, 5, mid, full.Executions} {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		rep, err := Find(ctx, Config{
			Explorer: &timedsim.Explorer{Scenario: c.sc, Jobs: 1},
			Seed:     walkSeed,
			Recovers: c.recovers,
			Each: func(int, int, *timedsim.Result) {
				seen++
				if seen == stopAfter {
					cancel()
				}
			},
		}, c.bad.Path, c.bad.Steps)
		cancel()
		if stopAfter == full.Executions {
			// Cancelled in the last Each call: the search was complete.
			if err != nil || rep.Step != full.Step || !reflect.DeepEqual(rep.Probes, full.Probes) {
				t.Errorf("cancelled at the last walk: step %d, err %v; uncancelled step %d", rep.Step, err, full.Step)
			}
			continue
		}
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "divergence: ") {
			t.Fatalf("stop after %d: err %v", stopAfter, err)
		}
		if rep == nil || len(rep.Probes) == 0 {
			t.Fatalf("stop after %d: report %+v", stopAfter, rep)
		}
		sum, want := 0, -1
		for i, p := range rep.Probes {
			sum += p.Walks
			if p.Recovered {
				want = max(want, p.Prefix)
			}
			if p.Interrupted && (i != len(rep.Probes)-1 || p.Recovered) {
				t.Errorf("stop after %d: interrupted probe %d of %d: %+v", stopAfter, i, len(rep.Probes), p)
			}
		}
		if sum != rep.Executions || seen != rep.Executions {
			t.Errorf("stop after %d: Executions %d, probe walks %d, Each calls %d", stopAfter, rep.Executions, sum, seen)
		}
		if rep.Step != want || (want >= 0) != (rep.Similar != nil) {
			t.Errorf("stop after %d: Step %d (similar %v), longest recovered probe %d", stopAfter, rep.Step, rep.Similar != nil, want)
		}
		if stopAfter == mid {
			last := rep.Probes[len(rep.Probes)-1]
			if len(rep.Probes) != midProbe+1 || !last.Interrupted || last.Walks != DefaultWalks/2 || last.Prefix != full.Probes[midProbe].Prefix {
				t.Errorf("stop after %d: probes %+v, want probe %d (prefix %d) interrupted after %d walks",
					stopAfter, rep.Probes, midProbe, full.Probes[midProbe].Prefix, DefaultWalks/2)
			}
		}
		t.Logf("stop after %d: %d probes, %d executions, step so far %d, %v", stopAfter, len(rep.Probes), rep.Executions, rep.Step, err)
	}
}

// TestFindBadInput: an invalid path is an error, caller bugs panic.
func TestFindBadInput(t *testing.T) {
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, 4)
	if err != nil {
		t.Fatal(err)
	}
	ok := Config{Explorer: &timedsim.Explorer{Scenario: sc}, Recovers: func(*timedsim.Result) bool { return true }}
	_, err = Find(context.Background(), ok, timedsim.Path{}, 10)
	if err == nil || !strings.HasPrefix(err.Error(), "divergence: ") {
		t.Errorf("empty path: err %v", err)
	}
	path := timedsim.SeedPath(1)
	for name, f := range map[string]func(){
		"nil explorer": func() {
			cfg := ok
			cfg.Explorer = nil
			Find(context.Background(), cfg, path, 10)
		},
		"nil recovers": func() {
			cfg := ok
			cfg.Recovers = nil
			Find(context.Background(), cfg, path, 10)
		},
		"negative walks": func() {
			cfg := ok
			cfg.Walks = -1
			Find(context.Background(), cfg, path, 10)
		},
		"negative steps": func() { Find(context.Background(), ok, path, -1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s := fmt.Sprint(r); r == nil || !strings.HasPrefix(s, "divergence: ") {
					t.Errorf("recovered %v, want a divergence panic", r)
				}
			}()
			f()
		})
	}
}

// BenchmarkFind measures divergence detection on the RandTree case with
// k = 20 and GOMAXPROCS workers.
func BenchmarkFind(b *testing.B) {
	c := newRandTreeCase(b)
	for _, mode := range []string{ModeReplay, ModeSnapshot} {
		b.Run(mode, func(b *testing.B) {
			cfg := Config{
				Explorer: &timedsim.Explorer{Scenario: c.sc},
				Walks:    20,
				Confirm:  DefaultConfirm,
				Deadline: c.q3,
				Seed:     walkSeed,
				Recovers: c.recovers,
				Replay:   mode == ModeReplay,
			}
			execs := 0
			for b.Loop() {
				rep, err := Find(context.Background(), cfg, c.bad.Path, c.bad.Steps)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Mode != mode {
					b.Fatalf("mode %q, want %q", rep.Mode, mode)
				}
				execs += rep.Executions
			}
			b.ReportMetric(float64(execs)/b.Elapsed().Seconds(), "executions/s")
			b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
		})
	}
}

// TestFindMinRecovered: asking that half the walks recover
// puts the divergence point no later than asking for one, each probe
// stops at its MinRecovered-th recovering walk and runs no confirmation
// walks, and the similar walk is the probe's first recovering one.
func TestFindMinRecovered(t *testing.T) {
	c := newRandTreeCase(t)
	const k = 20
	any, _ := c.find(t, 2, k)
	half, err := Find(context.Background(), Config{
		Explorer: &timedsim.Explorer{Scenario: c.sc, Jobs: 2}, Walks: k, MinRecovered: k / 2,
		Deadline: c.q3, Seed: walkSeed, Recovers: c.recovers,
	}, c.bad.Path, c.bad.Steps)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("divergence step: %d with one recovering walk, %d with half", any.Step, half.Step)
	if half.Step > any.Step {
		t.Fatalf("half the walks recover up to step %d, beyond the last step (%d) from which one does", half.Step, any.Step)
	}
	for _, p := range half.Probes {
		if p.Cut != 0 || p.Walks > k {
			t.Errorf("probe %+v ran confirmation walks", p)
		}
		if p.Recovered != (p.Recoveries >= k/2) || p.Recovered && p.Recoveries != k/2 {
			t.Errorf("probe %+v: %d recoveries", p, p.Recoveries)
		}
		if p.Recovered && (p.RecoveredWalk < 0 || !c.recovers(&timedsim.Result{Finished: true, ExecTime: p.ExecTimes[p.RecoveredWalk]})) {
			t.Errorf("probe %+v: its first recovering walk does not recover", p)
		}
	}
	if half.Step >= 0 && (half.Similar == nil || !c.recovers(half.Similar)) {
		t.Errorf("similar walk %v does not recover", half.Similar)
	}
}

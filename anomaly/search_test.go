package anomaly

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

const removeLabel = "deliver JoinReply → Remove"

func randtreeScenario(t *testing.T, variant string) *timedsim.Scenario {
	t.Helper()
	sc, err := randtree.System().Scenario(variant, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// trainProfile is phase 1b on n executions of the explorer.
func trainProfile(t *testing.T, ex *timedsim.Explorer, n int, base uint64) *Profile {
	t.Helper()
	res, done, err := ex.Run(context.Background(), timedsim.Work{N: n, Path: timedsim.Seeded(base), Keep: true})
	if err != nil || done != n {
		t.Fatalf("training: %d of %d executions, err %v", done, n, err)
	}
	times := make([]time.Duration, n)
	unfinished := 0
	for i, r := range res {
		times[i] = r.ExecTime
		if !r.Finished {
			unfinished++
		}
	}
	p, err := NewProfile(times, unfinished, MildOutliers)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSearchLowestIndex (phase 2): with any number of workers the search
// stops at the lowest anomalous index and hands each exactly the
// executions before it, in order. The predicate picks executions 5 and 9
// by their paths, so the answer is known whatever the system does.
func TestSearchLowestIndex(t *testing.T) {
	const base = 7
	paths := timedsim.Seeded(base)
	pick := map[uint64]bool{timedsim.ExecutionSeed(base, 5): true, timedsim.ExecutionSeed(base, 9): true}
	anomalous := func(r *timedsim.Result) bool { return pick[r.Path.Segments[0].Seed] }
	sc := randtreeScenario(t, randtree.VariantBuggy)
	for _, jobs := range []int{1, 2, 8} {
		var seen []int
		ex := &timedsim.Explorer{Scenario: sc, Jobs: jobs}
		got, err := Search(context.Background(), ex, paths, SearchConfig{MaxRuns: 100}, anomalous, func(i int, r *timedsim.Result) {
			seen = append(seen, i)
			if !reflect.DeepEqual(r.Path, paths(i)) {
				t.Errorf("jobs %d: each(%d) got the execution of path %v", jobs, i, r.Path)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Found || got.Index != 5 || got.Explored != 6 || got.Result == nil || !reflect.DeepEqual(got.Result.Path, paths(5)) {
			t.Errorf("jobs %d: %+v, want execution 5 after exploring 6", jobs, got)
		}
		if !reflect.DeepEqual(seen, []int{0, 1, 2, 3, 4, 5}) {
			t.Errorf("jobs %d: each saw %v", jobs, seen)
		}
	}
}

// TestSearchRandTree runs phases 1b and 2 of the MacePC paper on RandTree
// (§5.4): a profile from 50 executions, then a search that finds a slow
// execution, one with the join race's "deliver JoinReply → Remove", after
// handing each only executions under the threshold before it. The answer is the same with
// 1 and 8 workers (base seed 6: the first anomaly is execution 26, so the
// workers run past it).
func TestSearchRandTree(t *testing.T) {
	sc := randtreeScenario(t, randtree.VariantBuggy)
	prof := trainProfile(t, &timedsim.Explorer{Scenario: sc}, 50, 1)
	t.Logf("profile: Q1 %v median %v Q3 %v threshold %v max %v; warnings %q", prof.Q1, prof.Median, prof.Q3, prof.Threshold, prof.Max, prof.Warnings)
	anomalous := func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) }
	var first SearchResult
	for _, jobs := range []int{1, 8} {
		ex := &timedsim.Explorer{Scenario: sc, Jobs: jobs}
		var slow []int // anomalous executions each saw
		got, err := Search(context.Background(), ex, timedsim.Seeded(6), SearchConfig{MaxRuns: 300}, anomalous, func(i int, r *timedsim.Result) {
			if prof.Anomalous(r.ExecTime) {
				slow = append(slow, i)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Found {
			t.Fatalf("jobs %d: no anomaly in %d executions", jobs, got.Explored)
		}
		r := got.Result
		t.Logf("jobs %d: execution %d takes %v, %d × %s", jobs, got.Index, r.ExecTime, r.Composite[removeLabel], removeLabel)
		if r.ExecTime <= prof.Threshold || r.Composite[removeLabel] == 0 || got.Explored != got.Index+1 {
			t.Errorf("jobs %d: %+v: not a slow execution with the join race", jobs, got)
		}
		if !reflect.DeepEqual(slow, []int{got.Index}) {
			t.Errorf("jobs %d: each saw anomalous executions %v, want only the last, %d", jobs, slow, got.Index)
		}
		if jobs == 1 {
			first = got
		} else if got.Index != first.Index || got.Result.ExecTime != first.Result.ExecTime {
			t.Errorf("jobs %d found execution %d (%v), jobs 1 found %d (%v)", jobs, got.Index, got.Result.ExecTime, first.Index, first.Result.ExecTime)
		}
	}
}

// TestSearchBudget: the fixed RandTree never needs its recovery timer, so
// no execution is slower than 5 s and the search spends its budget.
func TestSearchBudget(t *testing.T) {
	ex := &timedsim.Explorer{Scenario: randtreeScenario(t, randtree.VariantFixed), Jobs: 4}
	n := 0
	got, err := Search(context.Background(), ex, timedsim.Seeded(3), SearchConfig{MaxRuns: 40},
		func(r *timedsim.Result) bool { return r.ExecTime > 5*time.Second },
		func(i int, r *timedsim.Result) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	if want := (SearchResult{Index: -1, Explored: 40}); !reflect.DeepEqual(got, want) || n != 40 {
		t.Errorf("%+v, each called %d times; want %+v", got, n, want)
	}
}

// TestSearchCancel: on cancellation Search returns the executions it
// explored, a consecutive prefix from 0, and the context's error.
func TestSearchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := &timedsim.Explorer{Scenario: randtreeScenario(t, randtree.VariantBuggy), Jobs: 4}
	var seen []int
	got, err := Search(ctx, ex, timedsim.Seeded(4), SearchConfig{MaxRuns: 100000},
		func(*timedsim.Result) bool { return false },
		func(i int, r *timedsim.Result) {
			seen = append(seen, i)
			if i == 3 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if got.Found || got.Index != -1 || got.Result != nil || got.Explored < 4 || got.Explored >= 100000 || got.Explored != len(seen) {
		t.Errorf("%+v after seeing %d executions", got, len(seen))
	}
	for i, s := range seen {
		if s != i {
			t.Fatalf("each saw %v, not a prefix in order", seen)
		}
	}
}

// TestSearchErrors: a bad budget and an explorer error are errors; nil
// arguments are caller bugs.
func TestSearchErrors(t *testing.T) {
	never := func(*timedsim.Result) bool { return false }
	ex := &timedsim.Explorer{Scenario: randtreeScenario(t, randtree.VariantFixed)}
	for _, n := range []int{0, -1} {
		got, err := Search(context.Background(), ex, timedsim.Seeded(1), SearchConfig{MaxRuns: n}, never, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "anomaly: ") || got.Index != -1 || got.Explored != 0 {
			t.Errorf("budget %d: %+v, err %v", n, got, err)
		}
	}
	got, err := Search(context.Background(), &timedsim.Explorer{}, timedsim.Seeded(1), SearchConfig{MaxRuns: 10}, never, nil)
	if err == nil || got.Index != -1 || got.Explored != 0 {
		t.Errorf("no scenario: %+v, err %v", got, err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "anomaly: ") {
			t.Errorf("nil predicate: recovered %v, want an anomaly panic", r)
		}
	}()
	Search(context.Background(), ex, timedsim.Seeded(1), SearchConfig{MaxRuns: 10}, nil, nil)
}

// TestSearchResume: a search resumed at any point of an interrupted one,
// with the first anomaly seen before it, explores the rest exactly as the
// uninterrupted search did.
func TestSearchResume(t *testing.T) {
	ex := &timedsim.Explorer{Scenario: randtreeScenario(t, randtree.VariantBuggy), Jobs: 2}
	slow := func(r *timedsim.Result) bool { return r.ExecTime > 5*time.Second }
	cfg := SearchConfig{MaxRuns: 300, Triage: 15}
	var times []time.Duration
	full, err := Search(context.Background(), ex, timedsim.Seeded(3), cfg, slow, func(i int, r *timedsim.Result) { times = append(times, r.ExecTime) })
	if err != nil || !full.Found {
		t.Fatalf("%+v %v: the test needs an anomaly", full, err)
	}
	for _, start := range []int{1, full.Index, full.Index + 1, full.Explored - 1, full.Explored} {
		c := cfg
		c.Start, c.FirstBefore = start, -1
		if full.Index < start {
			c.FirstBefore = full.Index
		}
		var rest []time.Duration
		got, err := Search(context.Background(), ex, timedsim.Seeded(3), c, slow, func(i int, r *timedsim.Result) {
			if i != start+len(rest) {
				t.Fatalf("start %d: execution %d out of order", start, i)
			}
			rest = append(rest, r.ExecTime)
		})
		if err != nil || got.Explored != full.Explored || got.Index != full.Index || !slices.Equal(rest, times[start:]) {
			t.Errorf("start %d: %+v %v (%d executions), want explored %d first %d", start, got, err, len(rest), full.Explored, full.Index)
		}
	}
}

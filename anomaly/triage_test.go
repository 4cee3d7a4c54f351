package anomaly

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// TestTriage classes a synthetic search (package doc, "Triage"): normal
// executions of 1 s all run "a" and most run "b"; a race that sends "x"
// makes some 20 s and, with one more consequence "y", some 40 s; jitter
// makes some 2 s with nothing unusual; two panics share a bucket.
func TestTriage(t *testing.T) {
	s := time.Second
	var execs []Execution
	add := func(d time.Duration, steps int, anomalous bool, finding string, window map[string]int) {
		execs = append(execs, Execution{Index: len(execs), ExecTime: d, Steps: steps, Anomalous: anomalous, Finding: finding, Window: window})
	}
	for i := range 200 {
		w := map[string]int{"a": 1, "b": 1}
		if i == 0 {
			delete(w, "b") // one normal execution of 200 lacks b: lacking it is unusual
		}
		add(s+time.Duration(i)*time.Millisecond, 100, false, "", w)
	}
	add(20*s, 120, true, "", map[string]int{"a": 1, "b": 1, "x": 1})                                   // 200
	add(20*s+s/100, 110, true, "", map[string]int{"a": 1, "b": 1, "x": 2})                             // 201: fewest steps of its class
	add(40*s, 150, true, "", map[string]int{"a": 1, "b": 1, "x": 1, "y": 1})                           // 202: another mode, joined by x
	add(2*s, 100, true, "", map[string]int{"a": 1, "b": 1})                                            // 203: jitter
	add(2*s+s/10, 90, true, "", map[string]int{"a": 1, "b": 1})                                        // 204
	add(3*s, 95, true, "", map[string]int{"a": 1})                                                     // 205: jitter, missing b
	add(s, 5, true, "handler panicked at step # on n# in \"deliver X\": boom", map[string]int{"a": 1}) // 206
	add(s, 7, true, "handler panicked at step # on n# in \"deliver X\": boom", map[string]int{"a": 1}) // 207

	got := Triage(execs, TriageConfig{Median: 1100 * time.Millisecond})
	type short struct {
		Rank, Rep int
		Members   []int
		Finding   bool
		Sig       []string
	}
	var gs []short
	for _, c := range got {
		gs = append(gs, short{c.Rank, c.Representative, c.Members, c.Finding != "", c.Signature})
	}
	want := []short{
		{1, 206, []int{206, 207}, true, []string{}},       // findings first
		{2, 202, []int{202}, false, []string{"+x", "+y"}}, // 38.9 s of excess
		{3, 201, []int{200, 201}, false, []string{"+x"}},  // 37.8 s
		{4, 205, []int{205}, false, []string{"-b"}},       // 1.9 s, 2.7× the median: lacks b
		{5, 204, []int{203, 204}, false, []string{}},      // 1.9 s, 1.8×: jitter
	}
	if !reflect.DeepEqual(gs, want) {
		t.Errorf("classes\n got %+v\nwant %+v", gs, want)
	}
	if c := got[2]; c.Min != 20*s || c.Max != 20*s+s/100 || c.Median != 20*s || c.Excess != 2*(20*s-1100*time.Millisecond)+s/100 || c.Slowdown != 18.181818 {
		t.Errorf("class 3 statistics: %+v", c)
	}
	if Triage(execs[:200], TriageConfig{}) != nil {
		t.Error("classes without anomalies")
	}
}

// TestTriagePanicsOnBadConfig: caller bugs.
func TestTriagePanicsOnBadConfig(t *testing.T) {
	for _, cfg := range []TriageConfig{{Rare: 1}, {Rare: -0.1}, {ModeGap: 1}, {ModeGap: 0.5}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", cfg)
				}
			}()
			Triage(nil, cfg)
		}()
	}
}

// TestSearchTriageBudget (phase 2 with triage): after the first anomalous
// execution the search explores Triage more and collects every anomaly on
// the way, the same with 1, 2 and 8 workers; the budget caps it.
func TestSearchTriageBudget(t *testing.T) {
	const base = 7
	paths := timedsim.Seeded(base)
	pick := map[uint64]bool{}
	for _, i := range []int{5, 9, 15, 16} {
		pick[timedsim.ExecutionSeed(base, i)] = true
	}
	anomalous := func(r *timedsim.Result) bool { return pick[r.Path.Segments[0].Seed] }
	sc := randtreeScenario(t, randtree.VariantFixed)
	for _, c := range []struct {
		cfg       SearchConfig
		explored  int
		anomalies []int
	}{
		{SearchConfig{MaxRuns: 100, Triage: 10}, 16, []int{5, 9, 15}},
		{SearchConfig{MaxRuns: 100}, 6, []int{5}},
		{SearchConfig{MaxRuns: 12, Triage: 100}, 12, []int{5, 9}},
		{SearchConfig{MaxRuns: 4, Triage: 100}, 4, nil},
	} {
		for _, jobs := range []int{1, 2, 8} {
			seen := 0
			got, err := Search(context.Background(), &timedsim.Explorer{Scenario: sc, Jobs: jobs}, paths, c.cfg, anomalous, func(i int, r *timedsim.Result) {
				if i != seen {
					t.Errorf("%+v jobs %d: each(%d), want %d", c.cfg, jobs, i, seen)
				}
				seen++
			})
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, a := range got.Anomalies {
				idx = append(idx, a.Index)
			}
			if got.Explored != c.explored || seen != c.explored || !reflect.DeepEqual(idx, c.anomalies) || got.Found != (len(c.anomalies) > 0) ||
				(got.Found && (got.Index != 5 || got.Result != got.Anomalies[0].Result)) {
				t.Errorf("%+v jobs %d: explored %d, anomalies %v, first %d; want %d, %v", c.cfg, jobs, got.Explored, idx, got.Index, c.explored, c.anomalies)
			}
		}
	}
	if _, err := Search(context.Background(), &timedsim.Explorer{Scenario: sc}, paths, SearchConfig{MaxRuns: 5, Triage: -1}, anomalous, nil); err == nil {
		t.Error("a negative triage budget is accepted")
	}
}

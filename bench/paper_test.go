package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// TestPaperMultiples checks the clustering figures on hand-made times with
// a 20 s period and a 3 s threshold: 2.5 s is not slow; 19.2 s and 20.4 s
// count at 1×20 s, 41 s at 2×, 7 s at 1× (k is at least 1); the farthest
// is 7 s from 20 s, 13 s.
func TestPaperMultiples(t *testing.T) {
	s := time.Second
	d := bench.PaperDist{Times: []time.Duration{2 * s, 2500 * time.Millisecond, 7 * s, 19200 * time.Millisecond, 20400 * time.Millisecond, 41 * s},
		Threshold: 3 * s, Period: 20 * s}
	if got := len(d.Slow()); got != 4 {
		t.Errorf("Slow: %d executions, want 4", got)
	}
	by, far := d.Multiples()
	if want := map[int]int{1: 3, 2: 1}; !reflect.DeepEqual(by, want) || far != 13*s {
		t.Errorf("Multiples: %v, farthest %v; want %v, 13s", by, far, want)
	}
	d.Threshold = 41 * s // strictly above: none
	if got := len(d.Slow()); got != 0 {
		t.Errorf("Slow above the maximum: %d", got)
	}
}

// TestRunPaper runs the paper workload on RandTree, small: its figures are
// the pipeline's (the anomaly of seed 1 is found, diverges strictly inside
// the execution, has a similar execution within Q3 and the race's label
// on top; the fixed variant has none), and the tables name them.
func TestRunPaper(t *testing.T) {
	cfg := bench.PaperConfig{
		Systems: []bench.PaperSystem{{System: randtree.System(), EDD: "../systems/randtree/testdata/edd.json", Period: randtree.DefaultRecoveryPeriod,
			Timer: "recovery", BugLabels: []string{"*→ Remove", "deliver Join → *"}}},
		Runs: 60, Seeds: 1, MaxRuns: 100, Work: t.TempDir(),
	}
	res, err := bench.RunPaper(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dists) != 2 || len(res.Runs) != 1 || len(res.Fixed) != 1 {
		t.Fatalf("%d distributions, %d runs, %d fixed runs; want 2, 1, 1", len(res.Dists), len(res.Runs), len(res.Fixed))
	}
	for _, d := range res.Dists {
		if len(d.Times) != cfg.Runs || !(d.Times[0] <= d.Q1 && d.Q1 <= d.Median && d.Median <= d.Q3 && d.Q3 < d.Threshold) {
			t.Errorf("%s %s: %d times, min %v Q1 %v median %v Q3 %v threshold %v", d.System, d.Variant, len(d.Times), d.Times[0], d.Q1, d.Median, d.Q3, d.Threshold)
		}
	}
	r := res.Runs[0]
	if !r.Found || r.DivStep <= 0 || r.DivStep >= r.Steps || r.SimilarTime > r.Limit || r.Limit < r.Q3 || r.ExecTime < 5 || r.BugRank != 1 {
		t.Errorf("buggy run: %+v", r)
	}
	if res.Fixed[0].Found {
		t.Errorf("fixed run found an anomaly: %+v", res.Fixed[0])
	}
	var b strings.Builder
	bench.WritePaperTables(&b, cfg, res)
	for _, want := range []string{
		"| randtree | buggy | ", "| randtree | fixed | ",
		"macepc profile --system randtree --variant buggy --seed 1 --profile-runs 60 --edd ../systems/randtree/testdata/edd.json\n",
		"Found in 1 of 1 seeds", "a bug label ranks first in 1",
		"| randtree | fixed | 0 of 1 | – |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, b.String())
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Work, "run-randtree-buggy-1", "report.html")); err != nil {
		t.Errorf("the run's results are not in the work directory: %v", err)
	}
}

func TestRunPaperErrors(t *testing.T) {
	sys := bench.PaperSystem{System: randtree.System(), EDD: "testdata/no-such-edd.json", Period: time.Second}
	_, err := bench.RunPaper(context.Background(), bench.PaperConfig{Systems: []bench.PaperSystem{sys}, Runs: 1, Seeds: 1, MaxRuns: 1, Work: t.TempDir()}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "bench: paper: randtree's event durations") {
		t.Errorf("missing EDD: %v", err)
	}
	_, err = bench.RunPaper(context.Background(), bench.PaperConfig{Systems: []bench.PaperSystem{sys}, Seeds: 1, MaxRuns: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Errorf("zero runs: %v", err)
	}
}

// TestRunStability: two fresh RandTree runs (training included) each find
// the race, and the table says what each answered and the rates.
func TestRunStability(t *testing.T) {
	var sys bench.PaperSystem
	for _, s := range bench.PaperSystems() {
		if s.System.Name == "randtree" {
			sys = s
		}
	}
	bug := func(ev []timedsim.TimedEvent) []int { return randtree.FindRace(ev).All() }
	cfg := bench.StabilityConfig{System: sys, BugSteps: bug, Variant: "buggy", Seed: 1, Runs: 2, Work: t.TempDir()}
	runs, err := bench.RunStability(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, r := range runs {
		if !r.Found || r.Classes < 1 || r.DivStep <= 0 || r.OnBug < 0 || r.DivEvent == "" || len(r.Top) == 0 {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	var b strings.Builder
	bench.WriteStability(&b, cfg, runs, time.Second)
	for _, want := range []string{"#### randtree", "`macepc run --system randtree --variant buggy --seed 1`", "| 1 | ", "| 2 | ", "An anomaly in 2 of 2 runs; the divergence event a step of the bug in "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPaperSystemsLabels: every label pattern of the paper's definition of
// "a label of the bug" names labels that the entry's buggy variant
// produces, so a renamed message or note cannot silently turn a column
// into zeros.
func TestPaperSystemsLabels(t *testing.T) {
	for _, s := range bench.PaperSystems() {
		sc, err := s.System.Scenario(s.BugVariant(), 0)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		left := slices.Clone(s.BugLabels)
		for i := uint64(0); i < 60 && len(left) > 0; i++ {
			r := sim.Run(timedsim.SeedPath(i))
			left = slices.DeleteFunc(left, func(pat string) bool {
				for _, m := range []map[string]int{r.Counts, r.Composite} {
					for l := range m {
						if bench.MatchLabel(pat, l) {
							return true
						}
					}
				}
				return false
			})
		}
		if len(left) > 0 {
			t.Errorf("%s: no label of 60 %s executions matches %q", s.Key(), s.BugVariant(), left)
		}
	}
}

// TestMatchLabel: exact labels, "prefix*", "*suffix" and "*infix*"
// patterns.
func TestMatchLabel(t *testing.T) {
	for _, c := range []struct {
		pat, label string
		want       bool
	}{
		{"deliver Join", "deliver Join", true},
		{"deliver Join", "deliver Join → Join", false},
		{"deliver Inform*", "deliver Inform → (nothing)", true},
		{"deliver Inform*", "deliver Join", false},
		{"*→ evicted: leaf set full", "deliver Announce → evicted: leaf set full", true},
		{"*→ evicted: leaf set full", "deliver Announce", false},
		{"*MsgVote*", "timer persist → MsgVote", true},
		{"*MsgVote*", "deliver MsgVoteResp", true},
		{"*MsgVote*", "deliver MsgApp", false},
		{"*", "anything", true},
	} {
		if got := bench.MatchLabel(c.pat, c.label); got != c.want {
			t.Errorf("MatchLabel(%q, %q) = %v", c.pat, c.label, got)
		}
	}
}

// TestPaperRunStrong: a bug label in the top correlations is strong when
// its r within the window, or its r where that is undefined, is at least
// anomaly.MinR.
func TestPaperRunStrong(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	top := []bench.PaperCorr{{Label: "a", R: f(0.9), WindowR: f(0.1)}, {Label: "b", R: f(-0.5)}, {Label: "c", R: f(0.1), WindowR: f(-0.4)}}
	for rank, want := range []bool{false, false, true, true} {
		r := bench.PaperRun{Top: top, BugRank: rank}
		if got := r.Strong(); got != want {
			t.Errorf("bug label at rank %d: Strong = %v, want %v", rank, got, want)
		}
	}
}

// TestBugRank ranks the first bug label among the labels of a
// correlation.json that are not the same as their event label.
func TestBugRank(t *testing.T) {
	cf := []byte(`{"format":"macepc-correlation","labels":[{"label":"a"},{"label":"deliver X → (nothing)","same_as":"deliver X"},{"label":"deliver X → bug"},{"label":"deliver Y"}]}`)
	for _, c := range []struct {
		pats []string
		want int
	}{
		{[]string{"deliver X*"}, 2}, // the same_as composite neither counts nor matches
		{[]string{"deliver Y", "a"}, 1},
		{[]string{"nothing here"}, 0},
	} {
		if got, err := bench.BugRank(cf, c.pats); err != nil || got != c.want {
			t.Errorf("BugRank(%v) = %d, %v; want %d", c.pats, got, err, c.want)
		}
	}
	if _, err := bench.BugRank([]byte(`{"format":"macepc-profile"}`), []string{"a"}); err == nil || !strings.HasPrefix(err.Error(), "bench: ") {
		t.Errorf("a file of another format: %v", err)
	}
}

package divergence

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// TestBoundText: a criterion is stored as the word of its bound, which
// reads back, as do "" and the sentences of older files; another word is
// refused.
func TestBoundText(t *testing.T) {
	for _, b := range []Bound{BoundThreshold, BoundQ3, BoundGeometricMean} {
		for _, text := range []string{string(b), b.Describe()} {
			var got Bound
			if err := got.UnmarshalText([]byte(text)); err != nil || got != b {
				t.Errorf("UnmarshalText(%q) = %q, %v; want %q", text, got, err, b)
			}
		}
	}
	var got Bound = BoundQ3
	if err := got.UnmarshalText(nil); err != nil || got != "" {
		t.Errorf("UnmarshalText(\"\") = %q, %v; want the zero Bound", got, err)
	}
	if err := got.UnmarshalText([]byte("finishes whenever")); err == nil {
		t.Error("an unknown criterion is accepted")
	}
}

// TestNewCriterion: the recovery limit is max(Q3, min(threshold,
// √(median·anomaly))) for a slow anomaly and the threshold for a finding.
func TestNewCriterion(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name                           string
		median, q3, threshold, anomaly time.Duration
		limit                          time.Duration
		describe                       string
	}{
		// A 20× anomaly: √(500·10000) ms ≈ 2.24 s lies above the threshold.
		{"far anomaly: the threshold", 500 * ms, 502 * ms, 750 * ms, 10000 * ms, 750 * ms, "finishes within the anomaly threshold"},
		// Just over the threshold: √(500·800) = 632 ms.
		{"near anomaly: the geometric mean", 500 * ms, 502 * ms, 750 * ms, 800 * ms, 632455532, "finishes within the geometric mean of the median and the anomaly's time"},
		// A wide profile: √(100·160) = 126 ms < Q3 140 ms.
		{"never stricter than Q3", 100 * ms, 140 * ms, 150 * ms, 160 * ms, 140 * ms, "finishes within Q3"},
		{"a finding, not slowness", 500 * ms, 502 * ms, 750 * ms, 3 * ms, 750 * ms, "finishes within the anomaly threshold"},
		{"exactly the threshold", 500 * ms, 502 * ms, 750 * ms, 750 * ms, 750 * ms, "finishes within the anomaly threshold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr, err := NewCriterion(c.median, c.q3, c.threshold, c.anomaly)
			if err != nil {
				t.Fatal(err)
			}
			if cr.Limit != c.limit || cr.Describe() != c.describe || cr.Bound().Describe() != c.describe {
				t.Errorf("limit %v (%q), want %v (%q)", cr.Limit, cr.Describe(), c.limit, c.describe)
			}
			if !cr.Recovered(true, cr.Limit) || cr.Recovered(true, cr.Limit+1) || cr.Recovered(false, 0) {
				t.Errorf("Recovered does not test finished && d <= %v", cr.Limit)
			}
		})
	}
	for _, bad := range [][4]time.Duration{{-1, 0, 0, 0}, {2, 1, 3, 5}, {1, 3, 2, 5}, {1, 2, 3, -1}} {
		if _, err := NewCriterion(bad[0], bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("NewCriterion%v: no error", bad)
		}
	}
}

// TestCriterionFindsTheRace (divergence/doc.go, "Criterion" and
// "Confirmation"): on the buggy RandTree with trained handler durations,
// the divergence point of each of the first six anomalies of a seeded
// search is a step of the join race (randtree.FindRace) in at least five,
// with the recovery limit and confirmation walks. MacePC's probe — within
// Q3, 20 walks — gets the race in only two of the same six: after a
// shared prefix, normal continuations often end just over Q3, and 20
// walks miss a 5% chance of recovery a third of the time, so the search
// stops early, on the nodes' start-up events.
func TestCriterionFindsTheRace(t *testing.T) {
	set, err := edd.ReadFile("../systems/randtree/testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := randtree.System().Scenario(randtree.VariantBuggy, 0)
	if err != nil {
		t.Fatal(err)
	}
	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set}}
	normal, _, err := ex.Run(context.Background(), timedsim.Work{N: 50, Path: timedsim.Seeded(profileSeed), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	times := make([]time.Duration, len(normal))
	for i, r := range normal {
		times[i] = r.ExecTime
	}
	prof, err := anomaly.NewProfile(times, 0, anomaly.MildOutliers)
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.RequireSlowdown(1.5); err != nil {
		t.Fatal(err)
	}
	const cases = 6
	sr, err := anomaly.Search(context.Background(), ex, timedsim.Seeded(anomalySeed), anomaly.SearchConfig{MaxRuns: 2000, Triage: 2000},
		func(r *timedsim.Result) bool { return prof.Anomalous(r.ExecTime) }, nil)
	if err != nil || len(sr.Anomalies) < cases {
		t.Fatalf("%d anomalies in 2000 executions, err %v", len(sr.Anomalies), err)
	}
	rec, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: set, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	ours, paper := 0, 0
	for _, a := range sr.Anomalies[:cases] {
		events := rec.Run(a.Result.Path).Events
		race := randtree.FindRace(events).All()
		crit, err := NewCriterion(prof.Median, prof.Q3, prof.Threshold, a.Result.ExecTime)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Find(context.Background(), Config{Explorer: ex, Seed: walkSeed, Confirm: DefaultConfirm, Deadline: crit.Limit,
			Recovers: func(r *timedsim.Result) bool { return crit.Recovered(r.Finished, r.ExecTime) }}, a.Result.Path, a.Result.Steps)
		if err != nil {
			t.Fatal(err)
		}
		mace, err := Find(context.Background(), Config{Explorer: ex, Seed: walkSeed,
			Recovers: func(r *timedsim.Result) bool { return r.Finished && r.ExecTime <= prof.Q3 }}, a.Result.Path, a.Result.Steps)
		if err != nil {
			t.Fatal(err)
		}
		label := func(d int) string {
			if d < 0 || d >= len(events) {
				return "none"
			}
			return events[d].Label + " on " + events[d].Node.String()
		}
		t.Logf("anomaly %d (%v, %d steps), race steps %v: ours step %d (%s), MacePC's step %d (%s)",
			a.Index, a.Result.ExecTime, a.Result.Steps, race, rep.Step, label(rep.Step), mace.Step, label(mace.Step))
		if slices.Contains(race, rep.Step) {
			ours++
		}
		if slices.Contains(race, mace.Step) {
			paper++
		}
	}
	if ours < cases-1 {
		t.Errorf("the divergence point is a step of the race in %d of %d anomalies, want at least %d", ours, cases, cases-1)
	}
	t.Logf("race found: ours %d of %d, MacePC's probe %d of %d", ours, cases, paper, cases)
}

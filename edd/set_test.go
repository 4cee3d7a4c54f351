package edd

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// trainingSamples is a small phase 1a result: two deliver labels, one timer,
// one bare kind, and a label that was registered but never ran.
func trainingSamples() map[string][]time.Duration {
	return map[string][]time.Duration{
		"deliver Join":      {ms(1), ms(2), ms(3), ms(4), ms(5)},
		"deliver JoinReply": {ms(10), ms(20), ms(30)},
		"timer recovery":    {ms(0.5), ms(0.5), ms(1.5)},
		"init":              {ms(7)},
		"app leave":         {},
	}
}

func mustTrain(t testing.TB, samples map[string][]time.Duration, points int) *Set {
	t.Helper()
	s, err := Train(samples, DefaultSeed(), points)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKind(t *testing.T) {
	for label, want := range map[string]string{
		"deliver JoinReply": "deliver", "reset": "reset", "error queue-full": "error",
		"timer a b": "timer", "": "",
	} {
		if got := Kind(label); got != want {
			t.Errorf("Kind(%q) = %q, want %q", label, got, want)
		}
	}
}

func TestSourceString(t *testing.T) {
	for s, want := range map[Source]string{Trained: "trained", Fallback: "fallback", Seed: "seed", 7: "Source(7)"} {
		if got := s.String(); got != want {
			t.Errorf("Source(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

// TestPhase1aTrain: one Empirical per label with samples, a pooled one per
// kind (paper 004 §3.2, Phase 1a).
func TestPhase1aTrain(t *testing.T) {
	samples := trainingSamples()
	s := mustTrain(t, samples, 5)
	if got, want := s.Labels(), []string{"deliver Join", "deliver JoinReply", "init", "timer recovery"}; !slices.Equal(got, want) {
		t.Errorf("Labels() = %q, want %q", got, want)
	}
	if got, want := s.Kinds(), []string{"deliver", "init", "timer"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want %q", got, want)
	}
	if s.Points() != 5 || s.Seed() != DefaultSeed() {
		t.Errorf("Points() = %d, Seed() = %+v", s.Points(), s.Seed())
	}
	for label, xs := range samples {
		if len(xs) == 0 {
			continue
		}
		want, _ := NewEmpirical(xs, 5)
		got := s.labels[label]
		if got.N() != len(xs) || !slices.Equal(got.Table(), want.Table()) {
			t.Errorf("%q: N=%d table %v, want N=%d table %v", label, got.N(), got.Table(), len(xs), want.Table())
		}
	}
	pooled, _ := NewEmpirical(slices.Concat(samples["deliver JoinReply"], samples["deliver Join"]), 5)
	if got := s.kinds["deliver"]; got.N() != 8 || !slices.Equal(got.Table(), pooled.Table()) {
		t.Errorf("deliver pool: N=%d table %v, want N=8 table %v", got.N(), got.Table(), pooled.Table())
	}
	// The pooled median of {1..5, 10, 20, 30} ms is 4.5ms.
	if got := s.kinds["deliver"].Quantile(0.5); got != ms(4.5) {
		t.Errorf("pooled deliver median = %v, want 4.5ms", got)
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	a := mustTrain(t, trainingSamples(), 0)
	shuffled := trainingSamples()
	r := rand.New(rand.NewPCG(9, 9))
	for _, xs := range shuffled {
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	}
	b := mustTrain(t, shuffled, 0)
	var ab, bb bytes.Buffer
	if err := Write(&ab, a); err != nil {
		t.Fatal(err)
	}
	if err := Write(&bb, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ab.Bytes(), bb.Bytes()) || a.Hash() != b.Hash() {
		t.Errorf("Train depends on sample order:\n%s\nvs\n%s", ab.Bytes(), bb.Bytes())
	}
}

func TestTrainErrors(t *testing.T) {
	ok := []time.Duration{1}
	for _, c := range []struct {
		name    string
		samples map[string][]time.Duration
		seed    Uniform
		points  int
		want    string
	}{
		{"negative", map[string][]time.Duration{"deliver X": {1, -2}}, DefaultSeed(), 0, `label "deliver X": negative duration -2ns at index 1`},
		{"points", map[string][]time.Duration{"x": ok}, DefaultSeed(), 1, "points 1 out of range"},
		{"seed", map[string][]time.Duration{"x": ok}, Uniform{Min: 5, Max: 1}, 0, "seed min 5ns > max 1ns"},
		{"empty label", map[string][]time.Duration{"": ok}, DefaultSeed(), 0, `label "": empty`},
		{"space", map[string][]time.Duration{" deliver X": ok}, DefaultSeed(), 0, "leading or trailing space"},
		{"utf8", map[string][]time.Duration{"deliver \xff": ok}, DefaultSeed(), 0, "invalid UTF-8"},
		{"wildcard", map[string][]time.Duration{"*": ok}, DefaultSeed(), 0, "wildcard"},
		{"kind wildcard", map[string][]time.Duration{"deliver *": ok}, DefaultSeed(), 0, "wildcard"},
	} {
		_, err := Train(c.samples, c.seed, c.points)
		if err == nil || !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Train error = %v, want edd: …%s…", c.name, err, c.want)
		}
	}
}

// TestLookupFallback: trained labels get their own distribution, unseen
// labels of a trained kind the kind's pool, everything else the seed
// (paper 004 §3.2: "substitute a similar event's distribution").
func TestLookupFallback(t *testing.T) {
	s := mustTrain(t, trainingSamples(), 5)
	for _, c := range []struct {
		label  string
		src    Source
		desc   string
		median time.Duration
	}{
		{"deliver Join", Trained, "deliver Join", ms(3)},
		{"deliver JoinReply", Trained, "deliver JoinReply", ms(20)},
		{"timer recovery", Trained, "timer recovery", ms(0.5)},
		{"init", Trained, "init", ms(7)},
		{"deliver Leave", Fallback, "deliver *", ms(4.5)},
		{"timer heartbeat", Fallback, "timer *", ms(0.5)},
		{"app leave", Seed, "seed", ms(5.5)}, // had no samples
		{"reset", Seed, "seed", ms(5.5)},
		{"error queue-full", Seed, "seed", ms(5.5)},
		{"deliverJoin", Seed, "seed", ms(5.5)}, // kind "deliverJoin"
	} {
		d, src, desc := s.Lookup(c.label)
		if src != c.src || desc != c.desc {
			t.Errorf("Lookup(%q) = %v %q, want %v %q", c.label, src, desc, c.src, c.desc)
		}
		if got := d.Sample(0.5); got != c.median {
			t.Errorf("Lookup(%q).Sample(0.5) = %v, want %v", c.label, got, c.median)
		}
	}
	if _, ok := mustTrainLookup(s, "deliver Leave").(*Empirical); !ok {
		t.Errorf("unscaled fallback is not the pooled *Empirical")
	}
	if d, _, _ := NewSet(DefaultSeed()).Lookup("deliver Join"); d != Dist(DefaultSeed()) {
		t.Errorf("NewSet Lookup = %v, want the seed", d)
	}
}

func mustTrainLookup(s *Set, label string) Dist {
	d, _, _ := s.Lookup(label)
	return d
}

func TestCoverage(t *testing.T) {
	s := mustTrain(t, trainingSamples(), 5)
	got := s.Coverage([]string{"reset", "deliver Join", "timer x", "deliver Leave", "deliver Join", "app leave", "init"})
	want := Coverage{
		Trained:  []string{"deliver Join", "init"},
		Fallback: map[string]string{"deliver Leave": "deliver *", "timer x": "timer *"},
		Seed:     []string{"app leave", "reset"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Coverage = %+v, want %+v", got, want)
	}
	empty := s.Coverage(nil)
	if empty.Trained == nil || empty.Fallback == nil || empty.Seed == nil {
		t.Errorf("Coverage(nil) has nil fields: %+v", empty)
	}
}

// TestScaleMalleability: what-if factors (paper 004 §3.1, "Malleability")
// per label, per kind and for all labels, whatever the Source.
func TestScaleMalleability(t *testing.T) {
	s := mustTrain(t, trainingSamples(), 5)
	median := func(label string) time.Duration { return mustTrainLookup(s, label).Sample(0.5) }

	if err := s.Scale("deliver Join", 2.5); err != nil {
		t.Fatal(err)
	}
	if got := median("deliver Join"); got != ms(7.5) {
		t.Errorf("scaled deliver Join median = %v, want 7.5ms", got)
	}
	if got := median("deliver JoinReply"); got != ms(20) {
		t.Errorf("unscaled deliver JoinReply median = %v, want 20ms", got)
	}
	// A label scaled before it is seen scales its fallback and seed too.
	if err := s.Scale("deliver Leave", 2); err != nil {
		t.Fatal(err)
	}
	if d, src, desc := s.Lookup("deliver Leave"); src != Fallback || desc != "deliver *" || d.Sample(0.5) != ms(9) {
		t.Errorf("scaled fallback: %v %q median %v, want fallback deliver * 9ms", src, desc, d.Sample(0.5))
	}
	if err := s.Scale("reset", 10); err != nil {
		t.Fatal(err)
	}
	if got := median("reset"); got != ms(55) {
		t.Errorf("scaled seed median = %v, want 55ms", got)
	}
	// Kind and global wildcards multiply with the label's factor.
	if err := s.Scale("timer *", 4); err != nil {
		t.Fatal(err)
	}
	if err := s.Scale("*", 0.5); err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]time.Duration{
		"deliver Join":      ms(3.75), // 3ms · 2.5 · 0.5
		"deliver JoinReply": ms(10),   // 20ms · 0.5
		"timer recovery":    ms(1),    // 0.5ms · 4 · 0.5
		"timer other":       ms(1),    // fallback, same factors
		"app join":          ms(2.75), // seed 5.5ms · 0.5
		"reset":             ms(27.5),
	} {
		if got := median(label); got != want {
			t.Errorf("median(%q) = %v, want %v (factor %v)", label, got, want, s.Factor(label))
		}
	}
	if got := s.Factor("deliver Join"); got != 1.25 {
		t.Errorf("Factor(deliver Join) = %v, want 1.25", got)
	}
	// Setting again replaces; factor 1 removes.
	if err := s.Scale("deliver Join", 3); err != nil {
		t.Fatal(err)
	}
	if got := median("deliver Join"); got != ms(4.5) {
		t.Errorf("replaced factor median = %v, want 4.5ms", got)
	}
	for _, k := range []string{"*", "deliver Join", "timer *", "deliver Leave", "reset"} {
		if err := s.Scale(k, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.ScaleFactors()) != 0 {
		t.Errorf("factor 1 did not remove: %v", s.ScaleFactors())
	}
	if d, _, _ := s.Lookup("deliver Join"); d != Dist(s.labels["deliver Join"]) {
		t.Errorf("unscaled Lookup returns a wrapper %T", d)
	}
	if s.Hash() != mustTrain(t, trainingSamples(), 5).Hash() {
		t.Errorf("Set with all factors reset hashes differently from a fresh one")
	}
}

func TestScaleErrors(t *testing.T) {
	s := NewSet(DefaultSeed())
	for _, c := range []struct {
		label  string
		factor float64
		want   string
	}{
		{"deliver Join", 0, "must be positive"},
		{"deliver Join", -2, "must be positive"},
		{"deliver Join", math.NaN(), "must be positive"},
		{"deliver Join", math.Inf(1), "finite"},
		{"", 2, "empty"},
		{" x", 2, "space"},
	} {
		err := s.Scale(c.label, c.factor)
		if err == nil || !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Scale(%q, %v) = %v, want edd: …%s…", c.label, c.factor, err, c.want)
		}
	}
	if len(s.ScaleFactors()) != 0 {
		t.Errorf("failed Scale calls changed the set: %v", s.ScaleFactors())
	}
}

func TestNewSetPanicsOnBadSeed(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "edd: seed min") {
			t.Errorf("NewSet(bad seed) recovered %v", r)
		}
	}()
	NewSet(Uniform{Min: 2, Max: 1})
}

func TestParseScale(t *testing.T) {
	for _, c := range []struct {
		spec   string
		label  string
		factor float64
		err    string
	}{
		{"deliver Join=2.5", "deliver Join", 2.5, ""},
		{"init=1", "init", 1, ""},
		{"*=0.5", "*", 0.5, ""},
		{"timer *=3", "timer *", 3, ""},
		{" deliver Join = 2 ", "deliver Join", 2, ""},
		{"deliver a=b=4", "deliver a=b", 4, ""},
		{"deliver X=1e-3", "deliver X", 0.001, ""},
		{"deliver Join", "", 0, "want label=factor"},
		{"=2", "", 0, "empty label"},
		{"  =2", "", 0, "empty label"},
		{"deliver Join=", "", 0, `factor "" is not a number`},
		{"deliver Join=fast", "", 0, `factor "fast" is not a number`},
		{"deliver Join=0", "", 0, "must be positive"},
		{"deliver Join=-1", "", 0, "must be positive"},
		{"deliver Join=NaN", "", 0, "must be positive"},
		{"deliver Join=Inf", "", 0, "finite"},
		{"deliver Join=1e999", "", 0, "not a number"},
		{"deliver \xff=2", "", 0, "invalid UTF-8"},
	} {
		label, factor, err := ParseScale(c.spec)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseScale(%q) error = %v, want edd: …%s…", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || label != c.label || factor != c.factor {
			t.Errorf("ParseScale(%q) = %q, %v, %v; want %q, %v", c.spec, label, factor, err, c.label, c.factor)
		}
	}
}

package anomaly

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// TestCorrelateHand checks r against a hand computation on four samples
// with times y = (1, 2, 3, 4) s: ȳ = 2.5, y − ȳ = (−1.5, −0.5, 0.5, 1.5),
// Σ(y−ȳ)² = 5, and r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)² · 5).
//
//	a: x = (1, 1, 1, 5), x̄ = 2, x−x̄ = (−1, −1, −1, 3): Σ = 1.5+0.5−0.5+4.5 = 6,
//	   Σ(x−x̄)² = 12, r = 6/√60 = 0.7745967 → 0.774597.
//	   window (0, 1, 0, 1), x̄ = 0.5, x−x̄ = ±0.5: Σ = 0.75−0.25−0.25+0.75 = 1,
//	   Σ(x−x̄)² = 1, r = 1/√5 = 0.4472136 → 0.447214 ≥ 0.774597/2: not LengthOnly.
//	b: x = (0, 0, 1, 3) (absent from the first two samples), x̄ = 1,
//	   x−x̄ = (−1, −1, 0, 2): Σ = 1.5+0.5+0+3 = 5, Σ(x−x̄)² = 6, r = 5/√30 =
//	   0.9128709 → 0.912871.
//	   window (1, 0, 0, 0), x̄ = 0.25, x−x̄ = (0.75, −0.25, −0.25, −0.25):
//	   Σ = −1.125+0.125−0.125−0.375 = −1.5, Σ(x−x̄)² = 0.75,
//	   r = −1.5/√3.75 = −0.7745967 → −0.774597: not LengthOnly.
//	c: x = (0, 0, 0, 2), x̄ = 0.5, x−x̄ = (−0.5, −0.5, −0.5, 1.5): Σ = 0.75+0.25
//	   −0.25+2.25 = 3, Σ(x−x̄)² = 3, r = 3/√15 = 0.7745967 → 0.774597.
//	   window (0, 0, 0, 0) is constant: WindowR nil, LengthOnly.
//	d: x = (1, 1, 1, 1) is constant: R nil; window (0, 0, 1, 0): x̄ = 0.25,
//	   x−x̄ = (−0.25, −0.25, 0.75, −0.25): Σ = 0.375+0.125+0.375−0.375 = 0.5,
//	   Σ(x−x̄)² = 0.75, r = 0.5/√3.75 = 0.2581989 → 0.258199.
//	e: x = (0, 1, 0, 0), x̄ = 0.25, x−x̄ = (−0.25, 0.75, −0.25, −0.25): Σ =
//	   0.375−0.375−0.125−0.375 = −0.5, r = −0.5/√3.75 = −0.258199;
//	   window (0, 0, 0, 0): WindowR nil, but |R| < MinR: not LengthOnly.
//
// Ranking: not LengthOnly, the labels whose count varies, those of
// WindowR at least MinR first (a 0.447214), then the others by |WindowR|
// (b −0.774597, e nil), then d, whose count is the same in every sample,
// then the LengthOnly c.
func TestCorrelateHand(t *testing.T) {
	s := func(sec int, counts, window map[string]int) Sample {
		return Sample{ExecTime: time.Duration(sec) * time.Second, Counts: counts, Window: window}
	}
	samples := []Sample{
		s(1, map[string]int{"a": 1, "d": 1}, map[string]int{}),
		s(2, map[string]int{"a": 1, "d": 1, "e": 1}, map[string]int{"a": 1}),
		s(3, map[string]int{"a": 1, "b": 1, "d": 1}, map[string]int{"d": 1}),
		s(4, map[string]int{"a": 5, "b": 3, "c": 2, "d": 1}, map[string]int{"a": 1, "b": 0}),
	}
	samples[0].Window["b"] = 1
	got := Correlate(samples, 0)
	want := []Correlation{
		{Label: "a", Executions: 4, MeanCount: 2, R: ptr(0.774597), WindowR: ptr(0.447214)},
		{Label: "b", Executions: 2, MeanCount: 1, R: ptr(0.912871), WindowR: ptr(-0.774597)},
		{Label: "e", Executions: 1, MeanCount: 0.25, R: ptr(-0.258199), WindowR: nil},
		{Label: "d", Executions: 4, MeanCount: 1, R: nil, WindowR: ptr(0.258199)},
		{Label: "c", Executions: 1, MeanCount: 0.5, R: ptr(0.774597), WindowR: nil, LengthOnly: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Correlate:\n%s\nwant:\n%s", table(got), table(want))
	}
}

// TestCorrelateRanking (phase 3b, the paper's Figure 4 and its "trivially
// correlated with path length" timers) plants labels in 20 synthetic
// executions: 17 normal ones of 500–600 ms and 3 slow ones just over 10 s,
// counted in a window of 500 ms.
//
//   - the cause "deliver JoinReply → Remove" occurs, within the window, in
//     exactly the slow executions, and so does one extra "deliver JoinReply";
//   - "timer heartbeat" fires every 50 ms: its count is proportional to the
//     execution time, its window count is always 10;
//   - "timer recovery" fires on every one of 8 nodes at 10 s: only slow
//     executions have it, never within the window;
//   - "deliver Ping" is noise; "init" (8 per execution) is constant.
//
// The cause ranks first (its plain label ties with it and wins on the
// label), the timers are LengthOnly and last, the constant has no r.
func TestCorrelateRanking(t *testing.T) {
	slow := map[int]bool{3: true, 11: true, 17: true}
	var samples []Sample
	for i := range 20 {
		et := time.Duration(500+(i*37)%100) * time.Millisecond
		cause := 0
		if slow[i] {
			et = 10*time.Second + time.Duration((i*37)%100)*3*time.Millisecond
			cause = 1
		}
		ping := (i*7)%5 + 1
		counts := map[string]int{
			"init":              8,
			"deliver JoinReply": 7 + cause,
			"timer heartbeat":   int(et / (50 * time.Millisecond)),
			"deliver Ping":      ping,
		}
		window := map[string]int{
			"init":              8,
			"deliver JoinReply": 7 + cause,
			"timer heartbeat":   10,
			"deliver Ping":      ping,
		}
		if slow[i] {
			counts["deliver JoinReply → Remove"] = 1
			window["deliver JoinReply → Remove"] = 1
			counts["timer recovery"] = 8
		}
		samples = append(samples, Sample{ExecTime: et, Counts: counts, Window: window})
	}
	got := Correlate(samples, 500*time.Millisecond)
	t.Logf("ranking:\n%s", table(got))

	order := make([]string, len(got))
	for i, c := range got {
		order[i] = c.Label
	}
	wantOrder := []string{"deliver JoinReply", "deliver JoinReply → Remove", "deliver Ping", "init", "timer heartbeat", "timer recovery"}
	if !slices.Equal(order, wantOrder) {
		t.Fatalf("ranking %q, want %q", order, wantOrder)
	}
	by := map[string]Correlation{}
	for _, c := range got {
		by[c.Label] = c
	}
	cause := by["deliver JoinReply → Remove"]
	if !cause.Composite || cause.Executions != 3 || cause.MeanCount != 0.15 || cause.LengthOnly ||
		cause.R == nil || cause.WindowR == nil || *cause.R < 0.99 || *cause.WindowR != *cause.R {
		t.Errorf("cause: %+v", cause)
	}
	if plain := by["deliver JoinReply"]; plain.Composite || *plain.R != *cause.R || *plain.WindowR != *cause.WindowR {
		t.Errorf("plain label of the cause: %+v, want the cause's r", plain)
	}
	for _, l := range []string{"timer heartbeat", "timer recovery"} {
		if c := by[l]; !c.LengthOnly || c.R == nil || *c.R < 0.99 || c.WindowR != nil {
			t.Errorf("%s: %+v, want LengthOnly with R > 0.99 and no WindowR", l, c)
		}
	}
	if c := by["deliver Ping"]; c.LengthOnly || c.R == nil || math.Abs(*c.R) >= MinR {
		t.Errorf("noise: %+v, want |R| < MinR", c)
	}
	if c := by["init"]; c.R != nil || c.WindowR != nil || c.LengthOnly || c.Executions != 20 || c.MeanCount != 8 {
		t.Errorf("constant: %+v, want no r", c)
	}

	// Sample order changes no r (up to rounding, which is the point of it)
	// and the ranking not at all.
	rev := slices.Clone(samples)
	slices.Reverse(rev)
	if again := Correlate(rev, 500*time.Millisecond); !reflect.DeepEqual(again, got) {
		t.Errorf("reversed samples:\n%s", table(again))
	}
}

// TestCorrelateUnequalLengths is the length control on executions that
// end before the count window: 16 normal executions of 300–700 ms and 4
// slow ones of 20 s, counted in a window of 600 ms (the Q3 of the normal
// times, the window macepc used to take). A periodic timer fires every
// 20 ms, so its count is proportional to the execution time, and so is its
// windowed count in the executions that end before the window: counted
// over all samples, its WindowR stays high (Chord's "timer fix-fingers",
// r 1.00 within Q3), and it used to rank among the causes. Over the
// samples that ran the whole window it is constant: no WindowR, and the
// label is LengthOnly. The race, which happens within the window in
// exactly the slow executions, keeps its WindowR.
func TestCorrelateUnequalLengths(t *testing.T) {
	const (
		timer = "timer fix-fingers"
		race  = "deliver JoinReply → (nothing)"
		every = 20 * time.Millisecond
	)
	window := 600 * time.Millisecond
	var samples []Sample
	for i := range 20 {
		et := time.Duration(300+(i*97)%400) * time.Millisecond
		if i%5 == 2 {
			et = 20*time.Second + time.Duration(i)*time.Millisecond
		}
		s := Sample{ExecTime: et, Counts: map[string]int{timer: int(et / every)}, Window: map[string]int{timer: int(min(et, window) / every)}}
		if et > time.Second {
			s.Counts[race], s.Window[race] = 1, 1
		}
		samples = append(samples, s)
	}
	by := map[string]Correlation{}
	got := Correlate(samples, window)
	for _, c := range got {
		by[c.Label] = c
	}
	if c := by[timer]; !c.LengthOnly || c.WindowR != nil || c.R == nil || *c.R < 0.99 {
		t.Errorf("%s: %+v, want LengthOnly, R > 0.99, no WindowR:\n%s", timer, c, table(got))
	}
	if c := by[race]; c.LengthOnly || c.WindowR == nil || *c.WindowR < 0.99 || got[0].Label != race {
		t.Errorf("%s: %+v, want first with WindowR > 0.99:\n%s", race, c, table(got))
	}
	// Counted over every sample (no window given), the timer's windowed
	// count still follows the length of the short executions.
	old := Correlate(samples, 0)
	if c := old[1]; c.Label != timer || c.LengthOnly {
		t.Errorf("without the window's length control the timer should rank second, not LengthOnly:\n%s", table(old))
	}

	// Fewer than MinWindowSamples samples ran the whole window: WindowR
	// says nothing, so nothing is LengthOnly.
	for _, c := range Correlate(samples, 21*time.Second) {
		if c.WindowR != nil || c.LengthOnly {
			t.Errorf("window longer than every execution: %+v", c)
		}
	}
}

// TestCorrelateNoWindow: without windowed counts (CountWindow unset) there
// is no WindowR and nothing is LengthOnly; labels rank by |R|.
func TestCorrelateNoWindow(t *testing.T) {
	samples := []Sample{
		{ExecTime: 1 * time.Second, Counts: map[string]int{"x": 1, "y": 1}},
		{ExecTime: 2 * time.Second, Counts: map[string]int{"x": 1}},
		{ExecTime: 3 * time.Second, Counts: map[string]int{"x": 4, "y": 1}},
	} // r(x) = 0.866025 (see TestCorrelateJSON), r(y) = 0: y − ȳ ∝ (1, −2, 1) ⊥ (−1, 0, 1)
	for _, c := range Correlate(samples, 0) {
		if c.WindowR != nil || c.LengthOnly {
			t.Errorf("%+v: windowed figures without a window", c)
		}
	}
	if got := Correlate(samples, 0); got[0].Label != "x" || got[1].Label != "y" || *got[0].R != 0.866025 || *got[1].R != 0 {
		t.Errorf("ranking:\n%s", table(got))
	}
}

// TestCorrelateConstantTime: when every execution takes the same time no r
// is defined; labels come in label order.
func TestCorrelateConstantTime(t *testing.T) {
	samples := []Sample{
		{ExecTime: time.Second, Counts: map[string]int{"b": 1, "a": 2}, Window: map[string]int{"a": 1}},
		{ExecTime: time.Second, Counts: map[string]int{"b": 5}, Window: map[string]int{}},
	}
	got := Correlate(samples, 0)
	if len(got) != 2 || got[0].Label != "a" || got[1].Label != "b" {
		t.Fatalf("ranking:\n%s", table(got))
	}
	for _, c := range got {
		if c.R != nil || c.WindowR != nil || c.LengthOnly {
			t.Errorf("%+v: r with constant time", c)
		}
	}
	if Correlate(nil, 0) != nil {
		t.Error("Correlate(nil, 0) is not nil")
	}
}

// TestCorrelateJSON: r values are rounded, nil is null, there is no -0.
func TestCorrelateJSON(t *testing.T) {
	samples := []Sample{ // times 1, 2, 3 s; "z" window (0, 1, 0): r = 0 exactly
		{ExecTime: 1e9, Counts: map[string]int{"z": 1}, Window: map[string]int{}},
		{ExecTime: 2e9, Counts: map[string]int{"z": 1}, Window: map[string]int{"z": 1}},
		{ExecTime: 3e9, Counts: map[string]int{"z": 4}, Window: map[string]int{}},
	}
	b, err := json.Marshal(Correlate(samples, 0))
	if err != nil {
		t.Fatal(err)
	}
	// z: x = (1, 1, 4), x − x̄ = (−1, −1, 2), y − ȳ = (−1, 0, 1): r = 3/√(6·2)
	// = 0.8660254 → 0.866025; window r = 0 (< 0.866025/2: LengthOnly).
	want := `[{"label":"z","composite":false,"executions":3,"mean_count":2,"r":0.866025,"window_r":0,"length_only":true}]`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	if b, _ := json.Marshal(Correlate(samples[:1], 0)); !strings.Contains(string(b), `"r":null,"window_r":null`) {
		t.Errorf("one sample: %s, want null r values", b)
	}
}

// TestNewSample merges plain and composite counts, windowed ones too.
func TestNewSample(t *testing.T) {
	r := &timedsim.Result{
		ExecTime:        3 * time.Second,
		Counts:          map[string]int{"deliver JoinReply": 2, "timer recovery": 1},
		Composite:       map[string]int{"deliver JoinReply → Remove": 1},
		WindowCounts:    map[string]int{"deliver JoinReply": 1},
		WindowComposite: map[string]int{"deliver JoinReply → Remove": 1},
	}
	got := NewSample(r)
	want := Sample{
		ExecTime: 3 * time.Second,
		Counts:   map[string]int{"deliver JoinReply": 2, "timer recovery": 1, "deliver JoinReply → Remove": 1},
		Window:   map[string]int{"deliver JoinReply": 1, "deliver JoinReply → Remove": 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewSample = %+v, want %+v", got, want)
	}
	if s := NewSample(&timedsim.Result{Counts: map[string]int{"init": 1}, Composite: map[string]int{}}); s.Window != nil {
		t.Errorf("no window: Window = %v, want nil", s.Window)
	}
}

func ptr(x float64) *float64 { return &x }

// table renders a ranking for failure messages and logs.
func table(cs []Correlation) string {
	f := func(x *float64) string {
		if x == nil {
			return "nil"
		}
		return fmt.Sprintf("%+.6f", *x)
	}
	var b strings.Builder
	for i, c := range cs {
		fmt.Fprintf(&b, "%2d %-30s R %-9s WindowR %-9s execs %3d mean %.3f", i+1, c.Label, f(c.R), f(c.WindowR), c.Executions, c.MeanCount)
		if c.LengthOnly {
			b.WriteString(" length-only")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestCorrelateSameAs checks that a composite label whose counts, plain
// and windowed, equal its event label's in every sample is marked SameAs
// that label and ranked after every other label, LengthOnly ones included;
// a composite that differs from its event label in one sample's count, or
// only in one sample's windowed count, is not.
func TestCorrelateSameAs(t *testing.T) {
	var (
		remove  = "deliver Remove"
		quiet   = timedsim.CompositeLabel(remove, timedsim.SentNothing) // always equal
		reply   = "deliver JoinReply"
		dropped = timedsim.CompositeLabel(reply, timedsim.SentNothing) // one fewer in sample 3
		join    = "deliver Join"
		fwd     = timedsim.CompositeLabel(join, "Join") // differs only in a window
		timer   = "timer recovery"                      // length-only
	)
	samples := []Sample{
		{ExecTime: 1 * time.Second, Counts: map[string]int{remove: 0, quiet: 0, reply: 2, dropped: 2, join: 3, fwd: 3, timer: 1},
			Window: map[string]int{reply: 2, dropped: 2, join: 3, fwd: 3, timer: 1}},
		{ExecTime: 2 * time.Second, Counts: map[string]int{remove: 1, quiet: 1, reply: 2, dropped: 2, join: 3, fwd: 3, timer: 2},
			Window: map[string]int{remove: 1, quiet: 1, reply: 2, dropped: 2, join: 3, fwd: 3, timer: 1}},
		{ExecTime: 9 * time.Second, Counts: map[string]int{remove: 2, quiet: 2, reply: 3, dropped: 2, join: 3, fwd: 3, timer: 9},
			Window: map[string]int{remove: 2, quiet: 2, reply: 3, dropped: 2, join: 3, fwd: 2, timer: 1}},
	}
	got := Correlate(samples, 0)
	sameAs := map[string]string{}
	for _, c := range got {
		sameAs[c.Label] = c.SameAs
	}
	if sameAs[quiet] != remove {
		t.Errorf("%s: SameAs %q, want %q", quiet, sameAs[quiet], remove)
	}
	for _, l := range []string{remove, reply, dropped, join, fwd, timer} {
		if sameAs[l] != "" {
			t.Errorf("%s: SameAs %q, want none", l, sameAs[l])
		}
	}
	if last := got[len(got)-1]; last.Label != quiet {
		t.Errorf("ranking ends with %s, want %s:\n%s", last.Label, quiet, table(got))
	}
	if c := got[len(got)-2]; c.Label != timer || !c.LengthOnly {
		t.Errorf("the length-only %s should rank just before the SameAs label:\n%s", timer, table(got))
	}
}

// Prioritize moves the labels the anomaly's analysis points at to the
// front, even a length-only one, ranked among themselves by |WindowR|,
// and never marks a label that is SameAs its event's, nor one that does
// not correlate (e: |R| and |WindowR| below MinR) unless the analysis is
// sure of it (f).
func TestPrioritize(t *testing.T) {
	r := func(x float64) *float64 { return &x }
	cs := []Correlation{
		{Label: "a", R: r(0.9), WindowR: r(0.9)},
		{Label: "b", R: r(0.8), WindowR: r(0.1), LengthOnly: true},
		{Label: "c → (nothing)", R: r(0.5), WindowR: r(0.5), SameAs: "c"},
		{Label: "d", R: r(0.4), WindowR: r(0.6)},
		{Label: "e", R: r(0.25), WindowR: r(0.2)},
		{Label: "f", R: r(0.1), WindowR: r(0.12)},
		{Label: "g", R: r(0.1), WindowR: r(0.1), SameAs: "f"},
	}
	Prioritize(cs, map[string]bool{"b": true, "d": true, "c → (nothing)": true, "e": true, "f": true},
		map[string]bool{"f": true, "g": true})
	var got []string
	for _, c := range cs {
		got = append(got, c.Label)
		if c.Critical != (c.Label == "b" || c.Label == "d" || c.Label == "f") {
			t.Errorf("%s: Critical %v", c.Label, c.Critical)
		}
	}
	if want := []string{"d", "f", "b", "a", "c → (nothing)", "e", "g"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// A composite whose counts equal another composite's of the same event
// in every sample says nothing more: it is SameAs the one that ranks
// first among equals (a message or a note before a timer, then by label)
// and ranks last; a composite that differs in one sample is its own.
func TestCorrelateSameComposites(t *testing.T) {
	join := func(parts ...string) map[string]int {
		m := map[string]int{"deliver Join": 3}
		for _, p := range parts {
			m["deliver Join → "+p] = 1
		}
		return m
	}
	samples := []Sample{
		{ExecTime: 1 * time.Second, Counts: join()},
		{ExecTime: 2 * time.Second, Counts: join("NewRoot", "(cancel join)", "(set tick)")},
		{ExecTime: 3 * time.Second, Counts: join("NewRoot", "(cancel join)", "(set tick)", "(set probe)")},
		{ExecTime: 4 * time.Second, Counts: join("NewRoot", "(cancel join)", "(set tick)")},
	}
	by := map[string]Correlation{}
	got := Correlate(samples, 0)
	for _, c := range got {
		by[c.Label] = c
	}
	for l, want := range map[string]string{
		"deliver Join → NewRoot":       "",
		"deliver Join → (cancel join)": "deliver Join → NewRoot",
		"deliver Join → (set tick)":    "deliver Join → NewRoot",
		"deliver Join → (set probe)":   "",
		"deliver Join":                 "",
	} {
		if c, ok := by[l]; !ok || c.SameAs != want {
			t.Errorf("%s: SameAs %q, want %q:\n%s", l, c.SameAs, want, table(got))
		}
	}
	if last := got[len(got)-1]; last.SameAs == "" {
		t.Errorf("a SameAs label does not rank last:\n%s", table(got))
	}
}

// A label with no correlation of MinR or more ranks after one that has
// some, even when that one's count is the same in every execution (every
// node joins once; in the slower executions more joins end within the
// window) and the weak one's count varies: chance gives a few hundred
// executions an |r| of 0.1.
func TestCorrelateEvidenceFirst(t *testing.T) {
	var samples []Sample
	for i := range 30 {
		slow := i%3 == 0
		et := time.Duration(500+(i*37)%100) * time.Millisecond
		joined := 0
		if slow {
			et += time.Second
			joined = 1
		}
		noise := (i*7)%5 + 1
		samples = append(samples, Sample{ExecTime: et,
			Counts: map[string]int{"deliver JoinReply": 1, "deliver Ping": noise},
			Window: map[string]int{"deliver JoinReply": joined, "deliver Ping": noise}})
	}
	got := Correlate(samples, 400*time.Millisecond)
	t.Logf("ranking:\n%s", table(got))
	if got[0].Label != "deliver JoinReply" || got[0].R != nil || got[0].WindowR == nil || *got[0].WindowR < MinR {
		t.Fatalf("first %+v, want the constant-count deliver JoinReply with WindowR ≥ MinR", got[0])
	}
	if c := got[1]; c.Label != "deliver Ping" || c.R == nil || math.Abs(*c.R) >= MinR || (c.WindowR != nil && math.Abs(*c.WindowR) >= MinR) {
		t.Fatalf("second %+v, want deliver Ping with |r| < MinR", c)
	}
}

package report

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macepc/macepc/results"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// The profile plot's anomaly label sits on a white box that covers its
// text, so it stays readable over the histogram's bars, and inside the
// figure.
func TestProfileAnomalyLabelReadable(t *testing.T) {
	var times []float64
	for i := range 50 {
		v := 1.95 + 0.002*float64(i%25)
		if i%5 == 4 {
			v = 20 + 0.0001*float64(i)
		}
		times = append(times, v)
	}
	a := 20.0021
	r := &Results{Profile: &results.Profile{Q1NS: 1_970_000_000, MedianNS: 1_996_000_000, Q3NS: 2_020_000_000, Threshold: 2_980_000_000}}
	for i, v := range times {
		r.Profile.Executions = append(r.Profile.Executions, results.ExecLine{Index: i, ExecTimeNS: int64(v * 1e9), Finished: true})
	}
	r.Search = &results.Search{Anomaly: &results.Anomaly{ExecTimeNS: int64(a * 1e9)}}
	d, _ := NewProfileData(r)
	w, h := vg.Points(640), vg.Points(400)
	rec := &recorder.Canvas{}
	profilePlot(d)(draw.NewCanvas(rec, w, h))
	var white bool
	var box vg.Rectangle // the last fill if white
	found := false
	for _, act := range rec.Actions {
		switch act := act.(type) {
		case *recorder.SetColor:
			white = false
			if act.Color != nil {
				r, g, b, a := act.Color.RGBA()
				white = r == 0xffff && g == 0xffff && b == 0xffff && a == 0xffff
			}
		case *recorder.Fill:
			box = vg.Rectangle{} // a bar over the last white box
			if white {
				box = pathBounds(act.Path)
			}
		case *recorder.FillString:
			if act.String != "anomaly 20 s" {
				continue
			}
			found = true
			face := font.DefaultCache.Lookup(act.Font, act.Size)
			e := face.Extents()
			tx := vg.Rectangle{Min: vg.Point{X: act.Point.X, Y: act.Point.Y - e.Descent}, Max: vg.Point{X: act.Point.X + face.Width(act.String), Y: act.Point.Y + e.Ascent}}
			if box.Min.X > tx.Min.X || box.Max.X < tx.Max.X || box.Min.Y > tx.Min.Y || box.Max.Y < tx.Max.Y {
				t.Errorf("the anomaly label %v is not drawn on a white box (box %v)", tx, box)
			}
			if tx.Min.X < 0 || tx.Max.X > w || tx.Min.Y < 0 || tx.Max.Y > h {
				t.Errorf("the anomaly label %v runs out of the %v×%v figure", tx, w, h)
			}
		}
	}
	if !found {
		t.Fatal("no anomaly label")
	}
}

func pathBounds(p vg.Path) vg.Rectangle {
	r := vg.Rectangle{Min: vg.Point{X: 1e9, Y: 1e9}, Max: vg.Point{X: -1e9, Y: -1e9}}
	for _, c := range p {
		if c.Type == vg.CloseComp {
			continue
		}
		r.Min.X, r.Min.Y = min(r.Min.X, c.Pos.X), min(r.Min.Y, c.Pos.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, c.Pos.X), max(r.Max.Y, c.Pos.Y)
	}
	return r
}

// Histogram edges are lo + i·w with the product rounded before the sum,
// on every platform: a fused multiply-add (arm64, amd64 v3) changed their
// last digits and so the full-precision goldens. Run under GOAMD64=v3 to
// see it fail without the explicit conversion.
func TestHistogramEdgesUnfused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		lo := 0.1 + rng.Float64()
		xs := []float64{lo, lo + rng.Float64()*10}
		for range 20 {
			xs = append(xs, xs[0]+rng.Float64()*(xs[1]-xs[0]))
		}
		slices.Sort(xs)
		bins := histogram(xs)
		w := (xs[len(xs)-1] - xs[0]) / float64(len(bins))
		for i, b := range bins {
			if want := xs[0] + float64(float64(i)*w); b.Min != want {
				t.Fatalf("bin %d of %v starts at %v, want %v (lo + the rounded product)", i, xs[:2], b.Min, want)
			}
		}
	}
}

// profileDataOf is the profile plot's data of execution times (seconds)
// with the given quartiles and threshold.
func profileDataOf(times []float64, q1, med, q3, thr float64) *ProfileData {
	r := &Results{Profile: &results.Profile{Q1NS: int64(q1 * 1e9), MedianNS: int64(med * 1e9), Q3NS: int64(q3 * 1e9), Threshold: int64(thr * 1e9)}}
	for i, v := range times {
		r.Profile.Executions = append(r.Profile.Executions, results.ExecLine{Index: i, ExecTimeNS: int64(v * 1e9), Finished: true})
	}
	d, _ := NewProfileData(r)
	return d
}

// The histogram uses the plot's width when the threshold (1.5× the
// median) lies far right of a tight distribution: its bars span most of
// the data area instead of its left fifth, and its count axis has at
// least three whole-number labels.
func TestProfileHistogramUsesWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var times []float64
	for range 50 {
		times = append(times, 0.49+0.02*rng.Float64())
	}
	slices.Sort(times)
	d := profileDataOf(times, 0.495, 0.5, 0.505, 0.75)
	w, h := vg.Points(640), vg.Points(400)
	rec := &recorder.Canvas{}
	profilePlot(d)(draw.NewCanvas(rec, w, h))
	bars := vg.Rectangle{Min: vg.Point{X: 1e9}, Max: vg.Point{X: -1e9}}
	var ints []string
	bar, thr := false, false
	for _, act := range rec.Actions {
		switch act := act.(type) {
		case *recorder.SetColor:
			bar = act.Color == colNormal
		case *recorder.Fill:
			if bar {
				b := pathBounds(act.Path)
				bars.Min.X, bars.Max.X = min(bars.Min.X, b.Min.X), max(bars.Max.X, b.Max.X)
			}
		case *recorder.FillString:
			thr = thr || act.String == "0.75"
			if _, err := strconv.Atoi(act.String); err == nil {
				ints = append(ints, act.String)
			}
		}
	}
	if frac := float64((bars.Max.X - bars.Min.X) / w); frac < 0.6 {
		t.Errorf("the histogram's bars span %.0f%% of the %v-wide figure, want 60%% or more", 100*frac, w)
	}
	if len(ints) < 3 {
		t.Errorf("count axis labels %q, want at least three", ints)
	}
	if !thr {
		t.Error("the threshold 0.75 is not labelled on the compressed axis")
	}
}

// The configuration row renders the threshold from profile.json's own
// record and names the term that set it: a --min-excess of 100 ms above
// a 40 ms median, not the default rule.
func TestThresholdRuleNamesWhatSetIt(t *testing.T) {
	p := &results.Profile{Runs: 50, IQRFactor: 1.5, MinSlowdown: 1.5, MedianNS: 40e6, TukeyNS: 50e6, MinExcessNS: 100e6, MinExcessBy: "--min-excess", Threshold: 140e6}
	want := "50 executions; anomalous above 140 ms = max(Q3 + 1.5·IQR = 50 ms, 1.5·median = 60 ms, median + 100 ms (--min-excess)): set by median + 100 ms (--min-excess)"
	if got := thresholdRule(p); got != want {
		t.Errorf("thresholdRule:\n got %s\nwant %s", got, want)
	}
	p.MinExcessNS, p.FastMode, p.TukeyNS, p.Threshold = 0, 33, 70e6, 70e6
	if got := thresholdRule(p); !strings.Contains(got, "the fast mode's Q3 (33 executions) + 1.5·IQR = 70 ms") || !strings.HasSuffix(got, "set by the fast mode's Q3 (33 executions) + 1.5·IQR") {
		t.Errorf("fast-mode fence: %s", got)
	}
}

// The profile figure's caption calls slow executions "not rare" by the
// test stdout uses (anomaly.SlowNotRare): 1 of 50 above the threshold is
// too few to say so, 7 of 50 are not rare.
func TestProfileCaptionRareAsStdout(t *testing.T) {
	for _, c := range []struct {
		above int
		want  string
	}{{1, "1 of the 50 executions is above the threshold already: too few to say that more than 5% of executions are this slow."}, {7, "7 of the 50 executions are above the threshold already: slow executions are not rare"}} {
		r := &Results{Profile: &results.Profile{Runs: 50, Q1NS: 1_970_000_000, MedianNS: 1_996_000_000, Q3NS: 2_020_000_000, Threshold: 2_980_000_000}}
		for i := range 50 {
			v := int64(1_990_000_000 + i*100_000)
			if i < c.above {
				v = 3_500_000_000
			}
			r.Profile.Executions = append(r.Profile.Executions, results.ExecLine{Index: i, ExecTimeNS: v, Finished: true})
		}
		if f := profileFigure(r); !strings.Contains(f.Guide, c.want) {
			t.Errorf("%d above: caption %q lacks %q", c.above, f.Guide, c.want)
		}
	}
}

// A liveness run with crash-stops and lasting partitions says so in its
// configuration's faults row (before, the row showed only resets,
// breaks and drops).
func TestLivenessFaultsRowHasCrashesAndPartitions(t *testing.T) {
	var lv results.Liveness
	if err := json.Unmarshal([]byte(`{"report":{"settings":{"faults":1,"crashes":1,"partitions":2}}}`), &lv); err != nil {
		t.Fatal(err)
	}
	var got string
	for _, r := range livenessConfigRows(&lv) {
		if r.Key == "faults" {
			got = r.Value
		}
	}
	if want := "up to 1 node resets, 0 connection breaks, 0 datagram drops, 1 crash-stops (a node down for good) and 2 lasting partitions (a node cut off for good) per execution"; got != want {
		t.Errorf("faults row %q, want %q", got, want)
	}
}

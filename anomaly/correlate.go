package anomaly

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/timedsim"
)

// MinR is the smallest |r| that Correlate calls a correlation when it
// decides whether a label is LengthOnly.
const MinR = 0.3

// Sample is one execution as phase 3b sees it: its time and how often each
// event label occurred.
type Sample struct {
	ExecTime time.Duration
	// Counts holds plain and composite labels together; composite labels
	// contain timedsim.CompositeArrow (" → ").
	Counts map[string]int
	// Window is Counts restricted to the events that started before the
	// count window (timedsim.Options.CountWindow, Profile.CountWindow); nil
	// when the execution had no window.
	Window map[string]int
}

// NewSample returns the sample of an execution: its plain and composite
// counts merged, and the same for its windowed counts.
func NewSample(r *timedsim.Result) Sample {
	merge := func(plain, composite map[string]int) map[string]int {
		if plain == nil && composite == nil {
			return nil
		}
		m := make(map[string]int, len(plain)+len(composite))
		maps.Copy(m, plain)
		maps.Copy(m, composite)
		return m
	}
	return Sample{
		ExecTime: r.ExecTime,
		Counts:   merge(r.Counts, r.Composite),
		Window:   merge(r.WindowCounts, r.WindowComposite),
	}
}

// Correlation is how one label's frequency relates to execution time.
type Correlation struct {
	Label string `json:"label"`
	// Composite says whether Label is a composite label (an event and a
	// message type its handler sent).
	Composite bool `json:"composite"`
	// Executions is the number of samples in which the label occurs.
	Executions int `json:"executions"`
	// MeanCount is the label's mean count over all samples (6 decimals).
	MeanCount float64 `json:"mean_count"`
	// R is Pearson's r of the label's count against execution time (6
	// decimals); nil when the count or the time is constant.
	R *float64 `json:"r"`
	// WindowR is Pearson's r of the label's windowed count against
	// execution time (6 decimals) over the samples that ran for the whole
	// window (ExecTime at least the window); nil when either is constant,
	// and for every label when fewer than MinWindowSamples samples ran the
	// whole window with windowed counts, or all in the same time.
	WindowR *float64 `json:"window_r"`
	// LengthOnly says the correlation is driven by execution length:
	// |R| >= MinR and (WindowR is nil or |WindowR| < |R|/2). It is false
	// for every label when WindowR is nil for every label for want of
	// samples.
	LengthOnly bool `json:"length_only"`
	// SameAs is, for a composite label whose count and windowed count
	// equal its event label's in every sample, that event label: the
	// composite says nothing the event label does not ("deliver Remove →
	// (nothing)" when no Remove handler ever sends). Otherwise, for a
	// composite whose counts equal those of another composite of the same
	// event that ranks before it among equals (a message or note before a
	// timer, then by label), that composite: one handler that always sets
	// its three periodic timers together with cancelling its join timer
	// gives four labels that say the same. Such labels rank last.
	SameAs string `json:"same_as,omitempty"`
	// Critical says the analysis of the anomaly points at the label
	// (Prioritize): it sets the anomaly's class apart, or its node ran it
	// while waiting on the anomaly's critical path. Such labels rank
	// first.
	Critical bool `json:"critical,omitempty"`
}

// Prioritize marks the labels of cs in first Critical and moves them to
// the front, ranked among themselves by |WindowR|, then |R|, then the
// timers' composite labels after the others (LengthOnly ignored: an event the anomaly's own analysis points at is no
// length-driven consequence, even when it happened after the count
// window), then label; the others keep their order. A label is Critical
// only if it also correlates: |R| or |WindowR| at least MinR (an event
// the analysis points at that the executions' times do not follow is no
// headline), or it is in sure: the analysis shows it caused the wait in a
// way a count per execution cannot (the error upcall of a message lost on
// its way to the node the anomaly stranded: which messages were lost
// matters, not how many). A SameAs label is never Critical. cs is
// modified in place.
func Prioritize(cs []Correlation, first, sure map[string]bool) {
	for i := range cs {
		c := &cs[i]
		c.Critical = (first[c.Label] && evident(*c) || sure[c.Label]) && c.SameAs == ""
	}
	slices.SortStableFunc(cs, func(a, b Correlation) int {
		switch {
		case a.Critical && !b.Critical:
			return -1
		case !a.Critical && b.Critical:
			return 1
		case !a.Critical:
			return 0
		}
		if c := byAbsDesc(a.WindowR, b.WindowR); c != 0 {
			return c
		}
		if c := byAbsDesc(a.R, b.R); c != 0 {
			return c
		}
		return byKindThenLabel(a.Label, b.Label)
	})
}

// MinWindowSamples is the least number of samples that must run for the
// whole count window for Correlate to compute WindowR.
const MinWindowSamples = 3

// Correlate computes, for every label that occurs in any sample, the
// correlation of its count with execution time over all samples, and of
// its windowed count over the samples that ran for the whole count window
// (phase 3b): window is the timedsim.Options.CountWindow the windowed
// counts were taken with, and a sample whose ExecTime is shorter was cut
// off before the window's end, so its windowed counts do not cover the
// same time as the others' (0: every sample with windowed counts covers
// it). A label absent from a sample counts 0 there.
//
// The result is ranked: first the labels that are not LengthOnly, those
// with some correlation (|R| or |WindowR| at least MinR) before those
// with none, then those whose count varies (R defined) before those whose
// count is the same in every sample, each with the labels of WindowR at least MinR (markedly
// more frequent within the window in the slower executions) first, then
// by |WindowR|
// descending (nil last), then |R| descending (nil last), then the labels
// of a timer set or cancelled (timedsim.TimerComposite) after the others,
// then label; then the LengthOnly labels by |R| descending, then label; then,
// ranked the same way among themselves, the composite labels that are
// SameAs their event label. r values
// are rounded to 6 decimals before they are compared, so the ranking and
// the JSON rendering do not depend on the last bits of floating-point
// arithmetic. Correlate returns nil for no samples; samples are not
// modified.
func Correlate(samples []Sample, window time.Duration) []Correlation {
	if len(samples) == 0 {
		return nil
	}
	set := map[string]bool{}
	var cover []int // the samples that ran for the whole window
	for i, s := range samples {
		for l := range s.Counts {
			set[l] = true
		}
		for l := range s.Window {
			set[l] = true
		}
		if s.Window != nil && s.ExecTime >= window {
			cover = append(cover, i)
		}
	}
	labels := slices.Sorted(maps.Keys(set))

	times := make([]float64, len(samples))
	for i, s := range samples {
		times[i] = float64(s.ExecTime)
	}
	wtimes := make([]float64, len(cover))
	for j, i := range cover {
		wtimes[j] = times[i]
	}
	useWindow := len(cover) >= MinWindowSamples && !constant(wtimes)
	x := make([]float64, len(samples))
	xw := make([]float64, len(cover))
	out := make([]Correlation, 0, len(labels))
	for _, l := range labels {
		event, _, composite := strings.Cut(l, timedsim.CompositeArrow)
		c := Correlation{Label: l, Composite: composite}
		sum := 0
		for i, s := range samples {
			n := s.Counts[l]
			if n > 0 {
				c.Executions++
			}
			sum += n
			x[i] = float64(n)
		}
		c.MeanCount = round6(float64(sum) / float64(len(samples)))
		if composite && sameCounts(samples, l, event) {
			c.SameAs = event
		}
		c.R = pearson(x, times)
		if useWindow {
			for j, i := range cover {
				xw[j] = float64(samples[i].Window[l])
			}
			c.WindowR = pearson(xw, wtimes)
			c.LengthOnly = c.R != nil && math.Abs(*c.R) >= MinR &&
				(c.WindowR == nil || math.Abs(*c.WindowR) < math.Abs(*c.R)/2)
		}
		out = append(out, c)
	}
	sameComposites(out, samples)
	slices.SortFunc(out, compareCorrelations)
	return out
}

// sameComposites marks SameAs, among the composite labels of one event
// that are not SameAs the event label, each whose counts equal those of
// one before it in byKindThenLabel order.
func sameComposites(cs []Correlation, samples []Sample) {
	byEvent := map[string][]int{}
	var events []string
	for i, c := range cs {
		if !c.Composite || c.SameAs != "" {
			continue
		}
		event, _, _ := strings.Cut(c.Label, timedsim.CompositeArrow)
		if byEvent[event] == nil {
			events = append(events, event)
		}
		byEvent[event] = append(byEvent[event], i)
	}
	for _, e := range events {
		idx := byEvent[e]
		slices.SortFunc(idx, func(a, b int) int { return byKindThenLabel(cs[a].Label, cs[b].Label) })
		for k, i := range idx {
			for _, j := range idx[:k] {
				if cs[j].SameAs == "" && sameCounts(samples, cs[i].Label, cs[j].Label) {
					cs[i].SameAs = cs[j].Label
					break
				}
			}
		}
	}
}

// sameCounts says whether labels a and b have the same count and the same
// windowed count in every sample.
func sameCounts(samples []Sample, a, b string) bool {
	for _, s := range samples {
		if s.Counts[a] != s.Counts[b] || s.Window[a] != s.Window[b] {
			return false
		}
	}
	return true
}

// compareCorrelations is the ranking of Correlate.
func compareCorrelations(a, b Correlation) int {
	if (a.SameAs == "") != (b.SameAs == "") {
		if a.SameAs == "" {
			return -1
		}
		return 1
	}
	if a.LengthOnly != b.LengthOnly {
		if b.LengthOnly {
			return -1
		}
		return 1
	}
	if !a.LengthOnly {
		// A label with no correlation of MinR or more, neither over
		// whole executions nor within the window, is not evidence of
		// anything (with a few hundred executions an |r| of 0.1 is
		// what chance gives); it ranks after every label that has
		// some, whatever else sets them apart.
		if ea, eb := evident(a), evident(b); ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		// A label whose count is the same in every execution (R
		// undefined: every node starts once, say) says nothing by its
		// frequency; its windowed r only says when it happens. It ranks
		// after the labels whose count varies.
		if (a.R == nil) != (b.R == nil) {
			if a.R == nil {
				return 1
			}
			return -1
		}
		// A label that occurred markedly more often within the normal
		// time in the slower executions (WindowR at least MinR) is
		// something that happened before the execution became slow, a
		// candidate cause; one that occurred less often (WindowR < 0)
		// is mostly work a stalled node did not do, a symptom. Such
		// positive association ranks first, as statistical debugging
		// ranks first the predicates whose truth raises the chance of
		// failure (Liblit, Naik, Zheng, Aiken and Jordan, "Scalable
		// Statistical Bug Isolation", PLDI 2005); below MinR the sign
		// is not trusted, and |WindowR| ranks.
		if pa, pb := positive(a.WindowR), positive(b.WindowR); pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		if c := byAbsDesc(a.WindowR, b.WindowR); c != 0 {
			return c
		}
	}
	if c := byAbsDesc(a.R, b.R); c != 0 {
		return c
	}
	return byKindThenLabel(a.Label, b.Label)
}

// byKindThenLabel orders labels that correlate alike: a timer a handler
// set or cancelled, a node's bookkeeping of its own waits, after a message
// it sent or a note it made; then by label.
func byKindThenLabel(a, b string) int {
	if ta, tb := timerComposite(a), timerComposite(b); ta != tb {
		if tb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// timerComposite reports whether label is the composite label of a handler
// that set or cancelled a timer (timedsim.TimerComposite).
func timerComposite(label string) bool {
	_, after, ok := strings.Cut(label, timedsim.CompositeArrow)
	return ok && timedsim.IsTimerComposite(after)
}

// evident reports whether c correlates at all: |R| or |WindowR| at least
// MinR.
func evident(c Correlation) bool {
	return (c.R != nil && math.Abs(*c.R) >= MinR) || (c.WindowR != nil && math.Abs(*c.WindowR) >= MinR)
}

// positive reports whether r is defined and at least MinR.
func positive(r *float64) bool { return r != nil && *r >= MinR }

// byAbsDesc orders r values by decreasing magnitude, nil last.
func byAbsDesc(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(math.Abs(*b), math.Abs(*a))
}

// pearson is stat.Correlation rounded to 6 decimals, or nil when x or y is
// constant (r undefined: 0/0).
func pearson(x, y []float64) *float64 {
	if constant(x) || constant(y) {
		return nil
	}
	r := stat.Correlation(x, y, nil)
	if math.IsNaN(r) {
		return nil
	}
	r = round6(max(-1, min(1, r)))
	return &r
}

func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// round6 rounds to 6 decimals, without a negative zero.
func round6(x float64) float64 {
	x = math.Round(x*1e6) / 1e6
	if x == 0 {
		return 0
	}
	return x
}

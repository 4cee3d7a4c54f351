package report

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// randomEventGraph is an event graph of two panels of n events on nodes
// nodes, crowded in time (clusters of near-simultaneous events on
// neighbouring nodes, long labels, messages, late arrivals, deliveries
// sent before the window, failed sends), drawn from rng.
func randomEventGraph(rng *rand.Rand, nodes, n int) *EventGraphData {
	texts := []string{"Join", "Join +join@5.004s", "Join −join", "JoinReply −join", "timer start +recovery@10.004s +join@5.004s", "Remove", "Probe", "ProbeReply +probe@0.512s −join [dropped: not joined]"}
	d := &EventGraphData{Step: 66, FromStep: 62, ToStep: 62 + n, FirstDiff: 68, TimeMin: 0, TimeMax: 0}
	for i := range nodes {
		d.Nodes = append(d.Nodes, i*3)
	}
	for _, name := range []string{"anomalous", "similar"} {
		pn := EGPanel{Name: name, ExecTime: 10}
		t := 0.001
		for s := 62; s < 62+n; s++ {
			if rng.IntN(3) > 0 { // a cluster: the next event almost at once
				t += 1e-6 * rng.Float64()
			} else {
				t += 0.004 * rng.Float64()
			}
			node := d.Nodes[rng.IntN(nodes)]
			e := EGEvent{Step: s, Node: node, Kind: "deliver", Text: fmt.Sprintf("%d %s", s, texts[rng.IntN(len(texts))]), Start: t, End: t + 1e-7, From: d.Nodes[rng.IntN(nodes)]}
			switch rng.IntN(5) {
			case 0:
				e.Kind, e.From = "timer", -1
			case 1:
				e.SentBefore = true
			}
			pn.Events = append(pn.Events, e)
			if rng.IntN(3) == 0 {
				m := EGMessage{Step: s, From: node, To: d.Nodes[rng.IntN(nodes)], Type: "JoinReply", Status: "sent", Depart: e.End}
				switch rng.IntN(4) {
				case 0:
					m.Status = "queue-full"
				default:
					a := t + 0.02*rng.Float64()
					m.Arrive = &a
				}
				pn.Messages = append(pn.Messages, m)
			}
			d.TimeMax = max(d.TimeMax, e.End)
		}
		d.Panels = append(d.Panels, pn)
	}
	return d
}

// textsClash lists the pairs of texts that overlap or come closer than
// the clearance: gap points apart vertically, and horizontally once their
// widths grow by widen (a browser's fallback font, wider than the one
// measured).
func textsClash(texts []drawnText, skip map[string]bool, gap vg.Length, widen float64) []string {
	var out []string
	grow := func(t drawnText) drawnText {
		t.max.X = t.min.X + vg.Length(widen)*(t.max.X-t.min.X)
		return t
	}
	for i, a := range texts {
		for _, b := range texts[i+1:] {
			if skip[a.s] || skip[b.s] {
				continue
			}
			a, b := grow(a), grow(b)
			if a.min.X < b.max.X && b.min.X < a.max.X && a.min.Y < b.max.Y+gap && b.min.Y < a.max.Y+gap {
				out = append(out, fmt.Sprintf("%q (x %.1f–%.1f, y %.1f–%.1f) and %q (x %.1f–%.1f, y %.1f–%.1f)",
					a.s, a.min.X, a.max.X, a.min.Y, a.max.Y, b.s, b.min.X, b.max.X, b.min.Y, b.max.Y))
			}
		}
	}
	return out
}

// eventGraphTexts draws d as the report does and returns its texts.
func eventGraphTexts(d *EventGraphData) []drawnText {
	rec := &recorder.Canvas{}
	eventGraphPlot(d)(draw.NewCanvas(rec, vg.Points(680), vg.Points(float64(40+400*len(d.Panels)))))
	return recordedTexts(rec)
}

// The event graph's labels never overlap, measured as drawn: on crowded
// random graphs (a fixed seed), every two texts are at least egClear (1
// point) apart vertically or side by side with room for an egWiden (10%)
// wider font. (400 graphs passed; 60 keep the test fast.)
func TestEventGraphLabelsDoNotOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 4))
	bad := 0
	for i := range 60 {
		d := randomEventGraph(rng, 3+rng.IntN(5), 10+rng.IntN(14))
		clashes := EventGraphClashes(d)
		if len(clashes) > 0 {
			bad++
			if bad <= 3 {
				t.Errorf("graph %d: %d clashes, e.g. %s", i, len(clashes), clashes[0])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 60 graphs have overlapping texts", bad)
	}
}

// A window mostly empty between two bursts of events gets its empty
// stretch compressed (before, RandTree's join race at 15 ms and
// the next joins at 50 ms left most of the graph blank); evenly spread
// events get none.
func TestEventGraphGap(t *testing.T) {
	burst := func(ts ...float64) *EventGraphData {
		d := &EventGraphData{Panels: []EGPanel{{}}}
		for i, x := range ts {
			d.Panels[0].Events = append(d.Panels[0].Events, EGEvent{Step: i, Start: x, End: x + 1e-4})
		}
		return d
	}
	g := eventGraphGap(burst(0, 0.011, 0.013, 0.015, 0.050, 0.051), -0.002, 0.053)
	if g == nil || g.a < 0.0151 || g.a > 0.02 || g.b > 0.05 || g.b < 0.045 {
		t.Fatalf("gap %+v, want one between 15 and 50 ms", g)
	}
	// One scale on both sides: the events' stretches keep their ratio.
	lo, end := -0.002, 0.053
	below := g.Normalize(lo, end, g.a) - g.Normalize(lo, end, lo)
	above := g.Normalize(lo, end, end) - g.Normalize(lo, end, g.b)
	if r := (below / above) / ((g.a - lo) / (end - g.b)); r < 0.99 || r > 1.01 {
		t.Errorf("the two sides are drawn at scales %.3f apart", r)
	}
	if g := eventGraphGap(burst(0, 0.01, 0.02, 0.03, 0.04, 0.05), -0.002, 0.053); g != nil {
		t.Errorf("evenly spread events got a gap %+v", g)
	}
}

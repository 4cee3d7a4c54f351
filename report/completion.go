package report

import (
	"fmt"
	"math"

	"github.com/macepc/macepc/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CompletionData feeds the per-node completion plot. A node's completion
// time is the end (start + duration) of the last event it executed before
// the execution stopped: when it last did anything. It needs no knowledge
// of the protocol, and for a join protocol such as RandTree it is when the
// node last acted to join or to repair the tree. A protocol whose nodes go
// on working after their part is done (a Bullet′ receiver serves blocks
// after it has the file) notes timedsim.NoteDone on the event that
// completes a node's part, and that event's end is the completion time.
type CompletionData struct {
	Anomalous *float64         `json:"anomalous"` // execution times, s
	Similar   *float64         `json:"similar"`
	Nodes     []NodeCompletion `json:"nodes"`
}

// NodeCompletion is one node's completion time in both executions (nil:
// the node executed no event).
type NodeCompletion struct {
	Node      int      `json:"node"`
	Anomalous *float64 `json:"anomalous"`
	Similar   *float64 `json:"similar"`
}

// NewCompletionData extracts the per-node completion data from
// divergence-events.json.
func NewCompletionData(r *Results) (*CompletionData, string) {
	ev := r.Events
	if ev == nil {
		return nil, missingEvents(r)
	}
	d := &CompletionData{}
	for _, ex := range ev.Executions {
		t := secsNS(ex.ExecTimeNS)
		var dst func(n *NodeCompletion, v *float64)
		switch ex.Name {
		case "anomalous":
			d.Anomalous = &t
			dst = func(n *NodeCompletion, v *float64) { n.Anomalous = v }
		case "similar":
			d.Similar = &t
			dst = func(n *NodeCompletion, v *float64) { n.Similar = v }
		default:
			continue
		}
		for i, ns := range ex.NodeLastNS {
			for len(d.Nodes) <= i {
				d.Nodes = append(d.Nodes, NodeCompletion{Node: len(d.Nodes)})
			}
			if ns >= 0 {
				v := secsNS(ns)
				dst(&d.Nodes[i], &v)
			}
		}
	}
	if len(d.Nodes) == 0 {
		return nil, "the executions have no nodes"
	}
	return d, ""
}

func missingEvents(r *Results) string {
	switch {
	case r.Divergence == nil && r.Search != nil && r.Search.Anomaly == nil:
		return "no anomaly was found, so there are no executions to compare"
	case r.Divergence == nil:
		return "no divergence search (phase 3a did not run)"
	default:
		return "no " + results.FileEvents + " in this results directory (written by macepc versions after the report was added): run 'macepc diverge' again"
	}
}

func completionFigure(r *Results) Figure {
	d, why := NewCompletionData(r)
	f := Figure{Title: "Per-node completion time: anomalous vs similar fast execution", Missing: why, W: vg.Points(640), H: vg.Points(300)}
	if d != nil {
		f.Data = d
		f.Guide = "For every node, when it last executed an event (the end of its last handler) before the execution stopped: red crosses for the anomalous execution, green circles for the similar fast one, with each execution's end as a line. " +
			"It is defined without knowing the protocol; in a join protocol it is when the node last acted to join or to repair the overlay. " + completionReading(d)
	}
	return finish(f, func() func(draw.Canvas) { return completionPlot(d) })
}

// completionReading names the nodes that finish late in the anomalous
// execution only.
func completionReading(d *CompletionData) string {
	if d.Anomalous == nil || d.Similar == nil {
		return "Only the anomalous execution is shown: no walk recovered, so there is no similar fast execution."
	}
	// Late: more than 10% after the fast execution's end.
	limit := *d.Similar * 1.1
	var late []string
	for _, n := range d.Nodes {
		if n.Anomalous != nil && *n.Anomalous > limit {
			late = append(late, fmt.Sprintf("n%d (%s)", n.Node, fmtSec(*n.Anomalous)))
		}
	}
	if len(late) == 0 {
		return fmt.Sprintf("No node of the anomalous execution acts more than 10%% after the fast execution's end (%s): the extra time is spent waiting.", fmtSec(*d.Similar))
	}
	if len(late) > 6 {
		return fmt.Sprintf("%d of %d nodes act more than 10%% after the fast execution's end (%s): the slowness involves most of the system.", len(late), len(d.Nodes), fmtSec(*d.Similar))
	}
	return fmt.Sprintf("In the anomalous execution only %s act more than 10%% after the fast execution's end (%s); every other node was done by then: look at what these nodes wait for.",
		joinAnd(late), fmtSec(*d.Similar))
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
			out = x
		case i == len(xs)-1:
			out += " and " + x
		default:
			out += ", " + x
		}
	}
	return out
}

func completionPlot(d *CompletionData) func(draw.Canvas) {
	p := newPlot("", "node", "completion time (s)")
	p.Add(plotter.NewGrid())
	var a, s plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, n := range d.Nodes {
		if n.Anomalous != nil {
			a = append(a, plotter.XY{X: float64(n.Node), Y: *n.Anomalous})
			lo, hi = math.Min(lo, *n.Anomalous), math.Max(hi, *n.Anomalous)
		}
		if n.Similar != nil {
			s = append(s, plotter.XY{X: float64(n.Node), Y: *n.Similar})
			lo, hi = math.Min(lo, *n.Similar), math.Max(hi, *n.Similar)
		}
	}
	for _, v := range []*float64{d.Anomalous, d.Similar} {
		if v != nil {
			lo, hi = math.Min(lo, *v), math.Max(hi, *v)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	nn := float64(len(d.Nodes))
	p.X.Min, p.X.Max = -0.7, nn-0.3
	var ts []plot.Tick
	step := max(1, int(math.Ceil(nn/32)))
	for i := range d.Nodes {
		t := plot.Tick{Value: float64(i)}
		if i%step == 0 {
			t.Label = fmt.Sprintf("n%d", i)
		}
		ts = append(ts, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ts)
	p.X.Tick.Label.Font.Size = vg.Points(7)
	if lo > 0 && hi/lo > 5 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logSecTicks{}
		p.Y.Min, p.Y.Max = lo/1.3, hi*3
	} else {
		span := math.Max(hi-lo, math.Max(hi*0.02, 1e-9))
		p.Y.Min, p.Y.Max = math.Max(0, lo-0.1*span), hi+0.3*span
		p.Y.Tick.Marker = secTicks{}
	}
	if d.Anomalous != nil {
		l := hline(*d.Anomalous, p.X.Min, p.X.Max, colAnomaly, 1, vg.Points(4), vg.Points(2))
		p.Add(l)
		p.Legend.Add("anomalous execution ends "+fmtSec(*d.Anomalous), l)
	}
	if d.Similar != nil {
		l := hline(*d.Similar, p.X.Min, p.X.Max, colSimilar, 1, vg.Points(4), vg.Points(2))
		p.Add(l)
		p.Legend.Add("similar fast execution ends "+fmtSec(*d.Similar), l)
	}
	if len(s) > 0 {
		sc, _ := plotter.NewScatter(s)
		sc.GlyphStyle = draw.GlyphStyle{Color: colSimilar, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
		p.Add(sc)
		p.Legend.Add("node, similar fast execution", sc)
	}
	if len(a) > 0 {
		sc, _ := plotter.NewScatter(a)
		sc.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		p.Add(sc)
		p.Legend.Add("node, anomalous execution", sc)
	}
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(4)
	return p.Draw
}

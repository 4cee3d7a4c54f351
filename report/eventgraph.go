package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The event graph shows the steps [divergence-graphBefore,
// divergence+graphAfter) of both executions.
const (
	graphBefore = 4
	graphAfter  = 12
)

// EventGraphData feeds the event graph (message sequence chart) around the
// divergence point.
type EventGraphData struct {
	Step     int `json:"step"`
	FromStep int `json:"from_step"`
	ToStep   int `json:"to_step"`
	// Nodes are the columns: every node with an event, a sender or a
	// destination in the window of either execution.
	Nodes   []int     `json:"nodes"`
	TimeMin float64   `json:"time_min"`
	TimeMax float64   `json:"time_max"`
	Panels  []EGPanel `json:"panels"`
}

// EGPanel is one execution's part of the event graph.
type EGPanel struct {
	Name     string      `json:"name"`
	ExecTime float64     `json:"exec_time"`
	Events   []EGEvent   `json:"events"`
	Messages []EGMessage `json:"messages"`
}

// EGEvent is one executed event. Kind is deliver, timer, app, error,
// reset or other.
type EGEvent struct {
	Step  int     `json:"step"`
	Node  int     `json:"node"`
	Kind  string  `json:"kind"`
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// EGMessage is a message sent by an event of the window: Arrive is nil
// for a failed send or a dropped datagram (Status says which).
type EGMessage struct {
	Step   int      `json:"step"`
	From   int      `json:"from"`
	To     int      `json:"to"`
	Type   string   `json:"type"`
	Status string   `json:"status"`
	Depart float64  `json:"depart"`
	Arrive *float64 `json:"arrive"`
}

// NewEventGraphData extracts the event graph's data from
// divergence-events.json.
func NewEventGraphData(r *Results) (*EventGraphData, string) {
	ev := r.Events
	if ev == nil {
		return nil, missingEvents(r)
	}
	if ev.Step < 0 {
		return nil, "no walk recovers even from the start: there is no divergence point to draw around"
	}
	d := &EventGraphData{Step: ev.Step, FromStep: max(ev.FromStep, ev.Step-graphBefore), ToStep: min(ev.ToStep, ev.Step+graphAfter),
		TimeMin: math.Inf(1), TimeMax: math.Inf(-1)}
	// Steps before the divergence point are shown only when they are
	// closer to it in time than half of what follows it (the start-up
	// events at time 0 would squeeze the race into a thin band).
	tDiv, tAfter := math.Inf(1), math.Inf(-1)
	for _, ex := range ev.Executions {
		for _, e := range ex.Events {
			if e.Step == ev.Step {
				tDiv = math.Min(tDiv, secsNS(e.StartNS))
			}
			if e.Step >= ev.Step && e.Step < d.ToStep {
				tAfter = math.Max(tAfter, secsNS(e.StartNS+e.DurationNS))
			}
		}
	}
	earliest := math.Inf(-1)
	if !math.IsInf(tDiv, 0) && !math.IsInf(tAfter, 0) {
		earliest = tDiv - 0.5*(tAfter-tDiv)
	}
	nodes := map[int]bool{}
	for _, ex := range ev.Executions {
		pn := EGPanel{Name: ex.Name, ExecTime: secsNS(ex.ExecTimeNS), Events: []EGEvent{}, Messages: []EGMessage{}}
		for _, e := range ex.Events {
			if e.Step < d.FromStep || e.Step >= d.ToStep || (e.Step < ev.Step && secsNS(e.StartNS) < earliest) {
				continue
			}
			start, end := secsNS(e.StartNS), secsNS(e.StartNS+e.DurationNS)
			d.TimeMin, d.TimeMax = math.Min(d.TimeMin, start), math.Max(d.TimeMax, end)
			nodes[e.Node] = true
			kind, short := eventKind(e.Label)
			txt := fmt.Sprintf("%d %s", e.Step, short)
			if kind == "deliver" && e.From >= 0 {
				nodes[e.From] = true
			}
			for _, t := range e.Timers {
				if t.Cancel {
					txt += " −" + t.Name
				} else {
					txt += fmt.Sprintf(" +%s@%s", t.Name, trimSec(secsNS(t.AtNS)))
				}
			}
			pn.Events = append(pn.Events, EGEvent{Step: e.Step, Node: e.Node, Kind: kind, Text: txt, Start: start, End: end})
			for _, s := range e.Sends {
				nodes[s.To] = true
				m := EGMessage{Step: e.Step, From: e.Node, To: s.To, Type: s.Type, Status: s.Status, Depart: end}
				if s.Status == "sent" {
					a := secsNS(s.ArriveNS)
					m.Arrive = &a
				}
				pn.Messages = append(pn.Messages, m)
			}
		}
		d.Panels = append(d.Panels, pn)
	}
	if len(nodes) == 0 {
		return nil, "the executions have no events around the divergence point"
	}
	d.FromStep = d.ToStep
	for _, pn := range d.Panels {
		for _, e := range pn.Events {
			d.FromStep = min(d.FromStep, e.Step)
		}
	}
	for n := range nodes {
		d.Nodes = append(d.Nodes, n)
	}
	slices.Sort(d.Nodes)
	return d, ""
}

// eventKind classifies an event label and shortens it for the graph.
func eventKind(label string) (kind, short string) {
	switch {
	case strings.HasPrefix(label, "deliver "):
		return "deliver", strings.TrimPrefix(label, "deliver ")
	case strings.HasPrefix(label, "timer "):
		return "timer", label
	case strings.HasPrefix(label, "error "):
		return "error", label
	case strings.HasPrefix(label, "app "):
		return "app", label
	case label == "reset":
		return "reset", "RESET"
	}
	return "other", label
}

// trimSec prints seconds with 3 decimals ("10.000s").
func trimSec(v float64) string { return fmt.Sprintf("%.3fs", v) }

func eventGraphFigure(r *Results) Figure {
	d, why := NewEventGraphData(r)
	f := Figure{ID: "eventgraph", Title: "Event graph around the divergence point", Missing: why, W: vg.Points(680)}
	if d != nil {
		f.Data = d
		f.H = vg.Points(float64(40 + 400*len(d.Panels)))
		f.Guide = fmt.Sprintf("A message sequence chart of steps %d to %d of both executions (they share every step before %d): one column per node (only the %d nodes involved), simulated time running downwards. "+
			"A dot is an event with its step and label (+name@time: a timer set, −name: a timer cancelled); the red ring marks the divergence step %d. "+
			"An arrow is a message from the end of the handler that sent it to its arrival; a dashed arrow ending at the bottom edge arrives later than the window (the time is written there). "+
			"A red ✕ stub is a failed send (a full transport queue, an unreachable peer), a grey dashed arrow ending in ✕ a dropped datagram, a black ✕ a node reset, an orange diamond a transport error upcall, a square a timer firing. "+
			"Compare the two charts from the red ring down: the first event that differs is the race.",
			d.FromStep, d.ToStep-1, d.Step, len(d.Nodes), d.Step)
	}
	return finish(f, func() func(draw.Canvas) { return eventGraphPlot(d) })
}

func eventGraphPlot(d *EventGraphData) func(draw.Canvas) {
	tmin, tmax := d.TimeMin, d.TimeMax
	span := tmax - tmin
	if span <= 0 {
		span = math.Max(math.Abs(tmax)*0.01, 1e-6)
	}
	tmin, tmax = tmin-0.04*span, tmax+0.08*span
	col := map[int]int{}
	var ticks []plot.Tick
	for i, n := range d.Nodes {
		col[n] = i
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: fmt.Sprintf("n%d", n)})
	}
	var rows [][]*plot.Plot
	for _, pn := range d.Panels {
		title := fmt.Sprintf("%s execution (%s)", pn.Name, fmtSec(pn.ExecTime))
		if pn.Name == "similar" {
			title = fmt.Sprintf("similar fast execution (%s)", fmtSec(pn.ExecTime))
		}
		p := newPlot(title, "", "simulated time (s)")
		switch pn.Name {
		case "anomalous":
			p.Title.TextStyle.Color = colAnomaly
		case "similar":
			p.Title.TextStyle.Color = colSimilar
		}
		p.X.Min, p.X.Max = -0.5, float64(len(d.Nodes))+1.1
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Y.Min, p.Y.Max = tmin, tmax
		p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
		p.Y.Tick.Marker = secTicks{}
		p.Add(&egPlotter{d: d, pn: pn, col: col, tmin: tmin, tmax: tmax})
		rows = append(rows, []*plot.Plot{p})
	}
	return tiled(rows, 0, vg.Points(14))
}

// egPlotter draws one panel of the event graph.
type egPlotter struct {
	d          *EventGraphData
	pn         EGPanel
	col        map[int]int
	tmin, tmax float64
}

func (g *egPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	life := draw.LineStyle{Color: colLight, Width: vg.Points(1)}
	for i := range g.d.Nodes {
		x := trX(float64(i))
		c.StrokeLine2(life, x, trY(g.tmin), x, trY(g.tmax))
	}
	small := text.Style{Color: colorBlack, Font: font.From(sansFont, 6.5), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.TextHandler}
	// Messages under the events.
	msgCol := color.RGBA{R: 0x34, G: 0x49, B: 0x5e, A: 0xff}
	for _, m := range g.pn.Messages {
		x0, y0 := trX(float64(g.col[m.From])), trY(m.Depart)
		x1 := trX(float64(g.col[m.To]))
		switch {
		case m.Arrive != nil && *m.Arrive <= g.tmax:
			arrow(&c, draw.LineStyle{Color: msgCol, Width: vg.Points(0.8)}, x0, y0, x1, trY(*m.Arrive))
		case m.Arrive != nil:
			y1 := trY(g.tmax)
			arrow(&c, draw.LineStyle{Color: msgCol, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}, x0, y0, x1, y1)
			st := small
			st.XAlign, st.YAlign = draw.XCenter, draw.YTop
			st.Color = msgCol
			c.FillText(st, vg.Point{X: x1, Y: y1 - vg.Points(2)}, fmt.Sprintf("%s %s", m.Type, trimSec(*m.Arrive)))
		case m.Status == "dropped":
			xm, ym := (x0+x1)/2, y0-vg.Points(14)
			c.StrokeLine2(draw.LineStyle{Color: colMuted, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}, x0, y0, xm, ym)
			c.DrawGlyph(draw.GlyphStyle{Color: colMuted, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}, vg.Point{X: xm, Y: ym})
		default: // queue-full, unreachable: the send failed at once
			dir := vg.Length(1)
			if x1 < x0 {
				dir = -1
			}
			xe := x0 + dir*vg.Points(18)
			c.StrokeLine2(draw.LineStyle{Color: colAnomaly, Width: vg.Points(1)}, x0, y0, xe, y0)
			c.DrawGlyph(draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}, vg.Point{X: xe, Y: y0})
			st := small
			st.Color = colAnomaly
			st.YAlign = draw.YTop
			c.FillText(st, vg.Point{X: xe + vg.Points(3), Y: y0 - vg.Points(2)}, fmt.Sprintf("%s to n%d: %s", m.Type, m.To, m.Status))
		}
	}
	// Events, with their labels pushed down when they would overlap.
	lastY := map[int]vg.Length{}
	for _, e := range g.pn.Events {
		x, y := trX(float64(g.col[e.Node])), trY(e.Start)
		gs := draw.GlyphStyle{Color: colNormal, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		switch e.Kind {
		case "timer":
			gs.Shape = draw.SquareGlyph{}
			gs.Color = colQuartile
		case "app":
			gs.Color = colQuartile
		case "error":
			gs.Shape = diamondGlyph{}
			gs.Color = colThreshold
			gs.Radius = vg.Points(3.5)
		case "reset":
			gs.Shape = draw.CrossGlyph{}
			gs.Color = colorBlack
			gs.Radius = vg.Points(5)
		}
		c.DrawGlyph(gs, vg.Point{X: x, Y: y})
		if e.Step == g.d.Step {
			c.DrawGlyph(draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(6), Shape: draw.RingGlyph{}}, vg.Point{X: x, Y: y})
		}
		ly := y
		if prev, ok := lastY[e.Node]; ok && prev-ly < vg.Points(8) {
			ly = prev - vg.Points(8)
		}
		lastY[e.Node] = ly
		st := small
		if e.Step == g.d.Step {
			st.Color = colAnomaly
		}
		c.FillText(st, vg.Point{X: x + vg.Points(5), Y: ly}, e.Text)
	}
}

// arrow strokes a line with a filled head at its end.
func arrow(c *draw.Canvas, ls draw.LineStyle, x0, y0, x1, y1 vg.Length) {
	c.StrokeLine2(ls, x0, y0, x1, y1)
	dx, dy := float64(x1-x0), float64(y1-y0)
	l := math.Hypot(dx, dy)
	if l < 1e-6 {
		return
	}
	ux, uy := dx/l, dy/l
	const hl, hw = 5.0, 2.2
	bx, by := float64(x1)-ux*hl, float64(y1)-uy*hl
	c.FillPolygon(ls.Color, []vg.Point{
		{X: x1, Y: y1},
		{X: vg.Length(bx - uy*hw), Y: vg.Length(by + ux*hw)},
		{X: vg.Length(bx + uy*hw), Y: vg.Length(by - ux*hw)},
	})
}

// diamondGlyph is a filled diamond.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	c.FillPolygon(sty.Color, []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}})
}

var _ plot.Plotter = (*egPlotter)(nil)

package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// The event graph shows the steps [divergence-graphBefore,
// divergence+graphAfter) of both executions, extended to graphPastDiff
// steps past the first step at which they differ, at most graphMaxSteps
// steps in all.
const (
	graphBefore   = 4
	graphAfter    = 12
	graphPastDiff = 4
	graphMaxSteps = 24
)

// EventGraphData feeds the event graph (message sequence chart) around the
// divergence point.
type EventGraphData struct {
	Step     int `json:"step"`
	FromStep int `json:"from_step"`
	ToStep   int `json:"to_step"`
	// FirstDiff is the first step from the divergence point on at which
	// the two executions run different events (node, label or sender),
	// -1 when they do not differ in divergence-events.json's window.
	FirstDiff int `json:"first_diff"`
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
// reset or other; Text is the step, the short label, the timers set
// (+name@time) or cancelled (−name) and the handler's notes ([note]).
type EGEvent struct {
	Step  int     `json:"step"`
	Node  int     `json:"node"`
	Kind  string  `json:"kind"`
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// From is the sender of a delivered message (-1 for other events);
	// SentBefore says that no message of the window matches the delivery
	// (same sender, type, arrival no later than the delivery): it was sent
	// before the window.
	From       int  `json:"from"`
	SentBefore bool `json:"sent_before"`
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

// firstDiff is the first step in [step, to) at which two executions run
// different events (timedsim.FirstDifferentEvent: node, sender or label;
// an execution that has ended differs from one that goes on), -1 if none:
// the step explore.html marks too.
func firstDiff(a, b results.EventsExec, step, to int) int {
	keys := func(ex results.EventsExec) []timedsim.EventKey {
		m := map[int]timedsim.EventKey{}
		for _, e := range ex.Events {
			m[e.Step] = timedsim.EventKey{Node: timedsim.NodeID(e.Node), From: timedsim.NodeID(e.From), Label: e.Label}
		}
		var out []timedsim.EventKey
		for s := step; s < to; s++ {
			k, ok := m[s]
			if !ok {
				break
			}
			out = append(out, k)
		}
		return out
	}
	if d := timedsim.FirstDifferentEvent(keys(a), keys(b)); d >= 0 {
		return step + d
	}
	return -1
}

// graphWindow is the steps [from, to) the event graph shows: graphBefore
// steps before the divergence point to graphAfter steps after it, or
// further to show graphPastDiff steps from the first difference, at most
// graphMaxSteps steps (then the steps before the divergence point go
// first, and the divergence point itself when the difference is far).
func graphWindow(step, diff, fileFrom, fileTo int) (from, to int) {
	from, to = step-graphBefore, step+graphAfter
	if diff >= 0 {
		to = max(to, diff+graphPastDiff)
	}
	if to-from > graphMaxSteps {
		from = to - graphMaxSteps
	}
	return max(from, fileFrom), min(to, fileTo)
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
	diff := -1
	if len(ev.Executions) == 2 {
		diff = firstDiff(ev.Executions[0], ev.Executions[1], ev.Step, ev.ToStep)
	}
	from, to := graphWindow(ev.Step, diff, ev.FromStep, ev.ToStep)
	d := &EventGraphData{Step: ev.Step, FromStep: from, ToStep: to, FirstDiff: diff, TimeMin: math.Inf(1), TimeMax: math.Inf(-1)}
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
		var types []string // of pn.Events: the delivered message's type
		for _, e := range ex.Events {
			if e.Step < d.FromStep || e.Step >= d.ToStep || (e.Step < ev.Step && secsNS(e.StartNS) < earliest) {
				continue
			}
			start, end := secsNS(e.StartNS), secsNS(e.StartNS+e.DurationNS)
			d.TimeMin, d.TimeMax = math.Min(d.TimeMin, start), math.Max(d.TimeMax, end)
			nodes[e.Node] = true
			kind, short := eventKind(e.Label)
			txt := fmt.Sprintf("%d %s", e.Step, short)
			from := -1
			if kind == "deliver" && e.From >= 0 {
				nodes[e.From] = true
				from = e.From
			}
			for _, t := range e.Timers {
				if t.Cancel {
					txt += " −" + t.Name
				} else {
					txt += fmt.Sprintf(" +%s@%s", t.Name, trimSec(secsNS(t.AtNS)))
				}
			}
			for _, n := range e.Notes {
				txt += " [" + n + "]"
			}
			pn.Events = append(pn.Events, EGEvent{Step: e.Step, Node: e.Node, Kind: kind, Text: txt, Start: start, End: end, From: from})
			types = append(types, short)
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
		markSentBefore(&pn, types)
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

// markSentBefore flags the deliveries no message of the window accounts
// for: each delivery (types: the message type of each event) takes the
// earliest unclaimed message of its sender, destination and type that
// arrived by its start.
func markSentBefore(pn *EGPanel, types []string) {
	claimed := make([]bool, len(pn.Messages))
	for i := range pn.Events {
		e := &pn.Events[i]
		if e.Kind != "deliver" || e.From < 0 {
			continue
		}
		typ := types[i]
		best := -1
		for j, m := range pn.Messages {
			if claimed[j] || m.Arrive == nil || m.From != e.From || m.To != e.Node || m.Type != typ || *m.Arrive > e.Start+1e-12 {
				continue
			}
			if best < 0 || *m.Arrive < *pn.Messages[best].Arrive {
				best = j
			}
		}
		if best >= 0 {
			claimed[best] = true
		} else {
			e.SentBefore = true
		}
	}
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

// trimSec prints a point in simulated time (a timer's) in seconds with
// 3 decimals ("10.012s"): a time, not a duration, so that timers set in
// one window compare at a glance.
func trimSec(v float64) string { return fmt.Sprintf("%.3fs", v) }

func eventGraphFigure(r *Results) Figure {
	d, why := NewEventGraphData(r)
	f := Figure{Title: "Event graph around the divergence point", Missing: why, W: vg.Points(680)}
	if d != nil {
		f.Data = d
		f.H = vg.Points(float64(40 + 400*len(d.Panels)))
		differ := "Compare the two charts from the red ring down: the first event that differs is the race."
		switch {
		case len(d.Panels) < 2:
		case d.FirstDiff < 0:
			differ = fmt.Sprintf("The two executions run the same events (nodes, labels and senders) up to step %d: they differ only in timing.", d.ToStep-1)
		case d.FirstDiff < d.ToStep:
			differ = fmt.Sprintf("The orange ring marks step %d, the first at which the two executions run different events: from there on they part.", d.FirstDiff)
			if d.FromStep > d.Step {
				differ += fmt.Sprintf(" The divergence step %d lies above the window (steps %d to %d): the chart shows the first difference instead.", d.Step, d.Step, d.FromStep-1)
			}
		}
		f.Guide = fmt.Sprintf("A message sequence chart of steps %d to %d of both executions (they share every step before %d): one column per node (only the %d nodes involved), simulated time running downwards. "+
			"A dot is an event with its step and label (+name@time: a timer set, −name: a timer cancelled; a label that would run into its neighbour ends in …, the full log is in the diff below); the red ring marks the divergence step %d. "+
			"An arrow is a message from the end of the handler that sent it to its arrival; a short dotted arrow with a node name is a delivery of a message that node sent before the window. "+
			"A dashed arrow ending at the line at the bottom arrives after the window: its type and arrival time are written below that line. "+
			"A red ✕ stub is a failed send (a full transport queue, an unreachable peer), a grey dashed arrow ending in ✕ a dropped datagram, a black ✕ a node reset, an orange diamond a transport error upcall, a square a timer firing. %s",
			d.FromStep, d.ToStep-1, d.Step, len(d.Nodes), d.Step, differ)
	}
	return finish(f, func() func(draw.Canvas) { return eventGraphPlot(d) })
}

// The event graph's text: egFont points, late arrivals in rows of egRowH
// points.
const (
	egFont  = 6.5
	egRowH  = 8.5
	egSpace = 3.0 // points between texts
)

func eventGraphPlot(d *EventGraphData) func(draw.Canvas) {
	span := d.TimeMax - d.TimeMin
	if span <= 0 {
		span = math.Max(math.Abs(d.TimeMax)*0.01, 1e-3)
	}
	lo, end := d.TimeMin-0.04*span, d.TimeMax+0.04*span
	tickMin := math.Inf(-1) // no negative times on the axis
	if d.TimeMin >= 0 {
		tickMin = 0
	}
	col := map[int]int{}
	var ticks []plot.Tick
	for i, n := range d.Nodes {
		col[n] = i
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: fmt.Sprintf("n%d", n)})
	}
	var axis []float64
	for _, t := range (secTicks{}).Ticks(lo, end) {
		if t.Label != "" {
			axis = append(axis, t.Value)
		}
	}
	axisPrec := max(tickPrecision(axis, end-lo), 0)
	gap := eventGraphGap(d, lo, end)
	var rows [][]*plot.Plot
	var gs []*egPlotter
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
		p.Y.Min, p.Y.Max = lo, end
		p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
		p.Y.Tick.Marker = clipTicks{Ticker: secTicks{}, min: tickMin, max: end}
		if gap != nil {
			p.Y.Scale = invertedGap{gap} // not plot.InvertedScale: it swaps min and max, which a gapScale cannot take
			p.Y.Tick.Marker = clipTicks{Ticker: secTicks{}, min: tickMin, max: end, gapLo: gap.a, gapHi: gap.b}
			p.Add(yGapMark{gap})
		}
		g := &egPlotter{d: d, pn: pn, col: col, tmin: lo, end: end, prec: arrivalPrecision(pn, end, axisPrec+1)}
		p.Add(g)
		rows = append(rows, []*plot.Plot{p})
		gs = append(gs, g)
	}
	return func(c draw.Canvas) {
		// Reserve a band under the window for the rows of late-arrival
		// labels: the rows depend on the columns' positions, which depend
		// on the y axis' tick labels, so lay out twice.
		// Every panel gets the largest band, so that they share one time
		// scale.
		for range 2 {
			cs := alignTiles(rows, c, 0, vg.Points(14), nil)
			n := 0
			for i, r := range rows {
				n = max(n, gs[i].lateRows(r[0].DataCanvas(cs[i][0]), r[0]))
			}
			band := vg.Length(0)
			if n > 0 {
				band = vg.Points(float64(n)*egRowH + egSpace)
			}
			for i, r := range rows {
				dc := r[0].DataCanvas(cs[i][0])
				h := dc.Max.Y - dc.Min.Y
				r[0].Y.Max = lo + (end-lo)*float64(h/(h-min(band, h/2)))
			}
		}
		cs := alignTiles(rows, c, 0, vg.Points(14), nil)
		for i, r := range rows {
			r[0].Draw(cs[i][0])
		}
	}
}

// clipTicks drops the ticks outside [min, max] (the band of late-arrival
// labels below the window's end is not a time scale, and time does not
// go below 0).
type clipTicks struct {
	plot.Ticker
	min, max float64
	// gapLo and gapHi, when gapHi > gapLo, are a compressed stretch of
	// the axis (eventGraphGap) whose ticks would crowd: they are dropped.
	gapLo, gapHi float64
}

func (t clipTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, x := range t.Ticker.Ticks(lo, hi) {
		if x.Value >= t.min && x.Value <= t.max && (t.gapHi <= t.gapLo || x.Value <= t.gapLo || x.Value >= t.gapHi) {
			out = append(out, x)
		}
	}
	return out
}

// eventGraphGap compresses the longest stretch of the time axis in which
// no panel has an event, when it is more than egGapShare of the window
// (before, RandTree's window was mostly empty between its join race at
// 15 ms and the next joins at 50 ms): the gap gets egGapWidth of the
// height and the events the rest, at one scale. nil when no stretch is
// that long.
func eventGraphGap(d *EventGraphData, lo, end float64) *gapScale {
	var ts []float64
	for _, pn := range d.Panels {
		for _, e := range pn.Events {
			ts = append(ts, e.Start, e.End)
		}
		for _, m := range pn.Messages {
			if m.Arrive != nil && *m.Arrive <= end {
				ts = append(ts, *m.Arrive)
			}
		}
	}
	if len(ts) < 2 || end <= lo {
		return nil
	}
	slices.Sort(ts)
	a, b := 0.0, 0.0
	for i := 1; i < len(ts); i++ {
		if ts[i]-ts[i-1] > b-a {
			a, b = ts[i-1], ts[i]
		}
	}
	if b-a < egGapShare*(end-lo) {
		return nil
	}
	pad := 0.04 * ((a - lo) + (end - b))
	a, b = a+pad, b-pad
	if b <= a {
		return nil
	}
	// The events' share of the height, split so that both sides keep
	// one scale.
	at := (1 - egGapWidth) * (a - lo) / ((a - lo) + (end - b))
	return &gapScale{a: a, b: b, at: at, w: egGapWidth}
}

// The event graph's compressed gap: the share of the window it must
// exceed, and the share of the height it keeps.
const (
	egGapShare = 0.4
	egGapWidth = 0.05
)

// invertedGap is a gapScale with time running down the axis.
type invertedGap struct{ g *gapScale }

func (s invertedGap) Normalize(min, max, x float64) float64 { return 1 - s.g.Normalize(min, max, x) }

// yGapMark marks a compressed stretch of the time axis with two slashes
// across the y axis.
type yGapMark struct{ g *gapScale }

func (m yGapMark) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := (trY(m.g.a) + trY(m.g.b)) / 2
	ls := draw.LineStyle{Color: colorBlack, Width: vg.Points(1)}
	for _, dy := range []vg.Length{-2, 2} {
		c.StrokeLine2(ls, c.Min.X-vg.Points(5), y+dy-vg.Points(2.5), c.Min.X+vg.Points(5), y+dy+vg.Points(2.5))
	}
}

// arrivalPrecision is the decimals that tell apart the arrival times
// (whole nanoseconds) written under a panel: at least min, at most 9
// (trailing zeros are then dropped). They may print rounded.
func arrivalPrecision(pn EGPanel, end float64, min int) int {
	ns := map[int64]bool{}
	var vs []float64
	for _, m := range pn.Messages {
		if m.Arrive == nil || *m.Arrive <= end {
			continue
		}
		if n := int64(math.Round(*m.Arrive * 1e9)); !ns[n] {
			ns[n] = true
			vs = append(vs, float64(n)/1e9)
		}
	}
	if p, ok := decimals(vs, min, 9, math.Inf(1)); ok {
		return p
	}
	return 9
}

// egPlotter draws one panel of the event graph.
type egPlotter struct {
	d   *EventGraphData
	pn  EGPanel
	col map[int]int
	// tmin is the top of the panel, end the window's end: messages that
	// arrive later end there, their labels are written below it.
	tmin, end float64
	prec      int // decimals of the late arrival times
}

// lateLabel is the label of a message arriving after the window, laid
// out in a row under it.
type lateLabel struct {
	x    vg.Length // centre
	row  int
	text string
}

func (g *egPlotter) textStyle(p *plot.Plot) text.Style {
	return text.Style{Color: colorBlack, Font: font.From(sansFont, egFont), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.TextHandler}
}

// layoutLate places the late arrivals' labels under their destination
// columns, each in the first row where it does not touch another, inside
// the panel's width.
func (g *egPlotter) layoutLate(c draw.Canvas, p *plot.Plot) []lateLabel {
	trX, _ := p.Transforms(&c)
	st := g.textStyle(p)
	var out []lateLabel
	for _, m := range g.pn.Messages {
		if m.Arrive == nil || *m.Arrive <= g.end {
			continue
		}
		t := strconv.FormatFloat(*m.Arrive, 'f', g.prec, 64)
		if strings.Contains(t, ".") {
			t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
		}
		out = append(out, lateLabel{x: trX(float64(g.col[m.To])), text: fmt.Sprintf("%s %ss", m.Type, t)})
	}
	slices.SortStableFunc(out, func(a, b lateLabel) int { return cmp.Compare(a.x, b.x) })
	var rowEnd []vg.Length
	for i := range out {
		w := st.Width(out[i].text)
		x := min(max(out[i].x, c.Min.X+w/2), c.Max.X-w/2)
		out[i].x = x
		r := 0
		for r < len(rowEnd) && x-w/2 < rowEnd[r]+vg.Points(egSpace) {
			r++
		}
		if r == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[r] = x + w/2
		out[i].row = r
	}
	return out
}

// lateRows is how many rows of late-arrival labels the panel needs.
func (g *egPlotter) lateRows(c draw.Canvas, p *plot.Plot) int {
	n := 0
	for _, l := range g.layoutLate(c, p) {
		n = max(n, l.row+1)
	}
	return n
}

// colMessage is the colour of the event graph's messages.
var colMessage = color.RGBA{R: 0x34, G: 0x49, B: 0x5e, A: 0xff}

// Plot draws the panel: the nodes' lifelines, the messages, the stubs of
// messages sent before the window and the events' dots, then their texts
// laid out by egLayout so that no two overlap: the late arrivals' labels
// in their rows under the window, the events' labels, the senders' names
// of the stubs, then the failed sends' texts.
func (g *egPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	yEnd := trY(g.end)
	life := draw.LineStyle{Color: colLight, Width: vg.Points(1)}
	for i := range g.d.Nodes {
		x := trX(float64(i))
		c.StrokeLine2(life, x, trY(g.tmin), x, yEnd)
	}
	late := g.layoutLate(c, p)
	if len(late) > 0 {
		c.StrokeLine2(draw.LineStyle{Color: colMuted, Width: vg.Points(0.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, c.Min.X, yEnd, c.Max.X, yEnd)
	}
	evs := g.placeEvents(&c, p)
	lay := &egLayout{area: vg.Rectangle{Min: c.Min, Max: c.Max}}
	for _, pe := range evs {
		lay.dots = append(lay.dots, pe.dot)
	}
	failed := g.drawMessages(&c, p)
	stubs := g.drawSentBefore(&c, p)
	g.drawEvents(&c, evs)
	g.drawLate(&c, p, late, lay)
	g.drawLabels(&c, p, evs, lay)
	st := g.textStyle(p)
	st.Color = colMessage
	for _, t := range stubs {
		lay.draw(&c, st, t.at, t.text, false)
	}
	st = g.textStyle(p)
	st.Color = colAnomaly
	for _, t := range failed {
		lay.draw(&c, st, t.at, t.text, true)
	}
}

// egText is a text to lay out: where it starts (left end, vertical
// centre) if there is room.
type egText struct {
	at   vg.Point
	text string
}

// drawMessages draws the messages: an arrow to the arrival, a dashed one
// to the window's end, a dropped datagram's ✕ or a failed send's stub.
// It returns the failed sends' texts, to lay out.
func (g *egPlotter) drawMessages(c *draw.Canvas, p *plot.Plot) (texts []egText) {
	trX, trY := p.Transforms(c)
	yEnd := trY(g.end)
	for _, m := range g.pn.Messages {
		x0, y0 := trX(float64(g.col[m.From])), trY(m.Depart)
		x1 := trX(float64(g.col[m.To]))
		switch {
		case m.Arrive != nil && *m.Arrive <= g.end:
			arrow(c, draw.LineStyle{Color: colMessage, Width: vg.Points(0.8)}, x0, y0, x1, trY(*m.Arrive))
		case m.Arrive != nil:
			arrow(c, draw.LineStyle{Color: colMessage, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}, x0, y0, x1, yEnd)
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
			texts = append(texts, egText{at: vg.Point{X: xe + vg.Points(3), Y: y0 - vg.Points(2+egFont/2)}, text: fmt.Sprintf("%s to n%d: %s", m.Type, m.To, m.Status)})
		}
	}
	return texts
}

// drawLate writes the late arrivals' labels in their rows under the
// window's end, and keeps the other texts off them.
func (g *egPlotter) drawLate(c *draw.Canvas, p *plot.Plot, late []lateLabel, lay *egLayout) {
	_, trY := p.Transforms(c)
	yEnd := trY(g.end)
	st := g.textStyle(p)
	st.XAlign, st.YAlign = draw.XCenter, draw.YTop
	st.Color = colMessage
	for _, l := range late {
		pt := vg.Point{X: l.x, Y: yEnd - vg.Points(egSpace) - vg.Points(egRowH)*vg.Length(l.row)}
		c.FillText(st, pt, l.text)
		lay.boxes = append(lay.boxes, textBox(st, pt, l.text))
	}
}

// drawSentBefore draws the deliveries of messages sent before the
// window: a dotted stub from the sender's side. It returns the senders'
// names, to lay out above the stubs' ends.
func (g *egPlotter) drawSentBefore(c *draw.Canvas, p *plot.Plot) (texts []egText) {
	trX, trY := p.Transforms(c)
	st := g.textStyle(p)
	for _, e := range g.pn.Events {
		if !e.SentBefore {
			continue
		}
		x, y := trX(float64(g.col[e.Node])), trY(e.Start)
		dir := vg.Length(-1)
		if g.col[e.From] > g.col[e.Node] {
			dir = 1
		}
		sx, sy := x+dir*vg.Points(16), y+vg.Points(9)
		arrow(c, draw.LineStyle{Color: colMessage, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(1.5)}}, sx, sy, x, y)
		name := fmt.Sprintf("n%d", e.From)
		texts = append(texts, egText{at: vg.Point{X: sx - st.Width(name)/2, Y: sy + vg.Points(1+egFont/2)}, text: name})
	}
	return texts
}

// placedEvent is an event's dot and where its label would start (left
// end, vertical centre): right of the dot, clear of its rings.
type placedEvent struct {
	e     EGEvent
	dot   vg.Point
	label vg.Point
}

// placeEvents places the events' dots and their labels' anchors.
func (g *egPlotter) placeEvents(c *draw.Canvas, p *plot.Plot) []placedEvent {
	trX, trY := p.Transforms(c)
	var evs []placedEvent
	for _, e := range g.pn.Events {
		x, y := trX(float64(g.col[e.Node])), trY(e.Start)
		gap := 5.0 // clear of the dot, and of its rings
		if e.Step == g.d.FirstDiff {
			gap = ifs(e.Step == g.d.Step, 10.0, 8.0)
		} else if e.Step == g.d.Step {
			gap = 8
		}
		evs = append(evs, placedEvent{e: e, dot: vg.Point{X: x, Y: y}, label: vg.Point{X: x + vg.Points(gap), Y: y}})
	}
	return evs
}

// eventGlyph is the dot of an event of kind.
func eventGlyph(kind string) draw.GlyphStyle {
	gs := draw.GlyphStyle{Color: colNormal, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	switch kind {
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
	return gs
}

// drawEvents draws the events' dots and the divergence step's and the
// first difference's rings.
func (g *egPlotter) drawEvents(c *draw.Canvas, evs []placedEvent) {
	for _, pe := range evs {
		e := pe.e
		c.DrawGlyph(eventGlyph(e.Kind), pe.dot)
		if e.Step == g.d.Step {
			c.DrawGlyph(draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(6), Shape: draw.RingGlyph{}}, pe.dot)
		}
		if e.Step == g.d.FirstDiff {
			c.DrawGlyph(draw.GlyphStyle{Color: colThreshold, Radius: vg.Points(ifs(e.Step == g.d.Step, 8.5, 6)), Shape: draw.RingGlyph{}}, pe.dot)
		}
	}
}

// drawLabels lays out the events' labels from the top (the earliest)
// down: each right of its dot, or a few rows below with a leader line to
// its dot, cut short with "…" when it does not fit whole anywhere.
func (g *egPlotter) drawLabels(c *draw.Canvas, p *plot.Plot, evs []placedEvent, lay *egLayout) {
	order := slices.Clone(evs)
	slices.SortStableFunc(order, func(a, b placedEvent) int { return cmp.Compare(b.dot.Y, a.dot.Y) })
	for _, pe := range order {
		st := g.textStyle(p)
		switch pe.e.Step {
		case g.d.Step:
			st.Color = colAnomaly
		case g.d.FirstDiff:
			st.Color = colThreshold
		}
		at := lay.draw(c, st, pe.label, pe.e.Text, true)
		if dy := pe.label.Y - at.Y; dy < 0 || dy > vg.Points(1.5*egRowH) { // moved up, or down more than a row: a leader to its dot
			c.StrokeLine2(draw.LineStyle{Color: colMuted, Width: vg.Points(0.4)}, pe.dot.X+vg.Points(2), pe.dot.Y-vg.Points(2), at.X-vg.Points(1), at.Y)
		}
	}
}

// The event graph's text layout: egWiden is the room left for a font
// wider than the one measured (a browser without Liberation Sans), egClear
// the vertical clearance between two texts (points), egMaxDrop the rows a
// text moves down from where it belongs to find room before it tries
// above.
const (
	egWiden   = 1.1
	egClear   = 1.0
	egMaxDrop = 4
	// egMinRoom (points) is enough of a label, cut short, to keep it
	// in its row rather than move it further.
	egMinRoom = 45.0
)

// egLayout places texts one after the other so that none overlaps one
// placed before or runs over a dot: each where it belongs if it fits
// whole there, else as few rows below as it takes, else where the most
// of it fits, cut short.
type egLayout struct {
	area  vg.Rectangle // the data area
	boxes []vg.Rectangle
	dots  []vg.Point
}

// textBox is the box a line of text covers drawn at pt in st, as
// text.Plain draws it: from its baseline, the font's ascent up and its
// descent down.
func textBox(st text.Style, pt vg.Point, s string) vg.Rectangle {
	e := st.FontExtents()
	w := st.Width(s)
	base := pt.Y + st.Height(s)*vg.Length(st.YAlign) - e.Ascent + st.Font.Size
	x := pt.X + vg.Length(st.XAlign)*w
	return vg.Rectangle{Min: vg.Point{X: x, Y: base - e.Descent}, Max: vg.Point{X: x + w, Y: base + e.Ascent}}
}

// room is how wide a text of style st (left end, vertical centre) may be
// at at: up to the next text or dot to its right, or the area's edge;
// false when a text placed before covers at, or the row is outside the
// area.
func (l *egLayout) room(st text.Style, at vg.Point, s string) (vg.Length, bool) {
	b := textBox(st, at, s)
	if b.Min.Y < l.area.Min.Y || b.Max.Y > l.area.Max.Y {
		return 0, false
	}
	lo, hi := b.Min.Y-vg.Points(egClear), b.Max.Y+vg.Points(egClear)
	limit := l.area.Max.X - vg.Points(2)
	for _, o := range l.boxes {
		if o.Max.Y <= lo || o.Min.Y >= hi {
			continue
		}
		if o.Min.X <= at.X {
			if o.Max.X > at.X-vg.Points(egSpace) {
				return 0, false
			}
			continue
		}
		limit = min(limit, o.Min.X-vg.Points(egSpace))
	}
	for _, d := range l.dots {
		if d.X > at.X-vg.Points(2) && d.Y > lo-vg.Points(3) && d.Y < hi+vg.Points(3) {
			limit = min(limit, d.X-vg.Points(7))
		}
	}
	return limit - at.X, true
}

// draw writes s in st (its XAlign and YAlign are set here) at at or in
// a row near it: where it fits whole in its row or the one below; else
// cut short with "…" (when cut allows) in the first of those where at
// least egMinRoom of it fits; else where it fits whole further down (up
// to egMaxDrop rows), then above, then anywhere in the area; else where
// the most of it fits. It returns where the text went, and keeps the
// others off it.
func (l *egLayout) draw(c *draw.Canvas, st text.Style, at vg.Point, s string, cut bool) vg.Point {
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	need := st.Width(s) * egWiden
	row := func(r int) vg.Point { return vg.Point{X: at.X, Y: at.Y - vg.Points(egRowH)*vg.Length(r)} }
	var far []int
	for r := 2; r <= egMaxDrop; r++ {
		far = append(far, r)
	}
	far = append(far, -1, -2)
	for r := egMaxDrop + 1; row(r).Y > l.area.Min.Y; r++ {
		far = append(far, r)
	}
	for r := -3; row(r).Y < l.area.Max.Y; r-- {
		far = append(far, r)
	}
	best, bestRoom := at, vg.Length(math.Inf(-1))
	try := func(rows []int, enough vg.Length) bool {
		for _, r := range rows {
			pt := row(r)
			room, ok := l.room(st, pt, s)
			if ok && room > bestRoom {
				best, bestRoom = pt, room
			}
			if ok && room >= enough {
				best, bestRoom = pt, room
				return true
			}
		}
		return false
	}
	near := []int{0, 1}
	_ = try(near, need) || cut && try(near, min(need, vg.Points(egMinRoom))) || try(far, need)
	if bestRoom < need && cut {
		s = fitText(st, s, bestRoom/egWiden)
	}
	c.FillText(st, best, s)
	b := textBox(st, best, s)
	b.Max.X = b.Min.X + (b.Max.X-b.Min.X)*egWiden
	l.boxes = append(l.boxes, b)
	return best
}

// fitText cuts s to width w with an ellipsis, keeping at least its first
// word (the step number).
func fitText(st text.Style, s string, w vg.Length) string {
	if st.Width(s) <= w {
		return s
	}
	rs := []rune(s)
	keep := strings.IndexByte(s, ' ')
	if keep < 0 {
		return s
	}
	for k := len(rs) - 1; k > keep; k-- {
		t := strings.TrimRight(string(rs[:k]), " ") + "…"
		if st.Width(t) <= w {
			return t
		}
	}
	return string(rs[:keep])
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

package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macepc/macepc/internal/units"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/divergence"
)

// A Figure is one plot of the report: the data it is fed (what the golden
// tests compare), how to draw it, and how to read it.
type Figure struct {
	// ID names the figure: its HTML section and its PNG file (Figures
	// sets it from the figure's builder).
	ID    string
	Title string
	// Guide is the one-paragraph reading guide under the plot.
	Guide string
	// Data is the data the plot is drawn from (nil for a placeholder).
	Data any
	// Missing says why there is nothing to plot ("" when there is).
	Missing string
	Draw    func(draw.Canvas)
	W, H    vg.Length

	// preSVG and prePNG are a drawing made elsewhere (macepc regress's
	// regress.svg and regress.png), used instead of Draw.
	preSVG, prePNG []byte
	// rows are a table shown with the figure.
	rows []row
}

// Figures builds the report's plots from a results directory, in report
// order (figureTable): the regression test of a `macepc regress`
// directory and its profile (a regress run has no other phase), the timed
// pipeline's six, then the liveness run's critical transition if the
// directory holds one. A phase whose files are missing gives a
// placeholder figure; so does a figure whose building panics (a bug),
// saying so, and the other figures are kept.
func Figures(r *Results) []Figure {
	var bs []figureBuilder
	for _, f := range figureTable() {
		if f.shown(r) {
			bs = append(bs, f.figureBuilder)
		}
	}
	return buildFigures(r, bs)
}

// figureSpec is a figure the report can draw and when it draws it.
type figureSpec struct {
	figureBuilder
	shown func(*Results) bool
}

// figureTable is every figure of the report, in report order: the one
// place a figure is declared (Figures and PlotFiles derive from it).
func figureTable() []figureSpec {
	regress := func(r *Results) bool { return r.Regress != nil }
	pipelineRun := func(r *Results) bool { return !regressOnly(r) && r.Summary != nil } // a regress run has no later phases
	profile := func(r *Results) bool { return regressOnly(r) || r.Summary != nil }
	liveness := func(r *Results) bool { return r.Liveness != nil }
	return []figureSpec{
		{figureBuilder{"regress", regressFigure}, regress},
		{figureBuilder{"profile", profileFigure}, profile},
		{figureBuilder{"search", searchFigure}, pipelineRun},
		{figureBuilder{"divergence", divergenceFigure}, pipelineRun},
		{figureBuilder{"correlation", correlationFigure}, pipelineRun},
		{figureBuilder{"completion", completionFigure}, pipelineRun},
		{figureBuilder{"eventgraph", eventGraphFigure}, pipelineRun},
		{figureBuilder{"critical", criticalFigure}, liveness},
	}
}

// PlotFiles are the names of the files Write writes into DirPlots, one
// PNG file per figure Figures can draw: a phase that clears a results
// directory removes these from DirPlots and leaves any other file there.
func PlotFiles() []string {
	var out []string
	for _, f := range figureTable() {
		out = append(out, f.id+".png")
	}
	return out
}

// figureBuilder builds one figure. id names it: buildFigure sets the
// figure's ID, or the placeholder's should the building fail.
type figureBuilder struct {
	id    string
	build func(*Results) Figure
}

// buildFigures runs each builder, turning a panic into failedFigure.
func buildFigures(r *Results, bs []figureBuilder) []Figure {
	figs := make([]Figure, 0, len(bs))
	for _, b := range bs {
		figs = append(figs, buildFigure(r, b))
	}
	return figs
}

func buildFigure(r *Results, b figureBuilder) (f Figure) {
	defer func() {
		if v := recover(); v != nil {
			f = failedFigure(b.id, "Plot "+b.id, fmt.Sprint(v))
		}
	}()
	f = b.build(r)
	f.ID = b.id
	return f
}

// failedFigure is the placeholder of a figure whose plot failed: it says
// so with the failure's (first 100 characters of) text.
func failedFigure(id, title, why string) Figure {
	why = strings.Join(strings.Fields(why), " ")
	if rs := []rune(why); len(rs) > 100 {
		why = string(rs[:100]) + "…"
	}
	f := Figure{ID: id, Title: title, Missing: "the plot failed (a bug in macepc): " + why, W: vg.Points(640)}
	return finish(f, nil)
}

func finish(f Figure, build func() func(draw.Canvas)) Figure {
	if f.Missing != "" {
		f.Data = nil
		p := placeholder(f.Title, f.Missing)
		f.Draw = p.Draw
		f.H = vg.Points(160)
		return f
	}
	f.Draw = build()
	return f
}

func secsNS(ns int64) float64 { return float64(ns) / 1e9 }

// ---- execution-time distribution (phase 1b) ----

// ProfileData feeds the execution-time distribution plot.
type ProfileData struct {
	// Times are the profile's execution times in seconds, sorted.
	Times     []float64 `json:"times"`
	Bins      []Bin     `json:"bins"`
	Q1        float64   `json:"q1"`
	Median    float64   `json:"median"`
	Q3        float64   `json:"q3"`
	Threshold float64   `json:"threshold"`
	// Above counts the profile's executions above the threshold.
	Above int `json:"above"`
	// Split breaks the x axis at the threshold when the slowest
	// executions take more than splitFactor times the median: Bins then
	// hold the times up to Split, TailBins the slower ones, drawn in a
	// narrow panel on their own scale (0: one axis, no TailBins).
	Split    float64 `json:"split,omitempty"`
	TailBins []Bin   `json:"tail_bins,omitempty"`
	// Anomaly is the execution time of the anomaly the search found.
	Anomaly *float64 `json:"anomaly"`
}

// splitFactor is how many times the median the slowest profile
// execution must take for the profile plot to break its x axis.
const splitFactor = 5

// Bin is one histogram bar: [Min, Max) holds Count values.
type Bin struct {
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Count int     `json:"count"`
}

// NewProfileData extracts the profile plot's data ("" or why there is none).
func NewProfileData(r *Results) (*ProfileData, string) {
	pf := r.Profile
	if pf == nil || len(pf.Executions) == 0 {
		return nil, "no profile executions (phase 1b did not run)"
	}
	d := &ProfileData{Q1: secsNS(pf.Q1NS), Median: secsNS(pf.MedianNS), Q3: secsNS(pf.Q3NS), Threshold: secsNS(pf.Threshold)}
	for _, e := range pf.Executions {
		d.Times = append(d.Times, secsNS(e.ExecTimeNS))
		if e.ExecTimeNS > pf.Threshold {
			d.Above++
		}
	}
	slices.Sort(d.Times)
	d.Bins = histogram(d.Times)
	if n := len(d.Times); d.Times[n-1] > splitFactor*d.Median && d.Times[n-1] > d.Threshold && d.Times[0] <= d.Threshold {
		d.Split = d.Threshold
		head := upTo(d.Times, d.Split)
		d.Bins, d.TailBins = histogram(head), histogram(d.Times[len(head):])
	}
	if s := r.Search; s != nil && s.Anomaly != nil {
		a := secsNS(s.Anomaly.ExecTimeNS)
		d.Anomaly = &a
	}
	return d, ""
}

// upTo is the sorted times up to x: where a broken axis splits them.
func upTo(times []float64, x float64) []float64 {
	i, _ := slices.BinarySearch(times, math.Nextafter(x, math.Inf(1)))
	return times[:i]
}

// histogram bins sorted values into ⌈2√n⌉ (5 to 40) equal bins over their
// range; one distinct value gets one bin 1% either side of it.
func histogram(xs []float64) []Bin {
	if len(xs) == 0 {
		return nil
	}
	lo, hi := xs[0], xs[len(xs)-1]
	if hi-lo < 1e-12 {
		w := max(math.Abs(lo)*0.01, 1e-9)
		return []Bin{{Min: lo - w, Max: hi + w, Count: len(xs)}}
	}
	k := min(max(int(math.Ceil(2*math.Sqrt(float64(len(xs))))), 5), 40)
	w := (hi - lo) / float64(k)
	bins := make([]Bin, k)
	for i := range bins {
		// The explicit conversions round each product, so no platform
		// fuses it with the sum (an FMA changes the last digits the
		// golden files pin).
		bins[i] = Bin{Min: lo + float64(float64(i)*w), Max: lo + float64(float64(i+1)*w)}
	}
	bins[k-1].Max = hi
	for _, x := range xs {
		i := min(int((x-lo)/w), k-1)
		bins[i].Count++
	}
	return bins
}

func profileFigure(r *Results) Figure {
	d, why := NewProfileData(r)
	f := Figure{Title: "Execution-time distribution of the profile (phase 1b)", Missing: why, W: vg.Points(640), H: vg.Points(400)}
	if d != nil {
		f.Data = d
		above := ""
		if _, notRare := anomaly.SlowNotRare(d.Above, len(d.Times)); notRare {
			above = fmt.Sprintf(" %d of the %d executions are above the threshold already: slow executions are not rare in this scenario, and the threshold (set by the quartiles) separates the usual from the slow ones only as well as the quartiles do.", d.Above, len(d.Times))
		} else if d.Above > 0 {
			above = fmt.Sprintf(" %d of the %d executions %s above the threshold already: too few to say that more than %.0f%% of executions are this slow.", d.Above, len(d.Times), ifs(d.Above == 1, "is", "are"), 100*anomaly.RareRate)
		}
		if g, _, _ := profileGap(d); g != nil {
			above += " The x axis is compressed (//) between the slowest execution under the threshold and the threshold, so that the executions use the width."
		}
		if d.Split > 0 {
			above += fmt.Sprintf(" The slowest executions take more than %d× the median, so the x axis is broken at the threshold: the left panels show the times up to it, the narrow right ones the slower ones on their own scale.", splitFactor)
		}
		f.Guide = fmt.Sprintf("The %d executions of the profile: a histogram (top) and the empirical CDF (bottom) of their execution times, "+
			"with Q1 = %s and Q3 = %s (grey, dashed), the median (grey) and the anomaly threshold %s (orange): "+
			"an execution is anomalous above it. The red mark is the anomalous execution the search found%s. "+
			"A tight distribution far below the threshold means the threshold flags only real outliers; a long right tail near it means the profile already saw slow executions.%s",
			len(d.Times), fmtSecs(d.Q1, d.Q3)[0], fmtSecs(d.Q1, d.Q3)[1], fmtSec(d.Threshold), anomalyNote(d), above)
	}
	return finish(f, func() func(draw.Canvas) { return profilePlot(d) })
}

func anomalyNote(d *ProfileData) string {
	if d.Anomaly == nil {
		return " (none was found)"
	}
	lo, hi := profileRange(d)
	if d.Split > 0 {
		_, hi = tailRange(d)
	}
	if *d.Anomaly > hi || *d.Anomaly < lo {
		return fmt.Sprintf(" (%s, off the scale, drawn at the right edge)", fmtSec(*d.Anomaly))
	}
	return fmt.Sprintf(" (%s)", fmtSec(*d.Anomaly))
}

// profileRange is the x range (of the left panels when the axis is
// broken): the profile up to Split, the threshold and an anomaly not more
// than twice the threshold.
func profileRange(d *ProfileData) (lo, hi float64) {
	ts := d.Times
	if d.Split > 0 {
		ts = upTo(ts, d.Split)
	}
	lo, hi = ts[0], max(ts[len(ts)-1], d.Threshold)
	if d.Anomaly != nil && *d.Anomaly <= 2*d.Threshold && d.Split == 0 {
		hi = max(hi, *d.Anomaly)
		lo = min(lo, *d.Anomaly)
	}
	span := hi - lo
	if span <= 0 {
		span = max(math.Abs(hi)*0.02, 1e-9)
	}
	return lo - 0.05*span, hi + 0.08*span
}

// tailRange is the x range of the right panels of a broken axis: the
// times above Split and an anomaly up to twice the slowest.
func tailRange(d *ProfileData) (lo, hi float64) {
	lo, hi = d.TailBins[0].Min, d.TailBins[len(d.TailBins)-1].Max
	if a := d.Anomaly; a != nil && *a > d.Split && *a <= 2*hi {
		lo, hi = min(lo, *a), max(hi, *a)
	}
	span := hi - lo
	if span <= 0 {
		span = max(math.Abs(hi)*0.02, 1e-9)
	}
	return lo - 0.15*span, hi + 0.15*span
}

// profilePanel is one column of the profile plot: histogram over ECDF on
// [lo, hi].
type profilePanel struct {
	top, bot *plot.Plot
}

func newProfilePanel(d *ProfileData, bins []Bin, lo, hi float64, xlabel string) profilePanel {
	top := newPlot("", "", "executions")
	bot := newPlot("", xlabel, "fraction ≤ x")
	for _, p := range []*plot.Plot{top, bot} {
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = secTicks{}
		p.Add(plotter.NewGrid())
	}
	if len(bins) > 0 {
		var hb []plotter.HistogramBin
		for _, b := range bins {
			hb = append(hb, plotter.HistogramBin{Min: b.Min, Max: b.Max, Weight: float64(b.Count)})
		}
		h := &plotter.Histogram{Bins: hb, Width: bins[0].Max - bins[0].Min, FillColor: colNormal}
		h.LineStyle.Color = colLight
		h.LineStyle.Width = vg.Points(0.5)
		top.Add(h)
	}
	// ECDF as a step line over the panel's range.
	n := float64(len(d.Times))
	below := 0
	for below < len(d.Times) && d.Times[below] < lo {
		below++
	}
	e := plotter.XYs{{X: lo, Y: float64(below) / n}}
	for i, t := range d.Times {
		if t >= lo && t <= hi {
			e = append(e, plotter.XY{X: t, Y: float64(i+1) / n})
			below = i + 1
		}
	}
	e = append(e, plotter.XY{X: hi, Y: float64(below) / n})
	el, _ := plotter.NewLine(e)
	el.StepStyle = plotter.PostStep
	el.Color = colNormal
	el.Width = vg.Points(1.5)
	bot.Add(el)
	bot.Y.Min, bot.Y.Max = 0, 1.05
	top.Y.Tick.Marker = intTicks{}
	return profilePanel{top: top, bot: bot}
}

func profilePlot(d *ProfileData) func(draw.Canvas) {
	g, lo, hi := profileGap(d)
	left := newProfilePanel(d, d.Bins, lo, hi, "execution time (s)")
	panels := []profilePanel{left}
	var tlo, thi float64
	if d.Split > 0 {
		tlo, thi = tailRange(d)
		right := newProfilePanel(d, d.TailBins, tlo, thi, "slow tail (s)")
		for _, p := range []*plot.Plot{right.top, right.bot} {
			p.Y.Label.Text = ""
			p.Y.Tick.Marker = unlabelled{p.Y.Tick.Marker}
		}
		left.top.Add(axisBreak{right: true})
		left.bot.Add(axisBreak{right: true})
		right.top.Add(axisBreak{})
		right.bot.Add(axisBreak{})
		panels = append(panels, right)
	}
	maxCount := 0
	for _, b := range append(slices.Clone(d.Bins), d.TailBins...) {
		maxCount = max(maxCount, b.Count)
	}
	for _, pn := range panels {
		pn.top.Y.Min, pn.top.Y.Max = 0, float64(maxCount)*1.7
	}
	if g != nil {
		for _, p := range []*plot.Plot{left.top, left.bot} {
			p.X.Scale, p.X.Tick.Marker = g, gapTicks{g, d.Threshold}
			p.Add(g)
		}
	}
	markQuartiles(left, d, float64(maxCount)*1.35)
	if a := d.Anomaly; a != nil {
		if d.Split > 0 && *a > d.Split {
			markAnomaly(panels[1], d.TailBins, *a, tlo, thi)
		} else {
			markAnomaly(left, d.Bins, *a, lo, hi)
		}
	}
	// The legend ends left of the threshold line, at the top right.
	top := left.top
	top.Legend.Left = false
	grid := [][]*plot.Plot{{}, {}}
	for _, pn := range panels {
		grid[0], grid[1] = append(grid[0], pn.top), append(grid[1], pn.bot)
	}
	var widths []float64 // the slow tail's panels are narrow
	if len(panels) == 2 {
		widths = []float64{0.76, 0.24}
	}
	return func(c draw.Canvas) {
		cs := alignTiles(grid, c, 0, vg.Points(4), widths)
		dc := top.DataCanvas(cs[0][0])
		trX, _ := top.Transforms(&dc)
		top.Legend.XOffs = -(cs[0][0].Max.X - trX(d.Threshold)) - vg.Points(8)
		for i, pn := range panels { // column by column
			pn.top.Draw(cs[0][i])
			pn.bot.Draw(cs[1][i])
		}
	}
}

// profileGap is the compressed stretch of the profile plot's (left) x
// axis between the slowest execution up to the threshold and the
// threshold, when the executions would otherwise fill less than half of
// profileRange (the threshold, at 1.5× the median or more, lies far
// right of a tight distribution); nil when they fill enough. The axis
// then runs over [glo, ghi], the executions get gapBulk of the width, the
// gap gapWidth, the threshold (and an anomaly drawn in the panel) the
// rest.
func profileGap(d *ProfileData) (g *gapScale, glo, ghi float64) {
	lo, hi := profileRange(d)
	head := d.Times
	if d.Split > 0 {
		head = upTo(head, d.Split)
	}
	bulkLo, bulkHi := head[0], head[len(head)-1]
	right, rightMax := d.Threshold, d.Threshold
	if a := d.Anomaly; a != nil && *a > bulkHi && *a <= hi {
		right, rightMax = min(right, *a), max(rightMax, *a)
	}
	if bulkHi >= right || bulkHi-lo >= 0.5*(hi-lo) {
		return nil, lo, hi
	}
	pad := 0.05 * max(bulkHi-bulkLo, 1e-3*bulkHi)
	g = &gapScale{a: bulkHi + pad, b: right - pad, at: gapBulk, w: gapWidth}
	if g.b <= g.a {
		return nil, lo, hi
	}
	return g, bulkLo - pad, rightMax + pad
}

// The profile plot's compressed axis: the executions' share of the width
// and the gap's.
const (
	gapBulk  = 0.8
	gapWidth = 0.05
)

// gapScale is a linear axis with its stretch [a, b] compressed to the
// fraction w of the width: [min, a] fills the fraction at, [b, max] the
// rest (with a = b and w = 0, a knee: two linear scales). As a plotter
// it marks the gap with two slashes on the x axis.
type gapScale struct {
	a, b, at, w float64
}

func (g *gapScale) Normalize(min, max, x float64) float64 {
	switch {
	case x <= g.a:
		return g.at * (x - min) / (g.a - min)
	case x <= g.b: // not with a == b: a knee, no gap
		return g.at + g.w*(x-g.a)/(g.b-g.a)
	}
	return g.at + g.w + (1-g.at-g.w)*(x-g.b)/(max-g.b)
}

func (g *gapScale) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := (trX(g.a) + trX(g.b)) / 2
	ls := draw.LineStyle{Color: colorBlack, Width: vg.Points(1)}
	for _, dx := range []vg.Length{-2, 2} {
		c.StrokeLine2(ls, x+dx-vg.Points(2.5), c.Min.Y-vg.Points(5), x+dx+vg.Points(2.5), c.Min.Y+vg.Points(5))
	}
}

// gapTicks labels an axis with a gapScale: secTicks over the stretch up to
// the gap, and past it the threshold's value alone (its legend names it).
type gapTicks struct {
	g   *gapScale
	thr float64
}

func (t gapTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range (secTicks{}).Ticks(lo, t.g.a) {
		if tk.Value <= t.g.a {
			out = append(out, tk)
		}
	}
	if t.thr >= t.g.b && t.thr <= hi {
		p, ok := decimals([]float64{t.thr}, 0, logTickDecimals, 5e-4*math.Abs(t.thr))
		if !ok {
			p = -1
		}
		out = append(out, plot.Tick{Value: t.thr, Label: fmtTick(t.thr, p)})
	}
	return out
}

// markQuartiles draws Q1, Q3 (dashed), the median and the threshold
// (orange) across the left panel's plots, with their legend in the top
// one, above the lines' top end there (top).
func markQuartiles(left profilePanel, d *ProfileData, top float64) {
	for _, pp := range []struct {
		p  *plot.Plot
		y1 float64
	}{{left.top, top}, {left.bot, 1.05}} {
		q1 := vline(d.Q1, 0, pp.y1, colQuartile, 1, vg.Points(4), vg.Points(2))
		q3 := vline(d.Q3, 0, pp.y1, colQuartile, 1, vg.Points(4), vg.Points(2))
		med := vline(d.Median, 0, pp.y1, colQuartile, 0.75)
		th := vline(d.Threshold, 0, pp.y1, colThreshold, 1.5)
		pp.p.Add(q1, q3, med, th)
		if pp.p == left.top {
			q := fmtSecs(d.Q1, d.Q3)
			pp.p.Legend.Add(fmt.Sprintf("Q1 %s, Q3 %s", q[0], q[1]), q1)
			pp.p.Legend.Add("median "+fmtSec(d.Median), med)
			pp.p.Legend.Add("threshold "+fmtSec(d.Threshold), th)
		}
	}
}

// markAnomaly marks the anomaly's execution time a in the panel pn
// (range [plo, phi], histogram bins): a red mark in both plots, at the
// edge with an arrow when it is off the scale, and its label above the
// bars around it, on a white box.
func markAnomaly(pn profilePanel, bins []Bin, a, plo, phi float64) {
	x, off := a, ""
	if x > phi {
		x, off = phi-(phi-plo)*0.01, " →"
	}
	if x < plo {
		x, off = plo+(phi-plo)*0.01, " ←"
	}
	// A fifth of the panel either side covers the label's width.
	ly, near := 0.0, 0.2*(phi-plo)
	for _, b := range bins {
		if b.Max >= x-near && b.Min <= x+near {
			ly = max(ly, float64(b.Count))
		}
	}
	for _, p := range []*plot.Plot{pn.top, pn.bot} {
		y := p.Y.Max * 0.08
		s, _ := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
		s.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
		p.Add(s)
		if p == pn.top {
			// Towards the panel's middle, so that it does not push the
			// axes in.
			xa, dx := draw.XRight, vg.Length(3)
			if x < plo+0.5*(phi-plo) {
				xa, dx = draw.XLeft, -3
			}
			p.Add(&boxedLabel{xy: plotter.XY{X: x, Y: max(ly, y)}, text: "anomaly " + fmtSec(a) + off, size: 9, color: colAnomaly, xa: xa, ya: draw.YBottom, off: vg.Point{X: dx, Y: 8}})
		}
	}
}

// unlabelled keeps a ticker's ticks without their labels (a panel that
// shares its neighbour's y axis).
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ts := u.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// axisBreak marks a broken x axis with two slashes at the data area's
// bottom left or right corner.
type axisBreak struct{ right bool }

func (b axisBreak) Plot(c draw.Canvas, _ *plot.Plot) {
	x := c.Min.X
	if b.right {
		x = c.Max.X
	}
	ls := draw.LineStyle{Color: colorBlack, Width: vg.Points(1)}
	for _, dx := range []vg.Length{-2, 2} {
		c.StrokeLine2(ls, x+dx-vg.Points(2.5), c.Min.Y-vg.Points(5), x+dx+vg.Points(2.5), c.Min.Y+vg.Points(5))
	}
}

// boxedLabel is a text on a white box, readable over bars and lines.
type boxedLabel struct {
	xy    plotter.XY
	text  string
	size  float64
	color color.Color
	xa    draw.XAlignment
	ya    draw.YAlignment
	off   vg.Point
}

func (l *boxedLabel) style(p *plot.Plot) text.Style {
	return text.Style{Color: l.color, Font: font.From(sansFont, vg.Length(l.size)), XAlign: l.xa, YAlign: l.ya, Handler: p.TextHandler}
}

func (l *boxedLabel) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pt := vg.Point{X: trX(l.xy.X) + l.off.X, Y: trY(l.xy.Y) + l.off.Y}
	st := l.style(p)
	r := st.Rectangle(l.text)
	pad := vg.Points(1.5)
	box := vg.Rectangle{Min: vg.Point{X: pt.X + r.Min.X - pad, Y: pt.Y + r.Min.Y - pad}, Max: vg.Point{X: pt.X + r.Max.X + pad, Y: pt.Y + r.Max.Y + pad}}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.FillText(st, pt, l.text)
}

// GlyphBoxes keeps the label inside the plot.
func (l *boxedLabel) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := l.style(p).Rectangle(l.text)
	r.Min = r.Min.Add(l.off)
	r.Max = r.Max.Add(l.off)
	return []plot.GlyphBox{{X: p.X.Norm(l.xy.X), Y: p.Y.Norm(l.xy.Y), Rectangle: r}}
}

// ---- anomaly-search progress (phase 2) ----

// SearchData feeds the anomaly-search progress plot.
type SearchData struct {
	Points    []SearchPoint `json:"points"`
	Threshold float64       `json:"threshold"`
	Q3        float64       `json:"q3"`
	// AnomalyIndex is the analysed anomalous execution's index, -1 if
	// none; FirstIndex the first anomalous one's.
	AnomalyIndex int  `json:"anomaly_index"`
	FirstIndex   int  `json:"first_index"`
	Anomalies    int  `json:"anomalies"`
	Classes      int  `json:"classes"`
	Explored     int  `json:"explored"`
	MaxRuns      int  `json:"max_runs"`
	Complete     bool `json:"complete"`
	// Tail is how many executions above the threshold the verdict found
	// to be the normal tail (Point.Tail).
	Tail int `json:"tail"`
}

// SearchPoint is one explored execution.
type SearchPoint struct {
	Index int     `json:"index"`
	Time  float64 `json:"time"`
	// Class is the rank of the anomaly class the execution is in, 0 for
	// a normal execution.
	Class int `json:"class,omitempty"`
	// Tail says the execution is above the threshold but the normal tail.
	Tail bool `json:"tail,omitempty"`
}

// NewSearchData extracts the search plot's data.
func NewSearchData(r *Results) (*SearchData, string) {
	s := r.Search
	if s == nil {
		return nil, "no anomaly search (phase 2 did not run)"
	}
	if len(r.SearchExecs) == 0 {
		return nil, "the anomaly search explored no execution"
	}
	d := &SearchData{Threshold: secsNS(s.ThresholdNS), AnomalyIndex: -1, FirstIndex: -1, Explored: s.Explored, MaxRuns: s.MaxRuns, Complete: s.Complete,
		Anomalies: s.Anomalies, Classes: len(s.Classes), Tail: s.TailExecutions}
	if r.Profile != nil {
		d.Q3 = secsNS(r.Profile.Q3NS)
	}
	if s.Anomaly != nil {
		d.AnomalyIndex, d.FirstIndex = s.Anomaly.Index, s.FirstIndex
	}
	if a := r.Summary.Anomaly; a != nil && a.Found {
		d.AnomalyIndex = a.Index // the one phase 3a analysed (diverge --class)
	}
	class := map[int]int{}
	for _, c := range s.Classes {
		for _, m := range c.Members {
			class[m] = c.Rank
		}
	}
	tail := map[int]bool{}
	for _, c := range s.Tail {
		for _, m := range c.Members {
			tail[m] = true
		}
	}
	for _, l := range r.SearchExecs {
		d.Points = append(d.Points, SearchPoint{Index: l.Index, Time: secsNS(l.ExecTimeNS), Class: class[l.Index], Tail: tail[l.Index]})
	}
	slices.SortFunc(d.Points, func(a, b SearchPoint) int { return cmp.Compare(a.Index, b.Index) })
	return d, ""
}

func searchFigure(r *Results) Figure {
	d, why := NewSearchData(r)
	f := Figure{ID: "search", Title: "Anomaly search progress (phase 2)", Missing: why, W: vg.Points(640), H: vg.Points(300)}
	if d != nil {
		f.Data = d
		what := fmt.Sprintf("no execution crossed it in %d executions", d.Explored)
		if d.Tail > 0 {
			what = fmt.Sprintf("%d of the %d executions crossed it and are the normal tail (amber): normal variance, a tail model of the faster executions, explains them", d.Tail, d.Explored)
		}
		if d.AnomalyIndex >= 0 {
			what = fmt.Sprintf("execution %d is the first above it; the search went on for %d more executions to find the others, %d anomalous in all (red), which it classed into %d class%s by execution time and by the events that set them apart from the normal executions. The ringed one, execution %d, is the representative of the class analysed below",
				d.FirstIndex, d.Explored-d.FirstIndex-1, d.Anomalies, d.Classes, ifs(d.Classes == 1, "", "es"), d.AnomalyIndex)
			if d.Tail > 0 {
				what += fmt.Sprintf(". The %d others above it (amber) are the normal tail", d.Tail)
			}
		}
		f.Guide = fmt.Sprintf("Each dot is one execution the search explored, in index order, at its execution time; the orange line is the anomaly threshold %s and the dashed grey line the profile's Q3 %s. %s. "+
			"Executions just under the threshold hint at a family of slow executions; a lone dot far above it is typically a rare ordering that a recovery mechanism eventually repairs. "+
			"The y axis is logarithmic when the times span more than a factor of 5.", fmtSec(d.Threshold), fmtSec(d.Q3), upper(what))
	}
	return finish(f, func() func(draw.Canvas) { return searchPlot(d) })
}

func searchPlot(d *SearchData) func(draw.Canvas) { return newSearchPlot(d).Draw }

// newSearchPlot is the search's progress: the explored executions' times
// by index (whole numbers on the x axis, however few executions).
func newSearchPlot(d *SearchData) *plot.Plot {
	p := newPlot("", "execution index", "execution time (s)")
	p.Add(plotter.NewGrid())
	var norm, anom, chosen, tail plotter.XYs
	lo, hi := math.Min(d.Threshold, d.Q3), d.Threshold
	for _, pt := range d.Points {
		xy := plotter.XY{X: float64(pt.Index), Y: pt.Time}
		switch {
		case pt.Index == d.AnomalyIndex:
			chosen = append(chosen, xy)
			anom = append(anom, xy)
		case pt.Class > 0:
			anom = append(anom, xy)
		case pt.Tail:
			tail = append(tail, xy)
		default:
			norm = append(norm, xy)
		}
		lo, hi = math.Min(lo, pt.Time), math.Max(hi, pt.Time)
	}
	xmax := float64(max(d.Points[len(d.Points)-1].Index, 1))
	p.X.Min, p.X.Max = -0.5, xmax+0.5
	p.X.Tick.Marker = intTicks{}
	if lo > 0 && hi/lo > 5 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logSecTicks{}
		p.Y.Min, p.Y.Max = lo/1.3, hi*2.5 // headroom for the legend
	} else {
		span := math.Max(hi-lo, math.Max(hi*0.02, 1e-9))
		p.Y.Min, p.Y.Max = math.Max(0, lo-0.1*span), hi+0.4*span
		p.Y.Tick.Marker = secTicks{}
	}
	if len(norm) > 0 {
		s, _ := plotter.NewScatter(norm)
		s.GlyphStyle = draw.GlyphStyle{Color: colNormal, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("explored execution", s)
	}
	th := hline(d.Threshold, p.X.Min, p.X.Max, colThreshold, 1.5)
	p.Add(th)
	p.Legend.Add("threshold "+fmtSec(d.Threshold), th)
	if d.Q3 > 0 {
		q3 := hline(d.Q3, p.X.Min, p.X.Max, colQuartile, 1, vg.Points(4), vg.Points(2))
		p.Add(q3)
		p.Legend.Add("Q3 "+fmtSec(d.Q3), q3)
	}
	if len(tail) > 0 {
		s, _ := plotter.NewScatter(tail)
		s.GlyphStyle = draw.GlyphStyle{Color: colTail, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("normal tail (%d)", len(tail)), s)
	}
	if len(anom) > 0 {
		s, _ := plotter.NewScatter(anom)
		s.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("anomalous execution (%d)", len(anom)), s)
	}
	if len(chosen) > 0 {
		s, _ := plotter.NewScatter(chosen)
		s.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("analysed: execution %d, %s", d.AnomalyIndex, fmtSec(chosen[0].Y)), s)
		xa := draw.XRight                                // above the ring, ending at it
		if chosen[0].X < p.X.Min+0.3*(p.X.Max-p.X.Min) { // keep it inside: starting at it
			xa = draw.XLeft
		}
		p.Add(labels(chosen, []string{fmt.Sprintf("#%d  %s", d.AnomalyIndex, fmtSec(chosen[0].Y))}, 9, colAnomaly, xa, draw.YBottom, vg.Point{Y: 8}))
	}
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(4)
	return p
}

// ---- divergence search (phase 3a, paper 004 Figure 3) ----

// DivergenceData feeds the divergence-search plot.
type DivergenceData struct {
	TotalSteps int `json:"total_steps"`
	// Step is the divergence step (-1: no walk recovers even from the
	// start).
	Step int `json:"step"`
	// Lower and Upper bound the divergence step after the exponential
	// phase: the last recovering and the first non-recovering prefix
	// (-1 when the phase did not give one).
	Lower  int        `json:"lower"`
	Upper  int        `json:"upper"`
	Walks  int        `json:"walks"`
	Probes []DivProbe `json:"probes"`
	Event  string     `json:"event"`
	// Criterion says when a probe recovers; Execution names the searched
	// execution.
	Criterion string `json:"criterion"`
	Execution string `json:"execution"`
	Point     string `json:"point"` // the name of Step: divergence point, critical transition
	// Q3, Threshold and Limit (seconds) are the profile's Q3, the anomaly
	// threshold and the recovery limit of the walks; 0 when the search
	// has no execution times (the liveness mode's critical transition).
	Q3        float64 `json:"q3,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
	Limit     float64 `json:"limit,omitempty"`
}

// DivProbe is one probed prefix.
type DivProbe struct {
	Order     int    `json:"order"` // 1-based call order
	Phase     string `json:"phase"` // exponential or binary
	Prefix    int    `json:"prefix"`
	Walks     int    `json:"walks"` // walks run (the probe stops at the first recovering one)
	Recovered bool   `json:"recovered"`
	// Fastest is the execution time of the probe's fastest whole walk
	// (seconds; 0 without times); Cut counts its confirmation walks, cut
	// short at the recovery limit.
	Fastest float64 `json:"fastest,omitempty"`
	Cut     int     `json:"cut,omitempty"`
}

// NewDivergenceData extracts the divergence plot's data.
func NewDivergenceData(r *Results) (*DivergenceData, string) {
	df := r.Divergence
	if df == nil {
		if r.Search != nil && r.Search.Anomaly == nil {
			return nil, "no anomaly was found, so there is no divergence point to search"
		}
		return nil, "no divergence search (phase 3a did not run)"
	}
	if len(df.Probes) == 0 {
		return nil, "the divergence search ran no probe"
	}
	limit, crit := df.LimitNS, df.Criterion
	if crit == "" { // written before the recovery limit: MacePC's Q3
		limit, crit = df.Q3NS, divergence.BoundQ3
	}
	d := &DivergenceData{TotalSteps: df.TotalSteps, Step: df.Step, Lower: -1, Upper: -1, Walks: df.Walks,
		Criterion: "a walk " + crit.Describe(), Execution: "anomalous execution", Point: "divergence point",
		Q3: secsNS(df.Q3NS), Threshold: secsNS(df.ThresholdNS), Limit: secsNS(limit)}
	if df.Event != nil {
		d.Event = fmt.Sprintf("step %d: %s on %s", df.Event.Step, df.Event.Label, df.Event.Node)
		if df.Event.From != "" {
			d.Event += " from " + df.Event.From
		}
	}
	// The exponential phase runs until the first non-recovering probe.
	exp := true
	for i, pr := range df.Probes {
		ph := "binary"
		if exp {
			ph = "exponential"
			if pr.Recovered {
				d.Lower = pr.Prefix
			} else {
				d.Upper = pr.Prefix
				exp = false
			}
		}
		dp := DivProbe{Order: i + 1, Phase: ph, Prefix: pr.Prefix, Walks: pr.Walks, Recovered: pr.Recovered, Cut: pr.Cut}
		if len(pr.ExecTimesNS) > 0 {
			dp.Fastest = secsNS(slices.Min(pr.ExecTimesNS))
		}
		d.Probes = append(d.Probes, dp)
	}
	return d, ""
}

func divergenceFigure(r *Results) Figure {
	d, why := NewDivergenceData(r)
	f := Figure{Title: "Divergence search (phase 3a, MacePC Figure 3)", Missing: why, W: vg.Points(640), H: vg.Points(560)}
	if d != nil {
		f.Data = d
		nexp, nbin := 0, 0
		for _, p := range d.Probes {
			if p.Phase == "exponential" {
				nexp++
			} else {
				nbin++
			}
		}
		where := "no walk recovers even from the start: the slowness does not come from a rare choice"
		if d.Step >= 0 {
			where = fmt.Sprintf("the divergence point is step %d of %d (red line%s): from the first %d steps some walk still recovers, from one more step none of %d does, so the first %.1f%% of the anomalous execution can be ignored",
				d.Step, d.TotalSteps, ifs(d.Event != "", ", "+d.Event, ""), d.Step, d.Walks, 100*float64(d.Step)/float64(max(d.TotalSteps, 1)))
		}
		f.Guide = fmt.Sprintf("The black bar is the anomalous execution, %d steps long. Each mark is a probe: replay the execution's first x steps, then run up to %d random continuations (walks), and more, cut short, when none of those recovers; "+
			"green circle: %s (recovered), red cross: none did. Above the bar, the exponential phase (%d probes: prefixes 1, 2, 4, …) finds the bounds %s (grey dashed lines); "+
			"below it, the binary phase (%d probes) narrows them. %s. The number by each mark is how many walks it ran. "+
			"The lower panel shows each probe's fastest whole walk against the profile's Q3 (grey), the anomaly threshold (orange) and the recovery limit (green, %s): a probe whose fastest walk lies just above the limit, or a recovered one just under it, is a close call.",
			d.TotalSteps, d.Walks, d.Criterion, nexp, boundsText(d), nbin, upper(where), fmtSec(d.Limit))
		if d.Limit == 0 {
			f.H = vg.Points(340)
		}
	}
	return finish(f, func() func(draw.Canvas) { return divergenceDraw(d) })
}

// divergenceDraw is Figure 3: the probes over the execution, and under
// them, when the walks have execution times, each probe's fastest walk
// against Q3, the threshold and the recovery limit, on the same x axis.
func divergenceDraw(d *DivergenceData) func(draw.Canvas) {
	top := divergencePlot(d)
	if d.Limit == 0 {
		return top.Draw
	}
	bot := fastestPlot(d, top.X.Min, top.X.Max)
	return func(c draw.Canvas) {
		// The probe rows get three fifths of the height.
		split := c.Min.Y + (c.Max.Y-c.Min.Y)*2/5
		tc, bc := c, c
		tc.Min.Y, bc.Max.Y = split, split
		cs := plot.Align([][]*plot.Plot{{top}}, draw.Tiles{Rows: 1, Cols: 1}, tc)
		bs := plot.Align([][]*plot.Plot{{bot}}, draw.Tiles{Rows: 1, Cols: 1}, bc)
		// Line the two data areas up on x.
		tdc, bdc := top.DataCanvas(cs[0][0]), bot.DataCanvas(bs[0][0])
		left, right := max(tdc.Min.X, bdc.Min.X), min(tdc.Max.X, bdc.Max.X)
		cs[0][0].Min.X += left - tdc.Min.X
		cs[0][0].Max.X -= tdc.Max.X - right
		bs[0][0].Min.X += left - bdc.Min.X
		bs[0][0].Max.X -= bdc.Max.X - right
		top.Draw(cs[0][0])
		bot.Draw(bs[0][0])
	}
}

// fastestPlot is Figure 3's lower panel: each probe's fastest whole walk
// at its prefix, with Q3, the threshold and the recovery limit.
func fastestPlot(d *DivergenceData, xmin, xmax float64) *plot.Plot {
	p := newPlot("", "prefix length (steps replayed)", "fastest walk (s)")
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max = xmin, xmax
	var rec, non plotter.XYs
	lo, hi := math.Min(d.Q3, d.Limit), math.Max(d.Threshold, d.Limit)
	for _, pr := range d.Probes {
		if pr.Fastest <= 0 {
			continue
		}
		xy := plotter.XY{X: float64(pr.Prefix), Y: pr.Fastest}
		if pr.Recovered {
			rec = append(rec, xy)
		} else {
			non = append(non, xy)
		}
		lo, hi = math.Min(lo, pr.Fastest), math.Max(hi, pr.Fastest)
	}
	if lo > 0 && hi/lo > 5 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logSecTicks{}
		p.Y.Min, p.Y.Max = lo/1.3, hi*1.6
	} else {
		span := math.Max(hi-lo, math.Max(hi*0.02, 1e-9))
		p.Y.Min, p.Y.Max = math.Max(0, lo-0.15*span), hi+0.3*span
		p.Y.Tick.Marker = secTicks{}
	}
	if d.Q3 > 0 {
		l := hline(d.Q3, xmin, xmax, colQuartile, 1, vg.Points(4), vg.Points(2))
		p.Add(l)
		p.Legend.Add("Q3 "+fmtSec(d.Q3), l)
	}
	if d.Threshold > 0 {
		l := hline(d.Threshold, xmin, xmax, colThreshold, 1.5)
		p.Add(l)
		p.Legend.Add("threshold "+fmtSec(d.Threshold), l)
	}
	if d.Limit != d.Threshold && d.Limit != d.Q3 {
		l := hline(d.Limit, xmin, xmax, colSimilar, 1, vg.Points(2), vg.Points(2))
		p.Add(l)
		p.Legend.Add("recovery limit "+fmtSec(d.Limit), l)
	}
	if len(rec) > 0 {
		s, _ := plotter.NewScatter(rec)
		s.GlyphStyle = draw.GlyphStyle{Color: colSimilar, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	if len(non) > 0 {
		s, _ := plotter.NewScatter(non)
		s.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
		p.Add(s)
	}
	if d.Step >= 0 {
		p.Add(vline(float64(d.Step), p.Y.Min, p.Y.Max, colAnomaly, 1.5))
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), -vg.Points(2)
	return p
}

func boundsText(d *DivergenceData) string {
	switch {
	case d.Lower >= 0 && d.Upper >= 0:
		return fmt.Sprintf("%d (recovers) and %d (does not)", d.Lower, d.Upper)
	case d.Upper >= 0:
		return fmt.Sprintf("… %d (does not recover)", d.Upper)
	default:
		return "(every prefix recovered)"
	}
}

func divergencePlot(d *DivergenceData) *plot.Plot {
	p := newPlot("", "prefix length (steps of the "+d.Execution+" replayed)", "probe (call order)")
	nexp := 0
	for _, pr := range d.Probes {
		if pr.Phase == "exponential" {
			nexp++
		}
	}
	// Probe rows, exponential above the bar (y = 0) and binary below it,
	// half a row further off it than a row's spacing: the gap holds the
	// bar's and the phases' texts.
	y := func(pr DivProbe) float64 {
		if pr.Phase == "exponential" {
			return float64(nexp-pr.Order) + 1.5
		}
		return -float64(pr.Order-nexp) - 0.5
	}
	barEnd, barText := divergenceAxes(p, d, nexp, y)
	p.Add(plotter.NewGrid())
	divergenceMarks(p, d, nexp, barEnd, barText)
	divergenceProbes(p, d, y)
	// Bottom left: the binary probes lie right of the last exponential
	// one's half, the exponential ones above the bar.
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), vg.Points(4)
	return p
}

// divergenceAxes sets the divergence plot's axes: y a row per probe (at
// y) with room for the legend, x the prefix lengths up to the
// execution's. It zooms on the probes when they all lie in the first
// part of a long execution; the bar then runs off the right edge: barEnd
// and barText are where the bar ends and what it says.
func divergenceAxes(p *plot.Plot, d *DivergenceData, nexp int, y func(DivProbe) float64) (barEnd float64, barText string) {
	xmax := float64(max(d.TotalSteps, 1))
	maxPrefix := 0
	for _, pr := range d.Probes {
		maxPrefix = max(maxPrefix, pr.Prefix)
	}
	barEnd, barText = float64(d.TotalSteps), fmt.Sprintf("%s, %d steps", d.Execution, d.TotalSteps)
	if z := float64(max(maxPrefix, d.Step, 1)) * 1.3; z < xmax/2 {
		xmax = z
		barEnd, barText = z*1.08, fmt.Sprintf("%s, %d steps (continues off the scale) →", d.Execution, d.TotalSteps)
	}
	p.X.Min, p.X.Max = -0.02*xmax, xmax*1.08
	// Room below the binary probes' rows for the legend at the bottom left.
	p.Y.Min, p.Y.Max = math.Min(-float64(len(d.Probes)-nexp)-2.2, -2.5), float64(nexp)+1.2
	var ticks []plot.Tick
	for _, pr := range d.Probes {
		ticks = append(ticks, plot.Tick{Value: y(pr), Label: fmt.Sprint(pr.Order)})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Marker = plot.DefaultTicks{}
	return barEnd, barText
}

// divergenceMarks draws the bounds of the exponential phase (grey
// dashed), the execution's bar, the phases' names at its left end and the
// divergence step (red).
func divergenceMarks(p *plot.Plot, d *DivergenceData, nexp int, barEnd float64, barText string) {
	ymin, ymax := p.Y.Min, p.Y.Max
	if d.Lower >= 0 {
		p.Add(vline(float64(d.Lower), ymin, ymax, colQuartile, 1, vg.Points(4), vg.Points(2)))
	}
	if d.Upper >= 0 {
		p.Add(vline(float64(d.Upper), ymin, ymax, colQuartile, 1, vg.Points(4), vg.Points(2)))
	}
	bar := hline(0, 0, barEnd, colorBlack, 4)
	p.Add(bar)
	// Inside the axes: the bar's end is the plot's right edge.
	p.Add(labels(plotter.XYs{{X: barEnd, Y: 0}}, []string{barText}, 9, colorBlack, draw.XRight, draw.YBottom, vg.Point{X: -4, Y: 4}))
	// The two phases, at the left end of the bar: the probes there lie
	// right of the last exponential one's half.
	phase := func(name string, first, last int) string {
		if first == last {
			return fmt.Sprintf("%s (probe %d)", name, first)
		}
		return fmt.Sprintf("%s (probes %d–%d)", name, first, last)
	}
	p.Add(labels(plotter.XYs{{X: p.X.Min, Y: 0}}, []string{"↑ " + phase("exponential search", 1, nexp)}, 9, colQuartile, draw.XLeft, draw.YBottom, vg.Point{X: 4, Y: 4}))
	if nexp < len(d.Probes) {
		p.Add(labels(plotter.XYs{{X: p.X.Min, Y: 0}}, []string{"↓ " + phase("binary search", nexp+1, len(d.Probes))}, 9, colQuartile, draw.XLeft, draw.YTop, vg.Point{X: 4, Y: -4}))
	}
	if d.Step >= 0 {
		dl := vline(float64(d.Step), ymin, ymax, colAnomaly, 1.5)
		p.Add(dl)
		xa, dx := draw.XLeft, vg.Length(4)
		if float64(d.Step) > p.X.Min+0.7*(p.X.Max-p.X.Min) { // keep it inside: left of the line
			xa, dx = draw.XRight, -4
		}
		p.Add(labels(plotter.XYs{{X: float64(d.Step), Y: ymax}}, []string{fmt.Sprintf("%s: step %d", d.Point, d.Step)}, 9, colAnomaly, xa, draw.YTop, vg.Point{X: dx, Y: -3}))
	}
}

// divergenceProbes draws the probes at (prefix, y): a green circle for
// a recovering one, a red cross for the others, each with its walks.
func divergenceProbes(p *plot.Plot, d *DivergenceData, y func(DivProbe) float64) {
	var rec, non plotter.XYs
	var txt, ltxt []string
	var txy, ltxy plotter.XYs
	for _, pr := range d.Probes {
		xy := plotter.XY{X: float64(pr.Prefix), Y: y(pr)}
		if pr.Recovered {
			rec = append(rec, xy)
		} else {
			non = append(non, xy)
		}
		t := fmt.Sprintf("%d: %d walk%s", pr.Prefix, pr.Walks, ifs(pr.Walks == 1, "", "s"))
		// Near the right edge the text goes left of its mark.
		if xy.X > p.X.Min+0.85*(p.X.Max-p.X.Min) {
			ltxy, ltxt = append(ltxy, xy), append(ltxt, t)
		} else {
			txy, txt = append(txy, xy), append(txt, t)
		}
	}
	if len(rec) > 0 {
		s, _ := plotter.NewScatter(rec)
		s.GlyphStyle = draw.GlyphStyle{Color: colSimilar, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("recovered", s)
	}
	if len(non) > 0 {
		s, _ := plotter.NewScatter(non)
		s.GlyphStyle = draw.GlyphStyle{Color: colAnomaly, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
		p.Add(s)
		p.Legend.Add("not recovered", s)
	}
	if len(txy) > 0 {
		p.Add(labels(txy, txt, 8, colQuartile, draw.XLeft, draw.YCenter, vg.Point{X: 7}))
	}
	if len(ltxy) > 0 {
		p.Add(labels(ltxy, ltxt, 8, colQuartile, draw.XRight, draw.YCenter, vg.Point{X: -7}))
	}
}

// ---- small helpers ----

// fmtSec prints seconds in the unit that fits them, as stdout and
// summary.md do ("747.3 ms", "10 s").
func fmtSec(v float64) string { return units.Seconds(v) }

// fmtSecs prints seconds printed together in one unit, the one that fits
// the largest ("Q1 2.4 ms, Q3 3.3 ms").
func fmtSecs(vs ...float64) []string {
	ds := make([]time.Duration, len(vs))
	for i, v := range vs {
		ds[i] = units.FromSeconds(v)
	}
	u := units.For(ds...)
	out := make([]string, len(vs))
	for i, d := range ds {
		out[i] = u.Format(d)
	}
	return out
}

// ifs is a if c holds, else b.
func ifs[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func upper(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

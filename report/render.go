package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The report's colours: one meaning each, in every plot.
var (
	colAnomaly    = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff} // the anomalous execution, not recovered
	colSimilar    = color.RGBA{R: 0x1e, G: 0x84, B: 0x49, A: 0xff} // the similar fast execution, recovered
	colNormal     = color.RGBA{R: 0x2e, G: 0x6d, B: 0xb4, A: 0xff} // profile and search executions
	colThreshold  = color.RGBA{R: 0xd3, G: 0x54, B: 0x00, A: 0xff} // the anomaly threshold
	colTail       = color.RGBA{R: 0xe6, G: 0xa2, B: 0x17, A: 0xff} // above the threshold, the normal tail
	colQuartile   = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff} // Q1, Q3, bounds
	colMuted      = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff} // length-only labels, context
	colLight      = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	colorBlack    = color.RGBA{A: 0xff}
	colLengthOnly = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

// sansFont is the report's typeface. SVG output names it with metric-
// compatible fallbacks (Arial, Helvetica), so text measured with it fits
// where the browser lacks it.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot is plot.New with the report's fonts and sizes.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, 12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 10)
		a.Tick.Label.Font = font.From(sansFont, 9)
		a.Padding = vg.Points(3)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.TextStyle.Font = font.From(sansFont, 9)
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2.5)
	return p
}

// Render draws a drawing (a plot's Draw method, or several plots tiled)
// of size w×h as SVG, ready to inline into HTML (no XML prolog, the font
// named with fallbacks), and as a 96 dpi PNG. The same drawing gives the
// same bytes. A panic inside the drawing is returned as an error.
func Render(drawFn func(draw.Canvas), w, h vg.Length) (svg, png []byte, err error) {
	if svg, err = renderSVG(drawFn, w, h); err != nil {
		return nil, nil, err
	}
	if png, err = renderPNG(drawFn, w, h); err != nil {
		return nil, nil, err
	}
	return svg, png, nil
}

func renderSVG(drawFn func(draw.Canvas), w, h vg.Length) (svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing failed: %v", r)
		}
	}()
	sc := vgsvg.New(w, h)
	drawFn(draw.New(sc))
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return inlineSVG(sb.Bytes()), nil
}

func renderPNG(drawFn func(draw.Canvas), w, h vg.Length) (png []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing failed: %v", r)
		}
	}()
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	drawFn(draw.New(ic))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return pb.Bytes(), nil
}

// pngTitleH is the height of the line titled adds.
const pngTitleH = vg.Length(16)

// titled draws a line of text (a file's title) above a drawing.
func titled(drawFn func(draw.Canvas), title string) func(draw.Canvas) {
	return func(c draw.Canvas) {
		st := text.Style{Color: colQuartile, Font: font.From(sansFont, 9), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		c.FillText(st, vg.Point{X: c.Min.X + vg.Points(4), Y: c.Max.Y - vg.Points(3)}, title)
		c.Max.Y -= pngTitleH
		drawFn(c)
	}
}

// RenderPlot is Render of one plot.
func RenderPlot(p *plot.Plot, w, h vg.Length) (svg, png []byte, err error) {
	return Render(p.Draw, w, h)
}

// tiled draws plots in a grid (rows × columns, nil cells left empty),
// laid out by alignTiles with even columns, row by row.
func tiled(plots [][]*plot.Plot, padX, padY vg.Length) func(draw.Canvas) {
	return func(c draw.Canvas) {
		canvases := alignTiles(plots, c, padX, padY, nil)
		for i, r := range plots {
			for j, p := range r {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}
}

// alignTiles lays out plots in a grid (rows × columns, nil cells left
// empty) on c, padX and padY apart, with their data areas aligned in
// rows and columns: the canvases to draw them on, [row][column]. Without
// widths the columns share c's width evenly; widths gives each column's
// fraction of it instead, and then each column is aligned on its own
// (its neighbours' axes do not move it) and padX is unused.
func alignTiles(plots [][]*plot.Plot, c draw.Canvas, padX, padY vg.Length, widths []float64) [][]draw.Canvas {
	cols := 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	t := draw.Tiles{Rows: len(plots), Cols: cols, PadX: padX, PadY: padY, PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	if widths == nil {
		return plot.Align(plots, t, c)
	}
	if len(widths) != cols {
		panic(fmt.Sprintf("report: %d column widths for %d columns", len(widths), cols)) // caller bug
	}
	out := make([][]draw.Canvas, len(plots))
	for i := range out {
		out[i] = make([]draw.Canvas, cols)
	}
	t.Cols = 1
	cc, at := c, 0.0
	for j, w := range widths {
		if j < cols-1 {
			at += w
			cc.Max.X = c.Min.X + (c.Max.X-c.Min.X)*vg.Length(at)
		} else {
			cc.Max.X = c.Max.X
		}
		col := make([][]*plot.Plot, len(plots))
		for i, r := range plots {
			col[i] = []*plot.Plot{r[j]}
		}
		for i, cs := range plot.Align(col, t, cc) {
			out[i][j] = cs[0]
		}
		cc.Min.X = cc.Max.X
	}
	return out
}

// inlineSVG drops the XML prolog and comment of vgsvg's output and gives
// the font family fallbacks.
func inlineSVG(b []byte) []byte {
	s := string(b)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	s = strings.ReplaceAll(s, "font-family:Liberation Mono;", "font-family:'Liberation Mono','Courier New',monospace;")
	return []byte(s)
}

// placeholder is a plot that says why there is nothing to show.
func placeholder(title, why string) *plot.Plot {
	p := newPlot(title, "", "")
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{why}})
	if err == nil {
		l.TextStyle[0].Font = font.From(sansFont, 11)
		l.TextStyle[0].Color = colMuted
		l.TextStyle[0].XAlign = draw.XCenter
		l.TextStyle[0].YAlign = draw.YCenter
		p.Add(l)
	}
	return p
}

// gridBelow is plotter.NewGrid's grid below y = max, leaving the room
// above it to the legend.
type gridBelow struct{ max float64 }

func (g gridBelow) Plot(c draw.Canvas, p *plot.Plot) {
	def := plotter.NewGrid()
	trX, trY := p.Transforms(&c)
	top := trY(math.Min(g.max, p.Y.Max))
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.IsMinor() || t.Value < p.X.Min || t.Value > p.X.Max {
			continue
		}
		x := trX(t.Value)
		c.StrokeLine2(def.Vertical, x, c.Min.Y, x, top)
	}
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if t.IsMinor() || t.Value < p.Y.Min || t.Value > g.max {
			continue
		}
		y := trY(t.Value)
		c.StrokeLine2(def.Horizontal, c.Min.X, y, c.Max.X, y)
	}
}

// vline and hline are straight reference lines across a plot's range.
func vline(x, y0, y1 float64, c color.Color, width float64, dashes ...vg.Length) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
	l.Color = c
	l.Width = vg.Points(width)
	l.Dashes = dashes
	return l
}

func hline(y, x0, x1 float64, c color.Color, width float64, dashes ...vg.Length) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Color = c
	l.Width = vg.Points(width)
	l.Dashes = dashes
	return l
}

// labels places texts at points in one style.
func labels(xys plotter.XYs, texts []string, size float64, c color.Color, xa draw.XAlignment, ya draw.YAlignment, off vg.Point) *plotter.Labels {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		panic(err) // caller bug: len(xys) != len(texts) or NaN
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(sansFont, vg.Length(size))
		l.TextStyle[i].Color = c
		l.TextStyle[i].XAlign = xa
		l.TextStyle[i].YAlign = ya
	}
	l.Offset = off
	return l
}

// secTicks labels a time axis in seconds: every major tick with the
// fewest decimals at which all of them print their value exactly and
// differ from each other (gonum's ticks can sit at half steps, so the
// spacing alone does not say how many decimals the values need).
type secTicks struct{}

func (secTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	var major []float64
	for _, t := range ts {
		if t.Label != "" {
			major = append(major, t.Value)
		}
	}
	prec := tickPrecision(major, hi-lo)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmtTick(ts[i].Value, prec)
		}
	}
	return ts
}

// maxTickDecimals bounds tickPrecision: picoseconds, below the
// simulator's nanoseconds (ticks can sit at half a step).
const maxTickDecimals = 12

// tickPrecision is the decimals of an axis' tick labels: the fewest, at
// most maxTickDecimals, at which the values print exactly (within a tiny
// fraction of span) and distinctly; -1 when none does (fmtTick then
// prints the shortest exact representation).
func tickPrecision(vs []float64, span float64) int {
	if p, ok := decimals(vs, 0, maxTickDecimals, 1e-7*math.Abs(span)); ok {
		return p
	}
	return -1
}

// decimals is the fewest decimals, from lo to hi, at which every value
// of vs prints (fmtTick) within tol of itself and no two values print
// alike, and whether there is such a number. It is how every number on
// a plot gets its precision: the axes' tick labels (a tiny tol: exact),
// and the late arrival times under the event graph (tol +Inf: rounded,
// but told apart).
func decimals(vs []float64, lo, hi int, tol float64) (int, bool) {
	for p := lo; p <= hi; p++ {
		seen := make(map[string]bool, len(vs))
		ok := true
		for _, v := range vs {
			l := fmtTick(v, p)
			x, err := strconv.ParseFloat(l, 64)
			if err != nil || math.Abs(x-v) > tol || seen[l] {
				ok = false
				break
			}
			seen[l] = true
		}
		if ok {
			return p, true
		}
	}
	return 0, false
}

// fmtTick prints v with p decimals (-1: shortest exact), without a minus
// sign on zero.
func fmtTick(v float64, p int) string {
	var l string
	if p < 0 {
		l = strconv.FormatFloat(v, 'g', -1, 64)
	} else {
		l = strconv.FormatFloat(v, 'f', p, 64)
	}
	if strings.Trim(l, "-0.") == "" {
		l = strings.TrimPrefix(l, "-")
	}
	return l
}

// logSecTicks labels a logarithmic time axis at 1-2-5 steps, each label
// with the fewest decimals at which it is exact (at most logTickDecimals:
// nanoseconds).
type logSecTicks struct{}

const logTickDecimals = 9

func (logSecTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	if min <= 0 || max <= 0 || min > max {
		return ts
	}
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for _, m := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} {
			v := m * math.Pow(10, e)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				p, ok := decimals([]float64{v}, 0, logTickDecimals, 1e-7*v)
				if !ok {
					p = logTickDecimals
				}
				t.Label = fmtTick(v, p)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

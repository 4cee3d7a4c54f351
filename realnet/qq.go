package realnet

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/macepc/macepc/internal/atomicfile"
)

// FileQQ is the Q–Q plot's file name beside the traces.
const FileQQ = "fidelity-qq.png"

// QQPoint is one point of a Q–Q plot: the real and the simulated
// execution time at the same probability P.
type QQPoint struct {
	P         float64
	Real, Sim time.Duration
}

// QQ is the Q–Q plot of f's real against its simulated execution times:
// k = min(len(Real), len(Sim), 100) points at the probabilities
// (i+½)/k, each sample's quantile by linear interpolation (gonum's
// stat.LinInterp, the definition the quantile table uses). Nil if a
// sample is empty. f's samples must be sorted (CompareFidelity sorts
// them).
func QQ(f *Fidelity) []QQPoint {
	k := min(len(f.Real), len(f.Sim), 100)
	if k == 0 {
		return nil
	}
	r, s := floats(f.Real), floats(f.Sim)
	out := make([]QQPoint, k)
	for i := range k {
		p := (float64(i) + 0.5) / float64(k)
		out[i] = QQPoint{P: p, Real: time.Duration(stat.Quantile(p, stat.LinInterp, r, nil)), Sim: time.Duration(stat.Quantile(p, stat.LinInterp, s, nil))}
	}
	return out
}

// The plot's colours: the points as the report draws executions, the
// diagonal as it draws bounds. The legend is in the lower right, below
// the diagonal, where the points of real runs slower than the
// simulation's are not.
var (
	qqPoints   = color.RGBA{R: 0x2e, G: 0x6d, B: 0xb4, A: 0xff}
	qqDiagonal = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
)

// sansFont is the report's typeface.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// QQPlot draws QQ(f): simulated (x) against real (y) execution time in
// milliseconds, with the diagonal on which a perfect simulator's points
// lie. A point above it is a quantile where the real runs were slower.
// When the largest time is more than 10 times the smallest, both axes
// are logarithmic (and say so).
func QQPlot(f *Fidelity, title string) (*plot.Plot, error) {
	pts := QQ(f)
	if len(pts) == 0 {
		return nil, fmt.Errorf("realnet: a Q-Q plot needs real and simulated execution times")
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	xy := make(plotter.XYs, len(pts))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, q := range pts {
		xy[i].X, xy[i].Y = ms(q.Sim), ms(q.Real)
		lo, hi = min(lo, xy[i].X, xy[i].Y), max(hi, xy[i].X, xy[i].Y)
	}
	if hi == lo {
		lo, hi = lo*0.9, hi*1.1+1e-3
	}
	// A tail many times the body (a recovery timer, a connection set-up)
	// would squash the body into a corner: then both axes are
	// logarithmic.
	logAxes := lo > 0 && hi/lo > 10
	if logAxes {
		lo, hi = lo/1.1, hi*1.1
	} else {
		pad := (hi - lo) * 0.05
		lo, hi = max(lo-pad, 0), hi+pad
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, 12)
	p.X.Label.Text = "simulated execution time (ms)"
	p.Y.Label.Text = "real execution time (ms)"
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 10)
		a.Tick.Label.Font = font.From(sansFont, 9)
		a.Min, a.Max = lo, hi
		if logAxes {
			a.Scale, a.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}
	}
	if logAxes {
		p.X.Label.Text += ", log scale"
		p.Y.Label.Text += ", log scale"
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	diag.Color, diag.Dashes = qqDiagonal, []vg.Length{vg.Points(4), vg.Points(3)}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: qqPoints, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(diag, sc)
	p.Legend.TextStyle.Font = font.From(sansFont, 9)
	p.Legend.Add("quantiles", sc)
	p.Legend.Add("real = simulated", diag)
	return p, nil
}

// WriteQQPlot writes QQPlot(f, title) as a 96 dpi PNG to path,
// atomically. The same f gives the same bytes.
func WriteQQPlot(path string, f *Fidelity, title string) error {
	p, err := QQPlot(f, title)
	if err != nil {
		return err
	}
	c := vgimg.NewWith(vgimg.UseWH(5*vg.Inch, 5*vg.Inch), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return fmt.Errorf("realnet: %w", err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err })
}

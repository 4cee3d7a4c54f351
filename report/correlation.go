package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/macepc/macepc/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// correlationPanels is how many labels the correlation plot shows: the
// strongest correlated ones, then the strongest length-only ones.
const (
	correlationTop        = 4
	correlationLengthOnly = 2
)

// CorrelationData feeds the frequency-correlation plot.
type CorrelationData struct {
	// Executions is the number of executions of phases 2 and 3a.
	Executions int         `json:"executions"`
	Panels     []CorrPanel `json:"panels"`
}

// CorrPanel is one label's scatter of count against execution time.
type CorrPanel struct {
	Label      string      `json:"label"`
	R          *float64    `json:"r"`
	WindowR    *float64    `json:"window_r"`
	LengthOnly bool        `json:"length_only"`
	Points     []CorrPoint `json:"points"`
}

// CorrPoint is N executions with the same count and execution time.
type CorrPoint struct {
	Count int     `json:"count"`
	Time  float64 `json:"time"`
	N     int     `json:"n"`
}

// NewCorrelationData extracts the correlation plot's data: the labels in
// correlation.json's order (strongest first), each with the counts of the
// executions of search-executions.jsonl and divergence-walks.jsonl.
func NewCorrelationData(r *Results) (*CorrelationData, string) {
	cf := r.Correlation
	if cf == nil {
		if r.Search != nil && r.Search.Anomaly == nil {
			return nil, "no anomaly was found, so the frequency correlation (phase 3b) did not run"
		}
		return nil, "no frequency correlation (phase 3b did not run)"
	}
	execs := append(append([]results.CountsLine(nil), r.SearchExecs...), r.Walks...)
	if len(execs) == 0 {
		return nil, "no executions of phases 2 and 3a to correlate"
	}
	d := &CorrelationData{Executions: len(execs)}
	nTop, nLen := 0, 0
	for _, l := range cf.Labels {
		switch {
		case l.SameAs != "": // its event label is plotted instead
			continue
		case l.LengthOnly && nLen < correlationLengthOnly:
			nLen++
		case !l.LengthOnly && l.R != nil && nTop < correlationTop:
			nTop++
		default:
			continue
		}
		pn := CorrPanel{Label: l.Label, R: l.R, WindowR: l.WindowR, LengthOnly: l.LengthOnly}
		idx := map[CorrPoint]int{}
		for _, e := range execs {
			k := CorrPoint{Count: e.Counts[l.Label], Time: secsNS(e.ExecTimeNS)}
			if i, ok := idx[k]; ok {
				pn.Points[i].N++
				continue
			}
			idx[k] = len(pn.Points)
			k.N = 1
			pn.Points = append(pn.Points, k)
		}
		d.Panels = append(d.Panels, pn)
	}
	if len(d.Panels) == 0 {
		return nil, fmt.Sprintf("no label correlates with execution time (|r| ≥ %.2f) over the %d executions", cf.MinR, len(execs))
	}
	// Correlated labels first, then length-only ones, each in file order.
	var a, b []CorrPanel
	for _, p := range d.Panels {
		if p.LengthOnly {
			b = append(b, p)
		} else {
			a = append(a, p)
		}
	}
	d.Panels = append(a, b...)
	return d, ""
}

func correlationFigure(r *Results) Figure {
	d, why := NewCorrelationData(r)
	f := Figure{Title: "Event frequency vs execution time (phase 3b, MacePC Figure 4)", Missing: why, W: vg.Points(640)}
	if d != nil {
		f.Data = d
		rows := (len(d.Panels) + 1) / 2
		f.H = vg.Points(float64(40 + 180*rows))
		var top []string
		for _, p := range d.Panels {
			if !p.LengthOnly && len(top) < 2 {
				top = append(top, fmt.Sprintf("%q (r = %s)", p.Label, fmtRp(p.R)))
			}
		}
		f.Guide = fmt.Sprintf("One panel per event label: each dot is one of the %d executions of phases 2 and 3a, at how often the label occurred in it (x) and its execution time (y, logarithmic when the times span more than a factor of 5); "+
			"a dot's area grows with the number of executions at the same place. The title gives Pearson's r over all executions and, in brackets, r counting only the events that start within the normal execution time (its first quartile, Q1), over the executions that ran that long. "+
			"Blue panels are the labels most correlated with slowness, here %s: look at their handlers first. "+
			"Grey panels marked length-only correlate only because a long execution runs longer (periodic timers and what they trigger): their correlation disappears within Q1.",
			d.Executions, strings.Join(top, " and "))
	}
	return finish(f, func() func(draw.Canvas) { return correlationPlot(d) })
}

func fmtRp(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", *r)
}

func correlationPlot(d *CorrelationData) func(draw.Canvas) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pn := range d.Panels {
		for _, pt := range pn.Points {
			lo, hi = math.Min(lo, pt.Time), math.Max(hi, pt.Time)
		}
	}
	logY := lo > 0 && hi/lo > 5
	var grid [][]*plot.Plot
	for i, pn := range d.Panels {
		title := fmt.Sprintf("%s\nr = %s (within Q1: %s)", pn.Label, fmtRp(pn.R), fmtRp(pn.WindowR))
		c := color.Color(colNormal)
		if pn.LengthOnly {
			title = fmt.Sprintf("%s   [length-only]\nr = %s (within Q1: %s)", pn.Label, fmtRp(pn.R), fmtRp(pn.WindowR))
			c = colLengthOnly
		}
		p := newPlot(title, "count per execution", "execution time (s)")
		p.Title.TextStyle.Font.Size = vg.Points(9.5)
		if pn.LengthOnly {
			p.Title.TextStyle.Color = colMuted
		}
		p.Add(plotter.NewGrid())
		cmax := 0
		for _, pt := range pn.Points {
			cmax = max(cmax, pt.Count)
		}
		p.X.Min, p.X.Max = -0.5, float64(cmax)+0.5
		if cmax < 8 {
			var ts []plot.Tick
			for k := 0; k <= cmax; k++ {
				ts = append(ts, plot.Tick{Value: float64(k), Label: fmt.Sprint(k)})
			}
			p.X.Tick.Marker = plot.ConstantTicks(ts)
		} else {
			p.X.Tick.Marker = intTicks{}
		}
		if logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logSecTicks{}
			p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
		} else {
			span := math.Max(hi-lo, math.Max(hi*0.02, 1e-9))
			p.Y.Min, p.Y.Max = math.Max(0, lo-0.1*span), hi+0.1*span
			p.Y.Tick.Marker = secTicks{}
		}
		for _, pt := range pn.Points {
			s, _ := plotter.NewScatter(plotter.XYs{{X: float64(pt.Count), Y: pt.Time}})
			rgba := color.NRGBAModel.Convert(c).(color.NRGBA)
			rgba.A = 0xa0
			s.GlyphStyle = draw.GlyphStyle{Color: rgba, Radius: vg.Points(2 * math.Sqrt(float64(pt.N))), Shape: draw.CircleGlyph{}}
			if pt.N > 6 {
				s.GlyphStyle.Radius = vg.Points(2*math.Sqrt(6) + math.Log(float64(pt.N)/6))
			}
			p.Add(s)
		}
		if i%2 == 0 {
			grid = append(grid, []*plot.Plot{p, nil})
		} else {
			grid[len(grid)-1][1] = p
		}
	}
	return tiled(grid, vg.Points(16), vg.Points(12))
}

// intTicks labels an axis of counts or indices with whole numbers only:
// at most maxIntLabels labels, a step of 1, 2 or 5 times a power of ten
// (never below 1), with unlabelled whole-number ticks between them.
type intTicks struct{}

// maxIntLabels bounds intTicks' labels: enough to read a bar's height.
const maxIntLabels = 6

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if !(first <= last) || math.IsInf(last-first, 0) {
		return nil
	}
	step := 1.0
	for k := 0; ; k++ {
		if math.Floor(last/step)-math.Ceil(first/step)+1 <= maxIntLabels {
			break
		}
		step = []float64{2, 5, 10}[k%3] * math.Pow(10, float64(k/3))
	}
	minor := 0.0
	switch {
	case step >= 5 && math.Mod(step, 5) == 0:
		minor = step / 5
	case step >= 2:
		minor = step / 2
	}
	var ts []plot.Tick
	for v := math.Ceil(first/step) * step; v <= last; v += step {
		if v == 0 {
			v = 0 // not -0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	if minor > 0 {
		for v := math.Ceil(first/minor) * minor; v <= last; v += minor {
			if math.Mod(v, step) != 0 {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	return ts
}

package pipeline

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/critpath"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Verdict says how phase 2 judges the executions above the threshold.
type Verdict struct {
	// Alpha is the family-wise error rate of the significance test: the
	// chance that a search of a protocol whose slow executions are its
	// normal variance reports an anomaly (anomaly.Significance).
	Alpha float64 `json:"alpha"`
	// FenceOnly is MacePC's verdict: every execution above the threshold
	// is an anomaly (the paper's tables use it).
	FenceOnly bool `json:"fence_only"`
}

// DefaultVerdict is the command line's: the significance test at a
// family-wise rate of 0.01.
func DefaultVerdict() Verdict { return Verdict{Alpha: anomaly.DefaultAlpha} }

// resolved is v with a zero Alpha replaced by the default (the zero
// Verdict is DefaultVerdict).
func (v Verdict) resolved() Verdict {
	if v.Alpha == 0 {
		v.Alpha = anomaly.DefaultAlpha
	}
	return v
}

func (v Verdict) check() error {
	if v = v.resolved(); !(v.Alpha > 0 && v.Alpha < 1) {
		return fieldErr("Verdict.Alpha", "must be in (0, 1), got %v", v.Alpha)
	}
	return nil
}

// DrawShareTail is the share of an anomaly's excess over a median
// execution that, made of the simulator's own draws (event durations and
// network delays, critpath.Kind.Draw) at a rate they have, makes its class
// the normal tail rather than an anomaly.
const DrawShareTail = 0.5

// maxTailTests bounds the tests search.json keeps (the slowest).
const maxTailTests = 50

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	x = round6sig(x)
	return &x
}

// round6sig keeps 6 significant digits, so that files do not carry the
// last bits of a float computation.
func round6sig(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return r
}

// judge runs the significance test of look (of looks) over the first n
// executions of execs (index order). Findings are not judged (they are
// anomalies) and do not enter the tail model: their time is the
// scenario's timeout, not a measurement.
func judge(pf *results.Profile, t *Target, execs []results.CountsLine, n int, alpha float64, look, looks int) (*anomaly.SignificanceResult, *SignificanceFile) {
	var prof, searched []time.Duration
	for _, e := range pf.Executions {
		if !findingOutcome(e.Outcome) {
			prof = append(prof, time.Duration(e.ExecTimeNS))
		}
	}
	var cands []anomaly.Candidate
	for _, l := range execs[:n] {
		if l.Finding != "" {
			continue
		}
		searched = append(searched, time.Duration(l.ExecTimeNS))
		if l.ExecTimeNS > pf.Threshold {
			cands = append(cands, anomaly.Candidate{Index: l.Index, ExecTime: time.Duration(l.ExecTimeNS)})
		}
	}
	cfg := anomaly.SignificanceConfig{Alpha: alpha / float64(looks), Tail: anomaly.TailConfig{MinShape: modelShape(t)}}
	res := anomaly.Significance(prof, searched, cands, cfg)
	f := &SignificanceFile{Look: look, Looks: looks, Alpha: round6sig(res.Alpha), Level: round6sig(res.Level), Searched: res.Searched, CutNS: int64(res.Cut),
		Models: []TailModelFile{}, Tests: []TailTestFile{}, Window: []TailWindowFile{}}
	for i, m := range res.Models {
		if m == nil {
			f.Models = append(f.Models, TailModelFile{Reason: res.Reasons[i]})
			continue
		}
		f.Models = append(f.Models, TailModelFile{UNS: int64(m.U), BelowNS: int64(m.Below), Excesses: m.Excesses, Reference: m.Reference, Rate: round6sig(m.Rate),
			SigmaNS: round6sig(m.Sigma), Xi: round6sig(m.Xi), XiLow: round6sig(m.XiLow), XiHigh: round6sig(m.XiHigh), MinShape: round6sig(m.MinShape)})
	}
	for i, tt := range res.Tests {
		if i == maxTailTests {
			break
		}
		f.Tests = append(f.Tests, TailTestFile{Index: tt.Index, ExecTimeNS: int64(tt.ExecTime), Rank: tt.Rank, Model: tt.Model, P: finite(tt.P), PValue: finite(tt.PValue), Significant: tt.Significant})
	}
	for i, w := range res.Windows {
		if i == maxTailTests {
			break
		}
		f.Window = append(f.Window, TailWindowFile{FromNS: int64(w.From), ToNS: int64(w.To), Open: w.Open, Count: w.Count, Mass: round6sig(w.Mass), PValue: round6sig(w.PValue)})
	}
	return res, f
}

// modelShape is the tail index of the simulator's network delays (ξ =
// 1/α of its Pareto distribution): a sum or maximum of them has that
// tail, so the tail model never extrapolates a lighter one.
func modelShape(t *Target) float64 {
	if a := t.Scenario.Network.WithDefaults().ParetoShape; a > 0 {
		return 1 / a
	}
	return 0
}

// findingOutcome reports whether an execution's outcome is a finding
// (its time is the scenario's timeout, not a measurement).
func findingOutcome(o timedsim.Outcome) bool {
	switch o {
	case timedsim.Panicked, timedsim.Hung, timedsim.SafetyViolated:
		return true
	}
	return false
}

// maxCauseParts bounds the parts a Cause keeps.
const maxCauseParts = 6

// medianExecution is the search execution closest in time to the
// profile's median (the lowest index among ties), not above the threshold
// and no finding; -1 when there is none.
func medianExecution(pf *results.Profile, execs []results.CountsLine) int {
	best, bestD := -1, int64(math.MaxInt64)
	for i, l := range execs {
		if l.Finding != "" || l.ExecTimeNS > pf.Threshold {
			continue
		}
		d := l.ExecTimeNS - pf.MedianNS
		if d < 0 {
			d = -d
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// causer computes the causes of classes' representatives against one
// median execution, replaying each once.
type causer struct {
	ctx    context.Context
	env    Env
	t      *Target
	n      int // executions searched: the rate of draws
	alpha  float64
	median *results.CountsLine
	// threshold is the profile's (ns): a stranded node's last news
	// came before it (critpath.FindStranded).
	threshold int64
	normal    *critpath.Path
	nlabel    map[string]bool
	cache     map[int]*Cause
}

func newCauser(ctx context.Context, env Env, t *Target, pf *results.Profile, execs []results.CountsLine, alpha float64) (*causer, error) {
	c := &causer{ctx: ctx, env: env, t: t, n: len(execs), alpha: alpha, threshold: pf.Threshold, cache: map[int]*Cause{}}
	m := medianExecution(pf, execs)
	if m < 0 {
		return c, nil
	}
	c.median = &execs[m]
	r, err := record(ctx, env, t, timedsim.SeedPath(c.median.Seed))
	if err != nil {
		return nil, err
	}
	if err := watchdogMismatch(env, fmt.Sprintf("the median execution (index %d)", c.median.Index), c.median.Outcome, c.median.Steps, r); err != nil {
		return nil, err
	}
	if c.normal, err = critpath.Compute(r.Events); err != nil {
		return nil, err
	}
	c.nlabel = map[string]bool{}
	for _, l := range c.normal.Labels(r.Events) {
		c.nlabel[l] = true
	}
	return c, nil
}

// cause is the attribution of execution l (nil when there is no median
// execution to compare with, or l is a finding).
func (c *causer) cause(l *results.CountsLine) (*Cause, error) {
	if c.normal == nil || l.Finding != "" {
		return nil, nil
	}
	if k, ok := c.cache[l.Index]; ok {
		return k, nil
	}
	r, err := record(c.ctx, c.env, c.t, timedsim.SeedPath(l.Seed))
	if err != nil {
		return nil, err
	}
	if err := watchdogMismatch(c.env, fmt.Sprintf("execution %d", l.Index), l.Outcome, l.Steps, r); err != nil {
		return nil, err
	}
	p, err := critpath.Compute(r.Events)
	if err != nil {
		return nil, err
	}
	a := critpath.Attribute(p, c.normal)
	k := &Cause{Headline: a.Headline(), AgainstIndex: c.median.Index, AgainstNS: c.median.ExecTimeNS, ExcessNS: int64(a.Excess),
		DrawShare: round6sig(a.DrawShare), Parts: []CausePart{}, Steps: p.Steps, Labels: []string{}}
	for _, pt := range a.Parts {
		if len(k.Parts) == maxCauseParts || pt.Excess <= 0 {
			break
		}
		k.Parts = append(k.Parts, CausePart{Kind: pt.Kind.String(), Label: pt.Label, SlowNS: int64(pt.Slow), NormalNS: int64(pt.Normal), ExcessNS: int64(pt.Excess), Text: pt.Describe()})
	}
	for _, lb := range p.Labels(r.Events) {
		if !c.nlabel[lb] {
			k.Labels = append(k.Labels, lb)
		}
	}
	k.LeadIn = []string{}
	if top, ok := a.Top(); ok && (top.Kind == critpath.Timer || top.Kind == critpath.Busy) {
		k.LeadIn = critpath.LeadIn(r.Events, top.Largest, time.Duration(c.median.ExecTimeNS))
		if top.Kind == critpath.Timer {
			if st, ok := critpath.FindStranded(r.Events, p, top.Largest, time.Duration(c.threshold)); ok {
				k.Stranded = &CauseStranded{Node: st.Node.String(), Step: st.Step, StartNS: int64(st.Start), Next: st.Next,
					Text: st.Text(), Labels: st.Labels(r.Events), LostLabels: st.SelfLostLabels(r.Events)}
				for _, l := range st.Lost {
					k.Stranded.Lost = append(k.Stranded.Lost, l.Step)
				}
				k.Headline += "; " + k.Stranded.Text
			} else if u, ok := critpath.FindUnanswered(r.Events, p, top.Largest); ok {
				k.Unanswered = &CauseUnanswered{Node: u.Node.String(), Timer: u.Timer, Rounds: u.Rounds, Silent: u.Silent,
					Steps: u.Steps, Text: u.Text(r.Events), Labels: u.Labels(r.Events)}
				k.Headline += "; " + k.Unanswered.Text
			}
		}
	}
	k.Draws = a.DrawShare >= DrawShareTail && c.plausibleDraws(a)
	c.cache[l.Index] = k
	return k, nil
}

// plausibleDraws reports whether the draws that make up an attribution's
// excess are ones the models make at the rate of this search: a network
// delay at quantile q is drawn about N·draws·(1−q) times in N executions of
// that many draws, and one expected less than alpha times is no ordinary
// draw. (Event durations come from empirical tables, whose quantiles the
// path does not record: they count as plausible.)
func (c *causer) plausibleDraws(a critpath.Attribution) bool {
	for _, pt := range a.Parts {
		if pt.Excess <= 0 || pt.Kind != critpath.Propagation {
			continue
		}
		q := pt.Largest.Quantile
		if float64(c.n)*float64(a.SlowDraws)*(1-q) < c.alpha {
			return false
		}
	}
	return true
}

package anomaly

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mathext"

	"github.com/macepc/macepc/internal/units"
)

// TailConfig tunes FitTail.
type TailConfig struct {
	// Fraction is the share of the reference executions above the tail's
	// threshold U (DefaultTailFraction when 0): the generalized Pareto
	// distribution is fitted to the excesses of the slowest Fraction of
	// the executions below the fence.
	Fraction float64
	// Level is the confidence level of the shape's profile-likelihood
	// interval (DefaultTailLevel when 0). Survival takes the heaviest
	// tail within it, so that a shape the data pin down poorly errs
	// towards calling an execution normal.
	Level float64
	// MinShape is a floor on the shape ξ that Survival uses: the tail
	// index of the models the execution times are made of (the network
	// model's Pareto delays have ξ = 1/α, a sum or maximum of them too),
	// so that a fit of the body's lighter decay does not extrapolate a
	// tail lighter than the delays themselves. 0: no floor.
	MinShape float64
}

// Defaults of TailConfig.
const (
	DefaultTailFraction = 0.2
	DefaultTailLevel    = 0.95
	// MinTailExcesses is the number of executions above the tail's
	// threshold (and below the fence) without which FitTail does not fit:
	// fewer cannot say how fast the tail decays.
	MinTailExcesses = 10
)

// TailModel is a generalized Pareto model of the upper tail of normal
// execution times (peaks over threshold): for x > U,
//
//	P(X > x) = Rate · (1 + ξ·(x−U)/σ)^(−1/ξ)      (exp(−(x−U)/σ) for ξ = 0)
//
// fitted by maximum likelihood to the excesses over U of the executions
// faster than Below, with the likelihood truncated at Below (those
// executions are known to be faster), so that the executions being judged
// do not shape the model that judges them.
type TailModel struct {
	// U is the threshold: the (1−Fraction) quantile of the executions
	// faster than Below.
	U time.Duration
	// Below is the truncation point: the executions the model is fitted
	// to are faster than it.
	Below time.Duration
	// Excesses is the number of executions in (U, Below) the fit used.
	Excesses int
	// Reference is the number of executions the model was built from;
	// Above how many of them exceed U (Below or not): Rate =
	// Above/Reference.
	Reference, Above int
	Rate             float64
	// Sigma (ns) and Xi are the maximum-likelihood scale and shape;
	// XiLow and XiHigh bound the shape's profile-likelihood interval at
	// Level.
	Sigma, Xi, XiLow, XiHigh float64
	// MinShape is the floor of TailConfig; Level the interval's level.
	MinShape, Level float64
	// fits are the shapes Survival considers, each with its
	// maximum-likelihood scale: the interval's, and the floor if above it.
	fits []shapeFit
}

// shapeFit is a shape and its maximum-likelihood scale (ns).
type shapeFit struct{ xi, sigma float64 }

// FitTail fits a TailModel to the executions of reference (execution
// times of normal exploration: the profile's and the search's together)
// that are faster than below; the slower ones count in Rate, not in the
// fit. It returns an error when fewer than MinTailExcesses executions lie
// between the tail's threshold and below, or when they are all equal: the
// tail cannot be modelled. reference is not modified. A Fraction or Level
// outside (0, 1), or a MinShape that is negative or not finite, is a
// caller bug: FitTail panics.
func FitTail(reference []time.Duration, below time.Duration, cfg TailConfig) (*TailModel, error) {
	if cfg.Fraction == 0 {
		cfg.Fraction = DefaultTailFraction
	}
	if cfg.Level == 0 {
		cfg.Level = DefaultTailLevel
	}
	if !(cfg.Fraction > 0 && cfg.Fraction < 1) || !(cfg.Level > 0 && cfg.Level < 1) || !(cfg.MinShape >= 0) || math.IsInf(cfg.MinShape, 0) {
		panic(fmt.Sprintf("anomaly: FitTail with Fraction %v, Level %v, MinShape %v", cfg.Fraction, cfg.Level, cfg.MinShape))
	}
	faster := make([]time.Duration, 0, len(reference))
	for _, d := range reference {
		if d < below {
			faster = append(faster, d)
		}
	}
	slices.Sort(faster)
	if len(faster) == 0 {
		return nil, fmt.Errorf("anomaly: no execution faster than %s to model the tail from", units.Duration(below))
	}
	ui := int(math.Floor((1 - cfg.Fraction) * float64(len(faster))))
	u := faster[min(max(ui, 0), len(faster)-1)]
	m := &TailModel{U: u, Below: below, Reference: len(reference), MinShape: cfg.MinShape, Level: cfg.Level}
	var ys []float64
	for _, d := range faster {
		if d > u {
			ys = append(ys, float64(d-u))
		}
	}
	for _, d := range reference {
		if d > u {
			m.Above++
		}
	}
	m.Excesses = len(ys)
	m.Rate = float64(m.Above) / float64(len(reference))
	if len(ys) < MinTailExcesses {
		return nil, fmt.Errorf("anomaly: only %d of %d executions between %s and %s: too few to model the tail (need %d)",
			len(ys), len(reference), units.Duration(u), units.Duration(below), MinTailExcesses)
	}
	if ys[0] == ys[len(ys)-1] {
		return nil, fmt.Errorf("anomaly: the %d executions between %s and %s all take the same time: no tail to model", len(ys), units.Duration(u), units.Duration(below))
	}
	fit := fitGPD(ys, float64(below-u), cfg.Level, cfg.MinShape)
	m.Sigma, m.Xi, m.XiLow, m.XiHigh, m.fits = fit.sigma, fit.xi, fit.xiLow, fit.xiHigh, fit.fits
	return m, nil
}

// Survival is the model's conservative estimate of P(X ≥ x) for a normal
// execution X: the largest tail probability over the shapes in the
// profile-likelihood interval, and over MinShape when it is above the
// interval (each shape with its maximum-likelihood scale): at least the
// point estimate's. It is 1 at or below U.
func (m *TailModel) Survival(x time.Duration) float64 {
	if x <= m.U {
		return 1
	}
	y := float64(x - m.U)
	p := 0.0
	for _, f := range m.fits {
		p = max(p, gpdSurvival(y, f.sigma, f.xi))
	}
	return min(m.Rate*p, 1)
}

// Mass is the model's conservative estimate of P(lo ≤ X ≤ hi) for a
// normal execution X: the largest over the shapes Survival considers.
func (m *TailModel) Mass(lo, hi time.Duration) float64 {
	if hi <= lo {
		return 0
	}
	if hi <= m.U {
		return 1
	}
	ylo, yhi := float64(max(lo-m.U, 0)), float64(hi-m.U)
	p := 0.0
	for _, f := range m.fits {
		p = max(p, gpdSurvival(ylo, f.sigma, f.xi)-gpdSurvival(yhi, f.sigma, f.xi))
	}
	return min(m.Rate*p, 1)
}

// SpikeFlank is the width of each flank of a window, in window widths,
// that spike compares the window with.
const SpikeFlank = 5

// spike is the p-value of the searched executions in [lo, hi] against
// their neighbourhood, the flanks of SpikeFlank times the window's width on
// either side: under a density that is locally even, each of the c + f
// executions of window and flanks falls in the window with probability
// 1/(1 + 2·SpikeFlank), and the window's ends, two of its executions, are
// given. sorted holds the searched execution times in ascending order.
func spike(sorted []time.Duration, lo, hi time.Duration) float64 {
	w := hi - lo
	count := func(a, b time.Duration) int { // executions in [a, b]
		i, _ := slices.BinarySearch(sorted, a)
		j, found := slices.BinarySearch(sorted, b)
		for found && j < len(sorted) && sorted[j] == b {
			j++
		}
		return j - i
	}
	c := count(lo, hi)
	all := count(lo-SpikeFlank*w, hi+SpikeFlank*w)
	return binomialTail(all-2, c-2, 1/(1+2*float64(SpikeFlank)))
}

// gpdSurvival is 1 − G(y) of the generalized Pareto distribution.
func gpdSurvival(y, sigma, xi float64) float64 {
	if y <= 0 {
		return 1
	}
	z := y / sigma
	if math.Abs(xi) < 1e-9 {
		return math.Exp(-z)
	}
	t := 1 + xi*z
	if t <= 0 {
		return 0
	}
	return math.Exp(-math.Log(t) / xi)
}

// gpdFit is a truncated generalized Pareto fit.
type gpdFit struct {
	sigma, xi, xiLow, xiHigh float64
	fits                     []shapeFit
}

// Shape grid of the profile likelihood. Shapes of 1 and more are tails
// with an infinite mean, which no protocol's normal variance has (the
// network model's Pareto delays have ξ = 1/α, a third by default): the
// grid stops at 1, so that a sample too small to pin the shape down
// cannot explain a 20-fold slowdown away.
const (
	gpdXiMin  = -0.5
	gpdXiMax  = 1.0
	gpdXiStep = 0.02
)

// fitGPD fits a generalized Pareto distribution to the excesses ys (> 0),
// all known to be at most c (truncation: the likelihood is divided by
// G(c) per excess), by profile likelihood over the shape on a grid of
// [gpdXiMin, gpdXiMax], maximising over the scale for each shape. The
// shape's interval at level holds the shapes whose profile log-likelihood
// is within χ²₁(level)/2 of the maximum (Wilks); a floor above the
// interval joins the fits with its own maximum-likelihood scale.
func fitGPD(ys []float64, c, level, floor float64) gpdFit {
	// Work in units of the mean excess.
	mean := 0.0
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	zs := make([]float64, len(ys))
	zmax := 0.0
	for i, y := range ys {
		zs[i] = y / mean
		zmax = max(zmax, zs[i])
	}
	cz := c / mean
	type point struct{ xi, logSigma, ll float64 }
	var pts []point
	steps := int(math.Round((gpdXiMax - gpdXiMin) / gpdXiStep))
	for i := 0; i <= steps; i++ {
		xi := gpdXiMin + float64(i)*gpdXiStep
		ls, ll := maxScale(zs, zmax, cz, xi)
		pts = append(pts, point{xi, ls, ll})
	}
	best := slices.MaxFunc(pts, func(a, b point) int { return cmp.Compare(a.ll, b.ll) })
	cut := best.ll - chi2OneQuantile(level)/2
	fit := gpdFit{sigma: math.Exp(best.logSigma) * mean, xi: best.xi, xiLow: best.xi, xiHigh: best.xi}
	for _, p := range pts {
		if p.ll < cut {
			continue
		}
		fit.xiLow, fit.xiHigh = min(fit.xiLow, p.xi), max(fit.xiHigh, p.xi)
		fit.fits = append(fit.fits, shapeFit{xi: p.xi, sigma: math.Exp(p.logSigma) * mean})
	}
	if floor > fit.xiHigh {
		ls, _ := maxScale(zs, zmax, cz, floor)
		fit.fits = append(fit.fits, shapeFit{xi: floor, sigma: math.Exp(ls) * mean})
	}
	return fit
}

// maxScale maximises the truncated log-likelihood over log σ for a fixed
// shape by golden-section search (the likelihood is unimodal in log σ for
// the shapes and data here), returning log σ and the log-likelihood.
func maxScale(zs []float64, zmax, c, xi float64) (float64, float64) {
	lo, hi := math.Log(1e-4), math.Log(1e4)
	if xi < 0 {
		// The support ends at σ/|ξ|, which must exceed every excess.
		lo = max(lo, math.Log(zmax*(-xi))+1e-9)
	}
	f := func(ls float64) float64 { return gpdTruncLogLik(zs, c, math.Exp(ls), xi) }
	const invPhi = 0.6180339887498949
	a, b := lo, hi
	x1, x2 := b-invPhi*(b-a), a+invPhi*(b-a)
	f1, f2 := f(x1), f(x2)
	for b-a > 1e-6 {
		if f1 < f2 {
			a, x1, f1 = x1, x2, f2
			x2 = a + invPhi*(b-a)
			f2 = f(x2)
		} else {
			b, x2, f2 = x2, x1, f1
			x1 = b - invPhi*(b-a)
			f1 = f(x1)
		}
	}
	ls := (a + b) / 2
	return ls, f(ls)
}

// gpdTruncLogLik is the log-likelihood of excesses zs under a generalized
// Pareto distribution truncated at c: Σ log g(z) − n·log G(c).
func gpdTruncLogLik(zs []float64, c, sigma, xi float64) float64 {
	ll := 0.0
	small := math.Abs(xi) < 1e-9
	for _, z := range zs {
		t := z / sigma
		if small {
			ll -= t
			continue
		}
		a := 1 + xi*t
		if a <= 0 {
			return math.Inf(-1)
		}
		ll -= (1/xi + 1) * math.Log1p(xi*t)
	}
	ll -= float64(len(zs)) * math.Log(sigma)
	if s := gpdSurvival(c, sigma, xi); s > 0 {
		g := 1 - s
		if g <= 0 {
			return math.Inf(-1)
		}
		ll -= float64(len(zs)) * math.Log(g)
	}
	return ll
}

// chi2OneQuantile is the level quantile of the χ² distribution with one
// degree of freedom: the square of the standard normal's (1+level)/2
// quantile.
func chi2OneQuantile(level float64) float64 {
	z := math.Sqrt2 * math.Erfinv(level)
	return z * z
}

// binomialTail is P(Bin(n, p) ≥ k): the regularized incomplete beta
// I_p(k, n−k+1).
func binomialTail(n, k int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n || p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// SignificanceConfig tunes Significance.
type SignificanceConfig struct {
	// Alpha is the family-wise error rate: the probability that a search
	// of a protocol with no anomaly, only its normal variance, reports one
	// (DefaultAlpha, as the regression test's, when 0).
	Alpha float64
	// ModeGap splits the candidates into execution-time modes, as Triage
	// does (DefaultModeGap when 0).
	ModeGap float64
	// Tail configures the tail models.
	Tail TailConfig
}

// MaxExpected bounds the windows Significance tests: a window of several
// executions is judged only where the tail model expects at most this many
// of the searched executions, so that a group is an anomaly only in a
// range of times that normal variance leaves (almost) empty. A shoulder
// of the distribution, such as a protocol's duels that take one or two
// more rounds, holds many executions where the tail model of the main
// mode expects a few: without this bound its sheer number would reject.
const MaxExpected = 1.0

// Window is a rejected window of slow executions: Count searched
// executions between From and To (To excluded bound when Open: every
// execution at least From) where the tail model puts a share Mass of
// normal executions, with p-value PValue.
type Window struct {
	From, To time.Duration
	Open     bool
	Count    int
	Mass     float64
	PValue   float64
}

// Candidate is a searched execution above the fence.
type Candidate struct {
	Index    int
	ExecTime time.Duration
}

// TailTest is the significance test of one execution above the fence.
type TailTest struct {
	Candidate
	// Rank is how many searched executions are at least this slow (this
	// one included).
	Rank int
	// Model is the index in SignificanceResult.Models of the tail model
	// that judged it (-1 when none could be fitted).
	Model int
	// P is the tail model's P(X ≥ ExecTime) for a normal execution
	// (TailModel.Survival); PValue the probability that at least Rank of
	// the N searched normal executions are this slow, P(Bin(N, P) ≥
	// Rank): for Rank 1 at most N·P. Both are NaN without a model.
	P, PValue float64
	// Significant says the execution is an anomaly: its own test or the
	// test of a faster candidate rejected at Level.
	Significant bool
}

// SignificanceResult is the verdict on the executions above the fence.
type SignificanceResult struct {
	// Models are the tail models of the candidates' execution-time modes,
	// fastest mode first; each is fitted to the executions faster than its
	// mode. Reasons say, per mode, why no model could be fitted ("" when
	// one was): the fence alone then decides that mode.
	Models  []*TailModel
	Reasons []string
	// Searched is N, the number of executions searched; Alpha the
	// family-wise rate and Level the per-test level, Alpha divided by the
	// number of tests (Bonferroni).
	Searched     int
	Alpha, Level float64
	// Tests holds one test per candidate, slowest first (ties by index).
	Tests []TailTest
	// Windows are the rejected windows of executions, in the order
	// tested.
	Windows []Window
	// Cut is the time at and above which executions are significant
	// anomalies; 0 when none is.
	Cut time.Duration
}

// Significant reports whether the execution time d of a searched
// execution above the fence is a significant anomaly.
func (r *SignificanceResult) Significant(d time.Duration) bool { return r.Cut > 0 && d >= r.Cut }

// Significance decides which of the searched executions above the fence
// are anomalies rather than the normal tail (see "Significance" in the
// package documentation). reference holds the execution times the tail
// models are fitted to (the profile's and every searched one, the
// candidates included); searched is N, the number of executions the
// search explored; candidates are the searched executions above the fence.
//
// The candidates split into execution-time modes where one is more than
// ModeGap times the next faster one. Each mode gets a tail model fitted to
// the executions faster than it, so that a far mode is judged by the
// variance below it (nearer candidates included), not by a window cut off
// at the fence. Each candidate, ranked j by time from the slowest, is
// tested by the probability that at least j of N normal executions are at
// least as slow under its mode's model, at level Alpha/J for J
// candidates. The slowest j executions are anomalies when the test of the
// j-th rejects: a cluster of slow executions is significant by its number
// even when none of them alone is far out. A mode whose tail cannot be
// modelled (too few executions below it, or all alike: a protocol without
// variance) is anomalous as with the fence alone.
func Significance(profile, searched []time.Duration, candidates []Candidate, cfg SignificanceConfig) *SignificanceResult {
	if cfg.Alpha == 0 {
		cfg.Alpha = DefaultAlpha
	}
	if cfg.ModeGap == 0 {
		cfg.ModeGap = DefaultModeGap
	}
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) || !(cfg.ModeGap > 1) || math.IsInf(cfg.ModeGap, 0) {
		panic(fmt.Sprintf("anomaly: Significance with Alpha %v and ModeGap %v", cfg.Alpha, cfg.ModeGap))
	}
	res := &SignificanceResult{Searched: len(searched), Alpha: cfg.Alpha}
	if len(candidates) == 0 {
		return res
	}
	reference := append(slices.Clone(profile), searched...)
	sortedSearch := slices.Clone(searched)
	slices.Sort(sortedSearch)
	cs := slices.Clone(candidates)
	slices.SortFunc(cs, func(a, b Candidate) int {
		if c := cmp.Compare(b.ExecTime, a.ExecTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	res.Level = cfg.Alpha / float64(len(cs))
	// Modes, from the fastest candidate up: model[i] judges cs[i].
	model := make([]int, len(cs))
	for i := len(cs) - 1; i >= 0; i-- {
		if i == len(cs)-1 || float64(cs[i].ExecTime) > cfg.ModeGap*float64(cs[i+1].ExecTime) {
			m, err := FitTail(reference, cs[i].ExecTime, cfg.Tail)
			reason := ""
			if err != nil {
				reason = err.Error()
			}
			res.Models, res.Reasons = append(res.Models, m), append(res.Reasons, reason)
		}
		model[i] = len(res.Models) - 1
	}
	n := max(len(searched), len(cs))
	for i, c := range cs {
		// Ties share the rank of the last of them: j executions at least
		// this slow.
		j := i + 1
		for j < len(cs) && cs[j].ExecTime == c.ExecTime {
			j++
		}
		t := TailTest{Candidate: c, Rank: j, Model: model[i], P: math.NaN(), PValue: math.NaN()}
		if m := res.Models[model[i]]; m != nil {
			t.P = m.Survival(c.ExecTime)
			t.PValue = binomialTail(n, j, t.P)
		}
		res.Tests = append(res.Tests, t)
	}
	// Windows: the executions between the i-th and the k-th slowest
	// (i ≤ k in res.Tests' order, slowest first), bounded above by the
	// i-th unless i is the slowest (then the window is open: the rank
	// test of the k-th).
	windows := len(cs) * (len(cs) + 1) / 2
	res.Level = cfg.Alpha / float64(windows)
	lowest := -1 // the fastest execution of a rejected window
	for k := range res.Tests {
		tk := res.Tests[k]
		m := res.Models[tk.Model]
		if m == nil {
			lowest = max(lowest, k) // no model: the fence decides
			continue
		}
		for i := 0; i <= k; i++ {
			count := k - i + 1
			var pv, mass float64
			if i == 0 {
				mass = tk.P
				pv = binomialTail(n, count, mass)
			} else {
				hi := res.Tests[i].ExecTime
				if hi == tk.ExecTime {
					continue // no width: nothing to test
				}
				mass = m.Mass(tk.ExecTime, hi)
				// The window's ends are executions: the mass between two
				// order statistics is Beta(count−1, n−count+2).
				pv = binomialTail(n, count-1, mass)
				// And it must stand out from its neighbourhood, whatever
				// the model says there: a spike, not a shoulder.
				if pv < res.Level && spike(sortedSearch, tk.ExecTime, hi) >= res.Level {
					continue
				}
			}
			if count > 1 && float64(n)*mass > MaxExpected {
				continue // normal variance puts more than one execution there
			}
			if pv < res.Level {
				lowest = max(lowest, k)
				res.Windows = append(res.Windows, Window{From: tk.ExecTime, To: res.Tests[i].ExecTime, Open: i == 0, Count: count, Mass: mass, PValue: pv})
			}
		}
	}
	if lowest >= 0 {
		res.Cut = res.Tests[lowest].ExecTime
		for i := range res.Tests {
			res.Tests[i].Significant = res.Tests[i].ExecTime >= res.Cut
		}
	}
	return res
}

package realnet

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// EventLabel is an event's label as the simulator names it ("init",
// "deliver Join", "timer recovery", "app join", "error broken"): the key
// of its event duration distribution.
func EventLabel(e *Event) string {
	switch e.Kind {
	case KindInit:
		return "init"
	case KindError:
		return "error " + e.Err
	}
	return e.Kind + " " + e.Name
}

// HandlerTimes returns the real handler durations of every event of the
// runs, by event label: the samples edd.Train takes.
func HandlerTimes(runs []*RunTrace) map[string][]time.Duration {
	out := map[string][]time.Duration{}
	for _, rt := range runs {
		for _, t := range rt.Nodes {
			for i := range t.Events {
				e := &t.Events[i]
				out[EventLabel(e)] = append(out[EventLabel(e)], time.Duration(e.DurNS))
			}
		}
	}
	return out
}

// NetworkFit is the network model fitted from the recorded send→arrival
// delays: from the end of the sending handler to the message being read
// from the receiver's socket, which on one machine both read on the same
// clock.
type NetworkFit struct {
	Samples               int
	Min, Median, P90, P99 time.Duration
	// Latency is the Pareto scale xm and Shape its α (netmodel's
	// default, not fitted: see FitNetwork).
	Latency       time.Duration
	Shape         float64
	BandwidthKbps float64
}

// FitNetwork fits netmodel's delay model to the runs' delivery delays.
// The model's delay is a transmission time (size over bandwidth) plus a
// Pareto(α, xm) propagation and queueing delay. With small messages on
// loopback the transmission time is too small to measure apart, so the
// bandwidth is not estimated: it is set to 10 Gbit/s, which makes it
// negligible, as measured. α stays netmodel's default (3) and xm is
// estimated from the median delay m as m / 2^(1/α), the Pareto's median
// relation: the body of the distribution is matched, not its tail. (The
// maximum-likelihood Pareto fit, xm the smallest delay and
// α = n / Σ ln(x/xm), gave α ≈ 0.5 on a loaded two-core machine, an
// infinite mean whose simulated executions hit the delay cap: the
// delays are a fast body and a scheduling tail, not one Pareto.) Across machines the
// clocks of sender and receiver differ, and this fit would include their
// offset: it is only meaningful for runs on one machine.
func FitNetwork(runs []*RunTrace) (NetworkFit, error) {
	var d []float64
	for _, rt := range runs {
		for _, t := range rt.Nodes {
			for _, e := range t.Events {
				if e.Kind == KindDeliver && e.ArrivedNS > 0 {
					d = append(d, float64(e.ArrivedNS-e.SentNS))
				}
			}
		}
	}
	if len(d) == 0 {
		return NetworkFit{}, fmt.Errorf("realnet: no deliveries with an arrival time to fit the network model to")
	}
	slices.Sort(d)
	q := func(p float64) time.Duration { return time.Duration(stat.Quantile(p, stat.LinInterp, d, nil)) }
	f := NetworkFit{Samples: len(d), Min: time.Duration(d[0]), Median: q(0.5), P90: q(0.9), P99: q(0.99), BandwidthKbps: 1e7}
	f.Shape = netmodel.DefaultParetoShape
	f.Latency = max(time.Duration(float64(f.Median)/math.Pow(2, 1/f.Shape)), time.Microsecond)
	return f, nil
}

// RealExecTime is a run's execution time in scenario time: the end of the
// replayed event after which the stopping condition first held, divided
// by the time scale; ok is false if it never held.
func RealExecTime(rt *RunTrace, rep *ReplayResult) (time.Duration, bool) {
	if rep.StopStep < 0 {
		return 0, false
	}
	st := Merge(rt)[rep.StopStep]
	return time.Duration(float64(st.Event.StartNS+st.Event.DurNS) / rt.Nodes[0].Header.TimeScale), true
}

// Fidelity sets the real execution times beside the simulator's.
type Fidelity struct {
	Real, Sim []time.Duration // sorted
	// RealQ and SimQ are the median, p90 and p99 (linear interpolation,
	// gonum's stat.LinInterp).
	RealQ, SimQ [3]time.Duration
	// KS is the two-sample Kolmogorov–Smirnov distance of the two
	// distributions (gonum's stat.KolmogorovSmirnov).
	KS float64
	// SimUnfinished counts simulated executions that did not finish.
	SimUnfinished int
}

// FidelityConfig is a comparison of real runs with simulated ones.
type FidelityConfig struct {
	// Scenario builds the scenario of the runs (called per simulator).
	Scenario func() (*timedsim.Scenario, error)
	// Real are the real execution times, in scenario time.
	Real []time.Duration
	// EDD and Network are the trained durations and fitted network.
	EDD     *edd.Set
	Network NetworkFit
	// Runs simulated executions, from Seed.
	Runs int
	Seed uint64
}

// CompareFidelity simulates cfg.Runs executions of the scenario with the
// trained EDD and the fitted network (latency and bandwidth replaced) and
// compares their execution times with the real ones.
func CompareFidelity(ctx context.Context, cfg FidelityConfig) (*Fidelity, error) {
	if len(cfg.Real) == 0 || cfg.Runs < 1 {
		return nil, fmt.Errorf("realnet: fidelity needs real runs that stopped and at least one simulated run")
	}
	sc, err := cfg.Scenario()
	if err != nil {
		return nil, err
	}
	sc.Network.Latency, sc.Network.BandwidthKbps, sc.Network.ParetoShape = cfg.Network.Latency, cfg.Network.BandwidthKbps, cfg.Network.Shape
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{EDD: cfg.EDD})
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	f := &Fidelity{Real: slices.Clone(cfg.Real)}
	for i := range cfg.Runs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("realnet: fidelity interrupted: %w", err)
		}
		res := sim.Run(timedsim.SeedPath(timedsim.ExecutionSeed(cfg.Seed, i)))
		if res.Outcome != timedsim.Finished {
			f.SimUnfinished++
			continue
		}
		f.Sim = append(f.Sim, res.ExecTime)
	}
	if len(f.Sim) == 0 {
		return nil, fmt.Errorf("realnet: none of the %d simulated executions finished", cfg.Runs)
	}
	slices.Sort(f.Real)
	slices.Sort(f.Sim)
	r, s := floats(f.Real), floats(f.Sim)
	for i, p := range []float64{0.5, 0.9, 0.99} {
		f.RealQ[i] = time.Duration(stat.Quantile(p, stat.LinInterp, r, nil))
		f.SimQ[i] = time.Duration(stat.Quantile(p, stat.LinInterp, s, nil))
	}
	// gonum sums the weights of the empirical CDFs, which can round a
	// distance of 1 (disjoint samples) to 1+ε.
	f.KS = min(stat.KolmogorovSmirnov(r, nil, s, nil), 1)
	return f, nil
}

func floats(d []time.Duration) []float64 {
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = float64(x)
	}
	return out
}

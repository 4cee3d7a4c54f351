package realnet_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// Handler times are keyed by the labels the simulator gives the same
// events, so that the EDD trained from them applies.
func TestHandlerTimesLabels(t *testing.T) {
	tr, err := realnet.DecodeTrace("n.jsonl", strings.NewReader(goodTrace))
	if err != nil {
		t.Fatal(err)
	}
	rt := &realnet.RunTrace{Nodes: []*realnet.Trace{tr}}
	got := realnet.HandlerTimes([]*realnet.RunTrace{rt})
	if len(got) != 2 || len(got["init"]) != 1 || got["deliver Pong"][0] != 5 {
		t.Errorf("handler times %v", got)
	}
	for _, c := range []struct {
		e    realnet.Event
		want string
	}{
		{realnet.Event{Kind: realnet.KindTimer, Name: "recovery"}, "timer recovery"},
		{realnet.Event{Kind: realnet.KindApp, Name: "join"}, "app join"},
		{realnet.Event{Kind: realnet.KindError, Err: realnet.ErrKindQueueFull}, "error queue-full"},
	} {
		if l := realnet.EventLabel(&c.e); l != c.want {
			t.Errorf("label %q, want %q", l, c.want)
		}
	}
}

// The network fit: the median delay of the deliveries, and xm =
// median / 2^(1/3).
func TestFitNetwork(t *testing.T) {
	tr, err := realnet.DecodeTrace("n.jsonl", strings.NewReader(strings.Replace(goodTrace, `"sent_ns":60`, `"sent_ns":60,"arrived_ns":80`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := realnet.FitNetwork([]*realnet.RunTrace{{Nodes: []*realnet.Trace{tr}}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Samples != 1 || f.Median != 20 || f.Latency != time.Microsecond {
		t.Errorf("fit %+v (20 ns median: xm clamps to 1µs)", f)
	}
	if _, err := realnet.FitNetwork(nil); err == nil {
		t.Error("a fit without deliveries")
	}
}

// Fidelity on real pingpong runs: both distributions present, quantiles
// ordered, a KS distance in [0, 1]. (What the distance is depends on the
// machine; bench/RESULTS.md reports it.)
func TestCompareFidelity(t *testing.T) {
	var runs []*realnet.RunTrace
	var real []time.Duration
	for r := range 3 {
		sc := pingpong.Scenario(4, 10)
		rt := run(t, "pingpong", "default", sc, r, 1)
		rep, err := realnet.Replay(pingpong.Scenario(4, 10), rt, realnet.ReplayOptions{})
		if err != nil || rep.Nondeterminism != nil {
			t.Fatal(err, rep.Nondeterminism)
		}
		d, ok := realnet.RealExecTime(rt, rep)
		if !ok || d <= 0 {
			t.Fatalf("run %d: exec time %v %v", r, d, ok)
		}
		runs, real = append(runs, rt), append(real, d)
	}
	set, err := edd.Train(realnet.HandlerTimes(runs), edd.DefaultSeed(), 0)
	if err != nil {
		t.Fatal(err)
	}
	net, err := realnet.FitNetwork(runs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := realnet.CompareFidelity(context.Background(), realnet.FidelityConfig{
		Scenario: func() (*timedsim.Scenario, error) { return pingpong.Scenario(4, 10), nil },
		Real:     real, EDD: set, Network: net, Runs: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Real) != 3 || len(f.Sim)+f.SimUnfinished != 20 || len(f.Sim) == 0 || math.IsNaN(f.KS) || f.KS < 0 || f.KS > 1 {
		t.Fatalf("fidelity %+v", f)
	}
	for _, q := range [][3]time.Duration{f.RealQ, f.SimQ} {
		if !(q[0] <= q[1] && q[1] <= q[2]) || q[0] <= 0 {
			t.Errorf("quantiles %v not ordered", q)
		}
	}
}

package netmodel_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// A configured delay beyond MaxDelay is refused, and the
// delays the model computes saturate instead of wrapping around to an
// arrival before the departure: a huge message on a thin link, a link whose
// latency is MaxDelay, a departure near the end of time.
func TestDelaysNeverWrap(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  netmodel.Config
	}{
		{"latency", netmodel.Config{Latency: math.MaxInt64}},
		{"link latency", netmodel.Config{Overrides: []netmodel.LinkOverride{{From: 0, To: 1, Latency: netmodel.MaxDelay + 1}}}},
		{"node latency", netmodel.Config{NodeOverrides: []netmodel.NodeOverride{{Node: 1, Latency: math.MaxInt64}}}},
		{"reorder window", netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "udp", Kind: netmodel.Datagram, ReorderWindow: math.MaxInt64}}}},
	} {
		if _, err := netmodel.New(c.cfg, 2); err == nil || !strings.Contains(err.Error(), "exceeds netmodel.MaxDelay") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	thin := netmodel.Config{BandwidthKbps: 1e-300, Latency: netmodel.MaxDelay, Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable, QueueCap: -1},
		{Name: "udp", Kind: netmodel.Datagram, ReorderWindow: netmodel.MaxDelay}}}
	n, err := netmodel.New(thin, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(1)
	for _, now := range []time.Duration{0, netmodel.MaxDelay, math.MaxInt64 - 1} {
		for tr := range 2 {
			for _, size := range []int{0, 1, math.MaxInt32, math.MaxInt} {
				arrive, _, st := n.Send(now, tr, 0, 1, size, r)
				if st != netmodel.Sent {
					t.Fatalf("transport %d: %v", tr, st)
				}
				if d := n.LastSend(); arrive < now || d.TxEnd < d.TxStart || d.TxStart < now || d.Propagation < 0 || d.Propagation > netmodel.MaxDelay {
					t.Errorf("transport %d, size %d, sent at %d: arrives at %d, %+v", tr, size, now, arrive, d)
				}
			}
		}
	}
}

package netmodel_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
)

func TestConfig_Defaults(t *testing.T) {
	want := netmodel.Config{
		BandwidthKbps:  8000,
		Latency:        time.Millisecond,
		ParetoShape:    3,
		HeavyFlowBytes: 300,
		Transports:     []netmodel.TransportConfig{{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 20}},
	}
	got := netmodel.DefaultConfig()
	got.Overrides, got.NodeOverrides = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DefaultConfig() = %+v, want %+v", got, want)
	}
	if err := got.Validate(1); err != nil {
		t.Fatal(err)
	}

	// Zero fields are filled, set ones kept, the caller's slice untouched.
	ts := []netmodel.TransportConfig{
		{Name: "a", Kind: netmodel.Reliable},
		{Name: "b", Kind: netmodel.Reliable, QueueCap: -1},
		{Name: "c", Kind: netmodel.Datagram},
	}
	c := netmodel.Config{Latency: 5 * time.Millisecond, Transports: ts}.WithDefaults()
	if c.Latency != 5*time.Millisecond || c.BandwidthKbps != 8000 {
		t.Fatalf("WithDefaults: %+v", c)
	}
	if c.Transports[0].QueueCap != 20 || c.Transports[1].QueueCap != -1 || c.Transports[2].QueueCap != 0 {
		t.Fatalf("WithDefaults queue caps: %+v", c.Transports)
	}
	if ts[0].QueueCap != 0 {
		t.Fatal("WithDefaults modified the caller's slice")
	}

	for _, tc := range []struct {
		cfg  netmodel.Config
		name string
		i    int
		ok   bool
	}{
		{netmodel.Config{}, "tcp", 0, true},
		{netmodel.Config{}, "udp", 0, false},
		{netmodel.Config{Transports: ts}, "c", 2, true},
		{netmodel.Config{Transports: ts}, "tcp", 0, false},
	} {
		if i, ok := tc.cfg.TransportIndex(tc.name); i != tc.i || ok != tc.ok {
			t.Errorf("TransportIndex(%q) = %d, %v, want %d, %v", tc.name, i, ok, tc.i, tc.ok)
		}
	}
	n := mustNew(t, netmodel.Config{Transports: ts}, 1)
	if i, ok := n.TransportIndex("b"); i != 1 || !ok {
		t.Fatalf("Network.TransportIndex(b) = %d, %v", i, ok)
	}
	if n.Nodes() != 1 || n.Config().Transports[0].QueueCap != 20 {
		t.Fatal("Network accessors")
	}
}

func TestConfig_Validate(t *testing.T) {
	tcp := func(mod func(*netmodel.TransportConfig)) netmodel.Config {
		tc := netmodel.TransportConfig{Name: "tcp", Kind: netmodel.Reliable}
		mod(&tc)
		return netmodel.Config{Transports: []netmodel.TransportConfig{tc}}
	}
	udp := func(mod func(*netmodel.TransportConfig)) netmodel.Config {
		tc := netmodel.TransportConfig{Name: "udp", Kind: netmodel.Datagram}
		mod(&tc)
		return netmodel.Config{Transports: []netmodel.TransportConfig{tc}}
	}
	cases := []struct {
		name  string
		cfg   netmodel.Config
		nodes int
		err   string // substring; "" = valid
	}{
		{"zero config", netmodel.Config{}, 3, ""},
		{"no nodes", netmodel.Config{}, 0, "0 nodes"},
		{"too many nodes", netmodel.Config{}, netmodel.MaxNodes + 1, "nodes"},
		{"negative bandwidth", netmodel.Config{BandwidthKbps: -1}, 3, "bandwidth"},
		{"NaN bandwidth", netmodel.Config{BandwidthKbps: math.NaN()}, 3, "bandwidth"},
		{"infinite bandwidth", netmodel.Config{BandwidthKbps: math.Inf(1)}, 3, "bandwidth"},
		{"negative latency", netmodel.Config{Latency: -time.Millisecond}, 3, "latency"},
		{"negative shape", netmodel.Config{ParetoShape: -3}, 3, "Pareto shape"},
		{"NaN shape", netmodel.Config{ParetoShape: math.NaN()}, 3, "Pareto shape"},
		{"negative threshold", netmodel.Config{HeavyFlowBytes: -1}, 3, "heavy-flow"},
		{"unnamed transport", tcp(func(tc *netmodel.TransportConfig) { tc.Name = "" }), 3, "no name"},
		{"duplicate transport", netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "x"}, {Name: "x", Kind: netmodel.Datagram}}}, 3, `duplicate transport name "x"`},
		{"unknown kind", tcp(func(tc *netmodel.TransportConfig) { tc.Kind = 7 }), 3, "unknown kind"},
		{"reliable drop", tcp(func(tc *netmodel.TransportConfig) { tc.DropProb = 0.1 }), 3, "drop probability applies only"},
		{"reliable reorder", tcp(func(tc *netmodel.TransportConfig) { tc.ReorderWindow = 1 }), 3, "reorder window applies only"},
		{"huge queue", tcp(func(tc *netmodel.TransportConfig) { tc.QueueCap = math.MaxInt32 + 1 }), 3, "too large"},
		{"unbounded queue", tcp(func(tc *netmodel.TransportConfig) { tc.QueueCap = -1 }), 3, ""},
		{"datagram queue", udp(func(tc *netmodel.TransportConfig) { tc.QueueCap = 5 }), 3, "queue capacity applies only"},
		{"drop above 1", udp(func(tc *netmodel.TransportConfig) { tc.DropProb = 1.5 }), 3, "outside [0,1]"},
		{"negative drop", udp(func(tc *netmodel.TransportConfig) { tc.DropProb = -0.1 }), 3, "outside [0,1]"},
		{"NaN drop", udp(func(tc *netmodel.TransportConfig) { tc.DropProb = math.NaN() }), 3, "outside [0,1]"},
		{"drop 1", udp(func(tc *netmodel.TransportConfig) { tc.DropProb = 1 }), 3, ""},
		{"negative reorder", udp(func(tc *netmodel.TransportConfig) { tc.ReorderWindow = -1 }), 3, "negative reorder"},
		{"override from", netmodel.Config{Overrides: []netmodel.LinkOverride{{From: 3, To: 0}}}, 3, "out of range"},
		{"override to", netmodel.Config{Overrides: []netmodel.LinkOverride{{From: 0, To: -1}}}, 3, "out of range"},
		{"override latency", netmodel.Config{Overrides: []netmodel.LinkOverride{{From: 0, To: 1, Latency: -1}}}, 3, "negative latency"},
		{"override bandwidth", netmodel.Config{Overrides: netmodel.Symmetric(0, 1, 0, -5)}, 3, "override bandwidth"},
		{"node override range", netmodel.Config{NodeOverrides: []netmodel.NodeOverride{{Node: 3}}}, 3, "out of range"},
		{"node override latency", netmodel.Config{NodeOverrides: []netmodel.NodeOverride{{Node: 0, Latency: -1}}}, 3, "negative latency"},
		{"node override bandwidth", netmodel.Config{NodeOverrides: []netmodel.NodeOverride{{Node: 0, BandwidthKbps: math.Inf(1)}}}, 3, "node override bandwidth"},
	}
	for _, c := range cases {
		err := c.cfg.Validate(c.nodes)
		_, newErr := netmodel.New(c.cfg, c.nodes)
		if c.err == "" {
			if err != nil || newErr != nil {
				t.Errorf("%s: unexpected errors %v / %v", c.name, err, newErr)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "netmodel: ") || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: Validate error %v, want one containing %q", c.name, err, c.err)
		}
		if newErr == nil {
			t.Errorf("%s: New accepted an invalid config", c.name)
		}
	}
}

func TestConfig_Strings(t *testing.T) {
	for s, want := range map[netmodel.Status]string{
		netmodel.Sent: "sent", netmodel.QueueFull: "queue-full", netmodel.Dropped: "dropped", netmodel.Unreachable: "unreachable",
	} {
		if s.String() != want {
			t.Errorf("Status %d: %q, want %q", int(s), s, want)
		}
	}
	if netmodel.Reliable.String() != "reliable" || netmodel.Datagram.String() != "datagram" || netmodel.Kind(9).String() != "kind(9)" {
		t.Error("Kind.String")
	}
}

// A Config round-trips through JSON with readable transport kinds.
func TestConfig_JSON(t *testing.T) {
	c := netmodel.Config{
		Latency: 2 * time.Millisecond,
		Transports: []netmodel.TransportConfig{
			{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 5},
			{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.1},
		},
		Overrides: netmodel.Symmetric(0, 1, time.Millisecond, 100),
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Kind":"datagram"`) {
		t.Fatalf("JSON %s lacks a readable kind", b)
	}
	var back netmodel.Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Fatalf("round trip: %+v, want %+v", back, c)
	}
	if err := json.Unmarshal([]byte(`{"Transports":[{"Name":"x","Kind":"smoke"}]}`), &back); err == nil || !strings.Contains(err.Error(), "netmodel: unknown transport kind") {
		t.Fatalf("bad kind: %v", err)
	}
}

package netmodel

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFlowIndex_DenseMatchesSparse drives a dense-indexed network and a
// map-indexed one (as networks too large for the table get) through the
// same random sends, deliveries, breaks and resets: every answer must be
// the same.
func TestFlowIndex_DenseMatchesSparse(t *testing.T) {
	cfg := Config{Transports: []TransportConfig{
		{Name: "control", Kind: Reliable, QueueCap: -1},
		{Name: "data", Kind: Reliable, QueueCap: 2},
		{Name: "udp", Kind: Datagram},
	}}
	const nodes = 7
	dense, err := New(cfg, nodes)
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := New(cfg, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if dense.index.dense == nil {
		t.Fatal("a 7-node network does not use the dense index")
	}
	sparse.index = flowIndex{nodes: nodes, sparse: map[uint64]int32{}}
	rd, rs := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	ops := rand.New(rand.NewPCG(3, 4))
	var td, ts []Ticket
	now := time.Duration(0)
	for i := 0; i < 20000; i++ {
		now += time.Duration(ops.IntN(200)) * time.Microsecond
		tr, a, b := ops.IntN(3), ops.IntN(nodes), ops.IntN(nodes)
		switch op := ops.IntN(100); {
		case op < 60 && a != b:
			size := 1 + ops.IntN(200_000)
			ad, tkd, sd := dense.Send(now, tr, a, b, size, rd)
			as, tks, ss := sparse.Send(now, tr, a, b, size, rs)
			if ad != as || sd != ss || tkd.Valid() != tks.Valid() {
				t.Fatalf("op %d: send %d→%d on %d: dense %v %v, sparse %v %v", i, a, b, tr, ad, sd, as, ss)
			}
			if tkd.Valid() {
				td, ts = append(td, tkd), append(ts, tks)
			}
		case op < 90 && len(td) > 0:
			j := ops.IntN(len(td))
			if d, s := dense.Delivered(td[j]), sparse.Delivered(ts[j]); d != s {
				t.Fatalf("op %d: Delivered: dense %v, sparse %v", i, d, s)
			}
			td, ts = append(td[:j], td[j+1:]...), append(ts[:j], ts[j+1:]...)
		case op < 97:
			if d, s := dense.Break(a, b), sparse.Break(a, b); d != s {
				t.Fatalf("op %d: Break: dense %v, sparse %v", i, d, s)
			}
		case op < 98:
			dense.Reset()
			sparse.Reset()
			td, ts, now = td[:0], ts[:0], 0
		}
		if d, s := dense.QueueLen(tr, a, b), sparse.QueueLen(tr, a, b); d != s {
			t.Fatalf("op %d: QueueLen(%d, %d, %d): dense %d, sparse %d", i, tr, a, b, d, s)
		}
		if d, s := dense.Connected(tr, a, b), sparse.Connected(tr, a, b); d != s {
			t.Fatalf("op %d: Connected(%d, %d, %d): dense %v, sparse %v", i, tr, a, b, d, s)
		}
	}
}

// TestFlowIndex_ResetForgetsFlows checks that Reset empties the dense
// table, which it clears flow by flow.
func TestFlowIndex_ResetForgetsFlows(t *testing.T) {
	n, err := New(Config{Transports: []TransportConfig{{Name: "tcp", Kind: Reliable}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	n.Send(0, 0, 0, 2, 100, r)
	n.Send(0, 0, 2, 1, 100, r)
	if n.QueueLen(0, 0, 2) != 1 || !n.Connected(0, 1, 2) {
		t.Fatal("sends left no flow")
	}
	n.Reset()
	for i, v := range n.index.dense {
		if v != 0 {
			t.Fatalf("entry %d = %d after Reset", i, v)
		}
	}
	if n.QueueLen(0, 0, 2) != 0 || n.Connected(0, 1, 2) {
		t.Fatal("a flow survived Reset")
	}
}

package netmodel

import (
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"
)

// TestFlowIndex_DenseMatchesSparse drives a dense-indexed network and a
// hash-indexed one (as networks too large for the table get) through the
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
	sparse.index = flowIndex{nodes: nodes} // no dense table: the hash table
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

// TestFlowTable_MatchesMap adds many keys (growing the hash table several
// times), replaces some, and checks every lookup, present or absent,
// against a Go map; then Reset empties it.
func TestFlowTable_MatchesMap(t *testing.T) {
	var tb flowTable
	ref := map[uint64]int32{}
	r := rand.New(rand.NewPCG(5, 6))
	randKey := func() uint64 { return key(r.IntN(3), r.IntN(20000), r.IntN(20000)) }
	for i := 0; i < 50000; i++ {
		k := randKey()
		if i%7 == 0 && len(ref) > 0 { // replace an existing key's value
			k = key(0, 0, 0)
		}
		tb.set(k, int32(i))
		ref[k] = int32(i)
		q := randKey()
		if i%2 == 0 {
			q = k
		}
		got, ok := tb.get(q)
		want, wok := ref[q]
		if ok != wok || (ok && got != want) {
			t.Fatalf("step %d: get(%#x) = %d, %v; want %d, %v", i, q, got, ok, want, wok)
		}
	}
	if tb.used != len(ref) {
		t.Fatalf("%d keys in the table, %d in the map", tb.used, len(ref))
	}
	for k, v := range ref {
		if got, ok := tb.get(k); !ok || got != v {
			t.Fatalf("get(%#x) = %d, %v; want %d", k, got, ok, v)
		}
	}
	tb.reset()
	for k := range ref {
		if _, ok := tb.get(k); ok {
			t.Fatalf("key %#x survived reset", k)
		}
	}
}

// A flow record is one cache line: a send reads and writes most of it.
func TestFlow_OneCacheLine(t *testing.T) {
	if got := unsafe.Sizeof(flow{}); got != 64 {
		t.Fatalf("flow is %d bytes, want 64", got)
	}
}

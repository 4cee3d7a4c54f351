package netmodel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// BenchmarkSend measures one Send plus the Delivered of its message, the
// simulator's per-message cost, once all connections exist.
//
// ping-pong: nodes form pairs (2k, 2k+1) that take turns sending a
// 1000-byte message to each other on the default reliable transport.
// fanout: node 0 sends 1500-byte blocks round-robin to its peers at its
// uplink's rate, so every Send counts `peers` heavy flows (the
// O(active flows) part of the model).
func BenchmarkSend(b *testing.B) {
	for _, nodes := range []int{2, 10000} {
		b.Run(fmt.Sprintf("ping-pong/nodes=%d", nodes), func(b *testing.B) {
			n := mustNew(b, netmodel.Config{}, nodes)
			r := rand.New(rand.NewPCG(1, 2))
			pairs := nodes / 2
			clock := make([]time.Duration, pairs) // arrival of each pair's last message
			op := func(i int) {
				p, turn := i%pairs, (i/pairs)&1
				src, dst := 2*p+turn, 2*p+1-turn
				arrive, tk, st := n.Send(clock[p], 0, src, dst, 1000, r)
				if st != netmodel.Sent || !n.Delivered(tk) {
					b.Fatalf("send %d: %v", i, st)
				}
				clock[p] = arrive // the reply leaves when the message arrives
			}
			for i := 0; i < 2*pairs; i++ { // open every connection
				op(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				op(i)
			}
		})
	}
	for _, peers := range []int{10, 100} {
		b.Run(fmt.Sprintf("fanout/peers=%d", peers), func(b *testing.B) {
			n := mustNew(b, netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "tcp", QueueCap: -1}}}, peers+1)
			r := rand.New(rand.NewPCG(1, 2))
			send := func(now time.Duration, dst int) {
				_, tk, st := n.Send(now, 0, 0, dst, 1500, r)
				if st != netmodel.Sent || !n.Delivered(tk) {
					b.Fatalf("send to %d: %v", dst, st)
				}
			}
			// A burst makes every flow heavy; then one block every
			// 1.5 ms, the uplink's capacity, keeps them heavy with a
			// bounded backlog (each flow always has one block queued).
			for i := 0; i < peers; i++ {
				send(0, 1+i)
			}
			const every = 1500 * time.Microsecond
			for i := 0; i < 10*peers; i++ {
				send(time.Duration(i)*every, 1+i%peers)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 10 * peers; i < 10*peers+b.N; i++ {
				send(time.Duration(i)*every, 1+i%peers)
			}
			b.StopTimer()
			if d := n.LastSend(); d.HeavyFlows != peers {
				b.Fatalf("heavy flows = %d, want %d", d.HeavyFlows, peers)
			}
		})
	}
}

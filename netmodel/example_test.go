package netmodel_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// Node 0 sends two 1500-byte blocks and two small messages at t=0 over
// the default network (8000 kbit/s, Pareto delay with xm = 1 ms, α = 3).
// The second block shares node 0's uplink with the first (two heavy flows:
// half of 8000 kbit/s). The message to node 3 is light and not counted,
// but shares the link with the two blocks. The last one queues behind the
// first block on connection 0→1 (whose 1600 bytes make it heavy) and
// arrives after it. Then node 2 resets: the block in flight to it is lost
// and node 0 is told.
func Example() {
	net, err := netmodel.New(netmodel.Config{}, 4)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/1e6) }

	var tickets []netmodel.Ticket
	for _, m := range []struct{ dst, size int }{{1, 1500}, {2, 1500}, {3, 100}, {1, 100}} {
		arrive, tk, st := net.Send(0, 0, 0, m.dst, m.size, r)
		d := net.LastSend()
		fmt.Printf("0→%d %4dB: %s, heavy flows %d, transmitted %s–%s, arrives %s\n",
			m.dst, m.size, st, d.HeavyFlows, ms(d.TxStart), ms(d.TxEnd), ms(arrive))
		tickets = append(tickets, tk)
	}
	fmt.Println("queue 0→1:", net.QueueLen(0, 0, 1))
	fmt.Println("peers of reset node 2:", net.ResetNode(2))
	for i, tk := range tickets {
		fmt.Printf("message %d delivered: %v\n", i, net.Delivered(tk))
	}
	fmt.Println("queue 0→1:", net.QueueLen(0, 0, 1))
	// Output:
	// 0→1 1500B: sent, heavy flows 1, transmitted 0.000ms–1.500ms, arrives 2.957ms
	// 0→2 1500B: sent, heavy flows 2, transmitted 0.000ms–3.000ms, arrives 4.229ms
	// 0→3  100B: sent, heavy flows 2, transmitted 0.000ms–0.200ms, arrives 1.467ms
	// 0→1  100B: sent, heavy flows 2, transmitted 1.500ms–1.700ms, arrives 2.957ms
	// queue 0→1: 2
	// peers of reset node 2: [0]
	// message 0 delivered: true
	// message 1 delivered: false
	// message 2 delivered: true
	// message 3 delivered: true
	// queue 0→1: 0
}

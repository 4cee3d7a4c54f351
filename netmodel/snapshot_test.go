package netmodel_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// netOps drives a network with a random mix of sends, deliveries, resets,
// breaks, partitions and heals from step from to step to, and writes what
// each operation returned to out. The operations depend only on the seed
// and the step, so two networks in the same state given the same steps
// must write the same lines.
type netOps struct {
	tickets []netmodel.Ticket
}

func (o *netOps) run(n *netmodel.Network, seed uint64, from, to int, out *strings.Builder) {
	const nodes = 5
	for i := from; i < to; i++ {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		now := time.Duration(i) * 50 * time.Microsecond
		switch k := r.IntN(20); {
		case k < 12:
			tr, src, dst := r.IntN(2), r.IntN(nodes), r.IntN(nodes)
			arrive, tk, st := n.Send(now, tr, src, dst, 100+r.IntN(4000), r)
			if st == netmodel.Sent {
				o.tickets = append(o.tickets, tk)
			}
			fmt.Fprintf(out, "%d send %d %d→%d: %v %v %+v heavy %d\n", i, tr, src, dst, st, arrive, n.LastSend(), n.HeavyFlows(now, src))
		case k < 16:
			if len(o.tickets) == 0 {
				continue
			}
			j := r.IntN(len(o.tickets))
			tk := o.tickets[j]
			o.tickets = append(o.tickets[:j], o.tickets[j+1:]...)
			fmt.Fprintf(out, "%d delivered %v\n", i, n.Delivered(tk))
		case k == 16:
			fmt.Fprintf(out, "%d reset %v\n", i, n.ResetNodeConns(r.IntN(nodes)))
		case k == 17:
			fmt.Fprintf(out, "%d break %v\n", i, n.BreakConns(r.IntN(nodes), r.IntN(nodes)))
		case k == 18:
			c, err := n.PartitionConns([][]int{{0, 1}, {2, 3, 4}})
			fmt.Fprintf(out, "%d partition %v %v\n", i, c, err)
		default:
			n.Heal()
			fmt.Fprintf(out, "%d heal\n", i)
		}
		for src := range nodes {
			fmt.Fprintf(out, " q%d=%d", src, n.QueueLen(0, src, (src+1)%nodes))
		}
		out.WriteByte('\n')
	}
}

// A network copied mid-run (Clone, or CopyFrom into a network that ran
// something else) continues exactly as the original does.
func TestCopyFromContinuesAsTheOriginal(t *testing.T) {
	cfg := netmodel.Config{HeavyFlowBytes: 1000, Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 4},
		{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.1, ReorderWindow: time.Millisecond}}}
	for seed := uint64(1); seed <= 5; seed++ {
		orig, reused := mustNew(t, cfg, 5), mustNew(t, cfg, 5)
		var prefix, junk strings.Builder
		var ops netOps
		ops.run(orig, seed, 0, 300, &prefix)
		(&netOps{}).run(reused, seed+100, 0, 500, &junk) // state CopyFrom must overwrite
		clone := orig.Clone()
		reused.CopyFrom(orig)
		var want, gotClone, gotReused strings.Builder
		tickets := append([]netmodel.Ticket(nil), ops.tickets...)
		ops.run(orig, seed, 300, 700, &want)
		(&netOps{tickets: append([]netmodel.Ticket(nil), tickets...)}).run(clone, seed, 300, 700, &gotClone)
		(&netOps{tickets: append([]netmodel.Ticket(nil), tickets...)}).run(reused, seed, 300, 700, &gotReused)
		if want.String() != gotClone.String() {
			t.Errorf("seed %d: Clone continues differently:\n%s", seed, firstDiff(want.String(), gotClone.String()))
		}
		if want.String() != gotReused.String() {
			t.Errorf("seed %d: CopyFrom continues differently:\n%s", seed, firstDiff(want.String(), gotReused.String()))
		}
		if !strings.Contains(want.String(), "sent") || !strings.Contains(want.String(), "delivered true") {
			t.Fatalf("seed %d: the continuation sent or delivered nothing: the test proves nothing", seed)
		}
	}
}

func firstDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i, x[i], y[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(x), len(y))
}

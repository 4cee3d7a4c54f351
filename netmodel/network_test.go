package netmodel_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/macepc/macepc/netmodel"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6e65746d6f64656c)) }

func mustNew(t testing.TB, cfg netmodel.Config, nodes int) *netmodel.Network {
	t.Helper()
	n, err := netmodel.New(cfg, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// txTime is the paper's transmission delay: size·8 bits over a link of
// bandwidth/heavy kbit/s, rounded to the nanosecond.
func txTime(size, heavy int, kbps float64) time.Duration {
	bits := float64(size) * 8
	bitsPerSecond := kbps * 1000 / float64(heavy)
	return time.Duration(math.Round(bits / bitsPerSecond * 1e9))
}

// send performs a Send that must succeed and returns its detail.
func send(t *testing.T, n *netmodel.Network, now time.Duration, tr, src, dst, size int, r *rand.Rand) netmodel.SendDetail {
	t.Helper()
	_, _, st := n.Send(now, tr, src, dst, size, r)
	if st != netmodel.Sent {
		t.Fatalf("send %d→%d at %v: status %v, want sent", src, dst, now, st)
	}
	return n.LastSend()
}

// §4: "if the bandwidth is configured at 8000 Kbps, and there are two
// simultaneous flows, the transmission delay for a message corresponds to
// the time it takes to send the message over a 4000 Kbps link"; light flows
// (≤ 300 bytes queued) are excluded.
func TestScalableNetworkSimulation_HeavyFlowsShareBandwidth(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 4)
	r := newRand(1)
	const bw = 8000.0

	if got, want := txTime(1500, 1, bw), 1500*time.Microsecond; got != want {
		t.Fatalf("test formula: 1500 bytes at 8000 kbit/s = %v, want %v", got, want)
	}

	// One heavy flow: full bandwidth.
	d := send(t, n, 0, 0, 0, 1, 1500, r)
	if d.HeavyFlows != 1 || d.TxStart != 0 || d.TxEnd != txTime(1500, 1, bw) {
		t.Fatalf("first heavy message: %+v, want divisor 1, tx [0, %v]", d, txTime(1500, 1, bw))
	}
	one := d.TxEnd - d.TxStart

	// A second heavy flow from the same sender while the first still has
	// 1500 bytes queued: half the bandwidth, exactly double the time.
	d = send(t, n, 0, 0, 0, 2, 1500, r)
	if d.HeavyFlows != 2 || d.TxEnd-d.TxStart != 2*one || d.TxEnd-d.TxStart != txTime(1500, 2, bw) {
		t.Fatalf("second heavy flow: divisor %d, tx %v, want 2 and %v", d.HeavyFlows, d.TxEnd-d.TxStart, 2*one)
	}

	// A third, light flow (200 ≤ 300 bytes): not counted. It shares the
	// link with the two heavy flows (divisor 2, not 3).
	d = send(t, n, 0, 0, 0, 3, 200, r)
	if d.HeavyFlows != 2 || d.TxEnd-d.TxStart != txTime(200, 2, bw) {
		t.Fatalf("light third flow: divisor %d, tx %v, want 2 and %v", d.HeavyFlows, d.TxEnd-d.TxStart, txTime(200, 2, bw))
	}
	if got := n.HeavyFlows(0, 0); got != 2 {
		t.Fatalf("HeavyFlows with two heavy and one light flow = %d, want 2", got)
	}

	// More on the first flow: the light flow still does not count, and
	// the message waits for the flow's previous transmission.
	d = send(t, n, 0, 0, 0, 1, 1500, r)
	if d.HeavyFlows != 2 || d.TxStart != one || d.TxEnd != one+txTime(1500, 2, bw) {
		t.Fatalf("serialised heavy message: %+v, want divisor 2, tx [%v, %v]", d, one, one+txTime(1500, 2, bw))
	}

	// Other senders' flows do not slow node 0 down, nor node 0's theirs.
	d = send(t, n, 0, 0, 1, 2, 1500, r)
	if d.HeavyFlows != 1 {
		t.Fatalf("node 1's first heavy flow: divisor %d, want 1", d.HeavyFlows)
	}

	// Later, everything has been transmitted: a light message alone is
	// not penalised.
	later := time.Second
	if got := n.HeavyFlows(later, 0); got != 0 {
		t.Fatalf("HeavyFlows after all transmissions ended = %d, want 0", got)
	}
	d = send(t, n, later, 0, 0, 3, 200, r)
	if d.HeavyFlows != 1 || d.TxStart != later || d.TxEnd-d.TxStart != txTime(200, 1, bw) {
		t.Fatalf("lone light message: %+v, want divisor 1, tx %v", d, txTime(200, 1, bw))
	}
	// The flow now holds 200 queued bytes; 200 more make it heavy (the
	// new message counts), but it is the only heavy flow: divisor 1.
	d = send(t, n, later, 0, 0, 3, 200, r)
	if d.HeavyFlows != 1 || d.TxStart != later+txTime(200, 1, bw) {
		t.Fatalf("second small message: %+v", d)
	}
	if got := n.HeavyFlows(later, 0); got != 1 {
		t.Fatalf("HeavyFlows with 400 bytes on one flow = %d, want 1", got)
	}
	// Now a heavy flow to node 1 shares with it.
	d = send(t, n, later, 0, 0, 1, 1500, r)
	if d.HeavyFlows != 2 || d.TxEnd-d.TxStart != txTime(1500, 2, bw) {
		t.Fatalf("heavy flow next to 400 queued bytes: divisor %d, want 2", d.HeavyFlows)
	}
}

// Exactly HeavyFlowBytes queued is light: the threshold is "more than".
func TestScalableNetworkSimulation_ThresholdIsStrict(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 3)
	r := newRand(2)
	send(t, n, 0, 0, 0, 1, 300, r)
	if got := n.HeavyFlows(0, 0); got != 0 {
		t.Fatalf("HeavyFlows with exactly 300 bytes queued = %d, want 0", got)
	}
	if d := send(t, n, 0, 0, 0, 2, 1500, r); d.HeavyFlows != 1 {
		t.Fatalf("divisor next to a 300-byte flow = %d, want 1", d.HeavyFlows)
	}
	// With a custom threshold the same flow is heavy.
	n = mustNew(t, netmodel.Config{HeavyFlowBytes: 299}, 3)
	send(t, n, 0, 0, 0, 1, 300, r)
	if d := send(t, n, 0, 0, 0, 2, 1500, r); d.HeavyFlows != 2 {
		t.Fatalf("threshold 299: divisor = %d, want 2", d.HeavyFlows)
	}
}

// Heavy flows are counted over all transports of the sender.
func TestScalableNetworkSimulation_HeavyFlowsAcrossTransports(t *testing.T) {
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable},
		{Name: "udp", Kind: netmodel.Datagram},
	}}
	n := mustNew(t, cfg, 2)
	r := newRand(3)
	send(t, n, 0, 1, 0, 1, 1500, r)
	if d := send(t, n, 0, 0, 0, 1, 1500, r); d.HeavyFlows != 2 || d.TxStart != 0 {
		t.Fatalf("tcp next to a heavy udp flow to the same peer: %+v, want divisor 2 starting at 0", d)
	}
}

func TestScalableNetworkSimulation_Overrides(t *testing.T) {
	cfg := netmodel.Config{
		Overrides: append(netmodel.Symmetric(0, 1, 5*time.Millisecond, 4000),
			netmodel.LinkOverride{From: 2, To: 0, Latency: 7 * time.Millisecond}),
		NodeOverrides: []netmodel.NodeOverride{{Node: 2, BandwidthKbps: 16000, Latency: 3 * time.Millisecond}},
	}
	n := mustNew(t, cfg, 3)
	r := newRand(4)
	cases := []struct {
		src, dst int
		kbps     float64
		latency  time.Duration
	}{
		{0, 1, 4000, 5 * time.Millisecond},  // symmetric link override
		{1, 0, 4000, 5 * time.Millisecond},  // … both ways
		{0, 2, 8000, time.Millisecond},      // defaults
		{2, 1, 16000, 3 * time.Millisecond}, // node override (uplink)
		{2, 0, 16000, 7 * time.Millisecond}, // link latency wins, node bandwidth stays
	}
	for i, c := range cases {
		now := time.Duration(i) * time.Second
		d := send(t, n, now, 0, c.src, c.dst, 1500, r)
		if d.TxEnd-d.TxStart != txTime(1500, 1, c.kbps) {
			t.Errorf("%d→%d: tx %v, want %v", c.src, c.dst, d.TxEnd-d.TxStart, txTime(1500, 1, c.kbps))
		}
		if d.Propagation < c.latency || d.Propagation > 3*c.latency {
			t.Errorf("%d→%d: propagation %v, want ≥ %v (and this seed's draw < 3·xm)", c.src, c.dst, d.Propagation, c.latency)
		}
	}
}

// The arrival of a reliable message on an idle connection is
// txEnd + Pareto(α, xm).Quantile(u) with u the first Float64 of the source.
func TestScalableNetworkSimulation_ArrivalFormula(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 2)
	pcg := rand.NewPCG(5, 6)
	clone := *pcg
	u := rand.New(&clone).Float64()
	arrive, tk, st := n.Send(10*time.Millisecond, 0, 0, 1, 1000, rand.New(pcg))
	if st != netmodel.Sent || !tk.Valid() {
		t.Fatalf("status %v", st)
	}
	prop := time.Duration(math.Round(distuv.Pareto{Xm: float64(time.Millisecond), Alpha: 3}.Quantile(u)))
	want := 10*time.Millisecond + txTime(1000, 1, 8000) + prop
	if arrive != want {
		t.Fatalf("arrive = %v, want %v", arrive, want)
	}
	// Exactly one draw was consumed.
	if rand.New(pcg).Uint64() != rand.New(&clone).Uint64() {
		t.Fatal("Send drew more than one number for a reliable message")
	}
}

// The Pareto delay has mean α·xm/(α−1) = 1.5 ms for xm = 1 ms, α = 3.
// With α = 3 the variance is finite, σ² = xm²·α/((α−1)²(α−2)) = 0.75 ms²,
// so the sample mean of N draws has standard error σ/√N; we allow 6
// standard errors (≈ 0.012 ms for N = 200,000). The seed is fixed, so the
// test is deterministic; the tolerance says how surprising a failure
// would be if the distribution were right.
func TestScalableNetworkSimulation_ParetoDelay(t *testing.T) {
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "udp", Kind: netmodel.Datagram}}}
	n := mustNew(t, cfg, 2)
	r := newRand(7)
	const N = 200000
	xm := float64(time.Millisecond)
	sum := 0.0
	for i := 0; i < N; i++ {
		now := time.Duration(i) * time.Millisecond
		arrive, _, st := n.Send(now, 0, 0, 1, 0, r) // size 0: no transmission time
		if st != netmodel.Sent {
			t.Fatalf("status %v", st)
		}
		d := arrive - now
		if d < time.Millisecond {
			t.Fatalf("draw %v below xm = 1ms", d)
		}
		sum += float64(d)
	}
	mean := sum / N
	p := distuv.Pareto{Xm: xm, Alpha: 3}
	se := p.StdDev() / math.Sqrt(N)
	if want := 1.5 * xm; math.Abs(mean-want) > 6*se || p.Mean() != want {
		t.Fatalf("mean delay %.4f ms, want 1.5 ms ± %.4f ms", mean/1e6, 6*se/1e6)
	}
}

// The draw is capped at 60 s·(size/1500+1), integer division as in Mace.
func TestScalableNetworkSimulation_ParetoCap(t *testing.T) {
	for _, c := range []struct {
		latency time.Duration
		size    int
		cap     time.Duration
	}{
		{40 * time.Second, 100, 60 * time.Second},   // some draws capped
		{100 * time.Second, 1499, 60 * time.Second}, // all capped (1499/1500 = 0)
		{100 * time.Second, 1500, 120 * time.Second},
		{100 * time.Second, 3000, 180 * time.Second},
	} {
		cfg := netmodel.Config{Latency: c.latency, Transports: []netmodel.TransportConfig{{Name: "udp", Kind: netmodel.Datagram}}}
		n := mustNew(t, cfg, 2)
		r := newRand(8)
		capped := 0
		const N = 2000
		for i := 0; i < N; i++ {
			n.Send(time.Duration(i)*time.Hour, 0, 0, 1, c.size, r)
			d := n.LastSend().Propagation
			if d > c.cap || d < min(c.latency, c.cap) {
				t.Fatalf("latency %v size %d: draw %v outside [%v, %v]", c.latency, c.size, d, min(c.latency, c.cap), c.cap)
			}
			if d == c.cap {
				capped++
			}
		}
		// P(draw > cap) = (xm/cap)^α when xm < cap.
		want := 1.0
		if c.latency < c.cap {
			want = math.Pow(float64(c.latency)/float64(c.cap), 3)
		}
		if got := float64(capped) / N; math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/N)+1e-9 {
			t.Errorf("latency %v size %d: capped fraction %.3f, want %.3f", c.latency, c.size, got, want)
		}
	}
}

// A reliable connection is FIFO: random Pareto delays would reorder
// messages sent 10 µs apart, the connection does not.
func TestReliableTransport_FIFO(t *testing.T) {
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "tcp", Kind: netmodel.Reliable, QueueCap: -1}}}
	n := mustNew(t, cfg, 2)
	r := newRand(9)
	var last time.Duration
	clamped := 0
	for i := 0; i < 5000; i++ {
		arrive, _, st := n.Send(time.Duration(i)*10*time.Microsecond, 0, 0, 1, 100, r)
		if st != netmodel.Sent {
			t.Fatalf("status %v", st)
		}
		if arrive < last {
			t.Fatalf("message %d arrives at %v, before its predecessor at %v", i, arrive, last)
		}
		last = arrive
		if d := n.LastSend(); arrive > d.TxEnd+d.Propagation {
			clamped++
		}
	}
	if clamped == 0 {
		t.Fatal("no message was held back by FIFO order: the test does not exercise the clamp")
	}
}

// inversions sends count datagrams spaced apart on one flow and counts
// those that arrive before their predecessor.
func inversions(t *testing.T, window, spacing time.Duration, count int) int {
	t.Helper()
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "udp", Kind: netmodel.Datagram, ReorderWindow: window}}}
	n := mustNew(t, cfg, 2)
	r := newRand(10)
	var last time.Duration
	inv := 0
	for i := 0; i < count; i++ {
		arrive, _, st := n.Send(time.Duration(i)*spacing, 0, 0, 1, 100, r)
		if st != netmodel.Sent {
			t.Fatalf("status %v", st)
		}
		d := n.LastSend()
		if d.Reorder < 0 || (window == 0 && d.Reorder != 0) || (window > 0 && d.Reorder >= window) {
			t.Fatalf("window %v: reorder delay %v outside [0, window)", window, d.Reorder)
		}
		if arrive != d.TxEnd+d.Propagation+d.Reorder {
			t.Fatalf("datagram arrival %v != txEnd+propagation+reorder %v", arrive, d.TxEnd+d.Propagation+d.Reorder)
		}
		if arrive < last {
			inv++
		}
		last = arrive
	}
	return inv
}

// Datagrams are not FIFO. Spaced 20 ms apart, the 1 ms-scale Pareto jitter
// alone almost never reorders them (P(delay > 21 ms) = 21⁻³ ≈ 1e-4); a
// 50 ms reorder window lets later ones overtake earlier ones often.
func TestDatagramTransport_Reorder(t *testing.T) {
	const count = 2000
	without := inversions(t, 0, 20*time.Millisecond, count)
	with := inversions(t, 50*time.Millisecond, 20*time.Millisecond, count)
	t.Logf("inversions in %d datagrams 20ms apart: %d without window, %d with a 50ms window", count, without, with)
	if with < 100 || with <= 10*without {
		t.Fatalf("reorder window: %d inversions, without it %d", with, without)
	}
	// Closely spaced datagrams are reordered by the jitter alone (no FIFO
	// clamp, unlike a reliable connection).
	if got := inversions(t, 0, 100*time.Microsecond, count); got == 0 {
		t.Fatal("no datagram 100µs apart overtook its predecessor: datagrams behave FIFO")
	}
}

// A datagram is lost with probability DropProb: the fraction over N sends
// lies within 5 standard errors √(p(1−p)/N) of p.
func TestDatagramTransport_Drop(t *testing.T) {
	for _, p := range []float64{0, 0.25, 1} {
		cfg := netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "udp", Kind: netmodel.Datagram, DropProb: p}}}
		n := mustNew(t, cfg, 2)
		r := newRand(11)
		const N = 40000
		dropped := 0
		for i := 0; i < N; i++ {
			_, tk, st := n.Send(time.Duration(i)*time.Millisecond, 0, 0, 1, 100, r)
			switch st {
			case netmodel.Dropped:
				dropped++
				if tk.Valid() {
					t.Fatal("dropped datagram has a valid ticket")
				}
			case netmodel.Sent:
				if !n.Delivered(tk) {
					t.Fatal("datagram not delivered")
				}
			default:
				t.Fatalf("datagram status %v", st)
			}
		}
		got := float64(dropped) / N
		if tol := 5 * math.Sqrt(p*(1-p)/N); math.Abs(got-p) > tol {
			t.Errorf("drop probability %v: dropped fraction %.4f (tolerance %.4f)", p, got, tol)
		}
	}
}

// The bounded send queue (Mace default 20 messages per connection) is what
// makes sends fail in the Bullet′ Diff bug and RandTree RT12.
func TestReliableTransport_BoundedQueue(t *testing.T) {
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable},               // default 20
		{Name: "data", Kind: netmodel.Reliable, QueueCap: 3}, // Bullet′'s one-block data transport, say
		{Name: "ctl", Kind: netmodel.Reliable, QueueCap: -1}, // unbounded
	}}
	n := mustNew(t, cfg, 2)
	pcg := rand.NewPCG(12, 0)
	r := rand.New(pcg)
	for _, c := range []struct {
		tr, cap int
	}{{0, 20}, {1, 3}} {
		var tickets []netmodel.Ticket
		for i := 0; i < c.cap; i++ {
			_, tk, st := n.Send(0, c.tr, 0, 1, 100, r)
			if st != netmodel.Sent {
				t.Fatalf("transport %d: send %d: %v", c.tr, i+1, st)
			}
			tickets = append(tickets, tk)
		}
		if got := n.QueueLen(c.tr, 0, 1); got != c.cap {
			t.Fatalf("transport %d: QueueLen = %d, want %d", c.tr, got, c.cap)
		}
		before := *pcg
		arrive, tk, st := n.Send(0, c.tr, 0, 1, 100, r)
		if st != netmodel.QueueFull || arrive != 0 || tk.Valid() {
			t.Fatalf("transport %d: send %d: %v %v %v, want queue-full", c.tr, c.cap+1, arrive, tk, st)
		}
		if *pcg != before || n.QueueLen(c.tr, 0, 1) != c.cap {
			t.Fatalf("transport %d: a full-queue send changed state", c.tr)
		}
		// The reverse direction has its own queue.
		if _, _, st := n.Send(0, c.tr, 1, 0, 100, r); st != netmodel.Sent {
			t.Fatalf("transport %d: reverse send: %v", c.tr, st)
		}
		if !n.Delivered(tickets[0]) {
			t.Fatal("Delivered false on an intact connection")
		}
		if got := n.QueueLen(c.tr, 0, 1); got != c.cap-1 {
			t.Fatalf("transport %d: QueueLen after one delivery = %d, want %d", c.tr, got, c.cap-1)
		}
		if _, _, st := n.Send(0, c.tr, 0, 1, 100, r); st != netmodel.Sent {
			t.Fatalf("transport %d: send after a delivery: %v", c.tr, st)
		}
		if _, _, st := n.Send(0, c.tr, 0, 1, 100, r); st != netmodel.QueueFull {
			t.Fatalf("transport %d: queue should be full again: %v", c.tr, st)
		}
	}
	for i := 0; i < 1000; i++ {
		if _, _, st := n.Send(0, 2, 0, 1, 100, r); st != netmodel.Sent {
			t.Fatalf("unbounded transport: send %d: %v", i+1, st)
		}
	}
	if got := n.QueueLen(2, 0, 1); got != 1000 {
		t.Fatalf("unbounded QueueLen = %d, want 1000", got)
	}
}

func TestReliableTransport_DeliveredTwicePanics(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 2)
	_, tk, _ := n.Send(0, 0, 0, 1, 10, newRand(13))
	if !n.Delivered(tk) {
		t.Fatal("Delivered false")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("second Delivered of the only message did not panic")
		}
	}()
	n.Delivered(tk)
}

func TestNetwork_ZeroTicket(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 2)
	if n.Delivered(netmodel.Ticket{}) {
		t.Fatal("Delivered(zero Ticket) = true")
	}
}

func TestNetwork_SelfSend(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 1)
	r := newRand(14)
	arrive, tk, st := n.Send(time.Second, 0, 0, 0, 1500, r)
	if st != netmodel.Sent || arrive < time.Second+1500*time.Microsecond+time.Millisecond {
		t.Fatalf("self send: %v at %v", st, arrive)
	}
	if got := n.ResetNode(0); len(got) != 0 {
		t.Fatalf("ResetNode lists itself: %v", got)
	}
	if n.Delivered(tk) {
		t.Fatal("self message survived the reset of its node")
	}
}

func TestNetwork_BadArgumentsPanic(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 2)
	r := newRand(15)
	for name, f := range map[string]func(){
		"src":       func() { n.Send(0, 0, 2, 0, 1, r) },
		"dst":       func() { n.Send(0, 0, 0, -1, 1, r) },
		"transport": func() { n.Send(0, 1, 0, 1, 1, r) },
		"size":      func() { n.Send(0, 0, 0, 1, -1, r) },
		"queuelen":  func() { n.QueueLen(0, 0, 5) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s out of range did not panic", name)
				}
			}()
			f()
		}()
	}
}

// Send and Delivered must not allocate once the connections exist.
func TestNetwork_SendDeliveredDoNotAllocate(t *testing.T) {
	cfg := netmodel.Config{Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable},
		{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.1, ReorderWindow: time.Millisecond},
	}}
	const nodes = 64
	n := mustNew(t, cfg, nodes)
	r := newRand(16)
	now := time.Duration(0)
	step := func() {
		now += 50 * time.Microsecond
		src := r.IntN(nodes)
		dst := r.IntN(nodes)
		tr := r.IntN(2)
		_, tk, st := n.Send(now, tr, src, dst, 100+r.IntN(3000), r)
		if st == netmodel.Sent {
			n.Delivered(tk)
		}
	}
	for i := 0; i < 200000; i++ { // create every flow, grow every buffer
		step()
	}
	if a := testing.AllocsPerRun(10000, step); a != 0 {
		t.Fatalf("Send+Delivered allocate %v times per call", a)
	}
}

// The shape-3 fast path (math.Cbrt) agrees with gonum's Pareto quantile to
// within 1 ns over many draws and latencies.
func TestScalableNetworkSimulation_CbrtMatchesGonum(t *testing.T) {
	for _, lat := range []time.Duration{time.Millisecond, 37 * time.Millisecond, 3 * time.Second} {
		n := mustNew(t, netmodel.Config{Latency: lat}, 2)
		pcg := rand.NewPCG(9, uint64(lat))
		for i := 0; i < 20000; i++ {
			clone := *pcg
			u := rand.New(&clone).Float64()
			now := time.Duration(i) * time.Hour // idle connection every time
			arrive, tk, _ := n.Send(now, 0, 0, 1, 10, rand.New(pcg))
			n.Delivered(tk)
			want := now + txTime(10, 1, 8000) + time.Duration(math.Round(math.Min(distuv.Pareto{Xm: float64(lat), Alpha: 3}.Quantile(u), float64(60*time.Second))))
			if d := arrive - want; d < -1 || d > 1 {
				t.Fatalf("latency %v draw %d: arrive %v, gonum gives %v", lat, i, arrive, want)
			}
		}
	}
}

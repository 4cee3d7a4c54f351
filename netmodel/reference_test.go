package netmodel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/macepc/macepc/netmodel"
)

// refNet is a deliberately naive reference implementation of the model:
// it keeps every transmission since a connection last broke, recomputes
// queued bytes by scanning them, scans the overrides on every send and
// counts heavy flows over all flows. The quick-check test below runs it
// side by side with Network.
type refNet struct {
	cfg   netmodel.Config
	flows map[[3]int]*refFlow
	group []int
}

type refFlow struct {
	txs        [][2]int64 // (end, size)
	lastTx     time.Duration
	lastArrive time.Duration
	inflight   int
	open       bool
	epoch      int
}

type refTicket struct {
	key   [3]int
	epoch int
}

func newRef(cfg netmodel.Config, nodes int) *refNet {
	return &refNet{cfg: cfg.WithDefaults(), flows: map[[3]int]*refFlow{}, group: make([]int, nodes)}
}

func (m *refNet) flow(t, a, b int) *refFlow {
	k := [3]int{t, a, b}
	if m.flows[k] == nil {
		m.flows[k] = &refFlow{}
	}
	return m.flows[k]
}

func (m *refNet) queued(f *refFlow, now time.Duration) int64 {
	var q int64
	for _, tx := range f.txs {
		if time.Duration(tx[0]) > now {
			q += tx[1]
		}
	}
	return q
}

func (m *refNet) link(src, dst int) (latency time.Duration, kbps float64) {
	latency, kbps = m.cfg.Latency, m.cfg.BandwidthKbps
	for _, o := range m.cfg.NodeOverrides {
		if o.Node == src {
			if o.Latency != 0 {
				latency = o.Latency
			}
			if o.BandwidthKbps != 0 {
				kbps = o.BandwidthKbps
			}
		}
	}
	var linkLat time.Duration
	var linkBw float64
	for _, o := range m.cfg.Overrides {
		if o.From == src && o.To == dst {
			if o.Latency != 0 {
				linkLat = o.Latency
			}
			if o.BandwidthKbps != 0 {
				linkBw = o.BandwidthKbps
			}
		}
	}
	if linkLat != 0 {
		latency = linkLat
	}
	if linkBw != 0 {
		kbps = linkBw
	}
	return latency, kbps
}

func (f *refFlow) brk() {
	*f = refFlow{epoch: f.epoch + 1}
}

func (m *refNet) breakConn(t, a, b int) bool {
	f := m.flows[[3]int{t, a, b}]
	if f == nil || !f.open {
		return false
	}
	f.brk()
	if g := m.flows[[3]int{t, b, a}]; g != nil && a != b {
		g.brk()
	}
	return true
}

func (m *refNet) send(now time.Duration, t, src, dst, size int, r *rand.Rand) (time.Duration, refTicket, netmodel.Status) {
	tc := m.cfg.Transports[t]
	reliable := tc.Kind == netmodel.Reliable
	key := [3]int{t, src, dst}
	if reliable {
		if m.group[src] != m.group[dst] {
			m.breakConn(t, src, dst)
			return 0, refTicket{}, netmodel.Unreachable
		}
		f := m.flow(t, src, dst)
		if !f.open {
			f.open = true
			m.flow(t, dst, src).open = true
		}
		if tc.QueueCap >= 0 && f.inflight >= tc.QueueCap {
			return 0, refTicket{}, netmodel.QueueFull
		}
	}
	f := m.flow(t, src, dst)
	heavy := 0
	for k, g := range m.flows { // only counting: order does not matter
		if k[1] == src && k != key && m.queued(g, now) > int64(m.cfg.HeavyFlowBytes) {
			heavy++
		}
	}
	if m.queued(f, now)+int64(size) > int64(m.cfg.HeavyFlowBytes) {
		heavy++
	}
	heavy = max(heavy, 1)
	latency, kbps := m.link(src, dst)
	tx := txTime(size, heavy, kbps)
	start := max(now, f.lastTx)
	end := start + tx
	f.lastTx = end
	f.txs = append(f.txs, [2]int64{int64(end), int64(size)})
	if !reliable {
		if m.group[src] != m.group[dst] || (tc.DropProb > 0 && r.Float64() < tc.DropProb) {
			return 0, refTicket{}, netmodel.Dropped
		}
	}
	d := distuv.Pareto{Xm: float64(latency), Alpha: m.cfg.ParetoShape}.Quantile(r.Float64())
	d = math.Min(d, float64(time.Duration(size/1500+1)*60*time.Second))
	arrive := end + time.Duration(math.Round(d))
	if reliable {
		arrive = max(arrive, f.lastArrive)
		f.lastArrive = arrive
	} else if tc.ReorderWindow > 0 {
		arrive += time.Duration(r.Float64() * float64(tc.ReorderWindow))
	}
	f.inflight++
	return arrive, refTicket{key, f.epoch}, netmodel.Sent
}

func (m *refNet) delivered(tk refTicket) bool {
	f := m.flows[tk.key]
	if f == nil || f.epoch != tk.epoch {
		return false
	}
	f.inflight--
	if m.cfg.Transports[tk.key[0]].Kind == netmodel.Reliable {
		return true
	}
	return m.group[tk.key[1]] == m.group[tk.key[2]]
}

func (m *refNet) resetNode(node int) []int {
	var peers []int
	for t := range m.cfg.Transports {
		for p := range m.group {
			if m.breakConn(t, node, p) && p != node {
				peers = append(peers, p)
			}
		}
	}
	slices.Sort(peers)
	return slices.Compact(peers)
}

func (m *refNet) brk(a, b int) bool {
	any := false
	for t := range m.cfg.Transports {
		if m.breakConn(t, a, b) {
			any = true
		}
	}
	return any
}

func (m *refNet) partition(groups [][]int) {
	clear(m.group)
	for i, g := range groups {
		for _, v := range g {
			m.group[v] = i + 1
		}
	}
	for k, f := range m.flows {
		if f.open && m.group[k[1]] != m.group[k[2]] {
			m.breakConn(k[0], k[1], k[2])
		}
	}
}

// workloadConfig exercises every feature: a small queue, lossy reordering
// datagrams, an unbounded transport, link and node overrides.
func workloadConfig() netmodel.Config {
	return netmodel.Config{
		Transports: []netmodel.TransportConfig{
			{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 4},
			{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.1, ReorderWindow: 2 * time.Millisecond},
			{Name: "ctl", Kind: netmodel.Reliable, QueueCap: -1},
		},
		Overrides:     append(netmodel.Symmetric(0, 1, 3*time.Millisecond, 2000), netmodel.LinkOverride{From: 2, To: 3, Latency: 500 * time.Microsecond}),
		NodeOverrides: []netmodel.NodeOverride{{Node: 2, BandwidthKbps: 500}},
	}
}

type pending struct {
	arrive time.Duration
	tk     netmodel.Ticket
	ref    refTicket
	dst    int
}

// drive runs a random workload of steps operations on n (and, if ref is
// not nil, on the reference model, failing at the first difference). It
// returns a trace of every result. Randomness is counter-based as in the
// simulator: step i draws from a PCG seeded with (seed, i).
func drive(t *testing.T, n *netmodel.Network, ref *refNet, nodes int, seed uint64, steps int) []string {
	t.Helper()
	pcg := rand.NewPCG(0, 0)
	r := rand.New(pcg)
	clock := make([]time.Duration, nodes)
	var queue []pending
	var trace []string
	check := func(step int, what string, got, want any) {
		t.Helper()
		if ref != nil && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d step %d %s: network %v, reference %v", seed, step, what, got, want)
		}
	}
	for step := 0; step < steps; step++ {
		pcg.Seed(seed, uint64(step))
		switch x := r.IntN(100); {
		case x < 65:
			src, dst, tr := r.IntN(nodes), r.IntN(nodes), r.IntN(3)
			size := 1 + r.IntN(200)
			if r.IntN(3) == 0 {
				size = 200 + r.IntN(4000)
			}
			clock[src] += time.Duration(r.IntN(2000)) * time.Microsecond
			now := clock[src]
			saved := *pcg
			arrive, tk, st := n.Send(now, tr, src, dst, size, r)
			trace = append(trace, fmt.Sprintf("send %d %d→%d %dB @%v: %v %v %+v", tr, src, dst, size, now, st, arrive, n.LastSend()))
			if ref != nil {
				after := *pcg
				*pcg = saved
				rArrive, rtk, rst := ref.send(now, tr, src, dst, size, r)
				check(step, "send status", st, rst)
				check(step, "send arrival", arrive, rArrive)
				check(step, "random draws", after, *pcg)
				if st == netmodel.Sent {
					queue = append(queue, pending{arrive, tk, rtk, dst})
				}
				check(step, "queue length", n.QueueLen(tr, src, dst), ref.flow(tr, src, dst).inflight)
			} else if st == netmodel.Sent {
				queue = append(queue, pending{arrive, tk, refTicket{}, dst})
			}
		case x < 90:
			if len(queue) == 0 {
				continue
			}
			i := 0
			for j, p := range queue {
				if p.arrive < queue[i].arrive {
					i = j
				}
			}
			p := queue[i]
			queue = slices.Delete(queue, i, i+1)
			clock[p.dst] = max(clock[p.dst], p.arrive)
			ok := n.Delivered(p.tk)
			trace = append(trace, fmt.Sprintf("deliver @%v: %v", p.arrive, ok))
			if ref != nil {
				check(step, "delivered", ok, ref.delivered(p.ref))
			}
		case x < 93:
			v := r.IntN(nodes)
			peers := n.ResetNode(v)
			trace = append(trace, fmt.Sprintf("reset %d: %v", v, peers))
			if ref != nil {
				check(step, "reset peers", peers, ref.resetNode(v))
			}
		case x < 96:
			a, b := r.IntN(nodes), r.IntN(nodes)
			ok := n.Break(a, b)
			trace = append(trace, fmt.Sprintf("break %d %d: %v", a, b, ok))
			if ref != nil {
				check(step, "break", ok, ref.brk(a, b))
			}
		case x < 98:
			perm := r.Perm(nodes)
			k := r.IntN(nodes)
			groups := [][]int{perm[:k/2], perm[k/2 : k]}
			if err := n.SetPartition(groups); err != nil {
				t.Fatal(err)
			}
			trace = append(trace, fmt.Sprintf("partition %v", groups))
			if ref != nil {
				ref.partition(groups)
			}
		default:
			n.Heal()
			trace = append(trace, "heal")
			if ref != nil {
				clear(ref.group)
			}
		}
	}
	return trace
}

// Quick check against the naive reference model: every status, arrival,
// delivery, reset and number of random draws agrees.
func TestNetwork_MatchesReferenceModel(t *testing.T) {
	const nodes = 6
	for seed := uint64(1); seed <= 20; seed++ {
		n := mustNew(t, workloadConfig(), nodes)
		drive(t, n, newRef(workloadConfig(), nodes), nodes, seed, 3000)
	}
}

// The same calls with the same seeds give the same results: on a fresh
// Network, and on one Reset after another execution (as a worker reuses
// its Network).
func TestNetwork_Determinism(t *testing.T) {
	const nodes = 6
	a := drive(t, mustNew(t, workloadConfig(), nodes), nil, nodes, 42, 5000)
	b := drive(t, mustNew(t, workloadConfig(), nodes), nil, nodes, 42, 5000)
	reused := mustNew(t, workloadConfig(), nodes)
	drive(t, reused, nil, nodes, 7, 5000)
	reused.Reset()
	c := drive(t, reused, nil, nodes, 42, 5000)
	other := drive(t, mustNew(t, workloadConfig(), nodes), nil, nodes, 43, 5000)
	if !slices.Equal(a, b) {
		t.Fatal("two fresh networks diverged")
	}
	if !slices.Equal(a, c) {
		for i := range a {
			if a[i] != c[i] {
				t.Fatalf("reused network diverged at %d:\n%s\n%s", i, a[i], c[i])
			}
		}
		t.Fatal("reused network diverged")
	}
	if slices.Equal(a, other) {
		t.Fatal("different seeds gave the same trace: the workload does not depend on the seed")
	}
	statuses := map[string]bool{}
	for _, line := range a {
		for _, s := range []string{"sent", "queue-full", "dropped", "unreachable"} {
			if strings.Contains(line, ": "+s+" ") {
				statuses[s] = true
			}
		}
	}
	if len(statuses) != 4 {
		t.Fatalf("workload exercised only %v", statuses)
	}
}

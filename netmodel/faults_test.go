package netmodel_test

import (
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
)

func twoTransports() netmodel.Config {
	return netmodel.Config{Transports: []netmodel.TransportConfig{
		{Name: "tcp", Kind: netmodel.Reliable},
		{Name: "udp", Kind: netmodel.Datagram},
		{Name: "ctl", Kind: netmodel.Reliable, QueueCap: -1},
	}}
}

func mustSend(t *testing.T, n *netmodel.Network, now time.Duration, tr, src, dst int) netmodel.Ticket {
	t.Helper()
	_, tk, st := n.Send(now, tr, src, dst, 100, newRand(uint64(now)+uint64(src)))
	if st != netmodel.Sent {
		t.Fatalf("send %d→%d on %d: %v", src, dst, tr, st)
	}
	return tk
}

// Node reset (paper 004 §5: a reset loses the node's state and breaks its
// connections; peers get error upcalls).
func TestFaults_ResetNode(t *testing.T) {
	n := mustNew(t, twoTransports(), 6)
	t03 := mustSend(t, n, 0, 0, 0, 3)
	t01 := mustSend(t, n, 0, 0, 0, 1)
	t20 := mustSend(t, n, 0, 2, 2, 0) // peer 2 opened it, on another transport
	t30 := mustSend(t, n, 0, 0, 3, 0) // both directions of one connection
	t45 := mustSend(t, n, 0, 0, 4, 5) // not involving 0
	u05 := mustSend(t, n, 0, 1, 0, 5) // datagram: no connection
	mustSend(t, n, 0, 0, 0, 0)        // self-connection

	if !n.Connected(0, 3, 0) || n.Connected(0, 2, 0) || !n.Connected(2, 0, 2) || n.Connected(1, 0, 5) {
		t.Fatal("Connected does not reflect the sends")
	}
	conns := n.ResetNodeConns(0)
	wantConns := []netmodel.Conn{{0, 0, 1}, {2, 0, 2}, {0, 0, 3}}
	if !slices.Equal(conns, wantConns) {
		t.Fatalf("ResetNodeConns(0) = %v, want %v", conns, wantConns)
	}
	for name, tk := range map[string]netmodel.Ticket{"0→3": t03, "0→1": t01, "2→0": t20, "3→0": t30} {
		if n.Delivered(tk) {
			t.Errorf("message %s delivered after the reset of node 0", name)
		}
	}
	if !n.Delivered(t45) || !n.Delivered(u05) {
		t.Fatal("messages not involving a connection of node 0 were lost")
	}
	for _, c := range []struct{ tr, a, b int }{{0, 0, 3}, {0, 3, 0}, {0, 0, 1}, {2, 2, 0}} {
		if got := n.QueueLen(c.tr, c.a, c.b); got != 0 {
			t.Errorf("QueueLen(%d, %d, %d) = %d after reset, want 0", c.tr, c.a, c.b, got)
		}
		if n.Connected(c.tr, c.a, c.b) {
			t.Errorf("connection %d %d–%d still open after reset", c.tr, c.a, c.b)
		}
	}
	if got := n.ResetNode(0); len(got) != 0 {
		t.Fatalf("second reset lists peers %v", got)
	}

	// New connections after the reset work, with fresh tickets; old
	// tickets stay stale.
	t03b := mustSend(t, n, time.Second, 0, 0, 3)
	mustSend(t, n, time.Second, 2, 5, 0)
	mustSend(t, n, time.Second, 0, 5, 0)
	if n.Delivered(t03) {
		t.Fatal("stale ticket delivered on the reopened connection")
	}
	if got, want := n.ResetNode(0), []int{3, 5}; !slices.Equal(got, want) {
		t.Fatalf("ResetNode(0) = %v, want %v (sorted, no duplicates)", got, want)
	}
	if n.Delivered(t03b) {
		t.Fatal("message delivered after the second reset")
	}
}

// A full queue empties when its connection breaks.
func TestFaults_ResetNodeFreesQueue(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 2)
	r := newRand(20)
	for i := 0; i < 20; i++ {
		n.Send(0, 0, 1, 0, 10, r)
	}
	if _, _, st := n.Send(0, 0, 1, 0, 10, r); st != netmodel.QueueFull {
		t.Fatalf("21st send: %v", st)
	}
	if got := n.ResetNode(0); !slices.Equal(got, []int{1}) {
		t.Fatalf("ResetNode(0) = %v", got)
	}
	if _, _, st := n.Send(0, 0, 1, 0, 10, r); st != netmodel.Sent {
		t.Fatalf("send after reset: %v", st)
	}
}

func TestFaults_Break(t *testing.T) {
	n := mustNew(t, twoTransports(), 3)
	a := mustSend(t, n, 0, 0, 0, 1)
	b := mustSend(t, n, 0, 2, 1, 0)
	c := mustSend(t, n, 0, 0, 0, 2)
	u := mustSend(t, n, 0, 1, 0, 1)
	if got, want := n.BreakConns(1, 0), []netmodel.Conn{{0, 1, 0}, {2, 1, 0}}; !slices.Equal(got, want) {
		t.Fatalf("BreakConns(1, 0) = %v, want %v", got, want)
	}
	if n.Delivered(a) || n.Delivered(b) {
		t.Fatal("message delivered on a broken connection")
	}
	if !n.Delivered(c) || !n.Delivered(u) {
		t.Fatal("Break(0,1) lost a message of another connection or a datagram")
	}
	if n.Break(0, 1) {
		t.Fatal("Break of a broken connection reports true")
	}
	if !n.Break(2, 0) {
		t.Fatal("Break(2, 0) reports false for an open connection")
	}
	if n.Break(1, 2) {
		t.Fatal("Break of never-connected nodes reports true")
	}
}

func TestFaults_Partition(t *testing.T) {
	n := mustNew(t, twoTransports(), 6)
	r := newRand(21)
	t02 := mustSend(t, n, 0, 0, 0, 2)
	t01 := mustSend(t, n, 0, 0, 0, 1)
	t34 := mustSend(t, n, 0, 2, 3, 4) // both unlisted: same group
	u02 := mustSend(t, n, 0, 1, 0, 2) // datagram in flight across the partition
	u01 := mustSend(t, n, 0, 1, 0, 1)

	conns, err := n.PartitionConns([][]int{{0, 1}, {2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []netmodel.Conn{{0, 0, 2}}; !slices.Equal(conns, want) {
		t.Fatalf("PartitionConns broke %v, want %v", conns, want)
	}
	for _, c := range []struct {
		a, b int
		want bool
	}{{0, 1, true}, {1, 0, true}, {0, 2, false}, {2, 0, false}, {0, 3, false}, {2, 3, false}, {3, 4, true}, {4, 5, true}, {2, 2, true}} {
		if got := n.Reachable(c.a, c.b); got != c.want {
			t.Errorf("Reachable(%d, %d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if n.Delivered(t02) {
		t.Fatal("reliable message delivered across the new partition")
	}
	if n.Delivered(u02) {
		t.Fatal("datagram delivered across the partition")
	}
	if !n.Delivered(t01) || !n.Delivered(t34) || !n.Delivered(u01) {
		t.Fatal("message within a group lost")
	}
	if _, tk, st := n.Send(time.Second, 0, 2, 0, 100, r); st != netmodel.Unreachable || tk.Valid() {
		t.Fatalf("reliable send across the partition: %v", st)
	}
	if _, _, st := n.Send(time.Second, 0, 3, 1, 100, r); st != netmodel.Unreachable {
		t.Fatalf("reliable send from an unlisted node to group 1: %v", st)
	}
	if _, tk, st := n.Send(time.Second, 1, 2, 0, 100, r); st != netmodel.Dropped || tk.Valid() {
		t.Fatalf("datagram across the partition: %v", st)
	}
	if n.Connected(0, 0, 2) {
		t.Fatal("unreachable send opened a connection")
	}

	// A new partition replaces the old one.
	if err := n.SetPartition([][]int{{0, 2}}); err != nil {
		t.Fatal(err)
	}
	if !n.Reachable(0, 2) || n.Reachable(0, 1) {
		t.Fatal("second partition did not replace the first")
	}
	n.Heal()
	if !n.Reachable(0, 1) || !n.Reachable(2, 5) {
		t.Fatal("Heal left nodes unreachable")
	}
	if _, _, st := n.Send(2*time.Second, 0, 2, 0, 100, r); st != netmodel.Sent {
		t.Fatalf("send after Heal: %v", st)
	}
}

func TestFaults_PartitionErrors(t *testing.T) {
	n := mustNew(t, netmodel.Config{}, 3)
	mustSend(t, n, 0, 0, 0, 1)
	for _, groups := range [][][]int{
		{{0}, {3}},
		{{-1}},
		{{0, 1}, {1}},
		{{2, 2}},
	} {
		err := n.SetPartition(groups)
		if err == nil || err.Error()[:10] != "netmodel: " {
			t.Errorf("SetPartition(%v) error = %v, want a netmodel: error", groups, err)
		}
	}
	if !n.Reachable(0, 1) || !n.Connected(0, 0, 1) {
		t.Fatal("a failed SetPartition changed the network")
	}
}

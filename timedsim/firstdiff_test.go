package timedsim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

func TestFirstDifferentEvent(t *testing.T) {
	k := func(node, from timedsim.NodeID, label string) timedsim.EventKey {
		return timedsim.EventKey{Node: node, From: from, Label: label}
	}
	a := []timedsim.EventKey{k(0, timedsim.None, "init"), k(1, 0, "deliver Ping"), k(0, 1, "deliver Pong")}
	for _, c := range []struct {
		b    []timedsim.EventKey
		want int
	}{
		{a, -1},
		{a[:2], 2},
		{[]timedsim.EventKey{a[0], k(1, 0, "deliver Pong"), a[2]}, 1},
		{[]timedsim.EventKey{a[0], k(2, 0, "deliver Ping")}, 1},
		{[]timedsim.EventKey{a[0], k(1, 2, "deliver Ping")}, 1},
		{nil, 0},
	} {
		if got := timedsim.FirstDifferentEvent(a, c.b); got != c.want {
			t.Errorf("FirstDifferentEvent(a, %v) = %d, want %d", c.b, got, c.want)
		}
	}
}

func ExampleFirstDifferentEvent() {
	anomaly := []timedsim.EventKey{{Node: 1, From: 0, Label: "deliver JoinReply"}, {Node: 1, From: 20, Label: "deliver Join"}}
	similar := []timedsim.EventKey{{Node: 1, From: 0, Label: "deliver JoinReply"}, {Node: 2, From: 1, Label: "deliver Join"}}
	fmt.Println(timedsim.FirstDifferentEvent(anomaly, similar))
	// Output: 1
}

// FormatTime is exact to the nanosecond, in the unit the summary uses
// (before, logs said 0.058130860s where the summary said
// 58.13 ms).
func ExampleFormatTime() {
	for _, d := range []time.Duration{412, 3500, 58_130_860, 12_000_345_678, -2 * time.Millisecond, 0} {
		fmt.Println(timedsim.FormatTime(d))
	}
	// Output:
	// 412 ns
	// 3.500 µs
	// 58.130860 ms
	// 12.000345678 s
	// -2.000000 ms
	// 0 ns
}

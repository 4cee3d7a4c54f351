package timedsim_test

import (
	"testing"

	"github.com/macepc/macepc/timedsim"
)

type inner struct {
	Peers []timedsim.NodeID
	next  *inner
}

type state struct {
	Name    string
	parent  timedsim.NodeID
	Kids    map[timedsim.NodeID]bool
	Scratch []int `macepc:"-"`
	in      *inner
	any     any
}

type described struct{ x int }

func (d described) Describe() string { return "custom" }

func TestDescribeIsCanonical(t *testing.T) {
	loop := &inner{Peers: []timedsim.NodeID{2, 1}}
	loop.next = loop
	s := &state{Name: "a b", parent: 3, Kids: map[timedsim.NodeID]bool{7: true, 1: false, 12: true}, Scratch: []int{9}, in: loop, any: 2.5}
	want := `state{Name:"a b" parent:n3 Kids:map[n1:false n12:true n7:true] in:inner{Peers:[n2 n1] next:<cycle>} any:2.5}`
	for i := 0; i < 20; i++ { // map order must not leak
		if got := timedsim.Describe(s); got != want {
			t.Fatalf("Describe:\n got %s\nwant %s", got, want)
		}
	}
	if got := timedsim.Describe(described{}); got != "custom" {
		t.Fatalf("Describer not used: %s", got)
	}
	if got := timedsim.Describe(nil); got != "nil" {
		t.Fatal(got)
	}
	if got := timedsim.CompositeLabel("deliver JoinReply", "Remove"); got != "deliver JoinReply → Remove" {
		t.Fatal(got)
	}
}

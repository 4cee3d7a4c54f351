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

type described struct{}

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

// Keys that render alike (NaN, or 1 and int64(1) as interface keys) must
// not let map order leak into the text.
func TestDescribeAlikeKeys(t *testing.T) {
	nan := func() float64 { z := 0.0; return z / z }()
	v := struct {
		M map[any]int
		F map[float64]string
	}{M: map[any]int{1: 1, int64(1): 2, int32(1): 3}, F: map[float64]string{nan: "a", nan + 1: "b"}}
	first := timedsim.Describe(v)
	for i := 0; i < 50; i++ {
		if got := timedsim.Describe(v); got != first {
			t.Fatalf("renderings differ:\n%s\n%s", first, got)
		}
	}
	if want := `{M:map[int(1):1 int32(1):3 int64(1):2] F:map[NaN:"a" NaN:"b"]}`; first != want {
		t.Fatalf("got %s, want %s", first, want)
	}
}

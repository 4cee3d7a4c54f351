package simtime

import (
	"math"
	"testing"
	"time"
)

func TestAddSaturates(t *testing.T) {
	for _, c := range []struct{ a, b, want time.Duration }{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 5, 10, math.MaxInt64},
		{MaxDuration, MaxDuration, 2 * MaxDuration},
		{2 * MaxDuration, 2 * MaxDuration, math.MaxInt64},
		{math.MaxInt64, 0, math.MaxInt64},
		{-5, 3, -2},
		{math.MaxInt64, -1, math.MaxInt64 - 1},
	} {
		if got := Add(c.a, c.b); got != c.want {
			t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestFromFloatSaturates(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want time.Duration
	}{{1.4, 1}, {1.5, 2}, {1e26, MaxDuration}, {math.Inf(1), MaxDuration}, {float64(MaxDuration), MaxDuration}, {-3, 0}, {math.NaN(), 0}, {math.Inf(-1), 0}} {
		if got := FromFloat(c.x); got != c.want {
			t.Errorf("FromFloat(%g) = %d, want %d", c.x, got, c.want)
		}
	}
}

// Two MaxDurations fit in a time.Duration: a time within it plus a
// duration within it cannot wrap.
func TestMaxDurationLeavesRoom(t *testing.T) {
	if MaxDuration > math.MaxInt64/2 {
		t.Errorf("MaxDuration %d > MaxInt64/2", MaxDuration)
	}
}

package pipeline_test

import (
	"testing"

	"github.com/macepc/macepc/pipeline"
)

// TestClassDescribeSpan: a class's time span prints both ends only when
// they differ in the unit they print in: Pastry's 20 s classes said
// "20 s–20 s".
func TestClassDescribeSpan(t *testing.T) {
	for _, tc := range []struct {
		min, max int64
		want     string
	}{
		{20_000_100_000, 20_000_900_000, "2 executions of 20 s (their median 10.0x the profile's), no event within the normal time sets them apart"},
		{9_700_000_000, 10_550_000_000, "2 executions of 9.7 s–10.55 s (their median 10.0x the profile's), no event within the normal time sets them apart"},
	} {
		c := pipeline.Class{Executions: 2, MinNS: tc.min, MaxNS: tc.max, Slowdown: 10}
		if got := c.Describe(); got != tc.want {
			t.Errorf("Describe(%d, %d) = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

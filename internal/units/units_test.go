package units_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/macepc/macepc/internal/units"
)

func TestDurationPicksTheUnitOfItsScale(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 s"},
		{1, "1 ns"},
		{999, "999 ns"},
		{2100, "2.1 µs"},
		{747310337, "747.3 ms"},
		{3 * time.Millisecond, "3 ms"},
		{2500 * time.Microsecond, "2.5 ms"},
		{12400 * time.Millisecond, "12.4 s"},
		{300 * time.Second, "300 s"},
		{12345 * time.Second, "12345 s"},
		{999_960 * time.Microsecond, "1 s"}, // rounds up into the next unit
		{999_940 * time.Microsecond, "999.9 ms"},
		{999_999, "1 ms"},
		{-2100, "-2.1 µs"},
		{1234567 * time.Nanosecond, "1.235 ms"},
	} {
		if got := units.Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", int64(c.d), got, c.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0.747310337, "747.3 ms"},
		{0.003, "3 ms"},
		{0.0021e-3, "2.1 µs"},
		{12.4, "12.4 s"},
		{math.NaN(), "NaN s"},
		{math.Inf(1), "+Inf s"},
	} {
		if got := units.Seconds(c.s); got != c.want {
			t.Errorf("Seconds(%g) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestForSharesOneUnitAcrossAGroup(t *testing.T) {
	u := units.For(2400*time.Microsecond, 3100*time.Microsecond, 900*time.Microsecond)
	if u != (units.Unit{Symbol: "ms", Size: time.Millisecond}) {
		t.Fatalf("For = %v, want ms", u)
	}
	if got := u.Format(900 * time.Microsecond); got != "0.9 ms" {
		t.Errorf("Format = %q", got)
	}
	if got := units.For(); got != (units.Unit{Symbol: "s", Size: time.Second}) {
		t.Errorf("For() = %v, want s", got)
	}
	if got := units.For(-5 * time.Second); got != (units.Unit{Symbol: "s", Size: time.Second}) {
		t.Errorf("For(-5s) = %v, want s", got)
	}
	if got := (units.Unit{Symbol: "s", Size: time.Second}).Format(250 * time.Microsecond); got != "0 s" {
		// at most 3 decimals: a group's small members may print as 0 in a
		// large unit; callers pick the unit with For over the whole group.
		t.Errorf("Format = %q", got)
	}
}

func TestFromSecondsClamps(t *testing.T) {
	if got := units.FromSeconds(1e300); got != math.MaxInt64 {
		t.Errorf("FromSeconds(1e300) = %d", got)
	}
	if got := units.FromSeconds(-1e300); got != math.MinInt64 {
		t.Errorf("FromSeconds(-1e300) = %d", got)
	}
}

func ExampleDuration() {
	fmt.Println(units.Duration(747310337 * time.Nanosecond))
	fmt.Println(units.Duration(2100 * time.Nanosecond))
	fmt.Println(units.Duration(12400 * time.Millisecond))
	// Output:
	// 747.3 ms
	// 2.1 µs
	// 12.4 s
}

func ExampleFor() {
	q1, median, q3 := 2400*time.Microsecond, 3100*time.Microsecond, 3300*time.Microsecond
	u := units.For(q1, median, q3)
	fmt.Printf("median %s (Q1 %s, Q3 %s)\n", u.Format(median), u.Format(q1), u.Format(q3))
	// Output:
	// median 3.1 ms (Q1 2.4 ms, Q3 3.3 ms)
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{
		{0, "0 B"}, {512, "512 B"}, {1023, "1023 B"}, {1536, "1.5 KiB"}, {3 << 30, "3 GiB"}, {1<<20 - 1, "1 MiB"},
	} {
		if got := units.Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

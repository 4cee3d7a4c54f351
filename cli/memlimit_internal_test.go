package cli

import "testing"

// The Go memory limit of a capped liveness search: none without a cap or
// with the user's GOMEMLIMIT; otherwise the cap, a quarter more and
// 64 MB for the rest of the process.
func TestGoMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		cap  int64
		env  string
		want int64
	}{
		{0, "", 0},
		{800 << 20, "", 1000<<20 + 64<<20},
		{800 << 20, "2GiB", 0},
		{1 << 20, "", 1<<20 + 1<<18 + 64<<20},
	} {
		if got := goMemoryLimit(c.cap, c.env); got != c.want {
			t.Errorf("goMemoryLimit(%d, %q) = %d, want %d", c.cap, c.env, got, c.want)
		}
	}
}

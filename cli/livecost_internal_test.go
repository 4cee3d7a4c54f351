package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/liveness"
)

// The liveness search's cost warning is a lower bound
// of its first iteration, said as one, and only when that bound is past
// the timed phases' limit (costHugeTime).
func TestLivenessCostWarning(t *testing.T) {
	for _, c := range []struct {
		name string
		cost liveness.Cost
		want string // "": no warning
	}{
		{"small", liveness.Cost{Enabled: 9, Restart: 30 * time.Microsecond, Workers: 1}, ""},
		{"at the limit", liveness.Cost{Enabled: 900, Restart: time.Second, Workers: 1}, ""},
		{"huge", liveness.Cost{Enabled: 100000, Restart: 265 * time.Millisecond, Workers: 1},
			"liveness: the initial state has 100000 enabled events, and every DFS sequence starts again from it, which took 265 ms here: the first iteration (depth 5) runs at least one sequence per enabled event (unless a violation ends it first), at least 26500 s (7.4 h) on one worker (each iteration's division is a sequential DFS; --level-division runs it on every worker), before its random walks"},
		{"levels", liveness.Cost{Enabled: 100000, Restart: 265 * time.Millisecond, Workers: 8}, "at least 3313 s on 8 workers, before"},
		{"levels, small", liveness.Cost{Enabled: 1000, Restart: time.Second, Workers: 2}, ""},
		{"nothing enabled", liveness.Cost{Restart: time.Hour, Workers: 1}, ""},
	} {
		got := livenessCostWarning(c.cost, 5)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Every long-running command takes --progress, and progress never touches
// stdout: the same run with --progress always and never prints the same
// bytes (before, 'simulate --progress always' was an unknown flag).
func TestProgressOnEveryLongCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		rt   bool // RandTree rather than pingpong
	}{
		{"simulate", []string{"simulate", "--system", "pingpong", "--runs", "10", "--out", "$DIR/sim-MODE"}, false},
		{"simulate shard", []string{"simulate", "--system", "pingpong", "--runs", "10", "--shard", "0/1", "--out", "$DIR/shard-MODE"}, false},
		{"merge", []string{"merge", "--out", "$DIR/merged-MODE", "$DIR/shard-MODE"}, false},
		{"profile", []string{"profile", "--system", "pingpong", "--profile-runs", "10", "--out", "$DIR/prof-MODE"}, false},
		{"regress", []string{"regress", "--baseline", "$DIR/prof-MODE", "--out", "$DIR/reg-MODE"}, false},
		{"run --liveness", []string{"run", "--liveness", "--variant", "liveness-bug", "--seed", "1", "--out", "$DIR/lv-MODE"}, true},
	} {
		outs := map[string]string{}
		for _, mode := range []string{"always", "never"} {
			args := []string{}
			for _, a := range c.args {
				a = strings.ReplaceAll(a, "MODE", mode)
				if c.rt {
					a = strings.ReplaceAll(a, "$DIR", dir)
				}
				args = append(args, a)
			}
			args = append(args, "--progress", mode)
			var out, errs string
			var st int
			if c.rt {
				out, errs, st = runRT(t, context.Background(), args...)
				out = strings.ReplaceAll(out, dir, "$DIR")
			} else {
				out, errs, st = run(t, dir, args...)
			}
			if st == 2 {
				t.Fatalf("%s --progress %s: %s", c.name, mode, errs)
			}
			outs[mode] = strings.ReplaceAll(out, "-"+mode, "-MODE")
		}
		if outs["always"] != outs["never"] {
			t.Errorf("%s: stdout differs with --progress:\n%s\n---\n%s", c.name, outs["always"], outs["never"])
		}
	}
	if _, errs, st := run(t, dir, "simulate", "--system", "pingpong", "--progress", "sometimes", "--out", filepath.Join(dir, "x")); st != 2 || !strings.Contains(errs, "--progress must be auto, always or never") {
		t.Errorf("--progress sometimes: status %d %s", st, errs)
	}
}

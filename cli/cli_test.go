package cli_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run invokes the CLI with the pingpong system; "$DIR" in args and outputs
// stands for dir, so golden files do not contain host paths.
func run(t *testing.T, dir string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$DIR", dir)
	}
	status = cli.Run(context.Background(), args, &o, &e, pingpong.System())
	clean := func(s string) string {
		if dir == "" {
			return s
		}
		return strings.ReplaceAll(s, dir, "$DIR")
	}
	return clean(o.String()), clean(e.String()), status
}

// golden compares got to testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// CLI golden cases: each writes testdata/<case>.stdout and .stderr and has
// a fixed exit status.
func TestCLIGolden(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		status int
	}{
		{"version", []string{"version"}, 0},
		{"systems", []string{"systems"}, 0},
		{"no-command", []string{}, 2},
		{"unknown-command", []string{"simulat"}, 2},
		{"unknown-system", []string{"simulate", "--system", "nosuch", "--out", "$DIR/out"}, 2},
		{"unknown-variant", []string{"simulate", "--system", "pingpong", "--variant", "buggy", "--out", "$DIR/out"}, 2},
		// A typo gets the closest names, without internal package prefixes.
		{"unknown-system-typo", []string{"simulate", "--system", "pingpng", "--out", "$DIR/out"}, 2},
		{"unknown-variant-typo", []string{"run", "--system", "pingpong", "--variant", "endles", "--out", "$DIR/out"}, 2},
		{"liveness-unknown-system-typo", []string{"run", "--liveness", "--system", "PingPong", "--out", "$DIR/out"}, 2},
		{"unknown-param", []string{"simulate", "--system", "pingpong", "--param", "x=1", "--out", "$DIR/out"}, 2},
		{"bad-flag", []string{"simulate", "--system", "pingpong", "--runz", "3"}, 2},
		{"bad-runs", []string{"simulate", "--system", "pingpong", "--runs", "0"}, 2},
		{"bad-scale", []string{"simulate", "--system", "pingpong", "--scale", "deliver Ping", "--out", "$DIR/out"}, 2},
		{"missing-edd", []string{"simulate", "--system", "pingpong", "--edd", "$DIR/nosuch.json", "--out", "$DIR/out"}, 2},
		{"simulate", []string{"simulate", "--system", "pingpong", "--nodes", "4", "--runs", "20", "--seed", "7", "--out", "$DIR/out"}, 0},
		// Executions that do not finish count at the timeout: the line of times says how many.
		{"simulate-unfinished", []string{"simulate", "--system", "pingpong", "--variant", "endless", "--max-steps", "50", "--runs", "3", "--out", "$DIR/out"}, 0},
		{"replay-missing", []string{"replay", "--path", "$DIR/nosuch.json"}, 2},
		{"replay-no-path", []string{"replay"}, 2},
		{"replay-index-without-run", []string{"replay", "--path", "x.json", "--index", "3"}, 2},
		{"replay-seed-without-branch", []string{"replay", "--path", "x.json", "--branch-seed", "3"}, 2},
		{"run-bad-walks", []string{"run", "--system", "pingpong", "--walks", "0", "--out", "$DIR/out"}, 2},
		{"run-bad-iqr-factor", []string{"run", "--system", "pingpong", "--iqr-factor", "-1", "--out", "$DIR/out"}, 2},
		{"run-bad-min-slowdown", []string{"run", "--system", "pingpong", "--min-slowdown", "NaN", "--out", "$DIR/out"}, 2},
		{"run-bad-progress", []string{"run", "--system", "pingpong", "--progress", "sometimes", "--out", "$DIR/out"}, 2},
		{"run-argument", []string{"run", "--system", "pingpong", "extra"}, 2},
		{"search-no-profile", []string{"search", "--out", "$DIR"}, 2},
		{"diverge-no-profile", []string{"diverge", "--out", "$DIR"}, 2},
		{"correlate-no-profile", []string{"correlate", "--out", "$DIR"}, 2},
		{"search-system-flag", []string{"search", "--system", "pingpong", "--out", "$DIR"}, 2},
		{"train-with-edd", []string{"train", "--system", "pingpong", "--edd", "x.json", "--out", "$DIR/out"}, 2},
		{"liveness-bad-weight", []string{"run", "--liveness", "--system", "pingpong", "--weight", "timer=x", "--out", "$DIR/out"}, 2},
		{"liveness-unknown-property", []string{"run", "--liveness", "--system", "pingpong", "--property", "nosuch", "--out", "$DIR/out"}, 2},
		{"liveness-negative-crashes", []string{"run", "--liveness", "--system", "pingpong", "--crashes", "-1", "--out", "$DIR/out"}, 2},
		{"liveness-bad-partitions", []string{"run", "--liveness", "--system", "pingpong", "--partitions", "two", "--out", "$DIR/out"}, 2},
		{"bad-max-steps", []string{"simulate", "--system", "pingpong", "--max-steps", "-1", "--out", "$DIR/out"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, status := run(t, dir, c.args...)
			if status != c.status {
				t.Errorf("exit status %d, want %d; stderr: %s", status, c.status, stderr)
			}
			golden(t, c.name+".stdout", stdout)
			golden(t, c.name+".stderr", stderr)
			if c.status == 2 {
				if strings.Count(stderr, "\n") > 1 && !strings.Contains(stderr, "Usage") {
					t.Errorf("error is not one line: %q", stderr)
				}
				if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
					t.Errorf("a failed command left %s/out behind", dir)
				}
			}
		})
	}
}

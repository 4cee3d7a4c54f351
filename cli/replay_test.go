package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/systems/pingpong"
)

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errOut, status := run(t, dir, args...)
	if status != 0 {
		t.Fatalf("macepc %v: status %d: %s", args, status, errOut)
	}
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Results are identical with --jobs 1 and --jobs 2, byte for byte.
func TestSimulateSameFilesForAnyJobs(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "simulate", "--system", "pingpong", "--nodes", "6", "--runs", "30", "--jobs", "1", "--out", "$DIR/j1")
	mustRun(t, dir, "simulate", "--system", "pingpong", "--nodes", "6", "--runs", "30", "--jobs", "2", "--out", "$DIR/j2")
	for _, f := range []string{"executions.jsonl", "simulate.json", "slowest.path.json"} {
		a, b := read(t, filepath.Join(dir, "j1", f)), read(t, filepath.Join(dir, "j2", f))
		if a != b {
			t.Errorf("%s differs between --jobs 1 and 2", f)
		}
	}
	if n := strings.Count(read(t, filepath.Join(dir, "j1", "executions.jsonl")), "\n"); n != 30 {
		t.Fatalf("executions.jsonl has %d lines, want 30", n)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "j1"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// Replaying a path file twice gives byte-identical event logs; the same
// execution reached through --run/--index is the same log too.
func TestReplayIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "simulate", "--system", "pingpong", "--nodes", "4", "--runs", "10", "--out", "$DIR/out")
	mustRun(t, dir, "replay", "--path", "$DIR/out/slowest.path.json", "--log", "$DIR/a.log")
	mustRun(t, dir, "replay", "--path", "$DIR/out/slowest.path.json", "--log", "$DIR/b.log")
	a, b := read(t, filepath.Join(dir, "a.log")), read(t, filepath.Join(dir, "b.log"))
	if a != b || !strings.Contains(a, "deliver Ping from n0") {
		t.Fatalf("replays differ or log is empty:\n%s", a)
	}
	// Which execution was slowest?
	note := read(t, filepath.Join(dir, "out", "slowest.path.json"))
	i := strings.Index(note, "execution ")
	idx := strings.Fields(note[i+len("execution "):])[0]
	mustRun(t, dir, "replay", "--run", "$DIR/out", "--index", idx, "--log", "$DIR/c.log")
	if body(read(t, filepath.Join(dir, "c.log"))) != body(a) {
		t.Fatal("--run/--index replay differs from the path file's")
	}
	// A branched replay differs after the branch point and can be saved.
	mustRun(t, dir, "replay", "--path", "$DIR/out/slowest.path.json", "--branch-at", "10", "--branch-seed", "5", "--log", "$DIR/d.log", "--save-path", "$DIR/d.path.json")
	mustRun(t, dir, "replay", "--path", "$DIR/d.path.json", "--log", "$DIR/e.log")
	if read(t, filepath.Join(dir, "d.log")) != read(t, filepath.Join(dir, "e.log")) || body(read(t, filepath.Join(dir, "d.log"))) == body(a) {
		t.Fatal("branched replay is not reproducible from its saved path, or did not branch")
	}
}

func body(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Malformed and stale path files are refused with exit 2 and one line.
func TestReplayRefusesBadPathFiles(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "simulate", "--system", "pingpong", "--nodes", "4", "--runs", "3", "--out", "$DIR/out")
	good := read(t, filepath.Join(dir, "out", "slowest.path.json"))
	cases := map[string]struct{ text, want string }{
		"malformed":     {good[:40], "malformed path file"},
		"stale-nodes":   {strings.Replace(good, `"nodes": 4`, `"nodes": 6`, 1), "stale path file"},
		"stale-edd":     {strings.Replace(good, `"min_ns": 1000000`, `"min_ns": 2000000`, 1), "stale path file"},
		"other-system":  {strings.Replace(good, `"system": "pingpong"`, `"system": "chord"`, 1), `unknown system "chord"`},
		"other-variant": {strings.Replace(good, `"variant": "default"`, `"variant": "x"`, 1), `no variant "x"`},
		"bad-edd":       {strings.Replace(good, `"min_ns": 1000000`, `"min_ns": -5`, 1), "edd"},
	}
	for name, c := range cases {
		if c.text == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(c.text), 0o644)
		_, stderr, status := run(t, dir, "replay", "--path", p, "--log", "$DIR/x.log")
		if status != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: status %d, stderr %q; want 2 and %q", name, status, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.log")); err == nil {
			t.Errorf("%s: a log was written for a refused path", name)
		}
	}
}

// Ctrl-C before the run: nothing finished, the files say so, exit 2.
func TestSimulateInterruptedKeepsFinishedWork(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	status := cli.Run(ctx, []string{"simulate", "--system", "pingpong", "--runs", "50", "--out", filepath.Join(dir, "out")}, &o, &e, pingpong.System())
	if status != 2 || !strings.Contains(e.String(), "interrupted after 0 of 50") {
		t.Fatalf("status %d stderr %q", status, e.String())
	}
	if got := read(t, filepath.Join(dir, "out", "simulate.json")); !strings.Contains(got, `"completed": 0`) {
		t.Fatalf("simulate.json: %s", got)
	}
}

// A trained EDD file and what-if scaling change the simulation, are
// embedded in the path files, and replay without the flags.
func TestEDDFileAndScaling(t *testing.T) {
	dir := t.TempDir()
	set, err := edd.Train(map[string][]time.Duration{
		"deliver Ping": {20 * time.Millisecond, 30 * time.Millisecond},
		"deliver Pong": {20 * time.Millisecond, 40 * time.Millisecond},
	}, edd.DefaultSeed(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(filepath.Join(dir, "edd.json"))
	edd.Write(f, set)
	f.Close()
	base := mustRun(t, dir, "simulate", "--system", "pingpong", "--runs", "5", "--out", "$DIR/base")
	trained := mustRun(t, dir, "simulate", "--system", "pingpong", "--runs", "5", "--edd", "$DIR/edd.json", "--out", "$DIR/trained")
	scaled := mustRun(t, dir, "simulate", "--system", "pingpong", "--runs", "5", "--edd", "$DIR/edd.json", "--scale", "deliver Pong=10", "--out", "$DIR/scaled")
	median := func(out string) float64 {
		i := strings.Index(out, "median=")
		f := strings.Fields(out[i+len("median="):]) // "147.9 ms"
		d, err := time.ParseDuration(f[0] + f[1])
		if err != nil {
			t.Fatalf("no median in %q", out)
		}
		return d.Seconds()
	}
	// 10 rounds of Ping+Pong handlers: ~0.1 s (seed 1-10 ms), ~0.55 s
	// trained (25+30 ms), ~3.3 s with Pong x10.
	if b, tr, sc := median(base), median(trained), median(scaled); !(b < 0.2 && tr > 0.45 && tr < 0.7 && sc > 2.5) {
		t.Fatalf("medians: seed %.3f, trained %.3f, scaled %.3f", b, tr, sc)
	}
	// The path file carries the scaled EDD: replay needs no flags and
	// reproduces the slowest execution's time.
	out := mustRun(t, dir, "replay", "--path", "$DIR/scaled/slowest.path.json", "--log", "$DIR/s.log")
	i := strings.Index(scaled, "slowest: execution ")
	want := strings.Split(scaled[i:], ", ")[1] // "3.322 s"
	if !strings.Contains(out, "exec time "+want+",") {
		t.Fatalf("replay says %q, simulate's slowest was %s", out, want)
	}
}

// replay says what is missing or out of range, and a branching replay says
// that it branched.
func TestReplayGolden(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "simulate", "--system", "pingpong", "--nodes", "4", "--runs", "3", "--seed", "7", "--out", "$DIR/sim")
	for _, c := range []struct {
		name   string
		args   []string
		status int
	}{
		{"replay-run-without-index", []string{"replay", "--run", "$DIR/sim"}, 2},
		{"replay-branch-past-end", []string{"replay", "--path", "$DIR/sim/slowest.path.json", "--branch-at", "5000"}, 2},
		{"replay-branch-negative", []string{"replay", "--path", "$DIR/sim/slowest.path.json", "--branch-at", "-3"}, 2},
		{"replay-branched", []string{"replay", "--path", "$DIR/sim/slowest.path.json", "--branch-at", "10", "--branch-seed", "5", "--log", "$DIR/b.log"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, status := run(t, dir, c.args...)
			if status != c.status {
				t.Errorf("exit status %d, want %d; stderr: %s", status, c.status, stderr)
			}
			golden(t, c.name+".stdout", stdout)
			golden(t, c.name+".stderr", stderr)
		})
	}
	// Without --log, stdout is the event log; the branch is said on stderr.
	stdout, stderr, status := run(t, dir, "replay", "--path", "$DIR/sim/slowest.path.json", "--branch-at", "10", "--branch-seed", "5")
	if status != 0 || !strings.HasPrefix(stdout, "#") || !strings.Contains(stderr, "the path's first 10 steps, then a branch with --branch-seed 5") {
		t.Errorf("status %d, stderr %q", status, stderr)
	}
}

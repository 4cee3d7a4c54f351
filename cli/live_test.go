package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// live records real runs on loopback; replay --trace replays each one and
// finds its sends as recorded (the counts printed are the replay's).
func TestLiveThenReplayTrace(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, dir, "live", "--system", "pingpong", "--nodes", "4", "--runs", "2", "--out", "$DIR/lv")
	if !strings.Contains(out, "2 of 2 runs stopped") || !strings.Contains(out, "replay --trace $DIR/lv") {
		t.Errorf("live printed:\n%s", out)
	}
	rep := mustRun(t, dir, "replay", "--trace", "$DIR/lv")
	for _, r := range []string{"run-000", "run-001"} {
		// 4 nodes, 2 pairs of 10 rounds: 2 inits and 40 deliveries, 40 sends.
		want := "$DIR/lv/" + r + ": pingpong/default, 4 nodes: replayed 44 of 44 events, 40 sends as recorded; the stopping condition holds from step 43"
		if !strings.Contains(rep, want) {
			t.Errorf("replay --trace printed:\n%s\nwant a line %q", rep, want)
		}
	}
	// A trace whose handler's sends were edited is a nondeterminism
	// finding, exit 1.
	f := filepath.Join(dir, "lv", "run-000", "node-001.jsonl")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strings.Replace(string(b), `"label":"Pong"`, `"label":"Ping"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, status := run(t, dir, "replay", "--trace", "$DIR/lv/run-000")
	if status != 1 || !strings.Contains(got, "NONDETERMINISM at step") || !strings.Contains(got, "where the trace sends Ping") {
		t.Errorf("status %d, printed:\n%s", status, got)
	}
}

func TestLiveAndReplayTraceErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "old", "run-000"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"live", "--runs", "0", "--system", "pingpong"}, "--runs must be at least 1"},
		{[]string{"live", "--system", "pingpong", "--time-scale", "-1"}, "--time-scale must be a positive number"},
		{[]string{"live", "--system", "nosuch"}, "nosuch"},
		{[]string{"live", "--system", "pingpong", "--out", "$DIR/old"}, "--out $DIR/old already holds traces (run-000)"},
		{[]string{"replay", "--trace", "$DIR/none"}, "realnet: "},
		{[]string{"replay", "--trace", "$DIR", "--log", "x"}, "--log goes with --path or --run"},
		{[]string{"replay", "--path", "p.json", "--steps", "3"}, "--steps goes with --trace DIR"},
	} {
		_, errOut, status := run(t, dir, c.args...)
		if status != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q, want one line with %q", c.args, status, errOut, c.want)
		}
	}
}

// train --trace writes an EDD with the real runs' labels; fidelity prints
// the real and simulated quantiles side by side.
func TestTrainTraceAndFidelity(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "live", "--system", "pingpong", "--nodes", "4", "--runs", "3", "--out", "$DIR/lv")
	out := mustRun(t, dir, "train", "--trace", "$DIR/lv", "--out", "$DIR/tr")
	if !strings.Contains(out, "train --trace: 3 real runs, 132 handler times, 3 labels trained -> $DIR/tr/edd.json") {
		t.Errorf("train --trace printed %q", out)
	}
	edd := read(t, filepath.Join(dir, "tr", "edd.json"))
	for _, l := range []string{`"init"`, `"deliver Ping"`, `"deliver Pong"`} {
		if !strings.Contains(edd, l) {
			t.Errorf("edd.json has no label %s", l)
		}
	}
	out = mustRun(t, dir, "fidelity", "--trace", "$DIR/lv", "--runs", "10")
	for _, want := range []string{"3 real runs (3 stopped) against 10 simulated executions", "  median ", "  p99 ", "Kolmogorov-Smirnov distance"} {
		if !strings.Contains(out, want) {
			t.Errorf("fidelity printed:\n%s\nwant %q", out, want)
		}
	}
	mustRun(t, dir, "live", "--system", "pingpong", "--nodes", "2", "--out", "$DIR/fast", "--time-scale", "0.5")
	if _, errOut, st := run(t, dir, "fidelity", "--trace", "$DIR/fast"); st != 2 || !strings.Contains(errOut, "--time-scale 1") {
		t.Errorf("fidelity of scaled runs: status %d, %q", st, errOut)
	}
}

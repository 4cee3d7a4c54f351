package cli_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
	// The finding's explore.html, in the run's directory or under --out.
	if !strings.Contains(got, "  explore: $DIR/lv/run-000/explore.html") || !strings.Contains(read(t, filepath.Join(dir, "lv", "run-000", "explore.html")), "nondeterminism: the replay departs from the trace here") {
		t.Errorf("replay --trace printed:\n%s\nwant an explore.html with the finding marked", got)
	}
	got, _, status = run(t, dir, "replay", "--trace", "$DIR/lv", "--out", "$DIR/ex")
	if status != 1 || !strings.Contains(got, "  explore: $DIR/ex/run-000/explore.html") || exists(filepath.Join(dir, "ex", "run-001", "explore.html")) {
		t.Errorf("replay --trace --out: status %d, printed:\n%s", status, got)
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
		{[]string{"replay", "--path", "p.json", "--out", "x"}, "--out goes with --trace DIR"},
		{[]string{"live", "--system", "pingpong", "--node", "0"}, "--node I and --peers ADDR,... go together"},
		{[]string{"live", "--system", "pingpong", "--node", "2", "--peers", "a:1,b:1", "--timeout", "1s"}, "--node 2 is not one of the 2 --peers"},
		{[]string{"live", "--system", "pingpong", "--node", "0", "--peers", "a:1,b:1"}, "--peers needs --timeout or --until"},
		{[]string{"live", "--system", "pingpong", "--node", "0", "--peers", "a:1,b:1", "--timeout", "1s", "--until", "5"}, "--peers needs --timeout or --until (one of them)"},
		{[]string{"live", "--system", "pingpong", "--until", "5"}, "--until goes with --node I --peers"},
		{[]string{"live", "--system", "pingpong", "--node", "0", "--peers", "a:1,b:1", "--until", "tomorrow"}, `--until "tomorrow" is neither Unix seconds nor an RFC 3339 time`},
		{[]string{"live", "--system", "pingpong", "--node", "0", "--peers", "127.0.0.1:1,127.0.0.1:2", "--until", "2000-01-01T00:00:00Z"}, "realnet: the deadline 2000-01-01T00:00:00Z has passed"},
		{[]string{"live", "--system", "pingpong", "--node", "0", "--peers", "a:1,b:1", "--timeout", "1s", "--runs", "2"}, "--runs goes without --peers"},
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
	for _, want := range []string{"3 real runs (3 stopped) against 10 simulated executions", "  median ", "  p99 ", "Kolmogorov-Smirnov distance", "  Q-Q plot: $DIR/lv/fidelity-qq.png (3 quantiles"} {
		if !strings.Contains(out, want) {
			t.Errorf("fidelity printed:\n%s\nwant %q", out, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "lv", "fidelity-qq.png")); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("fidelity wrote no Q-Q plot PNG (%v)", err)
	}
	mustRun(t, dir, "live", "--system", "pingpong", "--nodes", "2", "--out", "$DIR/fast", "--time-scale", "0.5")
	if _, errOut, st := run(t, dir, "fidelity", "--trace", "$DIR/fast"); st != 2 || !strings.Contains(errOut, "--time-scale 1") {
		t.Errorf("fidelity of scaled runs: status %d, %q", st, errOut)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// live --node I --peers runs one node per invocation, as one per process:
// two invocations at once, each until its --timeout, and the replay of
// their gathered traces finds every message and the stopping condition.
func TestLivePeers(t *testing.T) {
	dir := t.TempDir()
	var peers []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, l.Addr().String())
		l.Close()
	}
	outs := make([]string, 2)
	status := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _, status[i] = run(t, dir, "live", "--system", "pingpong", "--node", fmt.Sprint(i), "--peers", strings.Join(peers, ","), "--timeout", "1s", "--out", "$DIR/lv")
		}()
	}
	wg.Wait()
	for i, o := range outs {
		if status[i] != 0 || !strings.Contains(o, fmt.Sprintf("node %d: ended (timeout)", i)) || !strings.Contains(o, "replay --trace $DIR/lv/run-000") {
			t.Errorf("node %d: status %d, printed:\n%s", i, status[i], o)
		}
	}
	rep := mustRun(t, dir, "replay", "--trace", "$DIR/lv")
	// 1 pair of 10 rounds: 2 inits and 20 deliveries, 20 sends; then
	// perhaps a broken-connection upcall, where one process ended before
	// the other.
	want := regexp.MustCompile(`pingpong/default, 2 nodes: replayed (\d+) of (\d+) events, 20 sends as recorded; the stopping condition holds from step 21\n`)
	if m := want.FindStringSubmatch(rep); m == nil || m[1] != m[2] {
		t.Errorf("replay --trace printed:\n%s\nwant a match for %s, every event replayed", rep, want)
	}
}

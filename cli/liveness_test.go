package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/randtree"
)

type livenessOut struct {
	Format string `json:"format"`
	Report struct {
		End       string `json:"end"`
		Violation *struct {
			Kind     string `json:"kind"`
			Property string `json:"property"`
			Step     int    `json:"step"`
		} `json:"violation"`
		Critical *struct {
			Class string `json:"class"`
			Step  int    `json:"step"`
			Diff  []struct {
				Node  int      `json:"node"`
				Lines []string `json:"lines"`
			} `json:"diff"`
		} `json:"critical"`
	} `json:"report"`
}

func readLiveness(t *testing.T, dir string) (*livenessOut, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "liveness.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l livenessOut
	if err := json.Unmarshal(b, &l); err != nil || l.Format != "macepc-liveness" {
		t.Fatalf("liveness.json: %v %q", err, l.Format)
	}
	return &l, b
}

// `macepc run --liveness` (MaceMC paper 000 §3–4) on RandTree's RT3: a
// one-root violation, a C1 critical transition whose state diff shows a
// node in a tree without its recovery timer, identical for 1 and 2
// workers; the fixed variant has no violation with the same budget; and
// the optional safety property written after RT3 catches it as a safety
// violation at an earlier step.
func TestRunLivenessRandTree(t *testing.T) {
	ctx := context.Background()
	var reports [][]byte
	var dirs []string
	for _, jobs := range []string{"1", "2"} {
		dir := t.TempDir()
		out, errs, st := runRT(t, ctx, "run", "--liveness", "--system", "randtree", "--variant", "liveness-bug", "--seed", "1", "--jobs", jobs, "--out", dir)
		if st != cli.ExitFinding || !strings.Contains(out, "critical transition (C1)") || !strings.Contains(out, "critical-transition walks: 65, forked from a snapshot of each prefix\n") {
			t.Fatalf("jobs %s: status %d\n%s%s", jobs, st, out, errs)
		}
		_, b := readLiveness(t, dir)
		reports, dirs = append(reports, b), append(dirs, dir)
	}
	if string(reports[0]) != string(reports[1]) {
		t.Errorf("liveness.json differs between --jobs 1 and 2")
	}
	l, _ := readLiveness(t, dirs[0])
	v, c := l.Report.Violation, l.Report.Critical
	if v == nil || v.Kind != "liveness" || v.Property != "one-root" || c == nil || c.Class != "C1" || c.Step < 0 {
		t.Fatalf("report %+v %+v", v, c)
	}
	missing := false
	for _, d := range c.Diff {
		dead, live := []string{}, []string{}
		for _, line := range d.Lines {
			if line[0] != '+' {
				dead = append(dead, line[1:])
			}
			if line[0] != '-' {
				live = append(live, line[1:])
			}
		}
		joinedOrJoining := len(dead) > 0 && !strings.Contains(dead[0], " init ")
		if joinedOrJoining && !contains(dead, "timer recovery") && contains(live, "timer recovery") {
			missing = true
		}
	}
	if !missing {
		t.Errorf("the state diff shows no node missing its recovery timer: %+v", c.Diff)
	}
	diff, err := os.ReadFile(filepath.Join(dirs[0], "state.diff"))
	if err != nil || !strings.Contains(string(diff), "+timer recovery") {
		t.Errorf("state.diff: %v\n%s", err, diff)
	}
	for _, f := range []string{"dead.log", "live.log", "dead.path.json", "live.path.json"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Error(err)
		}
	}

	// Fixed: no violation with the same budget.
	dir := t.TempDir()
	if out, errs, st := runRT(t, ctx, "run", "--liveness", "--variant", "fixed", "--seed", "1", "--out", dir); st != cli.ExitOK || !strings.Contains(out, "no violation") {
		t.Fatalf("fixed: status %d\n%s%s", st, out, errs)
	}

	// The optional safety property: a safety violation, earlier.
	dir = t.TempDir()
	out, errs, st := runRT(t, ctx, "run", "--liveness", "--variant", "liveness-bug", "--seed", "1", "--safety", "recovery-timer", "--safety", "no-loops", "--out", dir)
	if st != cli.ExitFinding {
		t.Fatalf("safety: status %d\n%s%s", st, out, errs)
	}
	s, _ := readLiveness(t, dir)
	if sv := s.Report.Violation; sv == nil || sv.Kind != "safety" || sv.Property != "recovery-timer" || sv.Step > c.Step {
		t.Fatalf("safety violation %+v, liveness critical step %d", sv, c.Step)
	}
	log, err := os.ReadFile(filepath.Join(dir, "dead.log"))
	if err != nil || !strings.Contains(string(log), "recovery-timer") {
		t.Errorf("dead.log does not show the violation: %v\n%s", err, log)
	}

	// The dead path replays to the same log (`macepc replay` knows
	// liveness path files), exiting 1 as it shows the violation; the live
	// path of the first run replays with exit 0.
	replayed := filepath.Join(t.TempDir(), "replay.log")
	if _, errs, st := runRT(t, ctx, "replay", "--path", filepath.Join(dir, "dead.path.json"), "--log", replayed); st != cli.ExitFinding {
		t.Fatalf("replay: %d %s", st, errs)
	}
	if _, errs, st := runRT(t, ctx, "replay", "--path", filepath.Join(dirs[0], "live.path.json")); st != cli.ExitOK {
		t.Errorf("replay of the live path: %d %s", st, errs)
	}
	if again, err := os.ReadFile(replayed); err != nil || string(again) != string(log) {
		t.Errorf("the replayed log differs from dead.log (%v)", err)
	}

	// Prefix-based search from the end of the live path.
	dir2 := t.TempDir()
	if out, errs, st := runRT(t, ctx, "run", "--liveness", "--variant", "liveness-bug", "--prefix", filepath.Join(dirs[0], "live.path.json"), "--out", dir2); st == cli.ExitError {
		t.Fatalf("--prefix: status %d\n%s%s", st, out, errs)
	}
	if _, errs, st := runRT(t, ctx, "run", "--liveness", "--variant", "fixed", "--prefix", filepath.Join(dirs[0], "live.path.json"), "--out", dir2); st != cli.ExitError || !strings.Contains(errs, "not randtree/fixed") {
		t.Errorf("--prefix of another variant: %d %s", st, errs)
	}
	if _, errs, st := runRT(t, ctx, "run", "--liveness", "--variant", "liveness-bug", "--faults", "1", "--prefix", filepath.Join(dirs[0], "live.path.json"), "--out", dir2); st != cli.ExitError || !strings.Contains(errs, "--faults differs") {
		t.Errorf("--prefix with other choice settings: %d %s", st, errs)
	}
	// --liveness=1 is the liveness mode too, not the timed pipeline.
	if out, errs, st := runRT(t, ctx, "run", "--liveness=1", "--variant", "fixed", "--out", dir2); st != cli.ExitOK || !strings.Contains(out, "run --liveness") {
		t.Errorf("--liveness=1: %d %s%s", st, out, errs)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// The fault model's and the prefix's flags: --breaks
// and --drops are recorded in the report's settings; --live-prefix
// starts from a live steady state, written to prefix.path.json, which
// --prefix takes back for the same search; both at once are refused.
func TestRunLivenessFaultsAndLivePrefix(t *testing.T) {
	dir := t.TempDir()
	run := func(want int, args ...string) string {
		t.Helper()
		var o, e strings.Builder
		if st := cli.Run(context.Background(), append([]string{"run", "--liveness", "--variant", "fixed", "--depth", "3", "--max-depth", "3"}, args...), &o, &e, randtree.System()); st != want {
			t.Fatalf("%v: status %d, want %d\n%s%s", args, st, want, o.String(), e.String())
		}
		return o.String() + e.String()
	}
	run(cli.ExitOK, "--breaks", "2", "--drops", "1", "--out", filepath.Join(dir, "b"))
	b, err := os.ReadFile(filepath.Join(dir, "b", "liveness.json"))
	if err != nil || !strings.Contains(string(b), `"breaks": 2`) || !strings.Contains(string(b), `"drops": 1`) {
		t.Fatalf("settings without the faults: %v\n%s", err, b)
	}
	out := run(cli.ExitOK, "--live-prefix", "300", "--out", filepath.Join(dir, "p"))
	prefix := filepath.Join(dir, "p", "prefix.path.json")
	if !strings.Contains(out, "search prefix: a random walk to a live state") || !strings.Contains(out, prefix) {
		t.Fatalf("no search prefix:\n%s", out)
	}
	again := run(cli.ExitOK, "--prefix", prefix, "--out", filepath.Join(dir, "q"))
	search := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "search: ") {
				return l
			}
		}
		return ""
	}
	if search(out) == "" || search(out) != search(again) {
		t.Fatalf("from prefix.path.json: %q, want %q", search(again), search(out))
	}
	if msg := run(cli.ExitError, "--prefix", prefix, "--live-prefix", "5", "--out", filepath.Join(dir, "r")); !strings.Contains(msg, "--prefix and --live-prefix") {
		t.Fatalf("both prefixes: %s", msg)
	}
}

// --crashes and --partitions: negative budgets are refused
// before anything runs; the budgets are recorded in liveness.json and the
// path files, whose replay gives dead.log again; a --prefix search must
// keep its path's budgets.
func TestRunLivenessCrashesAndPartitions(t *testing.T) {
	dir := t.TempDir()
	run := func(want int, args ...string) string {
		t.Helper()
		var o, e strings.Builder
		if st := cli.Run(context.Background(), args, &o, &e, randtree.System()); st != want {
			t.Fatalf("%v: status %d, want %d\n%s%s", args, st, want, o.String(), e.String())
		}
		return o.String() + e.String()
	}
	live := []string{"run", "--liveness", "--variant", "fixed", "--depth", "3", "--max-depth", "3", "--dmax", "200", "--walks", "5", "--progress", "never"}
	for _, bad := range [][]string{{"--crashes", "-1"}, {"--partitions", "-2"}} {
		msg := run(cli.ExitError, append(append(live, bad...), "--out", filepath.Join(dir, "bad"))...)
		if want := bad[0] + " must be at least 0, got " + bad[1]; !strings.Contains(msg, want) {
			t.Fatalf("%v: %q, want %q", bad, msg, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
			t.Fatalf("%v: the refused run created its directory", bad)
		}
	}
	// RandTree's properties need every node: a crash-stop is a violation.
	out := filepath.Join(dir, "c")
	run(cli.ExitFinding, append(live, "--crashes", "1", "--partitions", "1", "--out", out)...)
	_, b := readLiveness(t, out)
	if !strings.Contains(string(b), `"crashes": 1`) || !strings.Contains(string(b), `"partitions": 1`) {
		t.Fatalf("settings without the budgets:\n%s", b)
	}
	log, err := os.ReadFile(filepath.Join(out, "dead.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := run(cli.ExitFinding, "replay", "--path", filepath.Join(out, "dead.path.json")); got != string(log) {
		t.Fatalf("replay of dead.path.json:\n%s\nwant dead.log:\n%s", got, log)
	}
	msg := run(cli.ExitError, append(live, "--crashes", "0", "--prefix", filepath.Join(out, "dead.path.json"), "--out", filepath.Join(dir, "p"))...)
	if !strings.Contains(msg, "--crashes differs") {
		t.Fatalf("a prefix with other budgets: %s", msg)
	}
}

// --max-memory: a negative cap is refused before anything
// runs; a small one stops the level division cleanly (exit 0), says so
// with the depth searched to its end, and writes the same liveness.json
// for 1 and 2 workers; the Go memory limit it sets ends with the search.
func TestRunLivenessMaxMemory(t *testing.T) {
	dir := t.TempDir()
	limit := debug.SetMemoryLimit(-1)
	run := func(want int, args ...string) string {
		t.Helper()
		var o, e strings.Builder
		if st := cli.Run(context.Background(), args, &o, &e, randtree.System()); st != want {
			t.Fatalf("%v: status %d, want %d\n%s%s", args, st, want, o.String(), e.String())
		}
		return o.String() + e.String()
	}
	live := []string{"run", "--liveness", "--variant", "fixed", "--depth", "1", "--depth-step", "1", "--max-depth", "40", "--level-division", "--progress", "never"}
	if msg := run(cli.ExitError, append(live, "--max-memory", "-1", "--out", filepath.Join(dir, "bad"))...); !strings.Contains(msg, "--max-memory must be between 0") {
		t.Fatalf("a negative cap: %s", msg)
	}
	var files [][]byte
	for _, jobs := range []string{"1", "2"} {
		out := filepath.Join(dir, "j"+jobs)
		msg := run(cli.ExitOK, append(live, "--max-memory", "1", "--jobs", jobs, "--out", out)...)
		if !strings.Contains(msg, "ended: memory-cap") || !strings.Contains(msg, "stopped at the memory cap (--max-memory): the search of depth ") || !strings.Contains(msg, " searched to its end") {
			t.Fatalf("%s workers:\n%s", jobs, msg)
		}
		l, b := readLiveness(t, out)
		if l.Report.End != "memory-cap" {
			t.Fatalf("%s workers: end %q", jobs, l.Report.End)
		}
		files = append(files, b)
	}
	if string(files[0]) != string(files[1]) {
		t.Fatalf("liveness.json differs for 1 and 2 workers:\n%s\n%s", files[0], files[1])
	}
	if now := debug.SetMemoryLimit(-1); now != limit {
		t.Fatalf("the Go memory limit is %d after the runs, %d before: the cap's limit outlived its search", now, limit)
	}
}

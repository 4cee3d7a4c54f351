package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/timedsim"
)

// Determinism where it was missing: a sharded search, the liveness
// mode's path files, and --check-determinism.

func runSys(sys timedsim.System, args ...string) (string, string, int) {
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), args, &o, &e, sys)
	return o.String(), e.String(), st
}

// A Chord search in 3 shards, merged, writes the unsharded search's files
// byte for byte (RandTree's is checked in shard_test.go).
func TestShardedChordSearchIsTheUnshardedOne(t *testing.T) {
	const eddFile = "../systems/chord/testdata/edd.json"
	root := t.TempDir()
	profile := []string{"profile", "--system", "chord", "--edd", eddFile, "--profile-runs", "30", "--progress", "never"}
	search := []string{"search", "--max-runs", "120", "--triage-runs", "10", "--progress", "never"}
	unsharded, sharded := filepath.Join(root, "u"), filepath.Join(root, "s")
	for _, d := range []string{unsharded, sharded} {
		if out, errs, st := runSys(chord.System(), append(profile, "--out", d)...); st != 0 {
			t.Fatalf("profile: %d\n%s%s", st, out, errs)
		}
	}
	out, errs, st := runSys(chord.System(), append(search, "--out", unsharded)...)
	if st != cli.ExitFinding {
		t.Fatalf("search: %d (want an anomaly: the test needs one)\n%s%s", st, out, errs)
	}
	for i := range 3 {
		if out, errs, st := runSys(chord.System(), append(search, "--out", sharded, "--shard", fmt.Sprintf("%d/3", i))...); st != 0 {
			t.Fatalf("shard %d: %d\n%s%s", i, st, out, errs)
		}
	}
	if out, errs, st := runSys(chord.System(), "merge", "--out", sharded, sharded); st != cli.ExitFinding {
		t.Fatalf("merge: %d\n%s%s", st, out, errs)
	}
	want, got := snapshot(t, unsharded), snapshot(t, sharded)
	for _, f := range []string{"profile.json", "search.json", "search-executions.jsonl", "anomaly.path.json", "summary.json"} {
		if !bytes.Equal(want[f], got[f]) || len(want[f]) == 0 {
			t.Errorf("%s differs between the sharded and the unsharded search", f)
		}
	}
}

// The liveness search's dead and live paths replay to dead.log and
// live.log byte for byte.
func TestLivenessPathsReplayToTheirLogs(t *testing.T) {
	dir := t.TempDir()
	if out, errs, st := runRT(t, context.Background(), "run", "--liveness", "--variant", "liveness-bug", "--seed", "1", "--out", dir); st != cli.ExitFinding {
		t.Fatalf("liveness: %d\n%s%s", st, out, errs)
	}
	for _, k := range []string{"dead", "live"} {
		replayed := filepath.Join(t.TempDir(), k+".log")
		if _, errs, st := runRT(t, context.Background(), "replay", "--path", filepath.Join(dir, k+".path.json"), "--log", replayed); st == cli.ExitError {
			t.Fatalf("replay %s: %s", k, errs)
		}
		if read(t, replayed) != read(t, filepath.Join(dir, k+".log")) {
			t.Errorf("%s.path.json replays to another log than %s.log", k, k)
		}
	}
}

// --check-determinism runs every execution twice: the same files as
// without it for a deterministic system, exit 2 for one whose executions
// share state.
func TestCheckDeterminismFlag(t *testing.T) {
	args := []string{"run", "--edd", fixedEDD, "--profile-runs", "20", "--max-runs", "200", "--triage-runs", "10", "--walks", "4", "--confirm-walks", "4", "--progress", "never"}
	plain, checked := t.TempDir(), t.TempDir()
	if out, errs, st := runRT(t, context.Background(), append(args, "--out", plain)...); st == cli.ExitError {
		t.Fatalf("run: %s%s", out, errs)
	}
	if out, errs, st := runRT(t, context.Background(), append(args, "--out", checked, "--check-determinism")...); st == cli.ExitError {
		t.Fatalf("run --check-determinism: %s%s", out, errs)
	}
	a, b := readDir(t, plain), readDir(t, checked)
	delete(a, "report.html") // it names its directory
	delete(b, "report.html")
	for name := range a {
		if name != "summary.md" && !strings.HasPrefix(name, "plots/") && !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs with --check-determinism", name)
		}
	}

	shared := 0
	leaky := timedsim.System{Name: "leaky", Doc: "test system whose executions share a counter", Variants: []timedsim.Variant{{Name: "v"}}, DefaultNodes: 1,
		Build: func(string, int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{Nodes: 1, Timeout: time.Second, Network: netmodel.DefaultConfig(),
				New:  func(timedsim.NodeID) timedsim.Service { return &leakyNode{shared: &shared} },
				Stop: func(w timedsim.World) bool { return w.Steps() > 2 }}, nil
		}}
	dir := t.TempDir()
	_, errs, st := runSys(leaky, "simulate", "--system", "leaky", "--runs", "5", "--jobs", "1", "--check-determinism", "--out", dir)
	if lines := errorLines(errs); st != cli.ExitError || len(lines) != 1 || !strings.Contains(lines[0], "not deterministic: execution 0 differs when run again") {
		t.Fatalf("leaky: status %d\n%s", st, errs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed self-check wrote %d files", len(ents))
	}
}

type leakyNode struct{ shared *int }

func (l *leakyNode) Init(ctx timedsim.Context) {
	*l.shared++
	ctx.SetTimer("t", time.Duration(*l.shared%3+1)*time.Millisecond, nil)
}
func (*leakyNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (l *leakyNode) Timer(ctx timedsim.Context, _ string, _ any) {
	ctx.SetTimer("t", time.Millisecond, nil)
}

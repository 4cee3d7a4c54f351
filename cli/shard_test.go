package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/systems/randtree"
)

// runEnv invokes the CLI with RandTree and exactly the environment env.
func runEnv(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	status = cli.RunEnv(context.Background(), func(k string) string { return env[k] }, args, &o, &e, randtree.System())
	return o.String(), e.String(), status
}

// engines are the ways a shard learns its index: the flag, and each batch
// engine's environment.
var engines = []struct {
	name string
	env  func(i, n int) (map[string]string, []string)
}{
	{"flag", func(i, n int) (map[string]string, []string) {
		return nil, []string{"--shard", fmt.Sprintf("%d/%d", i, n)}
	}},
	{"kubernetes", func(i, n int) (map[string]string, []string) {
		return map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "MACEPC_SHARD_COUNT": fmt.Sprint(n)}, nil
	}},
	{"slurm", func(i, n int) (map[string]string, []string) {
		// An array --array=1-n: task ids from 1.
		return map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(i + 1), "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}, nil
	}},
}

// runShards runs the n shards of a command with an engine's environment,
// each into dir(i), and checks that each says where its shard came from.
func runShards(t *testing.T, engine int, n int, dir func(i int) string, args ...string) {
	t.Helper()
	e := engines[engine]
	for i := 0; i < n; i++ {
		env, extra := e.env(i, n)
		a := append(append(append([]string{}, args...), "--out", dir(i)), extra...)
		out, errs, st := runEnv(t, env, a...)
		if st != 0 {
			t.Fatalf("%s shard %d/%d: status %d\n%s%s", e.name, i, n, st, out, errs)
		}
		want := map[string]string{"flag": "from --shard", "kubernetes": "from kubernetes indexed job (JOB_COMPLETION_INDEX=", "slurm": "from slurm array (SLURM_ARRAY_TASK_ID="}[e.name]
		if !strings.Contains(out, fmt.Sprintf("shard %d/%d %s", i, n, want)) {
			t.Fatalf("%s shard %d/%d does not say where its shard came from:\n%s", e.name, i, n, out)
		}
	}
}

// mergeDirs merges the shard directories into out and returns its output.
func mergeDirs(t *testing.T, wantStatus int, out string, dirs ...string) string {
	t.Helper()
	o, errs, st := runEnv(t, nil, append([]string{"merge", "--out", out}, dirs...)...)
	if st != wantStatus {
		t.Fatalf("merge: status %d, want %d\n%s%s", st, wantStatus, o, errs)
	}
	return o
}

func shardDirs(root string, n int) []string {
	var ds []string
	for i := 0; i < n; i++ {
		ds = append(ds, filepath.Join(root, fmt.Sprint(i)))
	}
	return ds
}

// files returns the named files of dir.
func files(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// snapshot returns every file under dir by relative path, except shard
// files.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(d.Name(), ".shard-") {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// afterFirstLine drops a command's first line (which names the command)
// and replaces dir by DIR.
func afterFirstLine(s, dir string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return strings.ReplaceAll(rest, dir, "DIR")
}

// Sharded profile and search, merged, give the unsharded run's files byte
// for byte and its output, for 1, 3 and 8 shards and each engine. With the
// committed durations and seed 3 the first anomaly is execution 35, which
// is in neither shard 0 of 3 nor shard 0 of 8, and at least two other
// shards explore past it before their own anomaly: the merge must take
// the lowest index, not the first shard's answer, and drop what the
// others explored beyond it.
func TestShardedProfileAndSearchMergeToTheUnshardedFiles(t *testing.T) {
	const eddFile = "../systems/randtree/testdata/edd.json"
	const firstAnomaly = 35
	root := t.TempDir()
	common := []string{"--edd", eddFile, "--profile-runs", "40", "--seed", "3", "--progress", "never"}
	profile := append([]string{"profile"}, common...)
	unsharded := filepath.Join(root, "unsharded")
	profOut, errs, st := runEnv(t, nil, append(profile, "--out", unsharded)...)
	if st != 0 {
		t.Fatalf("profile: %d %s", st, errs)
	}
	wantProfile := snapshot(t, unsharded)
	if _, ok := wantProfile["profile.json"]; !ok {
		t.Fatal("no profile.json")
	}
	// A triage budget of 20 after the first anomaly (35): the merge must
	// drop what the shards explored past 55.
	searchArgs := []string{"search", "--max-runs", "200", "--triage-runs", "20", "--progress", "never"}
	searchOut, errs, st := runEnv(t, nil, append(searchArgs, "--out", unsharded)...)
	if st != 1 {
		t.Fatalf("search: status %d, want 1 (an anomaly)\n%s%s", st, searchOut, errs)
	}
	wantSearch := snapshot(t, unsharded)
	if !strings.Contains(searchOut, fmt.Sprintf("first anomaly at execution %d of 56 explored", firstAnomaly)) {
		t.Fatalf("the unsharded search's anomaly is not execution %d (the durations or the protocol changed: pick a seed whose first anomaly is in no shard 0):\n%s", firstAnomaly, searchOut)
	}
	for _, f := range []string{"search.json", "search-executions.jsonl", "anomaly.path.json"} {
		if _, ok := wantSearch[f]; !ok {
			t.Fatalf("search wrote no %s", f)
		}
	}

	for engine := range engines {
		for _, n := range []int{1, 3, 8} {
			t.Run(fmt.Sprintf("%s/%d", engines[engine].name, n), func(t *testing.T) {
				base := filepath.Join(root, fmt.Sprintf("%s-%d", engines[engine].name, n))
				dirs := shardDirs(filepath.Join(base, "shards"), n)
				runShards(t, engine, n, func(i int) string { return dirs[i] }, profile...)
				merged := filepath.Join(base, "merged")
				out := mergeDirs(t, 0, merged, dirs...)
				sameFiles(t, "merged profile", wantProfile, snapshot(t, merged))
				if got, want := afterFirstLine(out, merged), afterFirstLine("x\n"+profOut, unsharded); got != want {
					t.Errorf("merge output differs from profile's:\n%s\n--- want\n%s", got, want)
				}

				// Search shards in one shared directory holding the profile.
				runShards(t, engine, n, func(int) string { return merged }, searchArgs...)
				if n > 1 {
					past := 0
					for i := 0; i < n; i++ {
						f, err := shard.ReadFile(filepath.Join(merged, shard.FileName("search", shard.Spec{Index: i, Count: n})))
						if err != nil {
							t.Fatal(err)
						}
						if last := f.Records[len(f.Records)-1].Index; last > firstAnomaly+20 {
							past++
						}
					}
					if firstAnomaly%n == 0 || past < 2 {
						t.Fatalf("%d shards: the anomaly %d is in shard %d and %d shards explored past it; the test needs it outside shard 0 and at least 2", n, firstAnomaly, firstAnomaly%n, past)
					}
				}
				out = mergeDirs(t, 1, merged, merged)
				sameFiles(t, "merged search", wantSearch, snapshot(t, merged))
				if got, want := afterFirstLine(out, merged), afterFirstLine("x\n"+searchOut, unsharded); got != want {
					t.Errorf("merge output differs from search's:\n%s\n--- want\n%s", got, want)
				}
			})
		}
	}
}

// A search shard stops at its own first anomaly; shards whose anomalies
// come later explore past the overall first one, and the merge drops
// those executions. With no anomaly at all, every execution is kept.
func TestShardedSearchWithoutAnomaly(t *testing.T) {
	eddFile := trainedEDD(t)
	root := t.TempDir()
	dir := filepath.Join(root, "u")
	if _, errs, st := runEnv(t, nil, "profile", "--variant", "fixed", "--edd", eddFile, "--profile-runs", "20", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatal(errs)
	}
	shared := filepath.Join(root, "s")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "profile.json"))
	os.WriteFile(filepath.Join(shared, "profile.json"), b, 0o644)
	if out, errs, st := runEnv(t, nil, "search", "--max-runs", "30", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("search: %d\n%s%s", st, out, errs)
	}
	runShards(t, 0, 4, func(int) string { return shared }, "search", "--max-runs", "30", "--progress", "never")
	mergeDirs(t, 0, shared)
	names := []string{"search.json", "search-executions.jsonl", "summary.json"}
	sameFiles(t, "merged search", files(t, dir, names...), files(t, shared, names...))
	if _, err := os.Stat(filepath.Join(shared, "anomaly.path.json")); err == nil {
		t.Error("a search without anomaly left anomaly.path.json")
	}
}

// Sharded simulate, merged, gives the unsharded executions.jsonl,
// simulate.json and slowest.path.json byte for byte, for 1, 3 and 8
// shards and each engine.
func TestShardedSimulate(t *testing.T) {
	root := t.TempDir()
	args := []string{"simulate", "--nodes", "6", "--runs", "25", "--seed", "5"}
	want, errs, st := runEnv(t, nil, append(args, "--out", filepath.Join(root, "u"))...)
	if st != 0 {
		t.Fatal(errs)
	}
	wantFiles := snapshot(t, filepath.Join(root, "u"))
	for _, f := range []string{"executions.jsonl", "simulate.json", "slowest.path.json"} {
		if _, ok := wantFiles[f]; !ok {
			t.Fatalf("simulate wrote no %s", f)
		}
	}
	for engine := range engines {
		for _, n := range []int{1, 3, 8} {
			t.Run(fmt.Sprintf("%s/%d", engines[engine].name, n), func(t *testing.T) {
				base := filepath.Join(root, fmt.Sprintf("%s-%d", engines[engine].name, n))
				dirs := shardDirs(filepath.Join(base, "shards"), n)
				runShards(t, engine, n, func(i int) string { return dirs[i] }, args...)
				merged := filepath.Join(base, "m")
				got := mergeDirs(t, 0, merged, dirs...)
				sameFiles(t, "merged simulate", wantFiles, snapshot(t, merged))
				if g, w := afterFirstLine(got, merged), afterFirstLine(want, filepath.Join(root, "u")); g != w {
					t.Errorf("merge output differs from simulate's:\n%s\n--- want\n%s", g, w)
				}
			})
		}
	}
}

// Running a shard again rewrites the same bytes.
func TestShardRerunIsIdentical(t *testing.T) {
	eddFile := trainedEDD(t)
	dir := t.TempDir()
	args := []string{"profile", "--edd", eddFile, "--profile-runs", "20", "--shard", "1/3", "--out", dir, "--jobs", "1", "--progress", "never"}
	if _, errs, st := runEnv(t, nil, args...); st != 0 {
		t.Fatal(errs)
	}
	name := filepath.Join(dir, "profile.shard-1-of-3.jsonl")
	first, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	args[len(args)-3] = "2" // --jobs 2
	if _, errs, st := runEnv(t, nil, args...); st != 0 {
		t.Fatal(errs)
	}
	if again, _ := os.ReadFile(name); !bytes.Equal(first, again) {
		t.Fatalf("a rerun of the shard wrote other bytes")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("a profile shard writes only its shard file, got %d files", len(ents))
	}
}

// Merge refuses, with a clear one-line message and without writing
// anything, a set of shards that is not one complete run; a shard refuses
// an inconsistent batch environment. The messages are golden files
// (testdata/shard-*.stderr).
func TestShardRefusalsGolden(t *testing.T) {
	root := t.TempDir()
	// The seed distributions (no --edd), so that config hashes and
	// thresholds in the messages do not depend on a training.
	prof := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"profile", "--profile-runs", "10", "--progress", "never", "--out", filepath.Join(root, out)}, extra...)
		if o, e, st := runEnv(t, nil, args...); st != 0 {
			t.Fatalf("%v: %d\n%s%s", args, st, o, e)
		}
	}
	for i := 0; i < 3; i++ {
		prof("ok", "--shard", fmt.Sprintf("%d/3", i))
	}
	prof("copy", "--shard", "1/3")
	prof("nodes", "--shard", "2/3", "--nodes", "9")
	prof("runs", "--shard", "2/3", "--profile-runs", "11")
	prof("variant", "--shard", "2/3", "--variant", "fixed")
	prof("edd", "--shard", "2/3", "--edd", "../systems/randtree/testdata/edd.json")
	prof("four", "--shard", "2/4")
	prof("unsharded")
	prof("other-profile", "--profile-runs", "12")
	if o, e, st := runEnv(t, nil, "search", "--out", filepath.Join(root, "unsharded"), "--shard", "0/1", "--progress", "never"); st != 0 {
		t.Fatalf("search shard: %d\n%s%s", st, o, e)
	}
	okFile := func(i int) string { return filepath.Join(root, "ok", fmt.Sprintf("profile.shard-%d-of-3.jsonl", i)) }
	mangle := func(name string, cut func([]byte) []byte) string {
		b, err := os.ReadFile(okFile(2))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, name, "profile.shard-2-of-3.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, cut(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noFooter := mangle("nofooter", func(b []byte) []byte {
		return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
	})
	cutLine := mangle("cutline", func(b []byte) []byte { return b[:len(b)/2] })
	os.MkdirAll(filepath.Join(root, "empty"), 0o755)

	cases := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"shard-merge-missing", nil, []string{"merge", okFile(0), okFile(2)}},
		{"shard-merge-no-footer", nil, []string{"merge", okFile(0), okFile(1), noFooter}},
		{"shard-merge-cut-line", nil, []string{"merge", okFile(0), okFile(1), cutLine}},
		{"shard-merge-duplicated", nil, []string{"merge", "$DIR/ok", "$DIR/copy"}},
		{"shard-merge-other-config", nil, []string{"merge", okFile(0), okFile(1), "$DIR/nodes"}},
		{"shard-merge-other-variant", nil, []string{"merge", okFile(0), okFile(1), "$DIR/variant"}},
		{"shard-merge-other-edd", nil, []string{"merge", okFile(0), okFile(1), "$DIR/edd"}},
		{"shard-merge-no-out", nil, []string{"merge", "--out", "$DIR/no-such-dir"}},
		{"shard-merge-other-runs", nil, []string{"merge", okFile(0), okFile(1), "$DIR/runs"}},
		{"shard-merge-mixed-count", nil, []string{"merge", okFile(0), okFile(1), "$DIR/four"}},
		{"shard-merge-no-shards", nil, []string{"merge", "$DIR/empty"}},
		{"shard-merge-mixed-phases", nil, []string{"merge", "$DIR/unsharded", "$DIR/ok"}},
		{"shard-merge-search-other-profile", nil, []string{"merge", "--out", "$DIR/other-profile", "$DIR/unsharded/search.shard-0-of-1.jsonl"}},
		{"shard-bad-flag", nil, []string{"profile", "--shard", "3/3"}},
		{"shard-k8s-without-count", map[string]string{"JOB_COMPLETION_INDEX": "2"}, []string{"profile"}},
		{"shard-k8s-garbage", map[string]string{"JOB_COMPLETION_INDEX": "two", "MACEPC_SHARD_COUNT": "4"}, []string{"simulate"}},
		{"shard-slurm-stepped", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, []string{"profile"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(root, "out-"+c.name)
			args := []string{}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "$DIR", root))
			}
			if !strings.Contains(strings.Join(args, " "), "--out") {
				args = append(args, "--out", out)
			}
			before := readDir(t, filepath.Join(root, "ok"))
			stdout, stderr, status := runEnv(t, c.env, args...)
			if status != 2 {
				t.Fatalf("status %d, want 2\n%s%s", status, stdout, stderr)
			}
			clean := func(s string) string { return strings.ReplaceAll(s, root, "$DIR") }
			golden(t, c.name+".stdout", clean(stdout))
			golden(t, c.name+".stderr", clean(stderr))
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("error is not one line: %q", stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused command created %s", out)
			}
			sameFiles(t, "shards after a refusal", before, readDir(t, filepath.Join(root, "ok")))
		})
	}
}

// An interrupted shard writes no shard file (a partial one would be
// refused by the merge anyway), and --shard off ignores the environment.
func TestShardInterruptedAndOff(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	env := map[string]string{"JOB_COMPLETION_INDEX": "1", "MACEPC_SHARD_COUNT": "2"}
	getenv := func(k string) string { return env[k] }
	st := cli.RunEnv(ctx, getenv, []string{"simulate", "--runs", "50", "--out", dir}, &o, &e, randtree.System())
	if st != 2 || !strings.Contains(e.String(), "no shard file written") {
		t.Fatalf("interrupted shard: status %d\n%s%s", st, o.String(), e.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "simulate.shard-1-of-2.jsonl")); err == nil {
		t.Fatal("an interrupted shard wrote its file")
	}
	out, errs, st := runEnv(t, env, "simulate", "--runs", "5", "--shard", "off", "--out", dir)
	if st != 0 || strings.Contains(out, "shard") {
		t.Fatalf("--shard off: status %d\n%s%s", st, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "executions.jsonl")); err != nil {
		t.Fatal("--shard off did not run the unsharded simulate")
	}
}

// livenessReport is liveness.json's report without its distinct-state
// count, which only an unsharded search knows.
func livenessReport(t *testing.T, dir string) map[string]any {
	t.Helper()
	var f struct {
		Report map[string]any `json:"report"`
	}
	if err := json.Unmarshal(files(t, dir, "liveness.json")["liveness.json"], &f); err != nil {
		t.Fatal(err)
	}
	delete(f.Report["stats"].(map[string]any), "distinct")
	return f.Report
}

// The liveness search sharded (parallel MaceMC's division by prefix)
// with each engine, merged: RandTree's RT3 with the unsharded violation,
// critical transition and summed statistics, and the same path files,
// logs and state diff byte for byte. A shard of another configuration
// (another seed) is refused.
func TestShardedLivenessMergesToTheUnshardedReport(t *testing.T) {
	args := []string{"run", "--liveness", "--variant", "liveness-bug"}
	want := t.TempDir()
	if o, e, st := runEnv(t, nil, append(args, "--out", want)...); st != cli.ExitFinding {
		t.Fatalf("unsharded: status %d\n%s%s", st, o, e)
	}
	logs := []string{"dead.path.json", "dead.log", "live.path.json", "live.log", "state.diff"}
	for engine := range engines {
		root := t.TempDir()
		dirs := shardDirs(root, 3)
		runShards(t, engine, 3, func(i int) string { return dirs[i] }, args...)
		out := filepath.Join(root, "merged")
		mergeDirs(t, cli.ExitFinding, out, dirs...)
		if got, w := livenessReport(t, out), livenessReport(t, want); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: merged report\n%v\nunsharded\n%v", engines[engine].name, got, w)
		}
		if got, w := files(t, out, logs...), files(t, want, logs...); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: the merged search's files differ from the unsharded ones", engines[engine].name)
		}
	}
	root := t.TempDir()
	dirs := shardDirs(root, 3)
	runShards(t, 0, 3, func(i int) string { return dirs[i] }, args...)
	runShards(t, 0, 3, func(i int) string { return filepath.Join(root, "other") }, append(args, "--seed", "2")...)
	other := filepath.Join(root, "other", "liveness.shard-1-of-3.jsonl")
	o, e, st := runEnv(t, nil, "merge", "--out", filepath.Join(root, "merged"), filepath.Join(dirs[0], "liveness.shard-0-of-3.jsonl"), other, filepath.Join(dirs[2], "liveness.shard-2-of-3.jsonl"))
	if st != cli.ExitError || !strings.Contains(e, other+" belongs to another configuration") {
		t.Fatalf("a shard of another seed: status %d\n%s%s", st, o, e)
	}
}

// The level division sharded and merged gives the unsharded level
// division's report, and a level-division shard is refused among the
// sequential division's (its settings differ).
func TestShardedLevelDivision(t *testing.T) {
	args := []string{"run", "--liveness", "--variant", "liveness-bug", "--level-division"}
	want := t.TempDir()
	if o, e, st := runEnv(t, nil, append(args, "--out", want)...); st != cli.ExitFinding {
		t.Fatalf("unsharded: status %d\n%s%s", st, o, e)
	}
	root := t.TempDir()
	dirs := shardDirs(root, 3)
	runShards(t, 0, 3, func(i int) string { return dirs[i] }, args...)
	mergeDirs(t, cli.ExitFinding, filepath.Join(root, "merged"), dirs...)
	got, w := livenessReport(t, filepath.Join(root, "merged")), livenessReport(t, want)
	if !reflect.DeepEqual(got, w) {
		t.Fatalf("merged report\n%v\nunsharded\n%v", got, w)
	}
	if st, _ := w["settings"].(map[string]any); st["level_division"] != true {
		t.Fatalf("settings %v: want level_division", st)
	}
	seq := filepath.Join(root, "seq")
	runShards(t, 0, 3, func(i int) string { return seq }, args[:len(args)-1]...)
	other := filepath.Join(seq, "liveness.shard-1-of-3.jsonl")
	o, e, st := runEnv(t, nil, "merge", "--out", filepath.Join(root, "mixed"), filepath.Join(dirs[0], "liveness.shard-0-of-3.jsonl"), other, filepath.Join(dirs[2], "liveness.shard-2-of-3.jsonl"))
	if st != cli.ExitError || !strings.Contains(e, other+" belongs to another configuration") {
		t.Fatalf("a sequential-division shard: status %d\n%s%s", st, o, e)
	}
}

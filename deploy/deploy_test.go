package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

func macepc(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	st := cli.RunEnv(context.Background(), func(k string) string { return env[k] }, args, &o, &e, randtree.System(), pingpong.System())
	if st != 0 {
		t.Fatalf("macepc %s (env %v): status %d\n%s%s", strings.Join(args, " "), env, st, o.String(), e.String())
	}
	return o.String()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func match(t *testing.T, file, text, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: no match for %s", file, re)
	}
	return m
}

// manifestArgs reads the container args of a manifest (a JSON array, which
// is YAML too) with /data moved to root.
func manifestArgs(t *testing.T, file, root string) []string {
	t.Helper()
	m := match(t, file, read(t, file), `(?m)^\s*args: (\[.*\])$`)
	var args []string
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		t.Fatalf("%s: args: %v", file, err)
	}
	for i, a := range args {
		if strings.HasPrefix(a, "/data/") {
			args[i] = filepath.Join(root, strings.TrimPrefix(a, "/data/"))
		}
	}
	return args
}

// unsharded runs the profile of args into a fresh directory holding the
// same training and returns its profile.json.
func unsharded(t *testing.T, trained string, args []string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"edd.json", "train.json"} {
		os.WriteFile(filepath.Join(dir, f), []byte(read(t, filepath.Join(trained, f))), 0o644)
	}
	out := slicesIndex(args, "--out")
	a := append([]string{}, args...)
	a[out+1] = dir
	macepc(t, nil, append(a, "--shard", "off")...)
	return read(t, filepath.Join(dir, "profile.json"))
}

func slicesIndex(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// The Kubernetes manifests: train, the Indexed Job's pods with the
// environment Kubernetes gives them (and MACEPC_SHARD_COUNT from the
// manifest), then the merge Job.
func TestKubernetesIndexedJob(t *testing.T) {
	root := t.TempDir()
	job := read(t, "kubernetes/profile-job.yaml")
	if !strings.Contains(job, "completionMode: Indexed") {
		t.Fatal("profile-job.yaml is not an Indexed Job")
	}
	completions, _ := strconv.Atoi(match(t, "profile-job.yaml", job, `(?m)^\s*completions: (\d+)$`)[1])
	count := match(t, "profile-job.yaml", job, `(?m)name: MACEPC_SHARD_COUNT\n\s*value: "(\d+)"`)[1]
	if count != strconv.Itoa(completions) || completions < 2 {
		t.Fatalf("MACEPC_SHARD_COUNT %s must equal completions %d", count, completions)
	}
	macepc(t, nil, append(manifestArgs(t, "kubernetes/train-job.yaml", root), "--train-runs", "3")...)
	profile := append(manifestArgs(t, "kubernetes/profile-job.yaml", root), "--profile-runs", "30")
	for i := 0; i < completions; i++ {
		out := macepc(t, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "MACEPC_SHARD_COUNT": count}, profile...)
		if !strings.Contains(out, fmt.Sprintf("shard %d/%d from kubernetes indexed job", i, completions)) {
			t.Fatalf("pod %d: %s", i, out)
		}
	}
	macepc(t, nil, manifestArgs(t, "kubernetes/merge-job.yaml", root)...)
	if got, want := read(t, filepath.Join(root, "run", "profile.json")), unsharded(t, filepath.Join(root, "run"), profile); got != want {
		t.Fatal("the merged profile.json differs from the unsharded one")
	}
}

// srunArgs reads the macepc command of a Slurm script, expanding its
// variables: vars, then the script's ${NAME:-default}s.
func srunArgs(t *testing.T, file string, vars map[string]string) []string {
	t.Helper()
	text := read(t, file)
	for _, m := range regexp.MustCompile(`(?m)^(\w+)=\$\{\w+:-([^}]*)\}$`).FindAllStringSubmatch(text, -1) {
		if _, ok := vars[m[1]]; !ok {
			vars[m[1]] = m[2]
		}
	}
	line := match(t, file, text, `(?m)^srun "\$MACEPC" (.*)$`)[1]
	expand := regexp.MustCompile(`\$\{?(\w+)(?::-([^}]*))?\}?`)
	var args []string
	for _, tok := range strings.Fields(line) {
		tok = strings.ReplaceAll(tok, `"`, "") // the scripts quote whole words only
		args = append(args, expand.ReplaceAllStringFunc(tok, func(s string) string {
			m := expand.FindStringSubmatch(s)
			if v, ok := vars[m[1]]; ok {
				return v
			}
			if m[2] != "" {
				return m[2]
			}
			t.Fatalf("%s: unknown variable %s", file, m[1])
			return ""
		}))
	}
	return args
}

// The Slurm scripts: every task of the array with Slurm's variables, then
// the merge.
func TestSlurmArray(t *testing.T) {
	root := t.TempDir()
	script := read(t, "slurm/profile.sbatch")
	m := match(t, "profile.sbatch", script, `(?m)^#SBATCH --array=(\d+)-(\d+)$`)
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	if !strings.Contains(read(t, "slurm/submit.sh"), "--dependency=afterok:\"$profile\" merge.sbatch") {
		t.Fatal("submit.sh does not run the merge after the whole array")
	}
	results := filepath.Join(root, "run")
	profile := srunArgs(t, "slurm/profile.sbatch", map[string]string{"RESULTS": results, "RUNS": "30"})
	sys := profile[slicesIndex(profile, "--system")+1]
	macepc(t, nil, "train", "--system", sys, "--train-runs", "3", "--progress", "never", "--out", results)
	n := hi - lo + 1
	for id := lo; id <= hi; id++ {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(lo), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}
		out := macepc(t, env, profile...)
		if !strings.Contains(out, fmt.Sprintf("shard %d/%d from slurm array", id-lo, n)) {
			t.Fatalf("task %d: %s", id, out)
		}
	}
	macepc(t, nil, srunArgs(t, "slurm/merge.sbatch", map[string]string{"RESULTS": results})...)
	if got, want := read(t, filepath.Join(results, "profile.json")), unsharded(t, results, profile); got != want {
		t.Fatal("the merged profile.json differs from the unsharded one")
	}
}

package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

func macepc(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	out, _ := macepcExit(t, 0, env, args...)
	return out
}

// macepcExit runs macepc and fails the test unless it exits with want
// (-1: 0 or 1, the status of a search that found an anomaly); it returns
// the output and the status.
func macepcExit(t *testing.T, want int, env map[string]string, args ...string) (string, int) {
	t.Helper()
	var o, e bytes.Buffer
	st := cli.RunEnv(context.Background(), func(k string) string { return env[k] }, args, &o, &e, randtree.System(), pingpong.System())
	if st != want && (want != -1 || st > 1) {
		t.Fatalf("macepc %s (env %v): status %d, want %d\n%s%s", strings.Join(args, " "), env, st, want, o.String(), e.String())
	}
	return o.String(), st
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

// manifests decodes a manifest file's documents strictly into Kubernetes'
// API types (an unknown or misspelt field is an error): Jobs and
// PersistentVolumeClaims by name.
func manifests(t *testing.T, file string) (map[string]*batchv1.Job, map[string]*corev1.PersistentVolumeClaim) {
	t.Helper()
	jobs, pvcs := map[string]*batchv1.Job{}, map[string]*corev1.PersistentVolumeClaim{}
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(read(t, file), -1) {
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s: document %d: %v", file, i, err)
		}
		switch {
		case meta.APIVersion == "batch/v1" && meta.Kind == "Job":
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			jobs[j.Name] = &j
		case meta.APIVersion == "v1" && meta.Kind == "PersistentVolumeClaim":
			var c corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			pvcs[c.Name] = &c
		default:
			t.Fatalf("%s: document %d: unexpected %s %s", file, i, meta.APIVersion, meta.Kind)
		}
	}
	return jobs, pvcs
}

// job returns the one Job of a manifest file, after checking what every
// macepc pod needs: one container running the image's binary as its
// non-root user, with fsGroup so that it can write the volume, and the
// shared results volume mounted at /data.
func job(t *testing.T, file, claim string) *batchv1.Job {
	t.Helper()
	jobs, _ := manifests(t, file)
	if len(jobs) != 1 {
		t.Fatalf("%s: %d Jobs, want 1", file, len(jobs))
	}
	for _, j := range jobs {
		pod := j.Spec.Template.Spec
		if len(pod.Containers) != 1 || pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Fatalf("%s: %d containers, restartPolicy %q", file, len(pod.Containers), pod.RestartPolicy)
		}
		sc := pod.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != nonroot ||
			sc.FSGroup == nil || *sc.FSGroup != nonroot {
			t.Fatalf("%s: the pod must run as uid %d with fsGroup %d: %+v", file, nonroot, nonroot, sc)
		}
		mounts := pod.Containers[0].VolumeMounts
		if len(mounts) != 1 || mounts[0].MountPath != "/data" || len(pod.Volumes) != 1 || pod.Volumes[0].Name != mounts[0].Name ||
			pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != claim {
			t.Fatalf("%s: the results volume (claim %s) is not mounted at /data: %+v %+v", file, claim, mounts, pod.Volumes)
		}
		return j
	}
	return nil
}

func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// nonroot is the uid and gid of the Dockerfile's distroless nonroot image.
const nonroot = 65532

// manifestArgs returns a Job's container args with /data moved to root.
func manifestArgs(j *batchv1.Job, root string) []string {
	args := append([]string{}, j.Spec.Template.Spec.Containers[0].Args...)
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
	if !strings.Contains(read(t, "Dockerfile"), "distroless/static-debian12:nonroot") {
		t.Fatalf("the Dockerfile's image is not distroless nonroot (uid %d), which the manifests assume", nonroot)
	}
	_, pvcs := manifests(t, "kubernetes/train-job.yaml")
	pvc := pvcs["macepc-results"]
	if len(pvcs) != 1 || pvc == nil || !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Fatalf("train-job.yaml must define the ReadWriteMany claim macepc-results: %v", pvcs)
	}
	train := job(t, "kubernetes/train-job.yaml", pvc.Name)
	prof := job(t, "kubernetes/profile-job.yaml", pvc.Name)
	merge := job(t, "kubernetes/merge-job.yaml", pvc.Name)
	spec := prof.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil {
		t.Fatalf("profile-job.yaml must be an Indexed Job with completions and parallelism (completionMode %v, completions %v, parallelism %v)",
			deref(spec.CompletionMode), deref(spec.Completions), deref(spec.Parallelism))
	}
	completions := int(*spec.Completions)
	count := ""
	for _, e := range spec.Template.Spec.Containers[0].Env {
		if e.Name == "MACEPC_SHARD_COUNT" {
			count = e.Value
		}
	}
	if count != strconv.Itoa(completions) || completions < 2 || *spec.Parallelism < 1 || int(*spec.Parallelism) > completions {
		t.Fatalf("MACEPC_SHARD_COUNT %q must equal completions %d (≥ 2), parallelism %d within 1..completions", count, completions, *spec.Parallelism)
	}
	macepc(t, nil, append(manifestArgs(train, root), "--train-runs", "3")...)
	profile := append(manifestArgs(prof, root), "--profile-runs", "30")
	for i := 0; i < completions; i++ {
		out := macepc(t, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "MACEPC_SHARD_COUNT": count}, profile...)
		if !strings.Contains(out, fmt.Sprintf("shard %d/%d from kubernetes indexed job", i, completions)) {
			t.Fatalf("pod %d: %s", i, out)
		}
	}
	macepc(t, nil, manifestArgs(merge, root)...)
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
// the merge; once with the script's array range and once as submitted with
// a range that does not start at 0 (sbatch --array=5-12 overrides it).
func TestSlurmArray(t *testing.T) {
	script := read(t, "slurm/profile.sbatch")
	m := match(t, "profile.sbatch", script, `(?m)^#SBATCH --array=(\d+)-(\d+)$`)
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	submit := read(t, "slurm/submit.sh")
	for _, dep := range []string{`afterok:"$train" "${array[@]}" "$here/profile.sbatch"`, `afterok:"$profile" "$here/merge.sbatch"`,
		`afterok:"$merge" "${array[@]}" "$here/search.sbatch"`, `afterok:"$search" "$here/search-merge.sbatch"`} {
		if !strings.Contains(submit, "--dependency="+dep) {
			t.Fatalf("submit.sh does not submit --dependency=%s: each job must wait for the whole previous one", dep)
		}
	}
	for _, shift := range []int{0, 5} {
		results := filepath.Join(t.TempDir(), "run")
		profile := srunArgs(t, "slurm/profile.sbatch", map[string]string{"RESULTS": results, "RUNS": "30"})
		sys := profile[slicesIndex(profile, "--system")+1]
		macepc(t, nil, "train", "--system", sys, "--train-runs", "3", "--progress", "never", "--out", results)
		first, last := lo+shift, hi+shift
		n := last - first + 1
		for id := first; id <= last; id++ {
			env := map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(first), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}
			out := macepc(t, env, profile...)
			if !strings.Contains(out, fmt.Sprintf("shard %d/%d from slurm array", id-first, n)) {
				t.Fatalf("array %d-%d, task %d: %s", first, last, id, out)
			}
		}
		macepc(t, nil, srunArgs(t, "slurm/merge.sbatch", map[string]string{"RESULTS": results})...)
		if got, want := read(t, filepath.Join(results, "profile.json")), unsharded(t, results, profile); got != want {
			t.Fatalf("array %d-%d: the merged profile.json differs from the unsharded one", first, last)
		}

		// The search array reads the merged profile.json, then its merge.
		search := srunArgs(t, "slurm/search.sbatch", map[string]string{"RESULTS": results, "MAX_RUNS": "300"})
		for id := first; id <= last; id++ {
			env := map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(first), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}
			if out := macepc(t, env, search...); !strings.Contains(out, fmt.Sprintf("shard %d/%d from slurm array", id-first, n)) {
				t.Fatalf("search array %d-%d, task %d: %s", first, last, id, out)
			}
		}
		ref := t.TempDir()
		for _, f := range []string{"edd.json", "train.json", "profile.json"} {
			os.WriteFile(filepath.Join(ref, f), []byte(read(t, filepath.Join(results, f))), 0o644)
		}
		a := append([]string{}, search...)
		a[slicesIndex(a, "--out")+1] = ref
		_, want := macepcExit(t, -1, nil, append(a, "--shard", "off")...)
		t.Logf("array %d-%d: the unsharded search exits %d", first, last, want)
		macepcExit(t, want, nil, srunArgs(t, "slurm/search-merge.sbatch", map[string]string{"RESULTS": results})...)
		files := []string{"search.json", "search-executions.jsonl"}
		if want == 1 {
			files = append(files, "anomaly.path.json")
		}
		for _, f := range files {
			if read(t, filepath.Join(results, f)) != read(t, filepath.Join(ref, f)) {
				t.Fatalf("array %d-%d: the merged %s differs from the unsharded one", first, last, f)
			}
		}
	}
}

// livenessReport reads a liveness.json's report without the
// distinct-state count, which only an unsharded search knows.
func livenessReport(t *testing.T, dir string) map[string]any {
	t.Helper()
	var f struct {
		Report map[string]any `json:"report"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "liveness.json"))), &f); err != nil {
		t.Fatal(err)
	}
	delete(f.Report["stats"].(map[string]any), "distinct")
	return f.Report
}

// unshardedLiveness runs a liveness shard's command unsharded into a fresh
// directory and returns its report.
func unshardedLiveness(t *testing.T, args []string) map[string]any {
	t.Helper()
	dir := t.TempDir()
	a := append([]string{}, args...)
	a[slicesIndex(a, "--out")+1] = dir
	macepc(t, nil, append(a, "--shard", "off")...)
	return livenessReport(t, dir)
}

// The liveness manifests: the Indexed Job's pods with the
// environment Kubernetes gives them, then the merge Job, whose report is
// the unsharded search's. The depth is lowered to keep the test short.
func TestKubernetesLivenessJob(t *testing.T) {
	root := t.TempDir()
	_, pvcs := manifests(t, "kubernetes/train-job.yaml")
	live := job(t, "kubernetes/liveness-job.yaml", "macepc-results")
	merge := job(t, "kubernetes/liveness-merge-job.yaml", "macepc-results")
	if pvcs["macepc-results"] == nil {
		t.Fatal("train-job.yaml defines no claim macepc-results")
	}
	spec := live.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil {
		t.Fatalf("liveness-job.yaml must be an Indexed Job with completions")
	}
	n := int(*spec.Completions)
	count := ""
	for _, e := range spec.Template.Spec.Containers[0].Env {
		if e.Name == "MACEPC_SHARD_COUNT" {
			count = e.Value
		}
	}
	if count != strconv.Itoa(n) || n < 2 {
		t.Fatalf("MACEPC_SHARD_COUNT %q must equal completions %d (≥ 2)", count, n)
	}
	args := append(manifestArgs(live, root), "--depth", "6", "--max-depth", "6", "--split-depth", "4")
	for i := 0; i < n; i++ {
		out := macepc(t, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "MACEPC_SHARD_COUNT": count}, args...)
		if !strings.Contains(out, fmt.Sprintf("shard %d/%d from kubernetes indexed job", i, n)) {
			t.Fatalf("pod %d: %s", i, out)
		}
	}
	mergeArgs := manifestArgs(merge, root)
	if out := mergeArgs[slicesIndex(mergeArgs, "--out")+1]; out != args[slicesIndex(args, "--out")+1] {
		t.Fatalf("the merge reads %s, the shards write %s", out, args[slicesIndex(args, "--out")+1])
	}
	macepc(t, nil, mergeArgs...)
	if got, want := livenessReport(t, filepath.Join(root, "live")), unshardedLiveness(t, args); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged report\n%v\nunsharded\n%v", got, want)
	}
}

// The Slurm liveness scripts: every task of the array with Slurm's
// variables, then the merge.
func TestSlurmLivenessArray(t *testing.T) {
	m := match(t, "liveness.sbatch", read(t, "slurm/liveness.sbatch"), `(?m)^#SBATCH --array=(\d+)-(\d+)$`)
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	results := filepath.Join(t.TempDir(), "live")
	args := srunArgs(t, "slurm/liveness.sbatch", map[string]string{"RESULTS": results, "DEPTH": "6", "SPLIT": "4"})
	n := hi - lo + 1
	for id := lo; id <= hi; id++ {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id), "SLURM_ARRAY_TASK_MIN": fmt.Sprint(lo), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}
		if out := macepc(t, env, args...); !strings.Contains(out, fmt.Sprintf("shard %d/%d from slurm array", id-lo, n)) {
			t.Fatalf("task %d: %s", id, out)
		}
	}
	macepc(t, nil, srunArgs(t, "slurm/liveness-merge.sbatch", map[string]string{"RESULTS": results})...)
	if got, want := livenessReport(t, results), unshardedLiveness(t, args); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged report\n%v\nunsharded\n%v", got, want)
	}
}

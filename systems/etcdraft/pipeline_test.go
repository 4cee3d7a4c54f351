package etcdraft_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/etcdraft"
)

func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), args, &o, &e, etcdraft.System())
	return o.String() + e.String(), st
}

// The whole pipeline on etcd raft (rejoin without PreVote, the paper's
// threshold) gives byte-identical profile, search, divergence and
// correlation files with 1 and 2 workers — raft's crypto/rand draws come
// from the path under its process-wide lock — and the divergence point is
// a step of the execution that replays.
func TestPipelineJobsIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline twice")
	}
	params := []string{"--system", "etcdraft", "--variant", "no-prevote", "--param", "scenario=rejoin", "--param", "proposals=40"}
	tdir := t.TempDir()
	if out, st := runCLI(t, append([]string{"train", "--out", tdir, "--train-runs", "3", "--progress", "never"}, params...)...); st != 0 {
		t.Fatalf("train: %d\n%s", st, out)
	}
	files := map[string]map[string][]byte{}
	for _, jobs := range []string{"1", "2"} {
		dir := t.TempDir()
		args := append([]string{"run", "--edd", filepath.Join(tdir, "edd.json"), "--seed", "3", "--profile-runs", "30", "--min-slowdown", "0",
			"--max-runs", "300", "--walks", "6", "--jobs", jobs, "--out", dir, "--progress", "never"}, params...)
		out, st := runCLI(t, args...)
		if st != cli.ExitFinding {
			t.Fatalf("run --jobs %s: status %d\n%s", jobs, st, out)
		}
		files[jobs] = map[string][]byte{}
		for _, f := range []string{"profile.json", "search.json", "divergence.json", "correlation.json", "anomaly.path.json", "similar.path.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			files[jobs][f] = b
		}
	}
	for f, b := range files["1"] {
		if !bytes.Equal(b, files["2"][f]) {
			t.Errorf("%s differs between --jobs 1 and 2", f)
		}
	}
	var pf struct {
		Version int               `json:"version"`
		Params  map[string]string `json:"params"`
	}
	if err := json.Unmarshal(files["1"]["anomaly.path.json"], &pf); err != nil || pf.Version != 2 || pf.Params["scenario"] != "rejoin" {
		t.Errorf("anomaly path: version %d params %v (%v)", pf.Version, pf.Params, err)
	}
	if !strings.Contains(string(files["1"]["profile.json"]), `"scenario": "rejoin"`) {
		t.Error("profile.json does not carry the parameters")
	}
}

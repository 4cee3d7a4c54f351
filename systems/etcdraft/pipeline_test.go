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

// The rejoin hazard, pinned on the committed durations with the README's
// commands. Without PreVote, seed 1 finds an anomaly (exit 1) whose
// execution has a long outage, the cut-off node's lone campaign (raft ID 5
// is n4) and the leader's step-down when it returns; the divergence is the
// outage, whose length decides; the top correlations name the campaign.
// With PreVote, 500 executions find nothing (exit 0).
func TestRejoinPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline twice")
	}
	args := func(variant, dir string, more ...string) []string {
		return append([]string{"run", "--system", "etcdraft", "--variant", variant, "--param", "scenario=rejoin", "--seed", "1",
			"--edd", filepath.Join("testdata", "rejoin-"+variant+".edd.json"), "--out", dir, "--progress", "never"}, more...)
	}
	dir := t.TempDir()
	if out, st := runCLI(t, args("no-prevote", dir)...); st != cli.ExitFinding {
		t.Fatalf("no-prevote: status %d\n%s", st, out)
	}
	var div struct {
		Event struct {
			Label string `json:"label"`
		} `json:"event"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "divergence.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &div); err != nil || div.Event.Label != "partition" {
		t.Errorf("divergence event %q (%v), want the outage (partition)", div.Event.Label, err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "anomaly.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"outage: {n4} cut off for 2 s", "raft: 5 became candidate at term 2", "raft: 1 became follower at term 3"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the anomaly's log lacks %q", want)
		}
	}
	var corr struct {
		Labels []struct {
			Label string   `json:"label"`
			R     *float64 `json:"r"`
		} `json:"labels"`
	}
	if b, err = os.ReadFile(filepath.Join(dir, "correlation.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &corr); err != nil || len(corr.Labels) < 5 {
		t.Fatalf("correlation.json: %v, %d labels", err, len(corr.Labels))
	}
	named := false
	for _, c := range corr.Labels[:5] {
		named = named || strings.Contains(c.Label, "MsgVote") && c.R != nil && *c.R > 0.8
	}
	if !named {
		t.Errorf("no MsgVote label among the top five correlations: %+v", corr.Labels[:5])
	}
	if out, st := runCLI(t, args("prevote", t.TempDir(), "--max-runs", "500")...); st != 0 {
		t.Fatalf("prevote: status %d\n%s", st, out)
	}
}

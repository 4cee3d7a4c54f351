package bullet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/bullet"
)

// The pipeline on the join-reject variant (2 MB, committed durations, a
// short search): it finds an anomaly, and the per-node completion data of
// the anomalous execution shows a few receivers finishing long after the
// others, at RanSub's 5 s epoch, while every receiver of the similar fast
// execution finishes within the normal time.
func TestPipelineJoinReject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	dir := t.TempDir()
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), []string{"run", "--system", "bullet", "--variant", "join-reject", "--edd", "testdata/edd.json",
		"--seed", "1", "--profile-runs", "20", "--max-runs", "60", "--triage-runs", "0", "--walks", "4", "--confirm-walks", "0",
		"--jobs", "2", "--out", dir, "--progress", "never"}, &o, &e, bullet.System())
	if st != cli.ExitFinding {
		t.Fatalf("status %d\n%s%s", st, o.String(), e.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "divergence-events.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Executions []struct {
			Name       string  `json:"name"`
			ExecTimeNS int64   `json:"exec_time_ns"`
			NodeLastNS []int64 `json:"node_last_ns"`
		} `json:"executions"`
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	for _, ex := range ev.Executions {
		done := slices.Clone(ex.NodeLastNS[1:]) // receivers
		slices.Sort(done)
		median, last := done[len(done)/2], done[len(done)-1]
		t.Logf("%s: %.3fs, receivers done: median %.3fs, last %.3fs", ex.Name, float64(ex.ExecTimeNS)/1e9, float64(median)/1e9, float64(last)/1e9)
		switch ex.Name {
		case "anomalous":
			if last < 5e9 || median > 3e9 {
				t.Errorf("anomalous: median receiver done at %.3fs, last at %.3fs; want a few after RanSub's 5 s epoch", float64(median)/1e9, float64(last)/1e9)
			}
		case "similar":
			if last > 3e9 {
				t.Errorf("similar: last receiver done at %.3fs", float64(last)/1e9)
			}
		}
	}
}

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// crashy: every node ticks every 10 ms; a tick panics with probability 1/50
// (handler randomness), and the safety property "fewer than 3 ticks on
// node 0" fails in the third tick.
type crashy struct{ ticks int }

func (c *crashy) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", 10*time.Millisecond, nil) }
func (c *crashy) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (c *crashy) Timer(ctx timedsim.Context, name string, _ any) {
	c.ticks++
	if ctx.Rand().IntN(50) == 0 {
		var m map[int]int
		//lint:ignore SA5000 the handler's panic is what the test needs
		m[c.ticks] = 1 // assignment to entry in nil map
	}
	ctx.SetTimer("tick", 10*time.Millisecond, nil)
}

func crashySystem() timedsim.System {
	return timedsim.System{
		Name: "crashy", Doc: "test system whose handler sometimes panics",
		Variants:     []timedsim.Variant{{Name: "v"}},
		DefaultNodes: 3,
		Build: func(variant string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{
				Nodes: nodes,
				New:   func(timedsim.NodeID) timedsim.Service { return &crashy{} },
				Stop:  func(w timedsim.World) bool { return w.Now() > 100*time.Millisecond },
				Safety: []timedsim.Property{{Name: "few ticks", Check: func(w timedsim.World) bool {
					return w.Node(0).(*crashy).ticks < 3
				}}},
				Timeout: time.Second, Network: netmodel.DefaultConfig(),
			}, nil
		},
	}
}

func runWith(t *testing.T, sys timedsim.System, args ...string) (string, string, int) {
	t.Helper()
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), args, &o, &e, sys)
	return o.String(), e.String(), st
}

// A panicking handler is a finding: exit 1, a path file per finding, and
// replaying it reproduces the panic (exit 1) without crashing macepc.
func TestPanicIsAFindingWithReplayPath(t *testing.T) {
	dir := t.TempDir()
	out, errOut, st := runWith(t, crashySystem(), "simulate", "--system", "crashy", "--runs", "30", "--out", dir)
	if st != cli.ExitFinding || !strings.Contains(out, "FINDING: execution") || !strings.Contains(out, "assignment to entry in nil map") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "finding-*.path.json"))
	if len(files) == 0 || len(files) != strings.Count(out, "FINDING:") {
		t.Fatalf("%d finding path files for %d findings", len(files), strings.Count(out, "FINDING:"))
	}
	_, errOut, st = runWith(t, crashySystem(), "replay", "--path", files[0], "--log", filepath.Join(dir, "f.log"))
	if st != cli.ExitFinding || !strings.Contains(errOut, "FINDING: handler panicked") {
		t.Fatalf("replay: status %d stderr %s", st, errOut)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "f.log"))
	if !strings.Contains(string(log), "# panic at step") {
		t.Fatalf("the event log does not say where it panicked:\n%s", log)
	}
	// A rerun into the same directory with fewer runs leaves no stale finding files.
	runWith(t, crashySystem(), "simulate", "--system", "crashy", "--runs", "1", "--seed", "99", "--out", dir)
	after, _ := filepath.Glob(filepath.Join(dir, "finding-*.path.json"))
	if len(after) >= len(files) {
		t.Fatalf("stale finding files kept: %v", after)
	}
}

// --check-safety turns a violated safety property into a finding.
func TestSafetyViolationIsAFinding(t *testing.T) {
	dir := t.TempDir()
	out, _, st := runWith(t, crashySystem(), "simulate", "--system", "crashy", "--runs", "3", "--check-safety", "--out", dir)
	if st != cli.ExitFinding || !strings.Contains(out, `safety property "few ticks" violated`) {
		t.Fatalf("status %d\n%s", st, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "finding-*.path.json"))
	pf, _ := os.ReadFile(files[0])
	if !strings.Contains(string(pf), `"check_safety": true`) {
		t.Fatalf("the path file does not record --check-safety:\n%s", pf)
	}
	_, errOut, st := runWith(t, crashySystem(), "replay", "--path", files[0], "--log", filepath.Join(dir, "s.log"))
	if st != cli.ExitFinding || !strings.Contains(errOut, "safety property") {
		t.Fatalf("replay: status %d: %s", st, errOut)
	}
}

// A panicking handler found by `macepc run` is the anomaly: exit 1, the
// search line names the panic (not a time above the threshold), and the
// divergence search covers the step that panicked (total = steps + 1), so
// its result is not the self-contradicting "step == total".
func TestRunPanicIsAnalysed(t *testing.T) {
	dir := t.TempDir()
	out, errOut, st := runWith(t, crashySystem(), "run", "--system", "crashy", "--train-runs", "3", "--profile-runs", "10", "--out", dir, "--progress", "never")
	if st != cli.ExitFinding || !strings.Contains(out, "FINDING: handler panicked") || strings.Contains(out, "> threshold") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
	var d struct {
		Step       int `json:"step"`
		TotalSteps int `json:"total_steps"`
		Anomaly    struct {
			Steps   int    `json:"steps"`
			Outcome string `json:"outcome"`
		} `json:"anomaly"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "divergence.json"))
	if err != nil || json.Unmarshal(b, &d) != nil {
		t.Fatalf("divergence.json: %v", err)
	}
	if d.Anomaly.Outcome != "panicked" || d.TotalSteps != d.Anomaly.Steps+1 || d.Step >= d.TotalSteps {
		t.Fatalf("divergence %+v", d)
	}
}

// A directory trained on one system is not silently profiled for another.
func TestProfileRefusesAnotherSystemsTraining(t *testing.T) {
	dir := t.TempDir()
	both := []timedsim.System{crashySystem(), pingpong.System()}
	var o, e bytes.Buffer
	if st := cli.Run(context.Background(), []string{"train", "--system", "crashy", "--train-runs", "2", "--out", dir, "--progress", "never"}, &o, &e, both...); st != 0 {
		t.Fatalf("train: %d %s", st, e.String())
	}
	o.Reset()
	e.Reset()
	st := cli.Run(context.Background(), []string{"profile", "--system", "pingpong", "--out", dir, "--progress", "never"}, &o, &e, both...)
	if st != cli.ExitError || !strings.Contains(e.String(), "was trained with --system crashy, not pingpong") {
		t.Fatalf("status %d: %s", st, e.String())
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/randtree"
)

// The README's main job, on both RandTree variants: the buggy variant's
// distribution has a tail at the 10 s recovery period, the fixed one none.
func TestSimulateRandTreeVariants(t *testing.T) {
	dir := t.TempDir()
	maxTime := map[string]time.Duration{}
	slow := map[string]int{}
	for _, v := range []string{"buggy", "fixed"} {
		out := filepath.Join(dir, v)
		var o, e bytes.Buffer
		status := cli.Run(context.Background(), []string{"simulate", "--system", "randtree", "--variant", v, "--runs", "100", "--seed", "1", "--out", out}, &o, &e, randtree.System())
		if status != 0 {
			t.Fatalf("%s: status %d: %s", v, status, e.String())
		}
		f, err := os.Open(filepath.Join(out, "executions.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			var line struct {
				ExecTimeNS int64 `json:"exec_time_ns"`
				Finished   bool  `json:"finished"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			d := time.Duration(line.ExecTimeNS)
			if !line.Finished {
				t.Fatalf("%s: an execution did not finish", v)
			}
			if d > maxTime[v] {
				maxTime[v] = d
			}
			if d > 5*time.Second {
				slow[v]++
			}
			n++
		}
		f.Close()
		if n != 100 {
			t.Fatalf("%s: %d lines", v, n)
		}
	}
	if slow["buggy"] < 2 || slow["buggy"] > 30 || maxTime["buggy"] < 10*time.Second {
		t.Errorf("buggy: %d of 100 executions over 5 s (max %v); want a rare tail at the 10 s recovery", slow["buggy"], maxTime["buggy"])
	}
	if slow["fixed"] != 0 || maxTime["fixed"] > time.Second {
		t.Errorf("fixed: %d slow executions, max %v", slow["fixed"], maxTime["fixed"])
	}
}

// The README's main job exactly as written, training included: the buggy
// RandTree has an anomaly (exit 1) whose divergence step lies strictly
// inside it; the fixed one has none in 500 executions (exit 0).
func TestRunReadmeJob(t *testing.T) {
	for _, c := range []struct {
		variant string
		args    []string
		status  int
	}{
		{"buggy", nil, cli.ExitFinding},
		{"fixed", []string{"--max-runs", "500"}, cli.ExitOK},
	} {
		out := filepath.Join(t.TempDir(), "macepc-out")
		var o, e bytes.Buffer
		args := append([]string{"run", "--system", "randtree", "--variant", c.variant, "--seed", "1", "--out", out}, c.args...)
		if st := cli.Run(context.Background(), args, &o, &e, randtree.System()); st != c.status {
			t.Fatalf("%s: status %d, want %d\n%s%s", c.variant, st, c.status, o.String(), e.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Profile struct {
				Q3 float64 `json:"q3"`
			} `json:"profile"`
			Anomaly struct {
				Found bool `json:"found"`
			} `json:"anomaly"`
			Divergence *struct {
				Step                 int     `json:"step"`
				TotalSteps           int     `json:"total_steps"`
				SimilarExecutionTime float64 `json:"similar_execution_time"`
				Limit                float64 `json:"limit"`
			} `json:"divergence"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Anomaly.Found != (c.variant == "buggy") {
			t.Fatalf("%s: anomaly found = %v", c.variant, s.Anomaly.Found)
		}
		if d := s.Divergence; c.variant == "buggy" && (d == nil || d.Step <= 0 || d.Step >= d.TotalSteps || d.SimilarExecutionTime > d.Limit || d.Limit < s.Profile.Q3) {
			t.Fatalf("buggy: divergence %+v, Q3 %v", d, s.Profile.Q3)
		}
	}
}

// A real SIGINT to the binary during the anomaly search: exit status 2,
// the files of the finished phases intact and valid, and the executions
// the search explored written.
func TestSIGINTKeepsFinishedPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "macepc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "--variant", "fixed", "--max-runs", "1000000000", "--out", out, "--progress", "never")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(out, "profile.json")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("profile.json never appeared")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // well into the search
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "interrupted in phase search") {
		t.Fatalf("exit %v, stderr %q", err, stderr.String())
	}
	for _, name := range []string{"edd.json", "train.json", "profile.json", "search.json"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !json.Valid(b) {
			t.Errorf("%s: %v, valid JSON %v", name, err, json.Valid(b))
		}
	}
	var search struct {
		Complete bool `json:"complete"`
		Explored int  `json:"explored"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "search.json"))
	if json.Unmarshal(b, &search) != nil || search.Complete || search.Explored < 1 {
		t.Errorf("search.json: %s", b)
	}
	if tmp, _ := filepath.Glob(filepath.Join(out, ".*tmp*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

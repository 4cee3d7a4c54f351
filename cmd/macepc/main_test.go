package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

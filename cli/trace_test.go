package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
)

// replay --trace-events writes the replayed execution as Chrome
// trace-event JSON: a slice per event of the event log, a named track per
// node.
func TestReplayTraceEvents(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if out, errs, st := runRT(t, ctx, "simulate", "--runs", "3", "--nodes", "8", "--out", dir, "--progress", "never"); st != cli.ExitOK {
		t.Fatalf("simulate: %d\n%s%s", st, out, errs)
	}
	trace, log := filepath.Join(dir, "slow.trace.json"), filepath.Join(dir, "slow.log")
	_, errs, st := runRT(t, ctx, "replay", "--path", filepath.Join(dir, "slowest.path.json"), "--log", log, "--trace-events", trace)
	if st != cli.ExitOK || !strings.Contains(errs, "trace events in "+trace) {
		t.Fatalf("replay: status %d\n%s", st, errs)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
			Tid  int    `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s is not JSON: %v", trace, err)
	}
	slices, threads := 0, 0
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "X":
			slices++
		case e.Ph == "M" && e.Name == "thread_name":
			threads++
		}
	}
	l, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for _, line := range strings.Split(string(l), "\n") {
		if f := strings.Fields(line); len(f) > 2 && !strings.HasPrefix(line, "#") && !strings.HasPrefix(strings.TrimSpace(line), "->") && f[1][0] == 'n' {
			events++
		}
	}
	if threads != 8 || slices == 0 || slices != events {
		t.Errorf("%d tracks for 8 nodes, %d slices for the event log's %d events", threads, slices, events)
	}
}

package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/pipeline"
)

// A phase that will clearly be huge says so a few seconds in, from its
// first executions' time and memory; one that will not stays quiet
// (before, a 200,000-node run gave no word of its cost).
func TestCostWarning(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name        string
		phase       pipeline.Phase
		done, total int
		jobs        int
		elapsed     time.Duration
		heap0, heap uint64
		want        string // "" : no warning
	}{
		{"small", pipeline.PhaseSimulate, 40, 100, 2, 5 * time.Second, 10 * mb, 12 * mb, ""},
		{"slow", pipeline.PhaseSimulate, 10, 2000, 2, 5 * time.Second, 10 * mb, 10 * mb,
			"simulate: 10 executions finished in 5 s; at this rate its 2000 executions take about 1000 s, and the process holds 10 MiB of memory (0 B since the phase started)"},
		{"none finished", pipeline.PhaseProfile, 0, 50, 2, 60 * time.Second, 100 * mb, 100 * mb,
			"profile: no execution has finished after 60 s on 2 workers; at this rate its 50 executions take at least 1500 s, and"},
		{"hours", pipeline.PhaseSearch, 5, 1000, 2, 5 * time.Second, 0, 0,
			"search: 5 executions finished in 5 s; at this rate its up to 1000 executions take about 1000 s, and"},
		{"memory", pipeline.PhaseTrain, 10, 100, 2, 5 * time.Second, 100 * mb, 9 << 30,
			"train: 10 executions finished in 5 s; at this rate its 100 executions take about 50 s, and the process holds 9 GiB of memory (8.902 GiB since the phase started)"},
		{"memory that fits", pipeline.PhaseTrain, 10, 100, 2, 5 * time.Second, 100 * mb, 2 << 30, ""},
		{"finished", pipeline.PhaseSimulate, 100, 100, 2, time.Hour, 0, 0, ""},
	} {
		got := costWarning(c.phase, c.done, c.total, c.jobs, c.elapsed, c.heap0, c.heap)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q…", c.name, got, c.want)
		}
	}
	if got := costWarning(pipeline.PhaseSimulate, 1, 10000, 2, 5*time.Second, 0, 0); !strings.Contains(got, "50000 s (13.9 h)") {
		t.Errorf("hours: %q", got)
	}
}

// The estimate runs once, after the delay, only while the phase runs.
func TestCostProgressChecksOnce(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var fire func()
	c := costProgress{w: &buf, jobs: 2, after: costAfter, now: func() time.Time { return clock }, heap: func() uint64 { return 0 },
		afterFunc: func(d time.Duration, f func()) func() bool {
			if d != costAfter {
				t.Errorf("delay %v", d)
			}
			fire = f
			return func() bool { return true }
		}}
	task := c.Start(pipeline.PhaseSimulate, 10000)
	task.Add(2, "")
	clock = clock.Add(5 * time.Second)
	fire()
	if !strings.HasPrefix(buf.String(), "macepc: warning: simulate: 2 executions finished in 5 s; at this rate its 10000 executions take about 25000 s") {
		t.Errorf("warning %q", buf.String())
	}
	task.Done()
	buf.Reset()
	fire() // a timer that fires after Done says nothing
	if buf.Len() != 0 {
		t.Errorf("after Done: %q", buf.String())
	}
	// A phase of unknown total (the liveness search) has no estimate.
	fire = nil
	c.Start(pipeline.PhaseLiveness, 0).Done()
	if fire != nil {
		t.Error("an estimate for a phase of unknown total")
	}
}

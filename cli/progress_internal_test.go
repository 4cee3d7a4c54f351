package cli

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macepc/macepc/pipeline"
)

// A phase prints a plain line at each tick of its clock, with the counts,
// rate and time left, and a last line when it ends; a phase that ends
// before the first tick prints nothing (before, a CI log showed nothing
// for two minutes).
func TestLineProgress(t *testing.T) {
	var buf syncBuffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	ticks := make(chan time.Time)
	stopped := 0
	p := lineProgress{w: &buf, every: 5 * time.Second, now: now, ticker: func(time.Duration) (<-chan time.Time, func()) {
		return ticks, func() { stopped++ }
	}}

	quiet := p.Start(pipeline.PhaseTrain, 10)
	quiet.Add(10, "")
	quiet.Done()
	if buf.String() != "" || stopped != 1 {
		t.Fatalf("a phase that ended before its first tick printed %q (ticker stopped %d times)", buf.String(), stopped)
	}

	task := p.Start(pipeline.PhaseSearch, 1000)
	advance(10 * time.Second)
	task.Add(200, "")
	ticks <- clock
	buf.waitLines(1)
	task.Add(50, "triage")
	task.SetTotal(450)
	advance(5 * time.Second)
	ticks <- clock
	ticks <- clock
	buf.waitLines(3)
	task.Done()
	want := []string{
		"macepc: progress: search: 200 of 1000 executions (20%) in 10 s, 20.0/s, about 40 s left",
		"macepc: progress: search: 250 of 450 executions (55%) in 15 s, 16.7/s, about 12 s left: triage",
		"macepc: progress: search: 250 of 450 executions (55%) in 15 s, 16.7/s, about 12 s left: triage",
		"macepc: progress: search: ended after 250 executions in 15 s",
	}
	if got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	buf.Reset()
	spin := p.Start(pipeline.PhaseLiveness, 0)
	spin.Add(1, "depth 5, 12 states, 0 walks")
	ticks <- clock
	buf.waitLines(1)
	spin.Done()
	if got, want := buf.String(), "macepc: progress: liveness: 1 execution in 0 s: depth 5, 12 states, 0 walks\nmacepc: progress: liveness: ended after 1 execution in 0 s\n"; got != want {
		t.Errorf("unknown total: %q, want %q", got, want)
	}
}

// syncBuffer is a bytes.Buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitLines waits until the progress goroutine has written n lines.
func (s *syncBuffer) waitLines(n int) {
	for strings.Count(s.String(), "\n") < n {
		runtime.Gosched()
	}
}

func (s *syncBuffer) Reset() { s.mu.Lock(); defer s.mu.Unlock(); s.b.Reset() }

// auto: plain lines to a file or pipe (a CI log), nothing to a buffer;
// always: lines to a buffer too; never: nothing.
func TestProgressMode(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		mode string
		w    any
		want progressKind
	}{
		{"auto", f, progressLines},
		{"auto", &bytes.Buffer{}, progressNone},
		{"always", &bytes.Buffer{}, progressLines},
		{"always", f, progressLines},
		{"never", f, progressNone},
	} {
		got, err := progressMode(c.mode, c.w.(interface{ Write([]byte) (int, error) }))
		if err != nil || got != c.want {
			t.Errorf("%s to %T: %v %v, want %v", c.mode, c.w, got, err, c.want)
		}
	}
	if _, err := progressMode("sometimes", f); err == nil {
		t.Error("--progress sometimes accepted")
	}
}

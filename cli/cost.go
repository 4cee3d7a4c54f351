package cli

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/pipeline"
)

// The cost estimate: costAfter into a phase, if the executions so far say
// that the phase will take more than costHugeTime or hold more than
// costHugeMemory, a warning on stderr, once per phase, whatever
// --progress says.
const (
	costAfter      = 5 * time.Second
	costHugeTime   = 15 * time.Minute
	costHugeMemory = 8 << 30
)

// costProgress wraps a Progress (nil: none) and estimates each phase's
// cost from its first executions.
type costProgress struct {
	inner pipeline.Progress
	name  string // the binary's, which starts the warning
	w     io.Writer
	jobs  int // workers (0: GOMAXPROCS)
	after time.Duration
	now   func() time.Time
	// heap is the memory the process holds (runtime.MemStats.HeapInuse).
	heap func() uint64
	// afterFunc is time.AfterFunc (tests call the check themselves).
	afterFunc func(time.Duration, func()) (stop func() bool)
}

func newCostProgress(inner pipeline.Progress, name string, w io.Writer, jobs int) costProgress {
	return costProgress{inner: inner, name: name, w: w, jobs: jobs, after: costAfter, now: time.Now, heap: heapInuse,
		afterFunc: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func (c costProgress) Start(phase pipeline.Phase, total int) pipeline.Task {
	var inner pipeline.Task
	if c.inner != nil {
		inner = c.inner.Start(phase, total)
	}
	t := &costTask{c: c, inner: inner, phase: phase, total: total, start: c.now(), heap0: c.heap()}
	if total > 0 {
		t.stop = c.afterFunc(c.after, t.check)
	}
	return t
}

type costTask struct {
	c     costProgress
	inner pipeline.Task
	phase pipeline.Phase
	start time.Time
	heap0 uint64
	stop  func() bool

	mu          sync.Mutex
	done, total int
	over        bool
}

func (t *costTask) Add(n int, note string) {
	t.mu.Lock()
	t.done += n
	t.mu.Unlock()
	if t.inner != nil {
		t.inner.Add(n, note)
	}
}

func (t *costTask) SetTotal(total int) {
	t.mu.Lock()
	t.total = total
	t.mu.Unlock()
	if t.inner != nil {
		t.inner.SetTotal(total)
	}
}

func (t *costTask) Done() {
	if t.stop != nil {
		t.stop()
	}
	t.mu.Lock()
	t.over = true
	t.mu.Unlock()
	if t.inner != nil {
		t.inner.Done()
	}
}

// check prints the phase's cost warning, if it has one.
func (t *costTask) check() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.over {
		return
	}
	jobs := t.c.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if w := costWarning(t.phase, t.done, t.total, jobs, t.c.now().Sub(t.start), t.heap0, t.c.heap()); w != "" {
		fmt.Fprintf(t.c.w, "%s: warning: %s\n", t.c.name, w)
	}
}

// costWarning estimates a phase of total executions from the done ones
// after elapsed, on jobs workers, with the process's heap at heap0 when it
// started and heap now: "" unless the phase will clearly be huge (more
// than costHugeTime, or a heap above costHugeMemory). Before the first
// execution ends, each takes at least elapsed, so the phase at least
// elapsed·⌈total/jobs⌉. The heap is mostly the executions under way (a
// phase keeps a few numbers per finished one), so it is reported as it
// is, with what the phase added, not projected.
func costWarning(phase pipeline.Phase, done, total, jobs int, elapsed time.Duration, heap0, heap uint64) string {
	if total <= 0 || done >= total || elapsed <= 0 {
		return ""
	}
	upTo := ""
	if phase == pipeline.PhaseSearch {
		upTo = "up to " // it stops early at an anomaly
	}
	var est time.Duration
	var rate string
	if done == 0 {
		est = elapsed * time.Duration((total+jobs-1)/jobs)
		rate = fmt.Sprintf("no execution has finished after %s on %d worker%s", units.Duration(elapsed.Round(time.Second)), jobs, plural(jobs, "", "s"))
	} else {
		est = time.Duration(float64(elapsed) * float64(total) / float64(done))
		rate = fmt.Sprintf("%d execution%s finished in %s", done, plural(done, "", "s"), units.Duration(elapsed.Round(time.Second)))
	}
	if est <= costHugeTime && heap <= costHugeMemory {
		return ""
	}
	what := "at least"
	if done > 0 {
		what = "about"
	}
	hours := ""
	if est > time.Hour {
		hours = fmt.Sprintf(" (%.1f h)", est.Hours())
	}
	added := uint64(0)
	if heap > heap0 {
		added = heap - heap0
	}
	return fmt.Sprintf("%s: %s; at this rate its %s%d executions take %s %s%s, and the process holds %s of memory (%s since the phase started): fewer nodes or runs cost less; Ctrl-C keeps the finished executions",
		phase, rate, upTo, total, what, units.Duration(est.Round(time.Second)), hours, units.Bytes(heap), units.Bytes(added))
}

// livenessCost prints the liveness search's cost warning on stderr, if it
// has one (livenessCostWarning), before the search starts: the liveness
// phase has no total of executions for costProgress to estimate it from.
// A configuration the search refuses gets no warning: the search says
// what is wrong with it.
func (a *app) livenessCost(cfg liveness.Config) {
	c, err := liveness.MeasureCost(cfg, time.Now)
	if err != nil {
		return
	}
	if w := livenessCostWarning(c, cmp.Or(cfg.Depth, liveness.DefaultDepth)); w != "" {
		fmt.Fprintf(a.stderr, "%s: warning: %s\n", a.name, w)
	}
}

// livenessCostWarning is the liveness search's cost warning from c, the
// measured start of its first DFS iteration (to depth): "" unless that
// iteration alone will take more than costHugeTime. It says what it is:
// a lower bound of the first iteration (one sequence per event enabled in
// the initial state, each started again from it), before that
// iteration's random walks and the deeper iterations, which the state
// space decides.
func livenessCostWarning(c liveness.Cost, depth int) string {
	least := c.Least()
	if least <= costHugeTime {
		return ""
	}
	hours := ""
	if least > time.Hour {
		hours = fmt.Sprintf(" (%.1f h)", least.Hours())
	}
	on := "on one worker (each iteration's division is a sequential DFS; --level-division runs it on every worker)"
	if c.Workers > 1 {
		on = fmt.Sprintf("on %d workers", c.Workers)
	}
	return fmt.Sprintf("liveness: the initial state has %d enabled events, and every DFS sequence starts again from it, which took %s here: the first iteration (depth %d) runs at least one sequence per enabled event "+
		"(unless a violation ends it first), at least %s%s %s, before its random walks and the deeper iterations, whose levels can each multiply the sequences by up to the number of enabled events: fewer nodes cost less; Ctrl-C keeps the partial report",
		c.Enabled, units.Duration(c.Restart), depth, units.Duration(least.Round(time.Second)), hours, on)
}

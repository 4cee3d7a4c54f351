package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
)

const progressUsage = "progress on stderr: auto (a bar on a terminal, a plain line every few seconds when stderr is a file or pipe, as in CI logs), always, or never"

// progressEvery is how often plain progress lines are printed.
const progressEvery = 5 * time.Second

type progressKind int

const (
	progressNone  progressKind = iota
	progressBar                // a redrawn bar: stderr is a terminal
	progressLines              // a plain line every progressEvery
)

// progressMode is what --progress mode shows on stderr: auto draws a bar
// on a terminal and prints plain lines to a file or pipe (a CI log), and
// nothing to a writer that is not a file (a library caller's buffer);
// always shows progress in any case.
func progressMode(mode string, stderr io.Writer) (progressKind, error) {
	f, isFile := stderr.(*os.File)
	tty := isFile && term.IsTerminal(int(f.Fd()))
	switch mode {
	case "never":
		return progressNone, nil
	case "always", "auto":
		switch {
		case tty:
			return progressBar, nil
		case isFile || mode == "always":
			return progressLines, nil
		}
		return progressNone, nil
	}
	return progressNone, fmt.Errorf("--progress must be auto, always or never, got %q", mode)
}

// progress is the pipeline's progress for --progress mode (none, a bar,
// or plain lines on stderr), with the cost estimate of each phase run on
// jobs workers (costProgress).
func (a *app) progress(mode string, jobs int) (pipeline.Progress, error) {
	kind, err := progressMode(mode, a.stderr)
	if err != nil {
		return nil, err
	}
	// The lines and the cost warning come from timer goroutines.
	w := &lockedWriter{w: a.stderr}
	var p pipeline.Progress
	switch kind {
	case progressBar:
		p = barProgress{w: a.stderr}
	case progressLines:
		p = lineProgress{name: a.name, w: w, every: progressEvery, now: time.Now, ticker: newTicker}
	}
	return newCostProgress(p, a.name, w, jobs), nil
}

// lockedWriter serializes the writes of several goroutines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// barProgress draws one long phase at a time on w: executions done of the
// total, rate, ETA and what the phase is doing.
type barProgress struct {
	w io.Writer
}

func (b barProgress) Start(phase pipeline.Phase, total int) pipeline.Task {
	if total <= 0 { // unknown: a spinner with the count
		total = -1
	}
	return bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(string(phase)),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("exec"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

type bar struct {
	*progressbar.ProgressBar
}

func (b bar) Add(n int, note string) {
	if note != "" {
		b.Describe(note)
	}
	b.ProgressBar.Add(n)
}

func (b bar) SetTotal(total int) { b.ChangeMax(total) }

func (b bar) Done() {
	b.Finish()
	b.Clear()
}

// lineProgress prints a plain line per phase every `every` on w, for logs
// that a bar would fill with carriage returns: what is done of the total,
// the rate, the time left and what the phase is doing. The lines' content
// depends only on the counts and the clock; a phase that ends before the
// first line prints nothing.
type lineProgress struct {
	name   string // the binary's, which starts each line
	w      io.Writer
	every  time.Duration
	now    func() time.Time
	ticker func(time.Duration) (<-chan time.Time, func())
}

func newTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

func (p lineProgress) Start(phase pipeline.Phase, total int) pipeline.Task {
	c, stop := p.ticker(p.every)
	t := &lineTask{name: p.name, w: p.w, now: p.now, phase: string(phase), total: total, start: p.now(), stop: stop,
		quit: make(chan struct{}), exited: make(chan struct{})}
	go t.loop(c)
	return t
}

type lineTask struct {
	name   string
	w      io.Writer
	now    func() time.Time
	stop   func()
	quit   chan struct{}
	exited chan struct{}

	mu          sync.Mutex
	phase, note string
	done, total int
	start       time.Time
	printed     bool
}

func (t *lineTask) loop(c <-chan time.Time) {
	defer close(t.exited)
	for {
		select {
		case <-c:
			t.print(false)
		case <-t.quit:
			return
		}
	}
}

func (t *lineTask) Add(n int, note string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done += n
	if note != "" {
		t.note = note
	}
}

func (t *lineTask) SetTotal(total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total = total
}

// Done stops the lines; a phase that printed one says that it ended.
func (t *lineTask) Done() {
	close(t.quit)
	<-t.exited
	t.stop()
	t.mu.Lock()
	printed := t.printed
	t.mu.Unlock()
	if printed {
		t.print(true)
	}
}

func (t *lineTask) print(final bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.printed = true
	fmt.Fprintln(t.w, progressLine(t.name, t.phase, t.note, t.done, t.total, t.now().Sub(t.start), final))
}

// progressLine is one plain progress line of the binary name: "macepc:
// progress: search: 1200 of 5000 executions (24%) in 12 s, 100.0/s, about
// 38 s left: note".
func progressLine(name, phase, note string, done, total int, elapsed time.Duration, final bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: progress: %s: ", name, phase)
	if final {
		fmt.Fprintf(&b, "ended after %d execution%s in %s", done, plural(done, "", "s"), units.Duration(elapsed.Round(time.Second)))
		return b.String()
	}
	if total > 0 {
		fmt.Fprintf(&b, "%d of %d executions (%d%%)", done, total, 100*done/total)
	} else {
		fmt.Fprintf(&b, "%d execution%s", done, plural(done, "", "s"))
	}
	fmt.Fprintf(&b, " in %s", units.Duration(elapsed.Round(time.Second)))
	if done > 0 && elapsed > 0 {
		fmt.Fprintf(&b, ", %.1f/s", float64(done)/elapsed.Seconds())
		if total > done {
			left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
			fmt.Fprintf(&b, ", about %s left", units.Duration(left.Round(time.Second)))
		}
	}
	if note != "" {
		fmt.Fprintf(&b, ": %s", note)
	}
	return b.String()
}

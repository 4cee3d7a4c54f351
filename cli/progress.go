package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressMode is --progress: auto shows progress when stderr is a
// terminal.
func progressEnabled(mode string, stderr io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := stderr.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, fmt.Errorf("--progress must be auto, always or never, got %q", mode)
}

// progress shows one long phase on stderr: executions done of the total,
// rate, ETA and what was found so far. A disabled progress is a no-op, so
// callers need not check.
type progress struct {
	bar *progressbar.ProgressBar
}

func (a *app) startProgress(enabled bool, phase string, total int) *progress {
	if !enabled {
		return &progress{}
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(phase),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("exec"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar}
}

// add counts n finished executions; note replaces the description (e.g.
// "search: 1 anomaly").
func (p *progress) add(n int, note string) {
	if p.bar == nil {
		return
	}
	if note != "" {
		p.bar.Describe(note)
	}
	p.bar.Add(n)
}

// grow raises the total (the divergence search does not know its number of
// probes in advance).
func (p *progress) grow(total int) {
	if p.bar != nil && total > p.bar.GetMax() {
		p.bar.ChangeMax(total)
	}
}

// setMax changes the total (a search that found its first anomaly now
// has a smaller budget).
func (p *progress) setMax(total int) {
	if p.bar != nil {
		p.bar.ChangeMax(total)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
}

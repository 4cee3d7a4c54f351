package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/macepc/macepc/pipeline"
)

// progressEnabled is --progress: auto shows progress when stderr is a
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

// progress is the pipeline's progress for --progress mode: nil (none) or
// a progress bar on stderr.
func (a *app) progress(mode string) (pipeline.Progress, error) {
	show, err := progressEnabled(mode, a.stderr)
	if err != nil || !show {
		return nil, err
	}
	return barProgress{w: a.stderr}, nil
}

// barProgress draws one long phase at a time on w: executions done of the
// total, rate, ETA and what the phase is doing.
type barProgress struct {
	w io.Writer
}

func (b barProgress) Start(phase pipeline.Phase, total int) pipeline.Task {
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

package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/results"
)

// Rendered is a figure drawn.
type Rendered struct {
	Figure
	SVG []byte
	PNG []byte
}

// RenderFigures draws every figure of a results directory. A figure whose
// drawing panics (a bug) is drawn as a placeholder that says so, and the
// others are kept. The PNG files carry a line naming the run and the
// figure above the plot (the HTML report has its own headings).
func RenderFigures(r *Results) ([]Rendered, error) {
	return renderFigures(Figures(r), runID(r))
}

func renderFigures(figs []Figure, id string) ([]Rendered, error) {
	var out []Rendered
	for _, f := range figs {
		if f.preSVG != nil {
			out = append(out, Rendered{Figure: f, SVG: f.preSVG, PNG: f.prePNG})
			continue
		}
		rd, err := renderFigure(f, id)
		if err != nil {
			if rd, err = renderFigure(failedFigure(f.ID, f.Title, err.Error()), id); err != nil {
				return nil, fmt.Errorf("report: plot %s: %w", f.ID, err)
			}
		}
		out = append(out, rd)
	}
	return out, nil
}

func renderFigure(f Figure, id string) (Rendered, error) {
	svg, err := renderSVG(f.Draw, f.W, f.H)
	if err != nil {
		return Rendered{}, err
	}
	png, err := renderPNG(titled(f.Draw, id+" · "+f.Title), f.W, f.H+pngTitleH)
	if err != nil {
		return Rendered{}, err
	}
	return Rendered{Figure: f, SVG: svg, PNG: png}, nil
}

// runID names a results directory's run: system/variant, seed.
func runID(r *Results) string {
	switch {
	case r.Summary != nil:
		return fmt.Sprintf("macepc %s/%s, seed %d", r.Summary.System, r.Summary.Variant, r.Summary.Seed)
	case r.Liveness != nil:
		return fmt.Sprintf("macepc %s/%s, seed %d (liveness)", r.Liveness.System, r.Liveness.Variant, r.Liveness.Seed)
	}
	return "macepc"
}

// DefaultProgram is the binary the report's replay commands name unless
// the caller names its own (Options.Program).
const DefaultProgram = "macepc"

// Options are WriteWith's.
type Options struct {
	// Program names the binary in the replay commands the report prints
	// (DefaultProgram when ""): a front end built on cli.Main passes its
	// own name.
	Program string
	// WaitExplore, if set, lets a caller write explore.html while the
	// report renders its figures: WriteWith calls it once they are
	// rendered, and only when it has returned looks for explore.html,
	// which report.html links to. Without it, Load's look decides.
	WaitExplore func()
}

// Write renders the report of a results directory into it: report.html,
// summary.md and plots/<id>.png. It reads only the directory's files. A
// plots that is a symbolic link is refused: nothing is written through a
// link to somewhere outside the directory. Its replay commands name
// DefaultProgram.
func Write(dir string) error { return WriteWith(dir, Options{}) }

// WriteWith is Write with options.
func WriteWith(dir string, o Options) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	r.Program = o.Program
	figs, err := RenderFigures(r)
	if o.WaitExplore != nil {
		o.WaitExplore()
		_, serr := os.Stat(filepath.Join(dir, results.FileExplore))
		r.Explore = serr == nil
	}
	if err != nil {
		return err
	}
	plots := filepath.Join(dir, results.DirPlots)
	if st, err := os.Lstat(plots); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("report: %s is a symbolic link: the report writes its plots into a directory of its own, never through a link (remove the link, and macepc writes %s there)", plots, results.DirPlots)
	}
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range figs {
		if err := atomicfile.WriteBytes(filepath.Join(dir, results.DirPlots, f.ID+".png"), f.PNG); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, r, figs); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, results.FileReport), html.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, r, figs)
	if err := atomicfile.WriteBytes(filepath.Join(dir, results.FileMarkdown), md.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

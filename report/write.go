package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
)

// Rendered is a figure drawn.
type Rendered struct {
	Figure
	SVG []byte
	PNG []byte
}

// RenderFigures draws every figure of a results directory.
func RenderFigures(r *Results) ([]Rendered, error) {
	var out []Rendered
	for _, f := range Figures(r) {
		if f.preSVG != nil {
			out = append(out, Rendered{Figure: f, SVG: f.preSVG, PNG: f.prePNG})
			continue
		}
		svg, png, err := Render(f.Draw, f.W, f.H)
		if err != nil {
			return nil, fmt.Errorf("report: plot %s: %w", f.ID, err)
		}
		out = append(out, Rendered{Figure: f, SVG: svg, PNG: png})
	}
	return out, nil
}

// Write renders the report of a results directory into it: report.html,
// summary.md and plots/<id>.png. It reads only the directory's files.
func Write(dir string) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	figs, err := RenderFigures(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, DirPlots), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range figs {
		if err := atomicfile.WriteBytes(filepath.Join(dir, DirPlots, f.ID+".png"), f.PNG); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, r, figs); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, FileHTML), html.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, r, figs)
	if err := atomicfile.WriteBytes(filepath.Join(dir, FileMarkdown), md.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

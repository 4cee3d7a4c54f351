package cli

import (
	"fmt"
	"path/filepath"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
)

// reportCmd is `macepc report DIR`: re-render report.html, summary.md and
// the plots from a results directory's files alone.
func (a *app) reportCmd(args []string) (int, error) {
	fs := a.flags("report")
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "Usage: macepc report DIR\n\nRenders DIR/%s, DIR/%s and DIR/%s/*.png from the JSON files of a results directory.\n", report.FileHTML, report.FileMarkdown, report.DirPlots)
	}
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() != 1 {
		return ExitError, fmt.Errorf("report takes one results directory, got %d arguments (usage: macepc report DIR)", fs.NArg())
	}
	dir := fs.Arg(0)
	if _, err := pipeline.ExistingDir(dir); err != nil {
		return ExitError, err
	}
	d := pipeline.NewDir(dir)
	if err := a.lockDir(d); err != nil {
		return ExitError, err
	}
	if err := d.Check(a.reg); err != nil { // the report renders what it reads without checking it
		return ExitError, err
	}
	if err := report.Write(dir); err != nil {
		return ExitError, err
	}
	a.printReport(dir)
	return ExitOK, nil
}

func (a *app) printReport(dir string) {
	fmt.Fprintf(a.stdout, "  report: %s (%s, %s)\n", filepath.Join(dir, report.FileHTML), filepath.Join(dir, report.FileMarkdown), filepath.Join(dir, report.DirPlots, "*.png"))
}

// writeReport renders the report at the end of a command; a failure is a
// warning (the results files are written and the exit status stands).
// explore.html is written first, so that report.html links to it.
func (a *app) writeReport(dir string) {
	wrote, err := pipeline.Explore(a.ctx, a.reg, dir)
	if err != nil {
		fmt.Fprintf(a.stderr, "macepc: warning: %v\n", oneLine(err))
	}
	if err := report.Write(dir); err != nil {
		fmt.Fprintf(a.stderr, "macepc: warning: %v\n", oneLine(err))
		return
	}
	a.printReport(dir)
	if wrote {
		fmt.Fprintf(a.stdout, "  explore: %s\n", filepath.Join(dir, explore.FileHTML))
	}
}

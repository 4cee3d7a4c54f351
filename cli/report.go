package cli

import (
	"fmt"
	"path/filepath"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// reportCmd is `macepc report --out DIR`: re-render report.html,
// summary.md and the plots from a results directory's files alone. The
// directory as an argument (`macepc report DIR`) is the old, deprecated
// spelling.
func (a *app) reportCmd(args []string) (int, error) {
	fs := a.flags("report")
	out := fs.String("out", "macepc-out", "the results directory to render")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	dir := *out
	switch {
	case fs.NArg() > 1:
		return ExitError, fmt.Errorf("report takes one results directory, --out DIR; got the arguments %q", fs.Args())
	case fs.NArg() == 1 && fs.Changed("out"):
		return ExitError, fmt.Errorf("give the results directory once, with --out; got --out %s and the argument %s", *out, fs.Arg(0))
	case fs.NArg() == 1:
		dir = fs.Arg(0)
		fmt.Fprintf(a.stderr, "%s: warning: '%s report DIR' is deprecated: use '%s', as every other command\n", a.name, a.name, a.cmd("report", "--out", dir))
	}
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
	if err := report.WriteWith(dir, report.Options{Program: a.name}); err != nil {
		return ExitError, err
	}
	a.printReport(dir)
	return ExitOK, nil
}

func (a *app) printReport(dir string) {
	fmt.Fprintf(a.stdout, "  report: %s (%s, %s)\n", filepath.Join(dir, results.FileReport), filepath.Join(dir, results.FileMarkdown), filepath.Join(dir, results.DirPlots, "*.png"))
}

// writeReport renders the report at the end of a command; a failure is a
// warning (the results files are written and the exit status stands).
// explore.html is written while the report renders its figures
// (report.Options.WaitExplore), before report.html, which links to it.
func (a *app) writeReport(dir string) {
	var wrote bool
	explored := make(chan struct{})
	go func() {
		defer close(explored)
		var err error
		if wrote, err = pipeline.Explore(a.ctx, a.reg, dir); err != nil {
			fmt.Fprintf(a.stderr, "%s: warning: %v\n", a.name, message(a.name, err))
		}
	}()
	wait := func() { <-explored }
	err := report.WriteWith(dir, report.Options{Program: a.name, WaitExplore: wait})
	wait()
	if err != nil {
		fmt.Fprintf(a.stderr, "%s: warning: %v\n", a.name, message(a.name, err))
		return
	}
	a.printReport(dir)
	if wrote {
		fmt.Fprintf(a.stdout, "  explore: %s\n", filepath.Join(dir, results.FileExplore))
	}
}

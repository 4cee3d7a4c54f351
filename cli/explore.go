package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
)

// claimOutput prepares to write explore.html to file: in a results
// directory it takes the directory's lock (as explore DIR does), so that
// no run writes into it meanwhile; elsewhere, where the other files are
// not macepc's, it only removes the temporary files that a killed explore
// left for file.
func (a *app) claimOutput(file string) error {
	dir := filepath.Dir(file)
	for _, f := range []string{results.FileSummary, results.FileProfile, results.FileSimulate, results.FileLiveness} {
		if fileExists(filepath.Join(dir, f)) {
			return a.lockDir(pipeline.NewDir(dir))
		}
	}
	if _, err := atomicfile.RemoveStaleOf(file); err != nil {
		return fmt.Errorf("--out: removing stale temporary files: %w", err)
	}
	return nil
}

// exploreCmd is `macepc explore DIR` or `macepc explore --path A [--path
// B]`: write explore.html, the execution debugger in the browser.
func (a *app) exploreCmd(args []string) (int, error) {
	fs := a.flags("explore")
	paths := fs.StringArray("path", nil, "path file to explore instead of a results directory (timed or liveness; give two to see them side by side)")
	out := fs.String("out", "", "with --path: the file to write (default: explore.html next to the first path file)")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if len(*paths) > 0 {
		if fs.NArg() > 0 {
			return ExitError, fmt.Errorf("explore takes a results directory or --path files, not both")
		}
		if len(*paths) > 2 {
			return ExitError, fmt.Errorf("explore takes at most two --path files, got %d", len(*paths))
		}
		file := *out
		if file == "" {
			file = filepath.Join(filepath.Dir((*paths)[0]), results.FileExplore)
		}
		var inputs []namedFile
		for _, p := range *paths {
			inputs = append(inputs, namedFile{"--path", p})
		}
		if err := checkOutputs([]namedFile{{"--out", file}}, inputs); err != nil {
			return ExitError, err
		}
		if err := a.claimOutput(file); err != nil {
			return ExitError, err
		}
		if err := pipeline.ExplorePaths(a.ctx, a.reg, *paths, file); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "  explore: %s\n", file)
		return ExitOK, nil
	}
	if *out != "" {
		return ExitError, fmt.Errorf("--out goes with --path (a results directory gets DIR/%s)", results.FileExplore)
	}
	if fs.NArg() != 1 {
		return ExitError, fmt.Errorf("explore takes one results directory, got %d arguments (usage: macepc explore DIR)", fs.NArg())
	}
	dir := fs.Arg(0)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ExitError, fmt.Errorf("explore: %s is not a results directory (run '%s' first)", dir, a.cmd("run", "--out", dir))
	}
	// explore.html is one of the directory's files: no other process may
	// write into it meanwhile, and the lock removes the temporary files a
	// killed explore left.
	if err := a.lockDir(pipeline.NewDir(dir)); err != nil {
		return ExitError, err
	}
	wrote, err := pipeline.Explore(a.ctx, a.reg, dir)
	if err != nil {
		return ExitError, err
	}
	if !wrote {
		return ExitError, fmt.Errorf("%s has no execution to explore: no %s and no liveness violation (run '"+a.name+" run' first)", dir, results.FileAnomalyPath)
	}
	fmt.Fprintf(a.stdout, "  explore: %s\n", filepath.Join(dir, results.FileExplore))
	return ExitOK, nil
}

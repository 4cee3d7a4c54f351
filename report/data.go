package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/results"
)

// Results is what a results directory holds, decoded. A phase that did not
// run leaves its fields nil.
type Results struct {
	// Program names the binary in the replay commands the report prints
	// (DefaultProgram when ""): Load leaves it "", WriteWith sets it.
	Program     string
	Summary     *results.Summary
	Profile     *results.Profile
	Search      *results.Search
	SearchExecs []results.CountsLine
	Divergence  *results.Divergence
	Walks       []results.CountsLine
	Events      *results.Events
	Correlation *results.Correlation
	// Diff is divergence.diff's text ("" when absent).
	Diff string
	// Liveness is liveness.json and StateDiff state.diff's text, of a
	// liveness run (nil, "" when absent).
	Liveness  *results.Liveness
	StateDiff string
	// Regress is regress.json, RegressSVG and RegressPNG its plot (nil
	// when absent).
	Regress                *results.Regress
	RegressSVG, RegressPNG []byte
	// Explore: explore.html is in the directory.
	Explore bool
}

// Load reads a results directory. summary.json and profile.json must be
// there (a directory without them is not a results directory), unless it
// holds a liveness run's liveness.json; the files of later phases are
// optional, but one that is there must be well-formed.
func Load(dir string) (*Results, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %s is not a results directory: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("report: %s is not a results directory (not a directory)", dir)
	}
	r := &Results{}
	if _, err := os.Stat(filepath.Join(dir, results.FileExplore)); err == nil {
		r.Explore = true
	}
	if lf, err := readFile(dir, results.FileLiveness, results.ReadLiveness); err != nil {
		return nil, err
	} else if lf != nil {
		r.Liveness = lf
		if b, err := readlimit.ReadFile(filepath.Join(dir, results.FileStateDiff), readlimit.MaxTextFile); err == nil {
			r.StateDiff = string(b)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("report: %w", err)
		}
		// A liveness run alone has no timed pipeline's files.
		if _, err := os.Stat(filepath.Join(dir, results.FileSummary)); errors.Is(err, fs.ErrNotExist) {
			return r, nil
		}
	}
	if r.Summary, err = readFile(dir, results.FileSummary, results.ReadSummary); err == nil && r.Summary == nil {
		err = notResults(dir, results.FileSummary)
	}
	if err != nil {
		return nil, err
	}
	if r.Profile, err = readFile(dir, results.FileProfile, results.ReadProfile); err == nil && r.Profile == nil {
		err = notResults(dir, results.FileProfile)
	}
	if err != nil {
		return nil, err
	}
	if sf, err := readFile(dir, results.FileSearch, results.ReadSearch); err != nil {
		return nil, err
	} else if sf != nil {
		r.Search = sf
		if r.SearchExecs, err = results.ReadCountsLines(filepath.Join(dir, results.FileSearchExecs), true, results.CountsSpec{Phase: "search", Lines: sf.Explored}); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	if df, err := readFile(dir, results.FileDivergence, results.ReadDivergence); err != nil {
		return nil, err
	} else if df != nil {
		r.Divergence = df
		if r.Walks, err = results.ReadCountsLines(filepath.Join(dir, results.FileWalks), true, results.CountsSpec{Phase: "diverge", Lines: df.Executions + df.BudgetExecutions, AtMost: true}); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	if r.Events, err = readFile(dir, results.FileEvents, results.ReadEvents); err != nil {
		return nil, err
	}
	if r.Correlation, err = readFile(dir, results.FileCorrelation, results.ReadCorrelation); err != nil {
		return nil, err
	}
	if b, err := readlimit.ReadFile(filepath.Join(dir, results.FileDiff), readlimit.MaxTextFile); err == nil {
		r.Diff = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	if r.Regress, err = readFile(dir, results.FileRegress, results.ReadRegress); err != nil {
		return nil, err
	} else if r.Regress != nil {
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{results.FileRegressSVG, &r.RegressSVG}, {results.FileRegressPNG, &r.RegressPNG}} {
			if b, err := readlimit.ReadFile(filepath.Join(dir, f.name), readlimit.MaxTextFile); err == nil {
				*f.dst = b
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("report: %w", err)
			}
		}
	}
	return r, nil
}

// notResults is the error of a directory without the file name that
// every results directory has.
func notResults(dir, name string) error {
	return fmt.Errorf("report: %s has no %s: not a results directory of 'macepc run' (or of a phase command)", dir, name)
}

// readFile reads dir's file name with read, a reader of package results;
// a missing file is (nil, nil).
func readFile[T any](dir, name string, read func(string) (*T, error)) (*T, error) {
	v, err := read(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return v, nil
}

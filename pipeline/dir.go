package pipeline

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// PhaseSeed is the base seed of a phase's executions. The profile uses the
// run's seed itself (so `macepc simulate --seed S --runs N` shows the same
// executions); the others derive theirs, so the search explores executions
// the profile did not see.
func PhaseSeed(base uint64, phase Phase) uint64 {
	if phase == PhaseProfile {
		return base
	}
	return timedsim.ExecutionSeed(base^xxhash.Sum64String("macepc/"+string(phase)), 0)
}

// Dir is a results directory. It owns the layout (the File constants),
// writes every file atomically (a temporary file renamed into place), so
// that an interrupted phase leaves the completed phases' files intact,
// checks that the files it reads belong to one configuration (their
// config hash), and removes the files of the later phases once a phase
// has succeeded, just before it writes its own (ClearAfter).
type Dir struct {
	path string
	// failWrite, in a test, wraps the writer of each file a phase writes
	// (phaseWrite), to fail as a full disk does; nil otherwise.
	failWrite func(name string, w io.Writer) io.Writer
	// The directory's lock as this Dir holds it (lock.go): locked while a
	// Lock of it holds the flock, busy while a function of this package
	// writes into it.
	mu           sync.Mutex
	locked, busy bool
}

// NewDir is the results directory path, without touching it: reading
// its files needs no more (LoadTraining, LoadProfile); a phase that writes
// creates it.
func NewDir(path string) *Dir { return &Dir{path: path} }

// OpenDir opens the results directory path, creating it if it does not
// exist.
func OpenDir(path string) (d *Dir, err error) {
	defer wrapErr(&err)
	d = NewDir(path)
	return d, d.create()
}

func (d *Dir) create() error {
	if d.path == "" {
		return fieldErr("Env.Dir", "must name a directory")
	}
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
	}
	return nil
}

// ExistingDir opens the results directory path, which must exist: the
// phases that start from profile.json do not create a mistyped directory.
func ExistingDir(path string) (d *Dir, err error) {
	defer wrapErr(&err)
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil, configErr("Env.Dir", [][]string{{"run"}, {"profile", "--out", path}}, "{Env.Dir} %s is not a results directory (run '{hint}' or '{hint}' first)", path)
	}
	return NewDir(path), nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// File is the path of the file name in the directory.
func (d *Dir) File(name string) string { return filepath.Join(d.path, name) }

// ClearAfter removes the files of the phases after phase ("": all of
// them, training included), the summary and the regression test's files,
// which describe the directory as it was, and the rendered report.
func (d *Dir) ClearAfter(phase Phase) (err error) {
	defer wrapErr(&err)
	if d == nil {
		return errNilDir
	}
	return d.clearAfter(phase)
}

func (d *Dir) clearAfter(phase Phase) error {
	after := phase == ""
	files := []string{results.FileSummary, results.FileRegress, results.FileRegressSVG, results.FileRegressPNG, results.FileRegressOutlier, results.FileRegressSlowest, results.FileRegressBaseBench, results.FileRegressCurBench} // regress writes these last
	for _, p := range phaseTable() {
		if after {
			files = append(files, p.Files...)
		}
		after = after || p.Phase == phase
	}
	files = append(files, results.FileReport, results.FileMarkdown, results.FileExplore) // rendered again at the end
	if err := d.remove(files...); err != nil {
		return err
	}
	return d.clearPlots()
}

// clearPlots removes from DIR/plots the files the report wrote there
// (report.PlotFiles) and the temporary files a killed writer left, then
// the directory if that empties it. A file macepc did not write (a figure
// of the user's, in an --out that was not a results directory) stays,
// and so does the directory. A link named plots is removed, never
// followed; a file named plots is not macepc's and stays (the report
// says that it cannot write its plots).
func (d *Dir) clearPlots() error {
	dir := d.File(results.DirPlots)
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
	case st.Mode()&fs.ModeSymlink != 0:
		if err := os.Remove(dir); err != nil {
			return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
		}
		return nil
	case !st.IsDir():
		return nil
	}
	for _, f := range report.PlotFiles() {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
		}
	}
	if _, err := atomicfile.RemoveStale(dir); err != nil {
		return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
	}
	os.Remove(dir) // fails, and leaves it, unless it is empty
	return nil
}

// remove removes the named files (a name with '*' is a pattern: the files
// of d it matches); a missing file is no error.
func (d *Dir) remove(files ...string) error {
	for _, f := range files {
		names := []string{d.File(f)}
		if strings.Contains(f, "*") {
			names = names[:0]
			entries, _ := os.ReadDir(d.path) // a missing dir has nothing to remove
			for _, e := range entries {
				if ok, _ := filepath.Match(f, e.Name()); ok {
					names = append(names, d.File(e.Name()))
				}
			}
		}
		for _, name := range names {
			if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
			}
		}
	}
	return nil
}

// interrupted is a phase's cancellation (ctx's): the files of the
// completed phases are intact.
func (d *Dir) interrupted(ctx context.Context, phase Phase, done, total int) error {
	return interruption(ctx, "interrupted in phase %s after %d of %d executions; the files of the completed phases are in %s", phase, done, total, d.path)
}

func (d *Dir) exists(name string) bool { return fileExists(d.File(name)) }

func (d *Dir) writeJSON(name string, v any) error { return results.WriteJSON(d.File(name), v) }

func (d *Dir) write(name string, fill func(io.Writer) error) error {
	return atomicfile.Write(d.File(name), fill)
}

func newCountsLine(phase Phase, index, prefix int, seed uint64, r *timedsim.Result) results.CountsLine {
	smp := anomaly.NewSample(r) // plain and composite labels merged, as phase 3b reads them
	return results.CountsLine{Phase: string(phase), Index: index, Prefix: prefix, Seed: seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
		Outcome: r.Outcome, Finding: Finding(r), Counts: smp.Counts, Window: smp.Window}
}

// jsonLines collects JSON Lines in memory; the file is written with the
// phase's others at its end (phaseWrite.writeLines).
type jsonLines struct {
	buf []byte
	err error
}

func (j *jsonLines) add(l results.CountsLine) {
	if j.err != nil {
		return
	}
	j.buf, j.err = results.AppendCountsLine(j.buf, &l)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// SameFile reports whether a and b name the same existing file.
func SameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

func round6(x float64) float64 {
	const k = 1e6
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}

func round9(v float64) float64 {
	d := time.Duration(v*1e9 + 0.5)
	return d.Seconds()
}

// Secs is a duration in nanoseconds as seconds, rounded to the nanosecond
// (summary.json's times).
func Secs(ns int64) float64 { return round9(time.Duration(ns).Seconds()) }

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/timedsim"
)

// The files of a results directory, by the phase that writes them. A
// phase that succeeded removes the files of the phases after it
// (Dir.ClearAfter) before it writes its own, so a directory never mixes
// the results of two configurations.
const (
	FileEDD         = "edd.json"   // phase 1a: the trained event duration distributions
	FileTrain       = "train.json" // phase 1a: how edd.json was trained (TrainFile)
	FileProfile     = "profile.json"
	FileSearch      = "search.json"
	FileSearchExecs = "search-executions.jsonl" // every explored execution with its event counts (CountsLine)
	FileAnomalyPath = "anomaly.path.json"       // the path file of class 1's representative
	FileDivergence  = "divergence.json"
	FileWalks       = "divergence-walks.jsonl" // every walk of phase 3a (CountsLine)
	FileSimilarPath = "similar.path.json"
	FileAnomalyLog  = "anomaly.log"
	FileSimilarLog  = "similar.log"
	FileDiff        = "divergence.diff"        // both event logs side by side from the divergence point
	FileEvents      = "divergence-events.json" // EventsFile, for the report's event graph
	FileCorrelation = "correlation.json"
	FileSummary     = "summary.json"
)

// Phase names a phase of the pipeline; its seed is PhaseSeed(seed, phase).
type Phase string

// The phases of the pipeline (paper 004 §3.2), in order, and the
// regression test's bootstrap.
const (
	PhaseTrain     Phase = "train"     // 1a
	PhaseProfile   Phase = "profile"   // 1b
	PhaseSearch    Phase = "search"    // 2
	PhaseDiverge   Phase = "diverge"   // 3a
	PhaseCorrelate Phase = "correlate" // 3b
	PhaseRegress   Phase = "regress"
)

// The other commands' long runs, as Progress names them: the explorer's
// plain run (Simulate) and the liveness search (Liveness).
const (
	PhaseSimulate Phase = "simulate"
	PhaseLiveness Phase = "liveness"
)

// phaseFiles lists the pipeline's phases in order with the files each writes.
func phaseFiles() []struct {
	phase Phase
	files []string
} {
	return []struct {
		phase Phase
		files []string
	}{
		{PhaseTrain, []string{FileEDD, FileTrain}},
		{PhaseProfile, []string{FileProfile}},
		{PhaseSearch, []string{FileSearch, FileSearchExecs, FileAnomalyPath, "anomaly-class-*.path.json"}},
		{PhaseDiverge, []string{FileDivergence, FileWalks, FileSimilarPath, FileAnomalyLog, FileSimilarLog, FileDiff, FileEvents}},
		{PhaseCorrelate, []string{FileCorrelation}},
	}
}

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
		return errors.New("--out must name a directory")
	}
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// ExistingDir opens the results directory path, which must exist: the
// phases that start from profile.json do not create a mistyped directory.
func ExistingDir(path string) (d *Dir, err error) {
	defer wrapErr(&err)
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--out %s is not a results directory (run 'macepc run' or '%s' first)", path, command("profile", "--out", path))
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
	files := []string{FileSummary, FileRegress, FileRegressSVG, FileRegressPNG, FileRegressOutlier, FileRegressSlowest, FileRegressBaseBench, FileRegressCurBench} // regress writes these last
	for _, p := range phaseFiles() {
		if after {
			files = append(files, p.files...)
		}
		after = after || p.phase == phase
	}
	files = append(files, report.FileHTML, report.FileMarkdown, explore.FileHTML) // rendered again at the end
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
	dir := d.File(report.DirPlots)
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	case st.Mode()&fs.ModeSymlink != 0:
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		return nil
	case !st.IsDir():
		return nil
	}
	for _, f := range report.PlotFiles() {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if _, err := atomicfile.RemoveStale(dir); err != nil {
		return fmt.Errorf("--out: %w", err)
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
				return fmt.Errorf("--out: %w", err)
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

func (d *Dir) writeJSON(name string, v any) error { return writeJSON(d.File(name), v) }

func (d *Dir) write(name string, fill func(io.Writer) error) error {
	return atomicfile.Write(d.File(name), fill)
}

// Header starts the JSON files of a results directory: what they are and
// which run of which system they belong to.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	System  string `json:"system"`
	Variant string `json:"variant"`
	Nodes   int    `json:"nodes"`
	Seed    uint64 `json:"seed"`
}

func newHeader(format, system, variant string, nodes int, seed uint64) Header {
	return Header{Format: format, Version: 1, System: system, Variant: variant, Nodes: nodes, Seed: seed}
}

// CountsLine is one execution of phase 2 or 3a with its event counts
// (plain and composite labels together) for phase 3b: a line of
// search-executions.jsonl or divergence-walks.jsonl.
type CountsLine struct {
	Phase      string         `json:"phase"`
	Index      int            `json:"index"`  // execution index (search) or walk index (divergence)
	Prefix     int            `json:"prefix"` // divergence: steps replayed from the anomalous execution
	Seed       uint64         `json:"seed"`   // seed of the execution (search) or of the walk's continuation
	ExecTimeNS int64          `json:"exec_time_ns"`
	Steps      int            `json:"steps"`
	Outcome    string         `json:"outcome"`
	Recovered  *bool          `json:"recovered,omitempty"`
	Finding    string         `json:"finding,omitempty"` // a panic or safety violation (Finding)
	Counts     map[string]int `json:"counts"`
	Window     map[string]int `json:"window"`
}

func newCountsLine(phase Phase, index, prefix int, seed uint64, r *timedsim.Result) CountsLine {
	smp := anomaly.NewSample(r) // plain and composite labels merged, as phase 3b reads them
	return CountsLine{Phase: string(phase), Index: index, Prefix: prefix, Seed: seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
		Outcome: r.Outcome.String(), Finding: Finding(r), Counts: smp.Counts, Window: smp.Window}
}

// jsonLines collects JSON Lines in memory; the file is written with the
// phase's others at its end (phaseWrite.writeLines).
type jsonLines struct {
	buf bytes.Buffer
	err error
}

func (j *jsonLines) add(v any) {
	if j.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		j.err = err
		return
	}
	j.buf.Write(b)
	j.buf.WriteByte('\n')
}

// readJSONFile reads a versioned JSON file of the results directory into v
// (which must have Format and Version fields checked by the caller),
// refusing unknown fields and trailing data, and a file larger than
// readlimit.MaxJSONFile (a device such as /dev/zero fails at its first
// byte, which cannot start a JSON value).
func readJSONFile(path string, v any) error {
	f, err := readlimit.Open(path, readlimit.MaxJSONFile)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, readlimit.ErrTooLarge) {
			return err // it names the file
		}
		return fmt.Errorf("%s is malformed: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s is malformed: data after the JSON object", path)
	}
	return nil
}

// checkFormat checks a file's format and version fields.
func checkFormat(path, format string, version int, wantFormat string) error {
	if format != wantFormat || version != 1 {
		return fmt.Errorf("%s is not a version-1 %s file (format %q, version %d)", path, wantFormat, format, version)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b)
}

// jsonIndent is the JSON of every results file: indented, newline-ended.
func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// writeJSONTo writes v as indented JSON.
func writeJSONTo(w io.Writer, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
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

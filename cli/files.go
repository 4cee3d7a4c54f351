package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/timedsim"
)

// The files of a results directory, by the phase that writes them. A
// phase that starts removes the files of the phases after it, so a
// directory never mixes the results of two configurations.
const (
	fileEDD         = "edd.json"
	fileTrain       = "train.json"
	fileProfile     = "profile.json"
	fileSearch      = "search.json"
	fileSearchExecs = "search-executions.jsonl"
	fileAnomalyPath = "anomaly.path.json"
	fileDivergence  = "divergence.json"
	fileWalks       = "divergence-walks.jsonl"
	fileSimilarPath = "similar.path.json"
	fileAnomalyLog  = "anomaly.log"
	fileSimilarLog  = "similar.log"
	fileDiff        = "divergence.diff"
	fileCorrelation = "correlation.json"
	fileSummary     = "summary.json"
)

// fileHeader starts the JSON files of a results directory: what they are
// and which run of which system they belong to.
type fileHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	System  string `json:"system"`
	Variant string `json:"variant"`
	Nodes   int    `json:"nodes"`
	Seed    uint64 `json:"seed"`
}

func newHeader(format, system, variant string, nodes int, seed uint64) fileHeader {
	return fileHeader{Format: format, Version: 1, System: system, Variant: variant, Nodes: nodes, Seed: seed}
}

// phases lists the pipeline's phases in order with the files each writes.
func phases() []struct {
	name  string
	files []string
} {
	return []struct {
		name  string
		files []string
	}{
		{"train", []string{fileEDD, fileTrain}},
		{"profile", []string{fileProfile}},
		{"search", []string{fileSearch, fileSearchExecs, fileAnomalyPath, "anomaly-class-*.path.json"}},
		{"diverge", []string{fileDivergence, fileWalks, fileSimilarPath, fileAnomalyLog, fileSimilarLog, fileDiff, fileEvents}},
		{"correlate", []string{fileCorrelation}},
	}
}

// clearAfter removes the files of the phases after phase ("": all of
// them) and the summary, which is rewritten from what remains.
func clearAfter(dir, phase string) error {
	after := phase == ""
	files := []string{fileSummary, fileRegress, fileRegressSVG, fileRegressPNG, fileRegressOutlier} // regress writes these last
	for _, p := range phases() {
		if after {
			files = append(files, p.files...)
		}
		after = after || p.name == phase
	}
	files = append(files, report.FileHTML, report.FileMarkdown) // rendered again at the end
	for _, f := range files {
		names := []string{filepath.Join(dir, f)}
		if strings.Contains(f, "*") { // a pattern: the files of dir it matches
			names = names[:0]
			entries, _ := os.ReadDir(dir) // a missing dir has nothing to remove
			for _, e := range entries {
				if ok, _ := filepath.Match(f, e.Name()); ok {
					names = append(names, filepath.Join(dir, e.Name()))
				}
			}
		}
		for _, name := range names {
			if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("--out: %w", err)
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, report.DirPlots)); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// phaseSeed is the base seed of a phase's executions. The profile uses the
// run's seed itself (so `simulate --seed S --runs N` shows the same
// executions); the others derive theirs, so the search explores executions
// the profile did not see.
func phaseSeed(base uint64, phase string) uint64 {
	if phase == "profile" {
		return base
	}
	return timedsim.ExecutionSeed(base^xxhash.Sum64String("macepc/"+phase), 0)
}

// countsLine is one execution of phase 2 or 3a with its event counts
// (plain and composite labels together) for phase 3b.
type countsLine struct {
	Phase      string         `json:"phase"`
	Index      int            `json:"index"`  // execution index (search) or walk index (divergence)
	Prefix     int            `json:"prefix"` // divergence: steps replayed from the anomalous execution
	Seed       uint64         `json:"seed"`   // seed of the execution (search) or of the walk's continuation
	ExecTimeNS int64          `json:"exec_time_ns"`
	Steps      int            `json:"steps"`
	Outcome    string         `json:"outcome"`
	Recovered  *bool          `json:"recovered,omitempty"`
	Finding    string         `json:"finding,omitempty"` // a panic or safety violation (see finding)
	Counts     map[string]int `json:"counts"`
	Window     map[string]int `json:"window"`
}

func newCountsLine(phase string, index, prefix int, seed uint64, r *timedsim.Result) countsLine {
	smp := anomaly.NewSample(r) // plain and composite labels merged, as phase 3b reads them
	return countsLine{Phase: phase, Index: index, Prefix: prefix, Seed: seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps,
		Outcome: r.Outcome.String(), Finding: finding(r), Counts: smp.Counts, Window: smp.Window}
}

// jsonLines collects JSON Lines in memory; the file is written atomically
// at the end of the phase.
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

func (j *jsonLines) write(path string) error {
	if j.err != nil {
		return j.err
	}
	return atomicfile.WriteBytes(path, j.buf.Bytes())
}

// readCountsLines reads a JSON Lines file of countsLine; a missing file is
// (nil, nil) when optional.
func readCountsLines(path string, optional bool) ([]countsLine, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []countsLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var l countsLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%s line %d: data after the JSON object", path, n)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// readJSONFile reads a versioned JSON file of the results directory into v
// (which must have Format and Version fields checked by the caller),
// refusing unknown fields and trailing data.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
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

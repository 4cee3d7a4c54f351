package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/timedsim"
)

// CountsSpec is what the lines of a CountsLine file must be, beyond their
// schema: the phase that wrote them, how many there are, and what else a
// line must satisfy (in pipeline: the seed of each, which ties the file
// to the search.json or divergence.json that describes it).
type CountsSpec struct {
	Phase string
	// Lines is the number of lines (exact), or their maximum if AtMost.
	Lines  int
	AtMost bool
	// Check says what is wrong with line l of the file (nil: nothing);
	// n is its 0-based position. nil checks nothing more.
	Check func(n int, l *CountsLine) error
}

// countsFields are the fields every line has (Recovered and Finding may
// be left out).
var countsFields = []string{"phase", "index", "prefix", "seed", "exec_time_ns", "steps", "outcome", "counts", "window"}

// ValidOutcome reports whether o is an outcome an execution in a results
// file can have: a named timedsim.Outcome other than Interrupted (the
// files hold the name, timedsim.Outcome.MarshalText).
func ValidOutcome(o timedsim.Outcome) bool {
	return o >= 0 && o.String() != "unknown" && o != timedsim.Interrupted
}

// AppendCountsLine appends l to b as a line of a CountsLine file: compact
// JSON, newline-ended, fields in declaration order and map keys sorted.
func AppendCountsLine(b []byte, l *CountsLine) ([]byte, error) {
	j, err := json.Marshal(l)
	if err != nil {
		return b, fmt.Errorf("results: %w", err)
	}
	return append(append(b, j...), '\n'), nil
}

// WriteCountsLines writes lines to path as a CountsLine file (a line
// each, AppendCountsLine), atomically.
func WriteCountsLines(path string, lines []CountsLine) error {
	var b []byte
	for i := range lines {
		var err error
		if b, err = AppendCountsLine(b, &lines[i]); err != nil {
			return err
		}
	}
	return atomicfile.WriteBytes(path, b)
}

// ReadCountsLines reads and validates a JSON Lines file of CountsLine;
// a missing file is (nil, nil) when optional. Any departure from the
// schema or from spec is an error naming the file and the line.
func ReadCountsLines(path string, optional bool, spec CountsSpec) ([]CountsLine, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	return DecodeCountsLines(f, path, spec)
}

// DecodeCountsLines is ReadCountsLines of r, the contents of the file
// path.
func DecodeCountsLines(r io.Reader, path string, spec CountsSpec) ([]CountsLine, error) {
	var out []CountsLine
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		b, err := readlimit.ReadLine(br, readlimit.MaxJSONLine) // one line of a gigabyte is refused at the cap
		if err == io.EOF {
			if len(b) > 0 {
				return nil, fmt.Errorf("results: %s line %d: truncated (no newline at the end of the file)", path, n)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("results: %s line %d: %w", path, n, err)
		}
		if len(out) >= spec.Lines {
			return nil, fmt.Errorf("results: %s line %d: more lines than the %d executions its phase explored", path, n, spec.Lines)
		}
		l, err := decodeCountsLine(b, spec, len(out))
		if err != nil {
			return nil, fmt.Errorf("results: %s line %d: %w", path, n, err)
		}
		out = append(out, *l)
	}
	if !spec.AtMost && len(out) != spec.Lines {
		return nil, fmt.Errorf("results: %s: %d lines for the %d executions its phase explored", path, len(out), spec.Lines)
	}
	return out, nil
}

// decodeCountsLine decodes and validates one line (the n-th, 0-based).
func decodeCountsLine(b []byte, spec CountsSpec, n int) (*CountsLine, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	for _, k := range countsFields {
		if v, ok := raw[k]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("missing field %q", k)
		}
	}
	var l CountsLine
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	switch {
	case l.Phase != spec.Phase:
		return nil, fmt.Errorf("phase %q in a file of phase %s", l.Phase, spec.Phase)
	case l.Index < 0 || l.Steps < 0 || l.ExecTimeNS < 0:
		return nil, fmt.Errorf("negative index, steps or exec_time_ns (%d, %d, %d)", l.Index, l.Steps, l.ExecTimeNS)
	case !ValidOutcome(l.Outcome):
		return nil, fmt.Errorf("unknown outcome %q", l.Outcome)
	}
	for label, c := range l.Counts {
		if c < 0 {
			return nil, fmt.Errorf("negative count %d of %q", c, label)
		}
	}
	for label, c := range l.Window {
		if c < 0 || c > l.Counts[label] {
			return nil, fmt.Errorf("window count %d of %q is not within 0..%d, its count", c, label, l.Counts[label])
		}
	}
	if spec.Check != nil {
		if err := spec.Check(n, &l); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

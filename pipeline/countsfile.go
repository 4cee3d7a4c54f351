package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/timedsim"
)

// countsSpec is what the lines of a CountsLine file must be, beyond their
// schema: the phase that wrote them, how many there are, and the seed of
// each, which ties the file to the search.json or divergence.json that
// describes it (and through its config hash to profile.json).
type countsSpec struct {
	phase Phase
	// lines is the number of lines (exact), or their maximum if atMost.
	lines  int
	atMost bool
	// check says what is wrong with line l of the file (nil: nothing);
	// n is its 0-based position.
	check func(n int, l *CountsLine) error
}

// searchLines is the spec of sf's search-executions.jsonl: line n is
// execution n of the search's seed.
func searchLines(sf *SearchFile) countsSpec {
	seeds := timedsim.Seeded(sf.Seed)
	return countsSpec{phase: PhaseSearch, lines: sf.Explored, check: func(n int, l *CountsLine) error {
		if l.Index != n {
			return fmt.Errorf("index %d where execution %d is due", l.Index, n)
		}
		if want := seeds(n).Segments[0].Seed; l.Seed != want {
			return fmt.Errorf("seed %d is not execution %d's of search seed %d (%d)", l.Seed, n, sf.Seed, want)
		}
		if l.Prefix != 0 || l.Recovered != nil {
			return errors.New("a search execution has no prefix and no recovered field")
		}
		return nil
	}}
}

// walkLines is the spec of df's divergence-walks.jsonl: at most one line
// per walk the divergence search ran, walk j of prefix p with
// divergence.WalkSeed(df.Seed, p, j).
func walkLines(df *DivergenceFile) countsSpec {
	seen := map[[2]int]bool{}
	return countsSpec{phase: PhaseDiverge, lines: df.Executions + df.BudgetExecutions, atMost: true, check: func(_ int, l *CountsLine) error {
		k := [2]int{l.Prefix, l.Index}
		if seen[k] {
			return fmt.Errorf("walk %d of prefix %d again", l.Index, l.Prefix)
		}
		seen[k] = true
		if l.Prefix < 0 || l.Prefix > df.TotalSteps {
			return fmt.Errorf("prefix %d outside the anomaly's %d steps", l.Prefix, df.TotalSteps)
		}
		if want := divergence.WalkSeed(df.Seed, l.Prefix, l.Index); l.Seed != want {
			return fmt.Errorf("seed %d is not walk %d's of prefix %d (%d)", l.Seed, l.Index, l.Prefix, want)
		}
		if l.Recovered == nil {
			return errors.New("missing field \"recovered\"")
		}
		return nil
	}}
}

// countsFields are the fields every line has (Recovered and Finding may
// be left out).
var countsFields = []string{"phase", "index", "prefix", "seed", "exec_time_ns", "steps", "outcome", "counts", "window"}

// outcomeNames are the outcomes an execution in a results file can have.
func validOutcome(s string) bool {
	for o := timedsim.Outcome(0); o.String() != "unknown"; o++ {
		if o.String() == s && o != timedsim.Interrupted {
			return true
		}
	}
	return false
}

// readCountsLines reads and validates a JSON Lines file of CountsLine;
// a missing file is (nil, nil) when optional. Any departure from the
// schema or from spec is an error naming the file and the line.
func readCountsLines(path string, optional bool, spec countsSpec) ([]CountsLine, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	return decodeCountsLines(f, path, spec)
}

func decodeCountsLines(r io.Reader, path string, spec countsSpec) ([]CountsLine, error) {
	var out []CountsLine
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		b, err := readlimit.ReadLine(br, readlimit.MaxJSONLine) // one line of a gigabyte is refused at the cap
		if err == io.EOF {
			if len(b) > 0 {
				return nil, fmt.Errorf("%s line %d: truncated (no newline at the end of the file)", path, n)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if len(out) >= spec.lines {
			return nil, fmt.Errorf("%s line %d: more lines than the %d executions its phase explored", path, n, spec.lines)
		}
		l, err := decodeCountsLine(b, spec, len(out))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, *l)
	}
	if !spec.atMost && len(out) != spec.lines {
		return nil, fmt.Errorf("%s: %d lines for the %d executions its phase explored", path, len(out), spec.lines)
	}
	return out, nil
}

// decodeCountsLine decodes and validates one line (the n-th, 0-based).
func decodeCountsLine(b []byte, spec countsSpec, n int) (*CountsLine, error) {
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
	case l.Phase != string(spec.phase):
		return nil, fmt.Errorf("phase %q in a file of phase %s", l.Phase, spec.phase)
	case l.Index < 0 || l.Steps < 0 || l.ExecTimeNS < 0:
		return nil, fmt.Errorf("negative index, steps or exec_time_ns (%d, %d, %d)", l.Index, l.Steps, l.ExecTimeNS)
	case !validOutcome(l.Outcome):
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
	if spec.check != nil {
		if err := spec.check(n, &l); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/readlimit"
)

// Version is the version of every format of this package but those
// FormatVersion names. A reader refuses a file of another version: a
// change that an older reader would misread takes a new version.
const Version = 1

// SummaryVersion is summary.json's version: 2 since its replays are data
// (Replay) that a front end renders with its own program name; version 1
// held command lines that named the program macepc.
const SummaryVersion = 2

// FormatVersion is the version of format that this package writes and
// its readers accept.
func FormatVersion(format string) int {
	if format == FormatSummary {
		return SummaryVersion
	}
	return Version
}

// The format field of each JSON file, which a reader checks with its
// version before it trusts the rest.
const (
	FormatTrain        = "macepc-train"
	FormatProfile      = "macepc-profile"
	FormatSearch       = "macepc-search"
	FormatDivergence   = "macepc-divergence"
	FormatEvents       = "macepc-divergence-events"
	FormatCorrelation  = "macepc-correlation"
	FormatSummary      = "macepc-summary"
	FormatRegress      = "macepc-regress"
	FormatSimulate     = "macepc-simulate"
	FormatLiveness     = "macepc-liveness"
	FormatLivenessPath = "macepc-liveness-path"
)

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

// NewHeader is the header of a file of the given format, its
// FormatVersion.
func NewHeader(format, system, variant string, nodes int, seed uint64) Header {
	return Header{Format: format, Version: FormatVersion(format), System: system, Variant: variant, Nodes: nodes, Seed: seed}
}

// formatVersion is a file's format and version fields, for CheckFormat.
func (h Header) formatVersion() (string, int) { return h.Format, h.Version }

// readFile reads the file of format at path into a new T (ReadJSON),
// checks its format and version (CheckFormat) and, if validate, its
// numbers (T's Validate). The ReadX functions are it.
func readFile[T any, P interface {
	*T
	formatVersion() (string, int)
}](path, format string, validate func(P) error) (*T, error) {
	v := P(new(T))
	if err := ReadJSON(path, v); err != nil {
		return nil, err
	}
	f, ver := v.formatVersion()
	if err := CheckFormat(path, f, ver, format); err != nil {
		return nil, err
	}
	if validate != nil {
		if err := validate(v); err != nil {
			return nil, fmt.Errorf("results: %s is malformed: %w", path, err)
		}
	}
	return v, nil
}

// CheckFormat says whether a file at path whose format and version fields
// are format and version is a file of wantFormat this package reads.
func CheckFormat(path, format string, version int, wantFormat string) error {
	if format != wantFormat || version != FormatVersion(wantFormat) {
		return fmt.Errorf("results: %s is not a version-%d %s file (format %q, version %d)", path, FormatVersion(wantFormat), wantFormat, format, version)
	}
	return nil
}

// ReadJSON reads the JSON file at path into v, refusing unknown fields,
// trailing data and a file larger than readlimit.MaxJSONFile (a device
// such as /dev/zero fails at its first byte, which cannot start a JSON
// value). The caller checks v's format and version (CheckFormat) and
// what the schema cannot say. A missing file's error is fs.ErrNotExist
// for errors.Is.
func ReadJSON(path string, v any) error {
	f, err := readlimit.Open(path, readlimit.MaxJSONFile)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, readlimit.ErrTooLarge) {
			return fmt.Errorf("results: %w", err) // it names the file
		}
		return fmt.Errorf("results: %s is malformed: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("results: %s is malformed: data after the JSON object", path)
	}
	return nil
}

// MarshalJSON is the JSON of every results file: indented by two spaces,
// newline-ended.
func MarshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// EncodeJSON writes v to w as MarshalJSON does.
func EncodeJSON(w io.Writer, v any) error {
	b, err := MarshalJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteJSON writes v to path as MarshalJSON does, atomically: a reader
// sees the old file or the whole new one.
func WriteJSON(path string, v any) error {
	b, err := MarshalJSON(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b)
}

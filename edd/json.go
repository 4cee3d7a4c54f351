package edd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/macepc/macepc/internal/readlimit"
)

// FormatName and FormatVersion identify the JSON file format written by
// Write and accepted by Read.
const (
	FormatName    = "macepc-edd"
	FormatVersion = 1
)

// Write writes s as canonical JSON: fixed top-level key order, sorted map
// keys, integer nanoseconds, one table per line, two-space indentation and a
// trailing newline. Equal Sets give byte-identical output.
func Write(w io.Writer, s *Set) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("{\n")
	p("  \"format\": %s,\n", quote(FormatName))
	p("  \"version\": %d,\n", FormatVersion)
	p("  \"seed\": {\"min_ns\": %d, \"max_ns\": %d},\n", int64(s.seed.Min), int64(s.seed.Max))
	p("  \"points\": %d,\n", s.points)
	for _, sec := range []struct {
		name string
		m    map[string]*Empirical
	}{{"labels", s.labels}, {"kinds", s.kinds}} {
		p("  %s: {", quote(sec.name))
		for i, k := range slices.Sorted(maps.Keys(sec.m)) {
			if i > 0 {
				p(",")
			}
			e := sec.m[k]
			p("\n    %s: {\"samples\": %d, \"table_ns\": [", quote(k), e.n)
			for j, d := range e.table {
				if j > 0 {
					p(", ")
				}
				bw.WriteString(strconv.FormatInt(int64(d), 10))
			}
			p("]}")
		}
		if len(sec.m) > 0 {
			p("\n  ")
		}
		p("},\n")
	}
	p("  \"scale\": {")
	for i, k := range slices.Sorted(maps.Keys(s.scale)) {
		if i > 0 {
			p(", ")
		}
		p("%s: %s", quote(k), strconv.FormatFloat(s.scale[k], 'g', -1, 64))
	}
	p("}\n}\n")
	return bw.Flush()
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil { // unreachable: strings always marshal
		panic(err)
	}
	return string(b)
}

type fileHeader struct {
	Format  *string `json:"format"`
	Version *int    `json:"version"`
}

type fileSeed struct {
	MinNs *int64 `json:"min_ns"`
	MaxNs *int64 `json:"max_ns"`
}

type fileTable struct {
	Samples int     `json:"samples"`
	TableNs []int64 `json:"table_ns"`
}

type fileBody struct {
	Format  string               `json:"format"`
	Version int                  `json:"version"`
	Seed    *fileSeed            `json:"seed"`
	Points  int                  `json:"points"`
	Labels  map[string]fileTable `json:"labels"`
	Kinds   map[string]fileTable `json:"kinds"`
	Scale   map[string]float64   `json:"scale"`
}

// Read reads a Set written by Write. It accepts only format "macepc-edd"
// version 1 and rejects, with an error starting "edd: ", malformed JSON,
// unknown fields, a missing or invalid seed (negative, min > max, max
// beyond MaxDuration), points out of range, invalid labels or kinds, sample
// counts below 1, tables that are empty, of the wrong length, negative,
// beyond MaxDuration or decreasing, and scale factors that are not
// positive. A scale factor of 1 is accepted and dropped.
// It reads at most readlimit.MaxEDDFile bytes: more is no EDD file.
func Read(r io.Reader) (*Set, error) {
	data, err := io.ReadAll(readlimit.NewReader(r, readlimit.MaxEDDFile))
	if err != nil {
		return nil, fmt.Errorf("edd: reading: %w", err)
	}
	return parse(data)
}

// ReadFile is Read of the file at path; its errors name the file. A file
// that does not start as a JSON object does (such as /dev/zero) is refused
// at its first byte, one larger than readlimit.MaxEDDFile at once.
func ReadFile(path string) (*Set, error) {
	data, err := readlimit.ReadJSONFile(path, readlimit.MaxEDDFile)
	if err != nil {
		return nil, fmt.Errorf("edd: %w", err)
	}
	set, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("edd: %s: %s", path, strings.TrimPrefix(err.Error(), "edd: "))
	}
	return set, nil
}

func parse(data []byte) (*Set, error) {
	var h fileHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("edd: malformed JSON: %v", err)
	}
	if h.Format == nil || *h.Format != FormatName {
		found := "missing"
		if h.Format != nil {
			found = strconv.Quote(*h.Format)
		}
		return nil, fmt.Errorf("edd: not an EDD file: format %s, want %q", found, FormatName)
	}
	if h.Version == nil {
		return nil, fmt.Errorf("edd: version missing, this build supports version %d", FormatVersion)
	}
	if *h.Version != FormatVersion {
		return nil, fmt.Errorf("edd: unsupported version %d, this build supports version %d", *h.Version, FormatVersion)
	}
	var b fileBody
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("edd: malformed JSON: %v", err)
	}
	if b.Seed == nil || b.Seed.MinNs == nil || b.Seed.MaxNs == nil {
		return nil, errors.New("edd: seed missing (want {\"min_ns\": …, \"max_ns\": …})")
	}
	seed := Uniform{Min: time.Duration(*b.Seed.MinNs), Max: time.Duration(*b.Seed.MaxNs)}
	if err := seed.Validate(); err != nil {
		return nil, err
	}
	if err := checkPoints(b.Points); err != nil {
		return nil, fmt.Errorf("edd: %v", err)
	}
	s := newSet(seed, b.Points)
	for _, label := range slices.Sorted(maps.Keys(b.Labels)) {
		if err := checkLabel(label); err != nil {
			return nil, fmt.Errorf("edd: label %q: %v", label, err)
		}
		e, err := b.Labels[label].empirical(b.Points)
		if err != nil {
			return nil, fmt.Errorf("edd: label %q: %v", label, err)
		}
		s.labels[label] = e
	}
	for _, kind := range slices.Sorted(maps.Keys(b.Kinds)) {
		if err := checkKind(kind); err != nil {
			return nil, fmt.Errorf("edd: kind %q: %v", kind, err)
		}
		e, err := b.Kinds[kind].empirical(b.Points)
		if err != nil {
			return nil, fmt.Errorf("edd: kind %q: %v", kind, err)
		}
		s.kinds[kind] = e
	}
	for _, key := range slices.Sorted(maps.Keys(b.Scale)) {
		if err := s.Scale(key, b.Scale[key]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (t fileTable) empirical(points int) (*Empirical, error) {
	table := make([]time.Duration, len(t.TableNs))
	for i, v := range t.TableNs {
		table[i] = time.Duration(v)
	}
	return fromTable(t.Samples, table, points)
}

// MarshalJSON returns the canonical JSON written by Write.
func (s *Set) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalJSON replaces s with the Set in data, with the checks of Read.
func (s *Set) UnmarshalJSON(data []byte) error {
	t, err := parse(data)
	if err != nil {
		return err
	}
	*s = *t
	return nil
}

// Hash returns the xxhash of s's canonical JSON, for configuration hashes
// (path files refuse to replay under a different Set).
func (s *Set) Hash() uint64 {
	b, err := s.MarshalJSON()
	if err != nil { // unreachable: writes to a bytes.Buffer do not fail
		panic(err)
	}
	return xxhash.Sum64(b)
}

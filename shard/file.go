package shard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/macepc/macepc/internal/readlimit"
)

// Format and Version identify shard files.
const (
	Format  = "macepc-shard"
	Version = 1
)

// Header is a shard file's first line.
type Header struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Phase      string `json:"phase"`
	ConfigHash string `json:"config_hash"`
	System     string `json:"system"`
	Variant    string `json:"variant"`
	Nodes      int    `json:"nodes"`
	Seed       uint64 `json:"seed"`
	Shard      int    `json:"shard"`
	Shards     int    `json:"shards"`
	// Source says where the shard came from (--shard, or a batch engine
	// with the values of its variables).
	Source string `json:"source"`
	// Runs is the number of executions of the whole (unsharded) run:
	// indices 0..Runs-1. Planned is this shard's share of them.
	Runs    int `json:"runs"`
	Planned int `json:"planned"`
	// Params are the phase's parameters; shards of one run have the same
	// bytes.
	Params json.RawMessage `json:"params"`
}

// Spec is the header's shard.
func (h *Header) Spec() Spec { return Spec{Index: h.Shard, Count: h.Shards} }

// Record is one execution.
type Record struct {
	Index int             `json:"index"`
	Data  json.RawMessage `json:"data"`
}

// Footer is a shard file's last line.
type Footer struct {
	Footer string `json:"footer"` // Format
	Count  int    `json:"count"`
	// Stop is non-empty when the phase ended the shard on purpose before
	// its planned executions, after its last record (a search's anomaly).
	Stop string `json:"stop,omitempty"`
	// Summary is the phase's data about the whole shard.
	Summary json.RawMessage `json:"summary,omitempty"`
}

// File is a shard file in memory. Name is where it was read from (for
// error messages).
type File struct {
	Name    string
	Header  Header
	Records []Record
	Footer  Footer
}

// FileName is the name of shard s of a phase: "profile.shard-3-of-8.jsonl".
func FileName(phase string, s Spec) string {
	return fmt.Sprintf("%s.shard-%d-of-%d.jsonl", phase, s.Index, s.Count)
}

// Write writes f, filling in the format fields, the footer's count and
// the header's shard count check. It refuses an inconsistent file.
func Write(w io.Writer, f *File) error {
	f.Header.Format, f.Header.Version = Format, Version
	f.Footer.Footer, f.Footer.Count = Format, len(f.Records)
	if f.Header.Params == nil {
		f.Header.Params = json.RawMessage("{}")
	}
	if err := f.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	line := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("shard: %w", err)
		}
		bw.Write(b)
		return bw.WriteByte('\n')
	}
	if err := line(&f.Header); err != nil {
		return err
	}
	for i := range f.Records {
		if err := line(&f.Records[i]); err != nil {
			return err
		}
	}
	if err := line(&f.Footer); err != nil {
		return err
	}
	return bw.Flush()
}

// check validates a file on its own: its shard, the indices of its
// records (exactly the shard's, in order, from the first), and the count.
func (f *File) check() error {
	h := &f.Header
	name := f.Name
	if name == "" {
		name = "shard file"
	}
	if h.Format != Format || h.Version != Version {
		return fmt.Errorf("shard: %s is not a version-%d %s file (format %q, version %d)", name, Version, Format, h.Format, h.Version)
	}
	s := h.Spec()
	if err := s.check(); err != nil {
		return fmt.Errorf("shard: %s: %w", name, trim(err))
	}
	if h.Runs < 0 || h.Planned != s.Len(h.Runs) {
		return fmt.Errorf("shard: %s: %d planned executions, but shard %s of %d executions has %d", name, h.Planned, s, h.Runs, s.Len(h.Runs))
	}
	for j, r := range f.Records {
		if r.Index != s.Global(j) {
			return fmt.Errorf("shard: %s: record %d has execution index %d, want %d (shard %s holds indices %d, %d, …)", name, j+1, r.Index, s.Global(j), s, s.Global(0), s.Global(1))
		}
	}
	if f.Footer.Count != len(f.Records) {
		return fmt.Errorf("shard: %s is truncated or damaged: its footer counts %d executions, it holds %d", name, f.Footer.Count, len(f.Records))
	}
	if f.Footer.Stop == "" && len(f.Records) != h.Planned {
		return fmt.Errorf("shard: %s is incomplete: %d of its %d executions", name, len(f.Records), h.Planned)
	}
	if f.Footer.Stop != "" && (len(f.Records) == 0 || len(f.Records) > h.Planned) {
		return fmt.Errorf("shard: %s stopped (%s) after %d of its %d executions", name, f.Footer.Stop, len(f.Records), h.Planned)
	}
	return nil
}

// Read reads and checks a shard file. name is used in error messages. A
// line longer than readlimit.MaxJSONLine (a record is one execution) is
// refused as soon as that much is read.
func Read(r io.Reader, name string) (*File, error) {
	var lines [][]byte
	br := bufio.NewReader(r)
	for {
		l, err := readlimit.ReadLine(br, readlimit.MaxJSONLine)
		if err == io.EOF {
			if len(l) > 0 {
				return nil, fmt.Errorf("shard: %s is truncated: it ends in the middle of a line (run the shard again)", name)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("shard: %s line %d: %w", name, len(lines)+1, err)
		}
		lines = append(lines, l[:len(l)-1])
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("shard: %s is empty", name)
	}
	f := &File{Name: name}
	decode := func(n int, v any) error {
		dec := json.NewDecoder(bytes.NewReader(lines[n-1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("shard: %s line %d: %w", name, n, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("shard: %s line %d: data after the JSON object", name, n)
		}
		return nil
	}
	if err := decode(1, &f.Header); err != nil {
		return nil, err
	}
	if f.Header.Format != Format {
		return nil, fmt.Errorf("shard: %s is not a %s file (format %q)", name, Format, f.Header.Format)
	}
	if len(lines) < 2 || !bytes.HasPrefix(lines[len(lines)-1], []byte(`{"footer":`)) {
		return nil, fmt.Errorf("shard: %s is truncated: it has no footer (run the shard again)", name)
	}
	if err := decode(len(lines), &f.Footer); err != nil {
		return nil, err
	}
	if f.Footer.Footer != Format {
		return nil, fmt.Errorf("shard: %s line %d: footer is not a %s footer", name, len(lines), Format)
	}
	f.Records = make([]Record, len(lines)-2)
	for j := range f.Records {
		if err := decode(j+2, &f.Records[j]); err != nil {
			return nil, err
		}
		if len(f.Records[j].Data) == 0 {
			return nil, fmt.Errorf("shard: %s line %d: a record without data", name, j+2)
		}
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile reads and checks the shard file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	defer fh.Close()
	return Read(fh, path)
}

// Find lists the shard files named by args: a file is taken as is, a
// directory contributes its files named like FileName(phase, …) (any
// phase when phase is ""). The list is sorted and has no repeats.
func Find(phase string, args []string) ([]string, error) {
	pattern := "*.shard-*-of-*.jsonl"
	if phase != "" {
		pattern = phase + ".shard-*-of-*.jsonl"
	}
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("shard: %w", err)
		}
		if !st.IsDir() {
			out = append(out, filepath.Clean(a))
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, pattern))
		if err != nil {
			return nil, fmt.Errorf("shard: %w", err)
		}
		if len(m) == 0 {
			what := "shard files"
			if phase != "" {
				what = phase + " shard files"
			}
			return nil, fmt.Errorf("shard: %s holds no %s (%s)", a, what, pattern)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// Set is the checked shards of one run, ordered by shard index.
type Set struct {
	Files []*File // Files[i] is shard i
}

// Header is the run's header (shard 0's).
func (s *Set) Header() *Header { return &s.Files[0].Header }

// Merge checks that files are the n shards of one run: one phase and
// configuration, the same parameters and shard count, every shard
// exactly once.
func Merge(files []*File) (*Set, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("shard: no shard files")
	}
	// Each check names the odd one out: a file whose value differs from
	// the one most files share, against a file with that value.
	type config struct {
		hash, system, variant string
		nodes                 int
	}
	type params struct {
		seed   uint64
		runs   int
		params string
	}
	checks := []struct {
		key  func(h *Header) any // a comparable value
		fail func(odd *File, ref string, rh *Header) error
	}{
		{func(h *Header) any { return h.Phase }, func(odd *File, ref string, rh *Header) error {
			return fmt.Errorf("shard: %s is a %s shard, %s a %s shard: merge the shards of one phase", odd.Name, odd.Header.Phase, ref, rh.Phase)
		}},
		{func(h *Header) any { return config{h.ConfigHash, h.System, h.Variant, h.Nodes} }, func(odd *File, ref string, rh *Header) error {
			h := &odd.Header
			return fmt.Errorf("shard: %s belongs to another configuration (%s/%s, %d nodes, config hash %s) than %s (%s/%s, %d nodes, config hash %s)",
				odd.Name, h.System, h.Variant, h.Nodes, h.ConfigHash, ref, rh.System, rh.Variant, rh.Nodes, rh.ConfigHash)
		}},
		{func(h *Header) any { return params{h.Seed, h.Runs, string(h.Params)} }, func(odd *File, ref string, rh *Header) error {
			return fmt.Errorf("shard: %s was run with other parameters than %s (%s)", odd.Name, ref, paramDiff(&odd.Header, rh))
		}},
		{func(h *Header) any { return h.Shards }, func(odd *File, ref string, rh *Header) error {
			return fmt.Errorf("shard: %s is shard %d of %d, while %s count %d: the shards of one run have one count (remove the shard files of an earlier run)",
				odd.Name, odd.Header.Shard, odd.Header.Shards, ref, rh.Shards)
		}},
	}
	for _, c := range checks {
		if odd, ref, agree := oddOneOut(files, c.key); odd != nil {
			name := ref.Name
			if agree > 1 {
				name = fmt.Sprintf("%s and %d more", ref.Name, agree-1)
			}
			return nil, c.fail(odd, name, &ref.Header)
		}
	}
	rh := &files[0].Header
	n := rh.Shards
	// By index in a map: the count comes from the files, and a damaged
	// one must not make us allocate it.
	byIndex := make(map[int]*File, len(files))
	for _, f := range files {
		if g := byIndex[f.Header.Shard]; g != nil {
			return nil, fmt.Errorf("shard: shard %d of %d is given twice: %s and %s", f.Header.Shard, n, g.Name, f.Name)
		}
		byIndex[f.Header.Shard] = f
	}
	if len(byIndex) < n {
		const show = 10 // missing shards named at most
		var missing []string
		for i := 0; i < n && len(missing) < show; i++ {
			if byIndex[i] == nil {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		if n-len(byIndex) > show {
			missing = append(missing, fmt.Sprintf("and %d more", n-len(byIndex)-show))
		}
		return nil, fmt.Errorf("shard: missing shard %s of %d (have %d of %d files)", strings.Join(missing, ", "), n, len(files), n)
	}
	set := &Set{Files: make([]*File, n)}
	for i := range set.Files {
		set.Files[i] = byIndex[i]
	}
	return set, nil
}

// oddOneOut returns, when files do not all have the same key, the first
// file whose key is not the most common one, the first file with the most
// common key (the earliest such file on a tie), and how many files have it.
func oddOneOut(files []*File, key func(*Header) any) (odd, ref *File, agree int) {
	count := map[any]int{}
	for _, f := range files {
		count[key(&f.Header)]++
	}
	if len(count) == 1 {
		return nil, nil, 0
	}
	for _, f := range files {
		if k := key(&f.Header); count[k] > agree {
			ref, agree = f, count[k]
		}
	}
	for _, f := range files {
		if key(&f.Header) != key(&ref.Header) {
			return f, ref, agree
		}
	}
	return nil, nil, 0
}

// paramDiff names the first header field where a and b differ.
func paramDiff(a, b *Header) string {
	switch {
	case a.Seed != b.Seed:
		return fmt.Sprintf("seed %d vs %d", a.Seed, b.Seed)
	case a.Runs != b.Runs:
		return fmt.Sprintf("%d vs %d executions", a.Runs, b.Runs)
	}
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a.Params, &x) == nil && json.Unmarshal(b.Params, &y) == nil {
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !bytes.Equal(x[k], y[k]) {
				return fmt.Sprintf("%s %s vs %s", k, clip(x[k]), clip(y[k]))
			}
		}
	}
	return "params differ"
}

func clip(b json.RawMessage) string {
	if b == nil {
		return "(none)"
	}
	if len(b) > 60 {
		return string(b[:57]) + "…"
	}
	return string(b)
}

// FirstStop is the lowest index at which a shard stopped on purpose (its
// last record), or ok false when every shard ran all its executions.
func (s *Set) FirstStop() (index int, ok bool) {
	index = -1
	for _, f := range s.Files {
		if f.Footer.Stop != "" {
			last := f.Records[len(f.Records)-1].Index
			if index < 0 || last < index {
				index = last
			}
		}
	}
	return index, index >= 0
}

// Upto returns the records of executions 0..limit-1 in index order,
// refusing a gap (an index some shard does not hold).
func (s *Set) Upto(limit int) ([]Record, error) {
	h := s.Header()
	if limit > h.Runs {
		return nil, fmt.Errorf("shard: %d executions asked of a run of %d", limit, h.Runs)
	}
	n := len(s.Files)
	out := make([]Record, 0, limit)
	for g := 0; g < limit; g++ {
		f := s.Files[g%n]
		j := g / n
		if j >= len(f.Records) {
			return nil, fmt.Errorf("shard: execution %d is missing: %s stopped (%s) at execution %d", g, f.Name, f.Footer.Stop, f.Records[len(f.Records)-1].Index)
		}
		out = append(out, f.Records[j])
	}
	return out, nil
}

package edd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// smallSet is the Set of testdata/small.golden.json.
func smallSet(t testing.TB) *Set {
	s := mustTrain(t, trainingSamples(), 11)
	if err := s.Scale("deliver Join", 2.5); err != nil {
		t.Fatal(err)
	}
	if err := s.Scale("timer *", 0.5); err != nil {
		t.Fatal(err)
	}
	return s
}

func writeString(t testing.TB, s *Set) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestGoldenJSON(t *testing.T) {
	got := writeString(t, smallSet(t))
	path := filepath.Join("testdata", "small.golden.json")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./edd -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Write output differs from %s (run go test ./edd -update and review the diff):\n%s", path, got)
	}
	if !json.Valid([]byte(got)) {
		t.Errorf("Write output is not valid JSON")
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(got), "", "  "); err != nil {
		t.Fatal(err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	sets := map[string]*Set{
		"small": smallSet(t),
		"empty": NewSet(DefaultSeed()),
		"large": mustTrain(t, map[string][]time.Duration{
			"deliver Join":    handlerTimes(1, 5000, 0),
			"deliver Leave":   handlerTimes(2, 77, time.Microsecond),
			"timer \"quote\"": handlerTimes(3, 10, 0),
			"app ünïcode <&>": handlerTimes(4, 1, 0),
		}, 0),
	}
	if err := sets["large"].Scale("*", 1.0/3); err != nil {
		t.Fatal(err)
	}
	for name, s := range sets {
		first := writeString(t, s)
		r, err := Read(strings.NewReader(first))
		if err != nil {
			t.Fatalf("%s: Read(Write(s)): %v", name, err)
		}
		if second := writeString(t, r); second != first {
			t.Errorf("%s: Write→Read→Write not byte-identical:\n%s\nvs\n%s", name, first, second)
		}
		if r.Hash() != s.Hash() {
			t.Errorf("%s: hash changed across round trip", name)
		}
		for _, label := range append(s.Labels(), "deliver Other", "reset", "*") {
			d1, src1, desc1 := s.Lookup(label)
			d2, src2, desc2 := r.Lookup(label)
			for _, u := range []float64{0, 0.123, 0.5, 0.999} {
				if d1.Sample(u) != d2.Sample(u) || src1 != src2 || desc1 != desc2 {
					t.Errorf("%s: Lookup(%q) differs after round trip", name, label)
				}
			}
		}
	}
}

func TestMarshalJSONEmbeds(t *testing.T) {
	s := smallSet(t)
	type summary struct {
		EDD *Set `json:"edd"`
	}
	b, err := json.Marshal(summary{EDD: s})
	if err != nil {
		t.Fatal(err)
	}
	var back summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if writeString(t, back.EDD) != writeString(t, s) {
		t.Errorf("MarshalJSON/UnmarshalJSON round trip differs")
	}
	if err := json.Unmarshal([]byte(`{"edd": {"format": "x"}}`), &back); err == nil || !strings.Contains(err.Error(), "edd: not an EDD file") {
		t.Errorf("UnmarshalJSON of a bad set: %v", err)
	}
}

func TestHash(t *testing.T) {
	a, b := smallSet(t), smallSet(t)
	if a.Hash() != b.Hash() {
		t.Fatal("equal sets hash differently")
	}
	if err := b.Scale("deliver Join", 2.6); err != nil {
		t.Fatal(err)
	}
	if a.Hash() == b.Hash() {
		t.Error("a scale change does not change the hash")
	}
	if NewSet(DefaultSeed()).Hash() == NewSet(Uniform{Min: time.Millisecond, Max: 11 * time.Millisecond}).Hash() {
		t.Error("a seed change does not change the hash")
	}
}

// validDoc is a minimal valid file; malformed cases edit it.
const validDoc = `{
  "format": "macepc-edd",
  "version": 1,
  "seed": {"min_ns": 1000000, "max_ns": 10000000},
  "points": 3,
  "labels": {"deliver Join": {"samples": 4, "table_ns": [1, 5, 9]}},
  "kinds": {"deliver": {"samples": 4, "table_ns": [1, 5, 9]}},
  "scale": {"deliver Join": 2.5}
}
`

func TestReadRejectsMalformed(t *testing.T) {
	if _, err := Read(strings.NewReader(validDoc)); err != nil {
		t.Fatalf("validDoc: %v", err)
	}
	edit := func(old, new string) string {
		if !strings.Contains(validDoc, old) {
			t.Fatalf("validDoc lacks %q", old)
		}
		return strings.Replace(validDoc, old, new, 1)
	}
	for _, c := range []struct {
		name, doc, want string
	}{
		{"empty input", "", "malformed JSON: unexpected end of JSON input"},
		{"not JSON", "edd", "malformed JSON: invalid character"},
		{"truncated", validDoc[:100], "malformed JSON"},
		{"trailing data", validDoc + "{}", "malformed JSON: invalid character '{' after top-level value"},
		{"array", "[1, 2]", "malformed JSON: json: cannot unmarshal array"},
		{"wrong format", edit(`"macepc-edd"`, `"macepc-profile"`), `format "macepc-profile", want "macepc-edd"`},
		{"missing format", edit(`"format": "macepc-edd",`, ``), "format missing"},
		{"future version", edit(`"version": 1`, `"version": 2`), "unsupported version 2, this build supports version 1"},
		{"missing version", edit(`"version": 1,`, ``), "version missing, this build supports version 1"},
		{"string version", edit(`"version": 1`, `"version": "1"`), "malformed JSON: json: cannot unmarshal string"},
		{"unknown field", edit(`"points": 3,`, `"points": 3, "colour": 1,`), `malformed JSON: json: unknown field "colour"`},
		{"unknown table field", edit(`"samples": 4,`, `"samples": 4, "mean": 4,`), `unknown field "mean"`},
		{"missing seed", edit(`"seed": {"min_ns": 1000000, "max_ns": 10000000},`, ``), "seed missing"},
		{"missing seed max", edit(`, "max_ns": 10000000`, ``), "seed missing"},
		{"seed min > max", edit(`"min_ns": 1000000`, `"min_ns": 20000000`), "seed min 20ms > max 10ms"},
		{"negative seed", edit(`"min_ns": 1000000`, `"min_ns": -1`), "negative"},
		{"seed beyond MaxDuration", edit(`"max_ns": 10000000`, `"max_ns": 9223372036854775807`), "seed max 9223372036854775807 ns exceeds the longest event duration"},
		{"missing points", edit(`"points": 3,`, ``), "points 0 out of range"},
		{"points 1", edit(`"points": 3,`, `"points": 1,`), "points 1 out of range"},
		{"huge points", edit(`"points": 3,`, `"points": 1000000000,`), "points 1000000000 out of range"},
		{"short table", edit(`"table_ns": [1, 5, 9]}},`, `"table_ns": [1, 5]}},`), `label "deliver Join": table has 2 entries, want 3 (points)`},
		{"empty table", edit(`"table_ns": [1, 5, 9]}},`, `"table_ns": []}},`), `label "deliver Join": empty table`},
		{"missing table", edit(`, "table_ns": [1, 5, 9]}},`, `}},`), `label "deliver Join": empty table`},
		{"decreasing", edit(`[1, 5, 9]}},`, `[1, 9, 5]}},`), `label "deliver Join": table not non-decreasing: entry 2 (5) < entry 1 (9)`},
		{"negative entry", edit(`[1, 5, 9]}},`, `[-1, 5, 9]}},`), `label "deliver Join": negative table entry -1 at index 0`},
		{"fractional entry", edit(`[1, 5, 9]}},`, `[1.5, 5, 9]}},`), "malformed JSON"},
		{"overflowing entry", edit(`[1, 5, 9]}},`, `[1, 5, 99999999999999999999]}},`), "malformed JSON"},
		{"entry beyond MaxDuration", edit(`[1, 5, 9]}},`, `[1, 5, 9223372036854775807]}},`), `label "deliver Join": table entry 9223372036854775807 ns at index 2 exceeds the longest event duration`},
		{"kind entry beyond MaxDuration", edit(`"deliver": {"samples": 4, "table_ns": [1, 5, 9]}`, `"deliver": {"samples": 4, "table_ns": [1, 5, 3153600000000000001]}`), `kind "deliver": table entry 3153600000000000001 ns`},
		{"zero samples", edit(`"samples": 4,`, `"samples": 0,`), `label "deliver Join": samples 0, need >= 1`},
		{"bad kind table", edit(`"deliver": {"samples": 4, "table_ns": [1, 5, 9]}`, `"deliver": {"samples": 4, "table_ns": [9, 5, 1]}`), `kind "deliver": table not non-decreasing`},
		{"kind with space", edit(`"deliver": {`, `"deliver X": {`), `kind "deliver X": kind contains a space`},
		{"empty label", edit(`"labels": {"deliver Join"`, `"labels": {""`), `label "": empty`},
		{"wildcard label", edit(`"labels": {"deliver Join"`, `"labels": {"deliver *"`), `label "deliver *": wildcard`},
		{"zero scale", edit(`"deliver Join": 2.5}`, `"deliver Join": 0}`), "scale factor 0 for \"deliver Join\" must be positive"},
		{"negative scale", edit(`"deliver Join": 2.5}`, `"deliver Join": -2}`), "scale factor -2 for \"deliver Join\" must be positive"},
		{"null scale", edit(`"deliver Join": 2.5}`, `"deliver Join": null}`), "must be positive"},
		{"huge scale", edit(`"deliver Join": 2.5}`, `"deliver Join": 1e999}`), "malformed JSON"},
		{"empty scale key", edit(`"scale": {"deliver Join"`, `"scale": {""`), `scale label "": empty`},
	} {
		s, err := Read(strings.NewReader(c.doc))
		if err == nil {
			t.Errorf("%s: Read accepted it: %s", c.name, writeString(t, s))
			continue
		}
		if !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Read error = %q, want edd: …%s…", c.name, err, c.want)
		}
	}
}

func TestReadDropsUnitScale(t *testing.T) {
	s, err := Read(strings.NewReader(strings.Replace(validDoc, `"deliver Join": 2.5}`, `"deliver Join": 1, "*": 2}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ScaleFactors(); len(got) != 1 || got["*"] != 2 {
		t.Errorf("ScaleFactors() = %v, want only *=2", got)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteReportsError(t *testing.T) {
	if err := Write(errWriter{}, smallSet(t)); err == nil {
		t.Error("Write to a failing writer returned nil")
	}
}

// FuzzRead checks that Read never panics, and that whatever it accepts is
// written canonically: Read→Write→Read→Write is a fixed point.
func FuzzRead(f *testing.F) {
	f.Add(validDoc)
	f.Add(writeString(f, smallSet(f)))
	f.Add(`{"format": "macepc-edd", "version": 1, "seed": {"min_ns": 0, "max_ns": 0}, "points": 2}`)
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := Read(strings.NewReader(doc))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "edd: ") {
				t.Errorf("error without prefix: %v", err)
			}
			return
		}
		first := writeString(t, s)
		r, err := Read(strings.NewReader(first))
		if err != nil {
			t.Fatalf("Read(Write(Read(doc))): %v\n%s", err, first)
		}
		if second := writeString(t, r); second != first {
			t.Fatalf("not a fixed point:\n%s\nvs\n%s", first, second)
		}
		for _, label := range append(s.Labels(), "x y") {
			d, _, _ := s.Lookup(label)
			d.Sample(0.5)
		}
	})
}

// TestReadFile reads a committed file and names the file in its errors.
func TestReadFile(t *testing.T) {
	set, err := ReadFile("../systems/randtree/testdata/edd.json")
	if err != nil || len(set.Labels()) == 0 {
		t.Fatalf("ReadFile: %v, %d labels", err, len(set.Labels()))
	}
	if _, err := ReadFile("testdata/no-such-file.json"); err == nil || !strings.HasPrefix(err.Error(), "edd: ") || !strings.Contains(err.Error(), "no-such-file.json") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), "edd: "+bad+": malformed JSON") {
		t.Errorf("malformed file: %v", err)
	}
}

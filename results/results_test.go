package results_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// A summary written with WriteJSON reads back equal, and its header
// passes CheckFormat.
func Example() {
	dir, err := os.MkdirTemp("", "results")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, results.FileSummary)
	in := results.Summary{Header: results.NewHeader(results.FormatSummary, "randtree", "buggy", 32, 1), ConfigHash: "abc"}
	if err := results.WriteJSON(path, &in); err != nil {
		panic(err)
	}
	var out results.Summary
	if err := results.ReadJSON(path, &out); err != nil {
		panic(err)
	}
	fmt.Println(out.System, out.Variant, out.Nodes, out.ConfigHash)
	fmt.Println(results.CheckFormat(path, out.Format, out.Version, results.FormatSummary))
	fmt.Println(results.CheckFormat(path, out.Format, out.Version, results.FormatProfile) != nil)
	// Output:
	// randtree buggy 32 abc
	// <nil>
	// true
}

func TestReadJSONRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ body, want string }{
		"unknown field": {`{"format":"macepc-summary","version":1,"nosuch":1}`, `unknown field "nosuch"`},
		"trailing data": {`{"format":"macepc-summary","version":1} {}`, "data after the JSON object"},
		"not json":      {`hello`, "is malformed"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		var s results.Summary
		err := results.ReadJSON(path, &s)
		if err == nil || !strings.HasPrefix(err.Error(), "results: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one starting with results: and saying %q", name, err, c.want)
		}
	}
	var s results.Summary
	if err := results.ReadJSON(filepath.Join(dir, "missing.json"), &s); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestReadCountsLines(t *testing.T) {
	dir := t.TempDir()
	line := func(phase string, index int, outcome string) string {
		return fmt.Sprintf(`{"phase":%q,"index":%d,"prefix":0,"seed":7,"exec_time_ns":5,"steps":2,"outcome":%q,"counts":{"a":2},"window":{"a":1}}`+"\n", phase, index, outcome)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", line("search", 0, "finished")+line("search", 1, "timed-out"))
	ls, err := results.ReadCountsLines(good, false, results.CountsSpec{Phase: "search", Lines: 2})
	if err != nil || len(ls) != 2 || ls[1].Outcome != timedsim.TimedOut || ls[0].Window["a"] != 1 {
		t.Fatalf("good file: %v, %+v", err, ls)
	}
	for name, c := range map[string]struct {
		body string
		spec results.CountsSpec
		want string
	}{
		"too many":      {line("search", 0, "finished") + line("search", 1, "finished"), results.CountsSpec{Phase: "search", Lines: 1}, "line 2: more lines than the 1"},
		"too few":       {line("search", 0, "finished"), results.CountsSpec{Phase: "search", Lines: 2}, "1 lines for the 2 executions"},
		"phase":         {line("diverge", 0, "finished"), results.CountsSpec{Phase: "search", Lines: 1}, `phase "diverge" in a file of phase search`},
		"outcome":       {line("search", 0, "interrupted"), results.CountsSpec{Phase: "search", Lines: 1}, `unknown outcome "interrupted"`},
		"missing field": {`{"phase":"search"}` + "\n", results.CountsSpec{Phase: "search", Lines: 1}, `missing field "index"`},
		"truncated":     {strings.TrimSuffix(line("search", 0, "finished"), "\n"), results.CountsSpec{Phase: "search", Lines: 1}, "truncated"},
		"check":         {line("search", 0, "finished"), results.CountsSpec{Phase: "search", Lines: 1, Check: func(int, *results.CountsLine) error { return errors.New("no good") }}, "line 1: no good"},
	} {
		p := write(strings.ReplaceAll(name, " ", "-")+".jsonl", c.body)
		if _, err := results.ReadCountsLines(p, false, c.spec); err == nil || !strings.HasPrefix(err.Error(), "results: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
	if ls, err := results.ReadCountsLines(filepath.Join(dir, "none.jsonl"), true, results.CountsSpec{Phase: "search"}); err != nil || ls != nil {
		t.Errorf("optional missing file: %v, %v", ls, err)
	}
	if _, err := results.ReadCountsLines(filepath.Join(dir, "none.jsonl"), false, results.CountsSpec{Phase: "search"}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("required missing file: %v, want fs.ErrNotExist", err)
	}
}

// The path files' names and the globs that match them agree.
func TestPathNamesMatchTheirGlobs(t *testing.T) {
	if results.ClassPath(1) != results.FileAnomalyPath {
		t.Errorf("ClassPath(1) = %q", results.ClassPath(1))
	}
	for _, c := range []struct{ glob, name string }{{results.ClassPathGlob, results.ClassPath(3)}, {results.FindingPathGlob, results.FindingPath(17)}} {
		if ok, _ := filepath.Match(c.glob, c.name); !ok {
			t.Errorf("%q does not match %q", c.glob, c.name)
		}
	}
}

// summary.json is at version 2, whose replays are data; the other formats
// stay at Version, and CheckFormat refuses a summary of version 1.
func TestSummaryVersion(t *testing.T) {
	h := results.NewHeader(results.FormatSummary, "s", "v", 2, 1)
	if h.Version != results.SummaryVersion || results.SummaryVersion != 2 {
		t.Errorf("summary header version %d", h.Version)
	}
	if p := results.NewHeader(results.FormatProfile, "s", "v", 2, 1); p.Version != results.Version {
		t.Errorf("profile header version %d", p.Version)
	}
	if err := results.CheckFormat("summary.json", results.FormatSummary, 2, results.FormatSummary); err != nil {
		t.Error(err)
	}
	if err := results.CheckFormat("summary.json", results.FormatSummary, 1, results.FormatSummary); err == nil || !strings.Contains(err.Error(), "not a version-2 macepc-summary file") {
		t.Errorf("a version-1 summary: %v", err)
	}
	r := results.NewReplay(results.ReplayAnomaly, "class-1.path.json")
	if r.Path != "class-1.path.json" || strings.Join(r.Args, " ") != "replay --path class-1.path.json" {
		t.Errorf("NewReplay: %+v", r)
	}
}

package results_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// search is a search of 10 executions whose execution 4 is the anomaly
// of its only class.
func search() *results.Search {
	an := results.Anomaly{Index: 4, ExecTimeNS: 9e9, Steps: 30, Outcome: timedsim.TimedOut, Path: results.FileAnomalyPath, Class: 1}
	return &results.Search{Format: results.FormatSearch, Version: results.Version, MaxRuns: 10, Explored: 10, Complete: true, ThresholdNS: 3e9,
		Verdict: results.Verdict{Alpha: 0.01}, Candidates: 1, FirstIndex: 4, Anomalies: 1,
		Classes: []results.Class{{Rank: 1, Executions: 1, Members: []int{4}, MinNS: 9e9, MedianNS: 9e9, MaxNS: 9e9, Signature: []string{}, Representative: an}},
		Tail:    []results.Class{}, Anomaly: &an}
}

func divergence() *results.Divergence {
	return &results.Divergence{Format: results.FormatDivergence, Version: results.Version, Walks: 2, Step: 3, TotalSteps: 30,
		Probes:     []results.Probe{{Prefix: 3, Walks: 1, Recovered: true, ExecTimesNS: []int64{1e9}}, {Prefix: 4, Walks: 2, RecoveredWalk: -1, ExecTimesNS: []int64{9e9, 9e9}}},
		Executions: 3, Anomaly: search().Anomaly}
}

func correlation() *results.Correlation {
	r := 0.9
	return &results.Correlation{Format: results.FormatCorrelation, Version: results.Version, Executions: 13, SearchExecutions: 10, WalkExecutions: 3,
		Labels: []anomaly.Correlation{{Label: "timer recovery", Executions: 4, MeanCount: 0.4, R: &r}}}
}

func livenessFile() *results.Liveness {
	return &results.Liveness{Header: results.NewHeader(results.FormatLiveness, "randtree", "liveness-bug", 3, 1), Report: &liveness.Report{}, Files: []string{}}
}

type reader func(string) (any, error)

func wrap[T any](read func(string) (*T, error)) reader {
	return func(p string) (any, error) { return read(p) }
}

// Each reader reads back what WriteJSON wrote, and refuses a file whose
// numbers disagree, of another format, or with a field it does not know,
// naming the file.
func TestReadersRoundTripAndRefuse(t *testing.T) {
	for _, c := range []struct {
		name   string
		read   reader
		good   any
		broken func() any // good with numbers that disagree (nil: the reader checks no numbers)
		want   string
	}{
		{"search", wrap(results.ReadSearch), search(), func() any { s := search(); s.Anomalies = 0; return s }, "anomalies of 10 explored"},
		{"search path", wrap(results.ReadSearch), search(), func() any { s := search(); s.Anomaly.Path = "x.path.json"; return s }, "is not its class's"},
		{"search tail", wrap(results.ReadSearch), search(), func() any { s := search(); s.TailExecutions = 2; return s }, "tail executions"},
		{"divergence", wrap(results.ReadDivergence), divergence(), func() any { d := divergence(); d.Executions = 2; return d }, "3 walks in the probes, executions 2"},
		{"divergence step", wrap(results.ReadDivergence), divergence(), func() any { d := divergence(); d.Step = 31; return d }, "step 31 of 30"},
		{"correlation", wrap(results.ReadCorrelation), correlation(), func() any { c := correlation(); c.WalkExecutions = 0; return c }, "executions 13 of 10 search and 0 walk"},
		{"liveness", wrap(results.ReadLiveness), livenessFile(), func() any { l := livenessFile(); l.Report = nil; return l }, "missing report"},
		{"summary", wrap(results.ReadSummary), &results.Summary{Header: results.NewHeader(results.FormatSummary, "s", "v", 2, 1)}, nil, ""},
		{"profile", wrap(results.ReadProfile), &results.Profile{Header: results.NewHeader(results.FormatProfile, "s", "v", 2, 1)}, nil, ""},
		{"events", wrap(results.ReadEvents), &results.Events{Format: results.FormatEvents, Version: results.Version}, nil, ""},
		{"regress", wrap(results.ReadRegress), &results.Regress{Header: results.NewHeader(results.FormatRegress, "s", "v", 2, 1)}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			good := filepath.Join(dir, "good.json")
			if err := results.WriteJSON(good, c.good); err != nil {
				t.Fatal(err)
			}
			got, err := c.read(good)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.good) {
				t.Errorf("read back %+v, wrote %+v", got, c.good)
			}
			refusals := map[string]string{}
			if c.broken != nil {
				bad := filepath.Join(dir, "bad.json")
				if err := results.WriteJSON(bad, c.broken()); err != nil {
					t.Fatal(err)
				}
				refusals[bad] = c.want
			}
			b, err := os.ReadFile(good)
			if err != nil {
				t.Fatal(err)
			}
			other := filepath.Join(dir, "other.json")
			m := regexp.MustCompile(`"version": (\d+)`).FindStringSubmatch(string(b))
			if m == nil {
				t.Fatalf("no version in %s", b)
			}
			v, _ := strconv.Atoi(m[1])
			if err := os.WriteFile(other, []byte(strings.Replace(string(b), m[0], fmt.Sprintf(`"version": %d`, v+1), 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			extra := filepath.Join(dir, "extra.json")
			if err := os.WriteFile(extra, []byte(strings.Replace(string(b), "{", `{"surplus": 1,`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			refusals[other], refusals[extra] = "not a version-"+m[1], "unknown field"
			for path, want := range refusals {
				_, err := c.read(path)
				if err == nil || !strings.HasPrefix(err.Error(), "results: "+path) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want an error naming it with %q", filepath.Base(path), err, want)
				}
			}
		})
	}
}

// A CountsLine file that WriteCountsLines wrote reads back line for line.
func TestWriteCountsLinesRoundTrip(t *testing.T) {
	rec := true
	lines := []results.CountsLine{
		{Phase: "diverge", Index: 0, Prefix: 3, Seed: 9, ExecTimeNS: 1e9, Steps: 5, Outcome: timedsim.Finished, Recovered: &rec, Counts: map[string]int{"b": 2, "a": 1}, Window: map[string]int{}},
		{Phase: "diverge", Index: 1, Prefix: 3, Seed: 10, ExecTimeNS: 2e9, Steps: 6, Outcome: timedsim.TimedOut, Counts: map[string]int{"a": 3}, Window: map[string]int{"a": 1}},
	}
	path := filepath.Join(t.TempDir(), results.FileWalks)
	if err := results.WriteCountsLines(path, lines); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadCountsLines(path, false, results.CountsSpec{Phase: "diverge", Lines: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, lines) {
		t.Errorf("read back %+v", got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"phase":"diverge","index":0,"prefix":3,"seed":9,"exec_time_ns":1000000000,"steps":5,"outcome":"finished","recovered":true,"counts":{"a":1,"b":2},`) {
		t.Errorf("first line: %s", b)
	}
}

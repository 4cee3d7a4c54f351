package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// The report's tests build the results directories they read as values of
// package results and write them with its writers, as the pipeline does:
// the report reads the pipeline's own declarations, and a fixture that the
// readers refuse (a search whose counts disagree…) fails its test.

// resultsDir writes files into a new directory: a []results.CountsLine
// as a JSON Lines file (results.WriteCountsLines), a string as it is (a
// damaged file), anything else as JSON (results.WriteJSON).
func resultsDir(t *testing.T, files map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range files {
		path := filepath.Join(dir, name)
		var err error
		switch v := v.(type) {
		case []results.CountsLine:
			err = results.WriteCountsLines(path, v)
		case string:
			err = os.WriteFile(path, []byte(v), 0o644)
		default:
			err = results.WriteJSON(path, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toyHeader is the header of the toy run's files: system toy, variant v,
// 2 nodes, seed 7.
func toyHeader(format string) results.Header { return results.NewHeader(format, "toy", "v", 2, 7) }

// toySummary is the summary of a toy run with a 0.5 s profile and no
// later phase.
func toySummary() *results.Summary {
	return &results.Summary{Header: toyHeader(results.FormatSummary),
		Profile:      results.SummaryProfile{Runs: 1, Q1: 0.5, Median: 0.5, Q3: 0.5, Threshold: 0.75, IQRFactor: 1.5, MinSlowdown: 1.5},
		Correlations: []results.SummaryCorr{}, LengthOnly: []results.SummaryCorr{}, Replay: []results.Replay{}}
}

// toyProfile is a profile with these quartiles and threshold over the
// finished executions of these times (index order).
func toyProfile(q1, median, q3, threshold int64, execNS ...int64) *results.Profile {
	pf := &results.Profile{Header: toyHeader(results.FormatProfile), Runs: len(execNS), Q1NS: q1, MedianNS: median, Q3NS: q3, Threshold: threshold,
		Executions: []results.ExecLine{}}
	for i, ns := range execNS {
		pf.Executions = append(pf.Executions, results.ExecLine{Index: i, ExecTimeNS: ns, Finished: true, Outcome: timedsim.Finished})
	}
	return pf
}

// oneAnomaly is a search of maxRuns that explored one execution, timed
// out after execNS in steps steps above thresholdNS: the anomaly of its
// only class, judged by the fence alone. Its search-executions.jsonl is
// oneAnomalyExecs.
func oneAnomaly(maxRuns int, thresholdNS, execNS int64, steps int) *results.Search {
	an := results.Anomaly{Index: 0, ExecTimeNS: execNS, Steps: steps, Outcome: timedsim.TimedOut, Class: 1}
	return &results.Search{Format: results.FormatSearch, Version: results.Version, MaxRuns: maxRuns, Explored: 1, Complete: true, ThresholdNS: thresholdNS,
		Verdict: results.Verdict{FenceOnly: true}, Candidates: 1, FirstIndex: 0, Anomalies: 1,
		Classes: []results.Class{{Rank: 1, Executions: 1, Members: []int{0}, MinNS: execNS, MedianNS: execNS, MaxNS: execNS, Signature: []string{}, Representative: an}},
		Tail:    []results.Class{}, Anomaly: &an}
}

// oneAnomalyExecs is search-executions.jsonl of oneAnomaly: the execution
// ran one Ping.
func oneAnomalyExecs(execNS int64, steps int) []results.CountsLine {
	return []results.CountsLine{{Phase: "search", ExecTimeNS: execNS, Steps: steps, Outcome: timedsim.TimedOut, Counts: map[string]int{"deliver Ping": 1}, Window: map[string]int{}}}
}

// toySummaryJSON is toySummary's file, for the tests of damaged
// directories.
func toySummaryJSON() string {
	b, err := results.MarshalJSON(toySummary())
	if err != nil {
		panic(err) // a Summary always marshals
	}
	return string(b)
}

// load is report.Load of dir; an error fails the test.
func load(t *testing.T, dir string) *report.Results {
	t.Helper()
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// renderFigures is report.RenderFigures of r; an error fails the test.
func renderFigures(t *testing.T, r *report.Results) []report.Rendered {
	t.Helper()
	figs, err := report.RenderFigures(r)
	if err != nil {
		t.Fatal(err)
	}
	return figs
}

package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// A results directory in which only the profile ran: its plot is drawn,
// the later phases' plots are placeholders that say why.
func ExampleFigures() {
	dir := mustTempDir("macepc-report-example")
	defer os.RemoveAll(dir)
	// The files as the pipeline writes them: values of package results.
	sum := &results.Summary{Header: results.NewHeader(results.FormatSummary, "toy", "v", 2, 1),
		Profile: results.SummaryProfile{Runs: 4, Q1: 0.45, Median: 0.5, Q3: 0.55, Threshold: 0.75}}
	pf := &results.Profile{Header: results.NewHeader(results.FormatProfile, "toy", "v", 2, 1),
		Runs: 4, Q1NS: 450_000_000, MedianNS: 500_000_000, Q3NS: 550_000_000, Threshold: 750_000_000}
	for i, ns := range []int64{400_000_000, 500_000_000, 500_000_000, 600_000_000} {
		pf.Executions = append(pf.Executions, results.ExecLine{Index: i, ExecTimeNS: ns, Finished: true, Outcome: timedsim.Finished})
	}
	if err := results.WriteJSON(filepath.Join(dir, results.FileSummary), sum); err != nil {
		panic(err)
	}
	if err := results.WriteJSON(filepath.Join(dir, results.FileProfile), pf); err != nil {
		panic(err)
	}
	r, err := report.Load(dir)
	if err != nil {
		panic(err)
	}
	for _, f := range report.Figures(r) {
		if f.Missing != "" {
			fmt.Printf("%-11s placeholder: %s\n", f.ID, f.Missing)
			continue
		}
		fmt.Printf("%-11s drawn\n", f.ID)
	}
	d, _ := report.NewProfileData(r)
	for _, b := range d.Bins {
		fmt.Printf("[%.2f, %.2f) %d\n", b.Min, b.Max, b.Count)
	}
	// Output:
	// profile     drawn
	// search      placeholder: no anomaly search (phase 2 did not run)
	// divergence  placeholder: no divergence search (phase 3a did not run)
	// correlation placeholder: no frequency correlation (phase 3b did not run)
	// completion  placeholder: no divergence search (phase 3a did not run)
	// eventgraph  placeholder: no divergence search (phase 3a did not run)
	// [0.40, 0.44) 1
	// [0.44, 0.48) 0
	// [0.48, 0.52) 2
	// [0.52, 0.56) 0
	// [0.56, 0.60) 1
}

// mustTempDir is a new temporary directory (an example has no
// testing.T.TempDir).
func mustTempDir(prefix string) string {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		panic(err)
	}
	return dir
}

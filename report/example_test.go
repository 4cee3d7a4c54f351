package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// A results directory in which only the profile ran: its plot is drawn,
// the later phases' plots are placeholders that say why.
func ExampleFigures() {
	dir, err := os.MkdirTemp("", "macepc-report-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		results.FileSummary: `{"format":"macepc-summary","version":1,"system":"toy","variant":"v","nodes":2,"seed":1,
			"profile":{"runs":4,"q1":0.45,"median":0.5,"q3":0.55,"threshold":0.75}}`,
		results.FileProfile: `{"format":"macepc-profile","version":1,"runs":4,"q1_ns":450000000,"median_ns":500000000,"q3_ns":550000000,"threshold_ns":750000000,
			"executions":[{"exec_time_ns":400000000},{"exec_time_ns":500000000},{"exec_time_ns":500000000},{"exec_time_ns":600000000}]}`,
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			panic(err)
		}
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

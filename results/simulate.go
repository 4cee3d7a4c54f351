package results

import "github.com/macepc/macepc/timedsim"

// Simulate is simulate.json (FileSimulate): what `macepc simulate` ran,
// so that every execution of executions.jsonl can be replayed (--run DIR
// --index I).
type Simulate struct {
	Header
	Runs       int          `json:"runs"`
	Completed  int          `json:"completed"`
	ConfigHash string       `json:"config_hash"`
	Summary    *TimeSummary `json:"summary,omitempty"`
	// Template is the path file of execution 0; execution i's is the same
	// with the segments of SeedPath(ExecutionSeed(Seed, i)).
	Template *timedsim.PathFile `json:"template"`
}

// TimeSummary is the five-number summary of execution times, in seconds.
// Quartiles use gonum stat.Quantile with stat.LinInterp (Hyndman–Fan
// type 4: linear interpolation of the empirical CDF with p(k) = k/n).
type TimeSummary struct {
	Count    int     `json:"count"`
	Finished int     `json:"finished"`
	MinS     float64 `json:"min_s"`
	Q1S      float64 `json:"q1_s"`
	MedianS  float64 `json:"median_s"`
	Q3S      float64 `json:"q3_s"`
	MaxS     float64 `json:"max_s"`
}

// SimLine is an execution of simulate: its executions.jsonl line
// (FileExecutions) and what is wrong with it beyond slowness (Finding).
type SimLine struct {
	ExecLine
	Finding string `json:"finding,omitempty"`
}

package results

import "github.com/macepc/macepc/anomaly"

// Regress is regress.json (FileRegress): the comparison of the current code's
// profile with a baseline profile. Its header is the current run's:
// system, variant, nodes and profile seed.
type Regress struct {
	Header
	Baseline RegressSide `json:"baseline"`
	Current  RegressSide `json:"current"`
	// ConfigChanged says that the baseline's configuration hash differs
	// from the one the current code gives for the baseline's variant and
	// EDD: the scenario's revision, timeout or network changed, which is
	// part of the change under test.
	ConfigChanged bool     `json:"config_changed"`
	Alpha         float64  `json:"alpha"`
	MaxSlowdown   float64  `json:"max_slowdown"`
	Resamples     int      `json:"resamples"`
	BootstrapSeed uint64   `json:"bootstrap_seed"`
	Method        []string `json:"method"`

	BaseMedianNS int64                     `json:"base_median_ns"`
	CurMedianNS  int64                     `json:"current_median_ns"`
	BaseQ3NS     int64                     `json:"base_q3_ns"`
	CurQ3NS      int64                     `json:"current_q3_ns"`
	MedianRatio  anomaly.Interval          `json:"median_ratio"`
	Q3Ratio      anomaly.Interval          `json:"q3_ratio"`
	MannWhitney  anomaly.MannWhitneyResult `json:"mann_whitney"`
	BootstrapP   float64                   `json:"bootstrap_p"`
	Outliers     RegressOutliers           `json:"outliers"`
	// Slowest is the slowest current execution (the first of equals),
	// whose path file is regress-slowest.path.json: what to replay when
	// the current code is slower but no execution crossed the threshold.
	Slowest *RegressSlowest `json:"slowest,omitempty"`
	// SlowRate is the sequential slow-rate test over every current
	// execution (the profile's first, then batches as large until the
	// verdict): its runs, slow count, allowed rate, p-value and decision.
	SlowRate *anomaly.SlowRateResult `json:"slow_rate"`
	// Tests are the shift, tail and slow-rate tests with Holm's decision.
	Tests      []anomaly.Test `json:"tests"`
	Regression bool           `json:"regression"`
	Reasons    []string       `json:"reasons"`
	Warnings   []string       `json:"warnings"`
	Plot       []string       `json:"plot"`
}

// RegressSide is the baseline's or the current run's configuration.
type RegressSide struct {
	Profile    string   `json:"profile,omitempty"` // the baseline's profile.json as given
	Variant    string   `json:"variant"`
	Seed       uint64   `json:"seed"`
	Runs       int      `json:"runs"`
	ConfigHash string   `json:"config_hash"`
	Scale      []string `json:"scale"`
}

// RegressOutliers is the tail test: the executions above the
// baseline's threshold.
type RegressOutliers struct {
	ThresholdNS int64   `json:"threshold_ns"`
	Base        int     `json:"base"`
	Current     int     `json:"current"`
	P           float64 `json:"p"`
	// BaseExcessNS and CurrentExcessNS are the mean excess over the
	// threshold per execution; ExcessP its permutation p-value.
	BaseExcessNS    int64   `json:"base_excess_ns"`
	CurrentExcessNS int64   `json:"current_excess_ns"`
	ExcessP         float64 `json:"excess_p"`
	// Base, Current, P and the excesses are the first batch's (the
	// current profile's), against the baseline's profile. Executions are
	// the current executions above the threshold, of every batch, the
	// first MaxListedSlow of them; the first one's path file is
	// regress-outlier.path.json.
	Executions []ExecLine `json:"executions"`
	Path       string     `json:"path,omitempty"`
}

// RegressSlowest is regress.json's slowest current execution.
type RegressSlowest struct {
	ExecLine
	Path string `json:"path"`
}

// ReadRegress reads a regress.json: its schema, format and version.
func ReadRegress(path string) (*Regress, error) {
	return readFile[Regress](path, FormatRegress, nil)
}

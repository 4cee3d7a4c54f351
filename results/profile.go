package results

import (
	"errors"
	"fmt"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/timedsim"
)

// Profile is profile.json (FileProfile): the normal execution time, and the
// configuration every later phase uses.
type Profile struct {
	Header
	Runs       int     `json:"runs"`
	ConfigHash string  `json:"config_hash"`
	EDDSource  string  `json:"edd_source"`
	Estimator  string  `json:"estimator"`
	IQRFactor  float64 `json:"iqr_factor"`
	// Threshold is the largest of Tukey's (Q3 + IQRFactor·IQR),
	// MinSlowdown·median and median + MinExcess.
	MinSlowdown float64 `json:"min_slowdown"`
	MinExcessNS int64   `json:"min_excess_ns"`
	MinExcessBy string  `json:"min_excess_by"` // where MinExcess came from: "--min-excess", "auto: …"
	TukeyNS     int64   `json:"tukey_threshold_ns"`
	// FastMode, when not 0, is how many executions Tukey's fence was
	// computed from: the fast mode, below a slow mode that held the upper
	// quartile (anomaly.Profile.FenceFastMode).
	FastMode     int      `json:"fast_mode,omitempty"`
	FastMedianNS int64    `json:"fast_median_ns,omitempty"`
	FastQ3NS     int64    `json:"fast_q3_ns,omitempty"`
	MinNS        int64    `json:"min_ns"`
	Q1NS         int64    `json:"q1_ns"`
	MedianNS     int64    `json:"median_ns"`
	Q3NS         int64    `json:"q3_ns"`
	MaxNS        int64    `json:"max_ns"`
	Threshold    int64    `json:"threshold_ns"`
	Unfinished   int      `json:"unfinished"`
	Warnings     []string `json:"warnings"`
	// Coverage classifies the labels the profile's executions ran by the
	// distribution they got: trained, a fallback of their kind, or the seed.
	Coverage   edd.Coverage `json:"coverage"`
	Executions []ExecLine   `json:"executions"`
	// Template is the path file of execution 0: system, options and EDD
	// for the later phases; execution i's segments are
	// SeedPath(ExecutionSeed(Seed, i)).
	Template *timedsim.PathFile `json:"template"`
}

// ExecLine is one execution of a profile or of `macepc simulate` (a line
// of executions.jsonl).
type ExecLine struct {
	Index      int              `json:"index"`
	Seed       uint64           `json:"seed"`
	ExecTimeNS int64            `json:"exec_time_ns"`
	Steps      int              `json:"steps"`
	Finished   bool             `json:"finished"`
	Outcome    timedsim.Outcome `json:"outcome"`
}

// NormalMedianNS is the median of the normal executions: the fast mode's
// when the fence was moved below a slow mode, the median otherwise
// (anomaly.Profile.NormalMedian): what phase 3a's recovery criterion
// takes with NormalQ3NS.
func (pf *Profile) NormalMedianNS() int64 {
	if pf.FastMode > 0 {
		return pf.FastMedianNS
	}
	return pf.MedianNS
}

// NormalQ3NS is the third quartile of the normal executions: the fast
// mode's when the fence was moved below a slow mode, Q3 otherwise
// (anomaly.Profile.NormalQ3): what phase 3a's recovery criterion takes,
// and what the threshold is never below.
func (pf *Profile) NormalQ3NS() int64 {
	if pf.FastMode > 0 {
		return pf.FastQ3NS
	}
	return pf.Q3NS
}

// CountWindow is phase 3b's count window for this profile
// (anomaly.Profile.CountWindow of its quartiles): the events counted
// within it are those of the normal execution time.
func (pf *Profile) CountWindow() time.Duration {
	p := anomaly.Profile{Runs: pf.Runs, Unfinished: pf.Unfinished, Min: time.Duration(pf.MinNS), Q1: time.Duration(pf.Q1NS),
		Median: time.Duration(pf.MedianNS), Q3: time.Duration(pf.Q3NS), Max: time.Duration(pf.MaxNS), Threshold: time.Duration(pf.Threshold)}
	return p.CountWindow()
}

// ExecTimes are the profile's execution times in index order.
func (pf *Profile) ExecTimes() []time.Duration {
	out := make([]time.Duration, len(pf.Executions))
	for i, e := range pf.Executions {
		out[i] = time.Duration(e.ExecTimeNS)
	}
	return out
}

// ReadProfile reads a profile.json: its schema, format and version. Its
// numbers are Validate's to check: the report draws a profile whatever
// it holds (none of its executions, even), the later phases need a valid
// one (pipeline.Dir.LoadProfile).
func ReadProfile(path string) (*Profile, error) {
	return readFile[Profile](path, FormatProfile, nil)
}

// Validate checks a profile's numbers: its executions against its runs,
// its quartiles in order, its threshold not below Q3, its settings, and
// each execution. Its error says what is wrong, for the caller to name
// the file.
func (pf *Profile) Validate() error {
	switch {
	case pf.Template == nil:
		return errors.New("missing template")
	case pf.Runs < 1 || len(pf.Executions) != pf.Runs:
		return fmt.Errorf("runs %d with %d executions", pf.Runs, len(pf.Executions))
	case pf.Unfinished < 0 || pf.Unfinished > pf.Runs:
		return fmt.Errorf("unfinished %d of %d runs", pf.Unfinished, pf.Runs)
	case !(0 <= pf.MinNS && pf.MinNS <= pf.Q1NS && pf.Q1NS <= pf.MedianNS && pf.MedianNS <= pf.Q3NS && pf.Q3NS <= pf.MaxNS):
		return errors.New("inconsistent quartiles (want 0 <= min <= q1 <= median <= q3 <= max)")
	case pf.FastMode < 0 || pf.FastMode > pf.Runs || (pf.FastMode > 0) != (pf.FastQ3NS > 0) || pf.FastMode > 0 && !(pf.MinNS <= pf.FastMedianNS && pf.FastMedianNS <= pf.MedianNS && pf.FastMedianNS <= pf.FastQ3NS && pf.FastQ3NS <= pf.Q3NS):
		return fmt.Errorf("fast mode of %d executions with median %d and q3 %d", pf.FastMode, pf.FastMedianNS, pf.FastQ3NS)
	case pf.Threshold < pf.NormalQ3NS() || pf.TukeyNS < pf.NormalQ3NS():
		return errors.New("a threshold below q3 (of the fast mode, when the fence is its)")
	case !(pf.IQRFactor > 0) || !(pf.MinSlowdown >= 0) || pf.MinExcessNS < 0:
		return errors.New("negative threshold settings")
	}
	for i, e := range pf.Executions {
		if e.Index != i || e.ExecTimeNS < 0 || e.Steps < 0 || !ValidOutcome(e.Outcome) || e.Finished != (e.Outcome == timedsim.Finished) {
			return fmt.Errorf("execution %d is malformed (index %d, exec_time_ns %d, steps %d, outcome %q)", i, e.Index, e.ExecTimeNS, e.Steps, e.Outcome)
		}
	}
	return nil
}

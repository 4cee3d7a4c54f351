package results

import (
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

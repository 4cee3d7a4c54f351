package results

import (
	"errors"
	"fmt"
	"time"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/timedsim"
)

// Divergence is divergence.json (FileDivergence): phase 3a's divergence
// point, the probes that found it and the similar fast execution.
type Divergence struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Seed       uint64 `json:"seed"` // walk j of the probe at prefix p continues with divergence.WalkSeed(Seed, p, j)
	Walks      int    `json:"walks"`
	// Confirm is the number of confirmation walks (k, k+1, …, cut short at
	// LimitNS) a probe ran when none of its k walks recovered.
	Confirm int `json:"confirm_walks"`
	// A walk recovers if it finishes within LimitNS: max(Q3, min(threshold,
	// √(median·anomaly))) (divergence.NewCriterion); Criterion says which
	// of these the limit is ("" in files written before the limit: Q3).
	Criterion   divergence.Bound `json:"criterion"`
	LimitNS     int64            `json:"limit_ns"`
	MedianNS    int64            `json:"median_ns"`
	Q3NS        int64            `json:"q3_ns"`
	ThresholdNS int64            `json:"threshold_ns"`
	// Step is the divergence step: the longest prefix of the anomalous
	// execution from which a walk recovers; the event at this (0-based)
	// step is the one after which none does. -1: no walk recovers even
	// from the start.
	Step              int      `json:"step"`
	TotalSteps        int      `json:"total_steps"`
	IgnorableFraction float64  `json:"ignorable_fraction"`
	Event             *Event   `json:"event"` // the divergence event of the anomalous execution
	Similar           *Similar `json:"similar"`
	AnomalyLog        string   `json:"anomaly_log"`
	Diff              string   `json:"diff"`
	Executions        int      `json:"executions"`
	// WalksFrom says how the walks reached their prefixes: "snapshot"
	// (forked from a snapshot of each prefix: the system's services
	// implement timedsim.Cloner) or "replay" (each walk replayed its prefix
	// from step 0); the walks are the same either way. ReplayedProbes
	// counts the probes that replayed although WalksFrom is "snapshot"
	// (their prefix could not be snapshot).
	WalksFrom      string  `json:"walks_from"`
	ReplayedProbes int     `json:"replayed_probes,omitempty"`
	Probes         []Probe `json:"probes"`
	// Why says in one line why step Step decides the outcome.
	Why string `json:"why"`
	// BudgetStep is the step at which the first search (one recovering
	// walk suffices) put the divergence point when that was only where
	// the time budget ran out: the walks from the step after it were as
	// fast after their prefix as the similar one after its own, but
	// started too late to finish within the limit. Step is then where
	// half the walks stop recovering (Majority). Nil: not so.
	BudgetStep *int `json:"budget_step,omitempty"`
	Majority   bool `json:"majority,omitempty"`
	// BudgetExecutions are the walks of that first search (its walks
	// are the ones in divergence-walks.jsonl; Probes are the second's).
	BudgetExecutions int `json:"budget_executions,omitempty"`
	// Contrast are the labels (plain and composite) of the anomaly's
	// events from the divergence step on, within the similar fast
	// execution's time, that the similar execution has nowhere from that
	// step on: what the anomaly does, after the two part, that the fast
	// continuation never does (phase 3b ranks them first). Sorted.
	Contrast    []string `json:"contrast,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	Anomaly     *Anomaly `json:"anomaly"`
}

// Event is one event of an execution in a results file.
type Event struct {
	Step    int    `json:"step"`
	Node    string `json:"node"`
	Label   string `json:"label"`
	From    string `json:"from,omitempty"`
	StartNS int64  `json:"start_ns"`
}

// Similar is the similar fast execution: the anomaly's first Prefix
// steps, then a walk that recovers.
type Similar struct {
	Prefix int `json:"prefix"`
	Walk   int `json:"walk"`
	// Event is the similar execution's step Prefix: where the anomaly
	// runs the divergence event, the similar execution runs this one.
	Event      *Event `json:"event"`
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Path       string `json:"path"`
	Log        string `json:"log"`
}

// Probe is one prefix length the divergence search tried, with its walks.
type Probe struct {
	Prefix        int     `json:"prefix"`
	Walks         int     `json:"walks"`
	Recovered     bool    `json:"recovered"`
	RecoveredWalk int     `json:"recovered_walk"`
	ExecTimesNS   []int64 `json:"exec_times_ns"`
	Cut           int     `json:"cut_walks"` // confirmation walks that did not recover (exec_times_ns holds the others)
	// Recoveries counts the recovering walks (several when the search
	// asked for half the walks: Divergence.Majority).
	Recoveries int `json:"recoveries,omitempty"`
}

// ReadDivergence reads a divergence.json: its schema, format and version
// and its numbers (Validate). Whether it belongs to a profile is the
// caller's to check.
func ReadDivergence(path string) (*Divergence, error) {
	return readFile(path, FormatDivergence, (*Divergence).Validate)
}

func (df *Divergence) formatVersion() (string, int) { return df.Format, df.Version }

// Validate checks a divergence's numbers: its step within the anomaly,
// its probes' walks against its executions. Its error says what is
// wrong, for the caller to name the file.
func (df *Divergence) Validate() error {
	switch {
	case df.Walks < 1 || df.Confirm < 0 || df.Executions < 0:
		return fmt.Errorf("walks %d, confirm_walks %d, executions %d", df.Walks, df.Confirm, df.Executions)
	case df.TotalSteps < 0 || df.Step < -1 || df.Step > df.TotalSteps:
		return fmt.Errorf("step %d of %d", df.Step, df.TotalSteps)
	case !(df.IgnorableFraction >= 0 && df.IgnorableFraction <= 1):
		return fmt.Errorf("ignorable_fraction %v", df.IgnorableFraction)
	case df.Anomaly == nil:
		return errors.New("missing anomaly")
	}
	walks := 0
	for _, p := range df.Probes {
		if p.Prefix < 0 || p.Prefix > df.TotalSteps || p.Walks < 0 || p.Cut < 0 || p.RecoveredWalk < -1 || p.RecoveredWalk >= p.Walks {
			return fmt.Errorf("probe of prefix %d is malformed", p.Prefix)
		}
		walks += p.Walks
	}
	if walks != df.Executions {
		return fmt.Errorf("%d walks in the probes, executions %d", walks, df.Executions)
	}
	return nil
}

// Describe is "step S: label [on node] [from node] at time".
func (e *Event) Describe() string {
	return fmt.Sprintf("step %d: %s at %s", e.Step, e.What(), units.Duration(time.Duration(e.StartNS)))
}

// What is "label [on node] [from node]" (a driver's partition is on no
// node: its Node is timedsim.None's).
func (e *Event) What() string {
	s := e.Label
	if e.Node != timedsim.None.String() {
		s += " on " + e.Node
	}
	if e.From != "" {
		s += " from " + e.From
	}
	return s
}

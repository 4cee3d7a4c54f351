package results

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/timedsim"
)

// Search is search.json (FileSearch): phase 2's anomaly search, its
// verdict and the classes of what it found.
type Search struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Seed       uint64 `json:"seed"` // the phase seed: execution i is SeedPath(ExecutionSeed(Seed, i))
	MaxRuns    int    `json:"max_runs"`
	// TriageRuns is how many executions the search explores after the
	// first anomalous one, to triage the anomalies it finds.
	TriageRuns int `json:"triage_runs"`
	Explored   int `json:"explored"`
	// Complete is false when the search was interrupted before finding an
	// anomaly or spending its budget.
	Complete    bool  `json:"complete"`
	ThresholdNS int64 `json:"threshold_ns"`
	WindowNS    int64 `json:"window_ns"` // counts in search-executions.jsonl's "window" are of events starting before this (anomaly.Profile.CountWindow: the profile's Q1)
	// Verdict is how the executions above the threshold were judged;
	// Significance the test that judged them (nil with the fence alone,
	// or with nothing above the threshold).
	Verdict      Verdict       `json:"verdict"`
	Significance *Significance `json:"significance"`
	// Candidates is how many explored executions were above the
	// threshold or findings.
	Candidates int     `json:"candidates"`
	FirstIndex int     `json:"first_index"` // the first anomalous execution, -1 if none
	Anomalies  int     `json:"anomalies"`   // anomalous executions explored
	Classes    []Class `json:"classes"`
	// Tail are the classes of executions above the threshold that the
	// verdict found to be the normal tail, TailExecutions how many.
	Tail           []Class `json:"tail"`
	TailExecutions int     `json:"tail_executions"`
	// Anomaly is the execution phase 3a analyses: the representative of
	// the class ranked first, or of the class chosen (pipeline.Diverge).
	Anomaly *Anomaly `json:"anomaly"`
}

// Verdict is how phase 2 judged the executions above the threshold
// (pipeline.Verdict, as the search ran with it).
type Verdict struct {
	// Alpha is the family-wise error rate of the significance test.
	Alpha float64 `json:"alpha"`
	// FenceOnly: every execution above the threshold is an anomaly.
	FenceOnly bool `json:"fence_only"`
}

// Anomaly is an anomalous execution of the search.
type Anomaly struct {
	Index      int              `json:"index"`
	Seed       uint64           `json:"seed"`
	ExecTimeNS int64            `json:"exec_time_ns"`
	Steps      int              `json:"steps"`
	Outcome    timedsim.Outcome `json:"outcome"`
	Finding    string           `json:"finding,omitempty"` // a panic or safety violation, beyond slowness
	Path       string           `json:"path"`              // its path file in the results directory, if written
	Class      int              `json:"class"`             // the rank of its class
}

// Class is one class of anomalies, or of the normal tail (anomaly.Class).
type Class struct {
	Rank           int      `json:"rank"`
	Executions     int      `json:"executions"`
	Members        []int    `json:"members"`
	Finding        string   `json:"finding,omitempty"`
	MinNS          int64    `json:"min_ns"`
	MedianNS       int64    `json:"median_ns"`
	MaxNS          int64    `json:"max_ns"`
	Slowdown       float64  `json:"slowdown"`
	ExcessNS       int64    `json:"excess_ns"`
	Signature      []string `json:"signature"`
	Representative Anomaly  `json:"representative"`
	// Cause is the representative's critical path against a median
	// execution of the search (nil for a finding).
	Cause *Cause `json:"cause,omitempty"`
}

// Cause is the critical-path attribution of a class's representative
// against a median execution of the search (package critpath).
type Cause struct {
	// Headline says in one line what most of the excess was spent on.
	Headline string `json:"headline"`
	// Against is the median execution compared with: its index and time.
	AgainstIndex int   `json:"against_index"`
	AgainstNS    int64 `json:"against_ns"`
	ExcessNS     int64 `json:"excess_ns"`
	// DrawShare is the share of the excess made of the models' own draws.
	DrawShare float64 `json:"draw_share"`
	// Draws says whether the class is the normal tail because its excess
	// is the models' draws at a rate they have (pipeline.DrawShareTail).
	Draws bool        `json:"draws"`
	Parts []CausePart `json:"parts"`
	// Steps are the steps on the representative's critical path.
	Steps []int `json:"steps"`
	// Labels are the event labels on the representative's critical path
	// that the median execution's lacks.
	Labels []string `json:"labels"`
	// LeadIn are the labels of what the node of the longest wait behind
	// the excess did while it waited, before the median execution's end
	// (critpath.LeadIn); phase 3b ranks first those that normal
	// executions rarely have.
	LeadIn []string `json:"lead_in"`
	// Stranded is the last node to finish when the longest wait was on
	// another node and the last message it received before the wait
	// ended came before the execution became anomalous
	// (critpath.FindStranded): where it was left, which the wait only
	// repaired. The headline ends with it.
	Stranded *CauseStranded `json:"stranded,omitempty"`
	// Unanswered is, when no node was stranded and the longest wait was
	// a node's own timer, the requests it made in those waits that were
	// delivered and dropped without a message in return, in two rounds
	// or more (critpath.FindUnanswered): the news it waited its period
	// for. The headline ends with it.
	Unanswered *CauseUnanswered `json:"unanswered,omitempty"`
}

// CauseUnanswered is a Cause's unanswered requests (critpath.Unanswered).
type CauseUnanswered struct {
	Node  string `json:"node"`
	Timer string `json:"timer"`
	// Rounds are the timer's waits on the critical path, Silent those
	// in which a request went unanswered.
	Rounds int `json:"rounds"`
	Silent int `json:"silent"`
	// Steps are the unanswered deliveries.
	Steps []int  `json:"steps"`
	Text  string `json:"text"`
	// Labels are the unanswered deliveries' labels as phase 3b counts
	// them; phase 3b ranks first those that correlate.
	Labels []string `json:"labels"`
}

// CauseStranded is a Cause's stranded node (critpath.Stranded).
type CauseStranded struct {
	Node    string `json:"node"`
	Step    int    `json:"step"`
	StartNS int64  `json:"start_ns"`
	Next    int    `json:"next"`
	Text    string `json:"text"`
	// Labels are the labels of the event at Step and of the error
	// upcalls of the messages to Node that a full transport queue lost,
	// as phase 3b counts them (critpath.Stranded.Labels); phase 3b ranks
	// first those that correlate.
	Labels []string `json:"labels"`
	// Lost are the steps of the messages sent to Node before Next that
	// did not arrive (whatever their fate); LostLabels the labels of the
	// error upcalls of those a full transport queue lost (the protocol's
	// own sending, not the scenario's faults), which phase 3b ranks first
	// even when their counts do not follow the execution time (which
	// messages were lost, not how many, stranded the node).
	Lost       []int    `json:"lost,omitempty"`
	LostLabels []string `json:"lost_labels,omitempty"`
}

// CausePart is one part of a Cause (critpath.Part).
type CausePart struct {
	Kind     string `json:"kind"`
	Label    string `json:"label"`
	SlowNS   int64  `json:"slow_ns"`
	NormalNS int64  `json:"normal_ns"`
	ExcessNS int64  `json:"excess_ns"`
	Text     string `json:"text"`
}

// Significance is the significance test of a search.
type Significance struct {
	// Look is the look that decided (1: at the first candidate's triage
	// budget, 2: at the search budget) of Looks planned; each look tests
	// at the verdict's α/Looks, so that the search errs at most α in all.
	Look  int `json:"look"`
	Looks int `json:"looks"`
	// Alpha is the look's family-wise rate; Level the level of each of its
	// tests (Alpha over the number of windows).
	Alpha float64 `json:"alpha"`
	Level float64 `json:"level"`
	// Searched is N, the executions the look judged.
	Searched int `json:"searched"`
	// CutNS: executions at least this slow are significant (0: none).
	CutNS  int64        `json:"cut_ns"`
	Models []TailModel  `json:"models"`
	Tests  []TailTest   `json:"tests"`
	Window []TailWindow `json:"windows"`
}

// TailModel is an anomaly.TailModel.
type TailModel struct {
	UNS       int64   `json:"u_ns"`
	BelowNS   int64   `json:"below_ns"`
	Excesses  int     `json:"excesses"`
	Reference int     `json:"reference"`
	Rate      float64 `json:"rate"`
	SigmaNS   float64 `json:"sigma_ns"`
	Xi        float64 `json:"xi"`
	XiLow     float64 `json:"xi_low"`
	XiHigh    float64 `json:"xi_high"`
	MinShape  float64 `json:"min_shape"`
	// Reason says why no model could be fitted ("" when one was): the
	// fence then decides.
	Reason string `json:"reason,omitempty"`
}

// TailTest is an anomaly.TailTest; P and PValue are null without a
// model.
type TailTest struct {
	Index       int      `json:"index"`
	ExecTimeNS  int64    `json:"exec_time_ns"`
	Rank        int      `json:"rank"`
	Model       int      `json:"model"`
	P           *float64 `json:"p"`
	PValue      *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
}

// TailWindow is a rejected anomaly.Window.
type TailWindow struct {
	FromNS int64   `json:"from_ns"`
	ToNS   int64   `json:"to_ns"`
	Open   bool    `json:"open"`
	Count  int     `json:"count"`
	Mass   float64 `json:"mass"`
	PValue float64 `json:"p_value"`
}

// ReadSearch reads a search.json: its schema (ReadJSON), format and
// version (CheckFormat) and its numbers (Validate). Whether it belongs to
// a profile is the caller's to check.
func ReadSearch(path string) (*Search, error) {
	return readFile(path, FormatSearch, (*Search).Validate)
}

func (sf *Search) formatVersion() (string, int) { return sf.Format, sf.Version }

// Validate checks a search's numbers: the ranges of its counts and the
// agreement of its classes, members and anomaly. Its error says what is
// wrong, for the caller to name the file.
func (sf *Search) Validate() error {
	switch {
	case sf.MaxRuns < 1 || sf.TriageRuns < 0:
		return fmt.Errorf("max_runs %d, triage_runs %d", sf.MaxRuns, sf.TriageRuns)
	case sf.Explored < 0 || sf.Explored > sf.MaxRuns:
		return fmt.Errorf("explored %d of at most %d", sf.Explored, sf.MaxRuns)
	case sf.FirstIndex < -1 || sf.FirstIndex >= sf.Explored:
		return fmt.Errorf("first_index %d of %d explored", sf.FirstIndex, sf.Explored)
	case sf.Anomalies < 0 || sf.Anomalies > sf.Explored || (sf.Anomalies == 0) != (sf.FirstIndex == -1):
		return fmt.Errorf("%d anomalies of %d explored, the first at %d", sf.Anomalies, sf.Explored, sf.FirstIndex)
	case (sf.Anomaly == nil) != (len(sf.Classes) == 0):
		return errors.New("an anomaly without classes, or classes without an anomaly")
	}
	members := 0
	for i, c := range sf.Classes {
		if c.Rank != i+1 || c.Executions != len(c.Members) || c.Executions < 1 || !(c.MinNS <= c.MedianNS && c.MedianNS <= c.MaxNS) {
			return fmt.Errorf("class %d is malformed", i+1)
		}
		for _, m := range c.Members {
			if m < 0 || m >= sf.Explored {
				return fmt.Errorf("class %d: member %d of %d explored", i+1, m, sf.Explored)
			}
		}
		if err := c.Representative.validate(sf.Explored); err != nil {
			return fmt.Errorf("class %d: %w", i+1, err)
		}
		members += c.Executions
	}
	if members != sf.Anomalies {
		return fmt.Errorf("%d class members for %d anomalies", members, sf.Anomalies)
	}
	if !sf.Verdict.FenceOnly && !(sf.Verdict.Alpha > 0 && sf.Verdict.Alpha < 1) {
		return fmt.Errorf("verdict alpha %v", sf.Verdict.Alpha)
	}
	tail := 0
	for i, c := range sf.Tail {
		if c.Rank != i+1 || c.Executions != len(c.Members) || c.Executions < 1 || !(c.MinNS <= c.MedianNS && c.MedianNS <= c.MaxNS) || c.Finding != "" {
			return fmt.Errorf("tail class %d is malformed", i+1)
		}
		for _, m := range c.Members {
			if m < 0 || m >= sf.Explored {
				return fmt.Errorf("tail class %d: member %d of %d explored", i+1, m, sf.Explored)
			}
		}
		r := c.Representative
		if r.Index < 0 || r.Index >= sf.Explored || r.Class != 0 || r.Path != "" && r.Path != TailPath(c.Rank) {
			return fmt.Errorf("tail class %d: representative %d is malformed", i+1, r.Index)
		}
		tail += c.Executions
	}
	if tail != sf.TailExecutions || sf.Anomalies+sf.TailExecutions != sf.Candidates {
		return fmt.Errorf("%d tail class members for %d tail executions, %d anomalies of %d candidates", tail, sf.TailExecutions, sf.Anomalies, sf.Candidates)
	}
	if sf.Anomaly != nil {
		if err := sf.Anomaly.validate(sf.Explored); err != nil {
			return err
		}
	}
	return nil
}

// validate checks an anomaly of a search of explored executions.
func (an *Anomaly) validate(explored int) error {
	if an.Index < 0 || an.Index >= explored || an.ExecTimeNS < 0 || an.Steps < 0 || !ValidOutcome(an.Outcome) || an.Class < 1 {
		return fmt.Errorf("anomaly %d is malformed", an.Index)
	}
	if an.Path != "" && an.Path != ClassPath(an.Class) {
		return fmt.Errorf("anomaly %d: path %q is not its class's %q", an.Index, an.Path, ClassPath(an.Class))
	}
	return nil
}

// DescribeVerdict says in one line how the search judged its candidates,
// for the search phase's line and the summary.
func (sf *Search) DescribeVerdict() string {
	switch {
	case sf.Verdict.FenceOnly:
		return "the fence alone (--fence-only): every execution above the threshold is an anomaly"
	case sf.Significance == nil:
		return fmt.Sprintf("significance test at family-wise α = %g", sf.Verdict.Alpha)
	}
	g := sf.Significance
	return fmt.Sprintf("significance test at family-wise α = %g, look %d of %d over %d executions", sf.Verdict.Alpha, g.Look, g.Looks, g.Searched)
}

// tailText says why the slowest execution of a normal-tail class, idx,
// is not an anomaly ("" when the test did not judge it).
func (g *Significance) tailText(idx int) string {
	for _, t := range g.Tests {
		if t.Index != idx || t.P == nil || t.PValue == nil {
			continue
		}
		return fmt.Sprintf("the tail model of the faster executions puts a normal one at %s or more with p = %.2g, and %d of %d that slow with probability %.2g (the test's level is %.2g)",
			units.Duration(time.Duration(t.ExecTimeNS)), *t.P, t.Rank, g.Searched, *t.PValue, g.Level)
	}
	return ""
}

// Describe says what a class of anomalies is, in one line: its executions,
// their times and slowdown, and the events that set them apart (or its
// finding).
func (c *Class) Describe() string {
	n := fmt.Sprintf("%d execution%s", c.Executions, plural(c.Executions, "", "s"))
	if c.Finding != "" {
		return fmt.Sprintf("%s, FINDING: %s", n, c.Representative.Finding)
	}
	span := units.Duration(time.Duration(c.MinNS))
	if hi := units.Duration(time.Duration(c.MaxNS)); hi != span { // not "20 s–20 s"
		span += "–" + hi
	}
	sig := "no event within the normal time sets them apart"
	if len(c.Signature) > 0 {
		sig = "set apart by " + strings.Join(c.Signature, ", ")
	}
	return fmt.Sprintf("%s of %s (their median %.1fx the profile's), %s", n, span, c.Slowdown, sig)
}

// DescribeTail says what a class of the normal tail is, in one line: its
// executions, their times, slowdown and share of the search, and why they
// are not anomalies.
func (c *Class) DescribeTail(sf *Search) string {
	n := fmt.Sprintf("%d execution%s", c.Executions, plural(c.Executions, "", "s"))
	span := units.Duration(time.Duration(c.MinNS))
	if hi := units.Duration(time.Duration(c.MaxNS)); hi != span {
		span += "–" + hi
	}
	var why []string
	if sf.Significance != nil {
		// The class's slowest member is the one most likely to be
		// significant: judge the class by it.
		slowest, at := -1, int64(-1)
		for _, t := range sf.Significance.Tests {
			if slices.Contains(c.Members, t.Index) && t.ExecTimeNS > at {
				slowest, at = t.Index, t.ExecTimeNS
			}
		}
		if t := sf.Significance.tailText(slowest); t != "" {
			why = append(why, t)
		}
	}
	if c.Cause != nil && c.Cause.Draws {
		why = append(why, fmt.Sprintf("%.0f%% of the excess is the simulator's own draws (event durations, network delays) at a rate its models have", 100*c.Cause.DrawShare))
	}
	if len(why) == 0 {
		why = append(why, "normal variance explains them")
	}
	return fmt.Sprintf("%s of %s (their median %.1fx the profile's, %.2g%% of the %d searched), not anomalies: %s", n, span, c.Slowdown,
		100*float64(c.Executions)/float64(max(sf.Explored, 1)), sf.Explored, strings.Join(why, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/internal/units"
)

// command is the macepc command line with the arguments args, each
// quoted for a POSIX shell where it needs it: a path is one word,
// whatever characters it holds.
func command(args ...string) string { return shellquote.Join(append([]string{"macepc"}, args...)...) }

// replayCommand is the command that replays the path file path.
func replayCommand(path string) string { return command("replay", "--path", path) }

// SummaryFile is DIR/summary.json: the run at a glance, for CI and the
// report. Paths are relative to the results directory.
type SummaryFile struct {
	Header
	PhaseSeeds PhaseSeeds         `json:"phase_seeds"`
	ConfigHash string             `json:"config_hash"`
	EDD        string             `json:"edd"`
	Profile    SummaryProfile     `json:"profile"`
	Anomaly    *SummaryAnomaly    `json:"anomaly"`
	Divergence *SummaryDivergence `json:"divergence"`
	// Training says which parts of the answer depend on the trained
	// event durations (empty when the run used committed ones).
	Training     string        `json:"training,omitempty"`
	Correlations []SummaryCorr `json:"correlations"`
	// LengthOnly lists labels that correlate with execution time only
	// because long executions run longer (periodic timers…).
	LengthOnly []SummaryCorr `json:"length_only"`
	// Replay holds the commands that replay the anomalous and the similar
	// fast execution, run from the results directory, their paths quoted
	// for a POSIX shell where needed.
	Replay []string `json:"replay"`
}

type PhaseSeeds struct {
	Train   uint64 `json:"train"`
	Profile uint64 `json:"profile"`
	Search  uint64 `json:"search"`
	Diverge uint64 `json:"diverge"`
}

type SummaryProfile struct {
	Runs        int     `json:"runs"`
	Q1          float64 `json:"q1"`
	Median      float64 `json:"median"`
	Q3          float64 `json:"q3"`
	Threshold   float64 `json:"threshold"`
	IQRFactor   float64 `json:"iqr_factor"`
	MinSlowdown float64 `json:"min_slowdown"`
	MinExcess   float64 `json:"min_excess"`
	Unfinished  int     `json:"unfinished"`
	// FastMode, when not 0, is how many executions the fence is Tukey's
	// over (ProfileFile.FastMode); FastMedian and FastQ3 are theirs, the
	// normal execution's.
	FastMode   int      `json:"fast_mode,omitempty"`
	FastMedian float64  `json:"fast_median,omitempty"`
	FastQ3     float64  `json:"fast_q3,omitempty"`
	Warnings   []string `json:"warnings"`
}

type SummaryAnomaly struct {
	Found         bool    `json:"found"`
	Explored      int     `json:"explored"`
	MaxRuns       int     `json:"max_runs"`
	Complete      bool    `json:"complete"`
	Index         int     `json:"index"`
	ExecutionTime float64 `json:"execution_time"`
	Steps         int     `json:"steps"`
	Finding       string  `json:"finding,omitempty"`
	Path          string  `json:"path,omitempty"`
	// Class is the rank of the analysed anomaly's class; FirstIndex the
	// first anomalous execution; Anomalies how many were found.
	Class      int            `json:"class,omitempty"`
	FirstIndex int            `json:"first_index"`
	Anomalies  int            `json:"anomalies"`
	Classes    []SummaryClass `json:"classes"`
	// Verdict says how the executions above the threshold were judged;
	// Candidates how many were (anomalies and normal tail together).
	Verdict    string `json:"verdict"`
	Candidates int    `json:"candidates"`
	// Cause is what the analysed anomaly's critical path spent its excess
	// on, against a median execution ("" for a finding).
	Cause string `json:"cause,omitempty"`
	// Tail are the classes of the normal tail: above the threshold, not
	// anomalies.
	Tail           []SummaryClass `json:"tail"`
	TailExecutions int            `json:"tail_executions"`
}

type SummaryClass struct {
	Rank           int      `json:"rank"`
	Executions     int      `json:"executions"`
	Min            float64  `json:"min"`
	Median         float64  `json:"median"`
	Max            float64  `json:"max"`
	Slowdown       float64  `json:"slowdown"`
	Finding        string   `json:"finding,omitempty"`
	Signature      []string `json:"signature"`
	Representative int      `json:"representative"`
	Path           string   `json:"path,omitempty"`
	Text           string   `json:"text"`
	// Cause is the critical path's attribution of its representative's
	// excess over a median execution.
	Cause string `json:"cause,omitempty"`
}

type SummaryDivergence struct {
	Step                 int     `json:"step"`
	TotalSteps           int     `json:"total_steps"`
	IgnorableFraction    float64 `json:"ignorable_fraction"`
	Event                string  `json:"event,omitempty"`
	SimilarExecutionTime float64 `json:"similar_execution_time"`
	SimilarPath          string  `json:"similar_path,omitempty"`
	AnomalyLog           string  `json:"anomaly_log"`
	SimilarLog           string  `json:"similar_log,omitempty"`
	Diff                 string  `json:"diff,omitempty"`
	Executions           int     `json:"executions"`
	// WalksFrom: "snapshot" or "replay" (DivergenceFile.WalksFrom).
	WalksFrom string  `json:"walks_from,omitempty"`
	Criterion string  `json:"criterion"`
	Limit     float64 `json:"limit"`
	// Why says in one line why the divergence step decides the outcome.
	Why string `json:"why,omitempty"`
}

type SummaryCorr struct {
	Label   string   `json:"label"`
	R       *float64 `json:"r"`
	WindowR *float64 `json:"window_r"`
	// Critical: the anomaly's analysis points at the label (its class's
	// signature, or what its critical path's waiting node did).
	Critical bool `json:"critical,omitempty"`
}

const summaryTop = 5

// WriteSummary rewrites DIR/summary.json from the files of the phases
// present, pf being the directory's profile, and returns it.
func (d *Dir) WriteSummary(pf *ProfileFile) (s *SummaryFile, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	if pf == nil {
		return nil, errNilProfile
	}
	return d.writeSummary(pf)
}

func (d *Dir) writeSummary(pf *ProfileFile) (*SummaryFile, error) {
	s, err := d.buildSummary(pf)
	if err != nil {
		return nil, err
	}
	if err := d.writeJSON(FileSummary, s); err != nil {
		return nil, err
	}
	return s, nil
}

// salvageSummary rewrites summary.json from the files left by a phase that
// failed or was interrupted (best effort: the phase's error is what the
// caller sees).
//
// A phase that failed before it changed any file left summary.json as it
// was (it removes it with the files it replaces): that one stays.
func (d *Dir) salvageSummary(pf *ProfileFile) {
	if d.exists(FileSummary) {
		return
	}
	if s, err := d.buildSummary(pf); err == nil {
		d.writeJSON(FileSummary, s)
	}
}

// buildSummary reads what the phases wrote.
func (d *Dir) buildSummary(pf *ProfileFile) (*SummaryFile, error) {
	s := &SummaryFile{Header: newHeader("macepc-summary", pf.System, pf.Variant, pf.Nodes, pf.Seed),
		PhaseSeeds: PhaseSeeds{Train: PhaseSeed(pf.Seed, PhaseTrain), Profile: PhaseSeed(pf.Seed, PhaseProfile), Search: PhaseSeed(pf.Seed, PhaseSearch), Diverge: PhaseSeed(pf.Seed, PhaseDiverge)},
		ConfigHash: pf.ConfigHash, EDD: pf.EDDSource,
		Profile: SummaryProfile{Runs: pf.Runs, Q1: Secs(pf.Q1NS), Median: Secs(pf.MedianNS), Q3: Secs(pf.Q3NS), Threshold: Secs(pf.Threshold),
			IQRFactor: pf.IQRFactor, MinSlowdown: pf.MinSlowdown, MinExcess: Secs(pf.MinExcessNS), Unfinished: pf.Unfinished, Warnings: pf.Warnings},
		Correlations: []SummaryCorr{}, LengthOnly: []SummaryCorr{}, Replay: []string{}}
	if pf.FastMode > 0 {
		s.Profile.FastMode, s.Profile.FastMedian, s.Profile.FastQ3 = pf.FastMode, Secs(pf.FastMedianNS), Secs(pf.FastQ3NS)
	}
	notExist := func(err error) bool { return errors.Is(err, fs.ErrNotExist) }
	sf, err := d.loadSearch(pf)
	if err != nil {
		if notExist(err) {
			return s, nil
		}
		return nil, err
	}
	s.Anomaly = &SummaryAnomaly{Explored: sf.Explored, MaxRuns: sf.MaxRuns, Complete: sf.Complete, Index: -1, FirstIndex: sf.FirstIndex, Anomalies: sf.Anomalies, Classes: []SummaryClass{},
		Verdict: sf.DescribeVerdict(), Candidates: sf.Candidates, Tail: []SummaryClass{}, TailExecutions: sf.TailExecutions}
	summaryClass := func(c Class, tail bool) SummaryClass {
		sc := SummaryClass{Rank: c.Rank, Executions: c.Executions, Min: Secs(c.MinNS), Median: Secs(c.MedianNS), Max: Secs(c.MaxNS),
			Slowdown: c.Slowdown, Finding: c.Representative.Finding, Signature: c.Signature, Representative: c.Representative.Index, Path: c.Representative.Path,
			Text: c.Describe()}
		if tail {
			sc.Text = c.DescribeTail(sf)
		}
		if c.Cause != nil {
			sc.Cause = c.Cause.Headline
		}
		return sc
	}
	for _, c := range sf.Classes {
		s.Anomaly.Classes = append(s.Anomaly.Classes, summaryClass(c, false))
	}
	for _, c := range sf.Tail {
		s.Anomaly.Tail = append(s.Anomaly.Tail, summaryClass(c, true))
	}
	if strings.HasPrefix(pf.EDDSource, "trained") {
		s.Training = "the event durations were trained from this machine's real handler times just now: a new training gives other durations, so the execution indexes, the times, the number of anomalies and the exact divergence step change; the classes, their signatures, the kind of divergence event and the top correlations are what should not. Pass --edd with this directory's " + FileEDD + " to repeat this run exactly"
	}
	df, err := d.loadDivergence(pf)
	an := sf.Anomaly
	if err == nil && df.Anomaly != nil {
		an = df.Anomaly // the class phase 3a analysed (diverge --class)
	}
	if an != nil {
		s.Anomaly.Found = true
		s.Anomaly.Index, s.Anomaly.ExecutionTime, s.Anomaly.Steps, s.Anomaly.Finding, s.Anomaly.Path, s.Anomaly.Class = an.Index, Secs(an.ExecTimeNS), an.Steps, an.Finding, an.Path, an.Class
		if an.Class >= 1 && an.Class <= len(sf.Classes) {
			if k := sf.Classes[an.Class-1].Cause; k != nil {
				s.Anomaly.Cause = k.Headline
			}
		}
		s.Replay = append(s.Replay, replayCommand(an.Path))
	}
	switch {
	case err == nil:
		s.Divergence = &SummaryDivergence{Step: df.Step, TotalSteps: df.TotalSteps, IgnorableFraction: df.IgnorableFraction,
			AnomalyLog: df.AnomalyLog, Diff: df.Diff, Executions: df.Executions, WalksFrom: df.WalksFrom, Criterion: df.Criterion, Limit: Secs(df.LimitNS), Why: df.Why}
		s.Divergence.Event = fmt.Sprintf("step %d", df.Step)
		if e := df.Event; e != nil {
			s.Divergence.Event = e.Describe()
		}
		if sim := df.Similar; sim != nil {
			s.Divergence.SimilarExecutionTime, s.Divergence.SimilarPath, s.Divergence.SimilarLog = Secs(sim.ExecTimeNS), sim.Path, sim.Log
			s.Replay = append(s.Replay, replayCommand(sim.Path))
		}
	case !notExist(err):
		return nil, err
	}
	var cf CorrelationFile
	path := d.File(FileCorrelation)
	if err := readJSONFile(path, &cf); err != nil {
		if notExist(err) {
			return s, nil
		}
		return nil, err
	}
	if err := checkFormat(path, cf.Format, cf.Version, "macepc-correlation"); err != nil {
		return nil, err
	}
	for _, c := range cf.Labels {
		sc := SummaryCorr{Label: c.Label, R: c.R, WindowR: c.WindowR, Critical: c.Critical}
		switch {
		case c.SameAs != "": // another label says the same
		case c.LengthOnly && !c.Critical && len(s.LengthOnly) < summaryTop:
			s.LengthOnly = append(s.LengthOnly, sc)
		case (!c.LengthOnly || c.Critical) && len(s.Correlations) < summaryTop && c.R != nil:
			s.Correlations = append(s.Correlations, sc)
		}
	}
	return s, nil
}

// Describe is "step S: label [on node] [from node] at time".
func (e *Event) Describe() string {
	return fmt.Sprintf("step %d: %s at %s", e.Step, eventWhat(e), units.Duration(time.Duration(e.StartNS)))
}

// Describe says what a class of anomalies is, in one line: its executions,
// their times and slowdown, and the events that set them apart (or its
// finding).
func (c *Class) Describe() string {
	n := fmt.Sprintf("%d execution%s", c.Executions, plural(c.Executions, "", "s"))
	if c.Finding != "" {
		return fmt.Sprintf("%s, FINDING: %s", n, c.Representative.Finding)
	}
	span := ShortTime(time.Duration(c.MinNS))
	if hi := ShortTime(time.Duration(c.MaxNS)); hi != span { // not "20 s–20 s"
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
func (c *Class) DescribeTail(sf *SearchFile) string {
	n := fmt.Sprintf("%d execution%s", c.Executions, plural(c.Executions, "", "s"))
	span := ShortTime(time.Duration(c.MinNS))
	if hi := ShortTime(time.Duration(c.MaxNS)); hi != span {
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

// ShortTime is d with 4 significant digits in the unit that fits it
// ("10.01 s", "747.8 ms", "1.8 µs"; package internal/units).
func ShortTime(d time.Duration) string { return units.Duration(d) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

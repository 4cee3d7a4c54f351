package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// summaryFile is DIR/summary.json: the run at a glance, for CI and the
// report. Paths are relative to the results directory.
type summaryFile struct {
	fileHeader
	PhaseSeeds phaseSeeds      `json:"phase_seeds"`
	ConfigHash string          `json:"config_hash"`
	EDD        string          `json:"edd"`
	Profile    summaryProfile  `json:"profile"`
	Anomaly    *summaryAnomaly `json:"anomaly"`
	Divergence *summaryDiverge `json:"divergence"`
	// Training says which parts of the answer depend on the trained
	// event durations (empty when the run used committed ones).
	Training     string        `json:"training,omitempty"`
	Correlations []summaryCorr `json:"correlations"`
	// LengthOnly lists labels that correlate with execution time only
	// because long executions run longer (periodic timers…).
	LengthOnly []summaryCorr `json:"length_only"`
	// Replay holds the commands that replay the anomalous and the similar
	// fast execution, run from the results directory.
	Replay []string `json:"replay"`
}

type phaseSeeds struct {
	Train   uint64 `json:"train"`
	Profile uint64 `json:"profile"`
	Search  uint64 `json:"search"`
	Diverge uint64 `json:"diverge"`
}

type summaryProfile struct {
	Runs        int      `json:"runs"`
	Q1          float64  `json:"q1"`
	Median      float64  `json:"median"`
	Q3          float64  `json:"q3"`
	Threshold   float64  `json:"threshold"`
	IQRFactor   float64  `json:"iqr_factor"`
	MinSlowdown float64  `json:"min_slowdown"`
	MinExcess   float64  `json:"min_excess"`
	Unfinished  int      `json:"unfinished"`
	Warnings    []string `json:"warnings"`
}

type summaryAnomaly struct {
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
	Classes    []summaryClass `json:"classes"`
}

type summaryClass struct {
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
}

type summaryDiverge struct {
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
	Criterion            string  `json:"criterion"`
	Limit                float64 `json:"limit"`
	// Why says in one line why the divergence step decides the outcome.
	Why string `json:"why,omitempty"`
}

type summaryCorr struct {
	Label   string   `json:"label"`
	R       *float64 `json:"r"`
	WindowR *float64 `json:"window_r"`
}

const summaryTop = 5

func secs(ns int64) float64 { return round9(time.Duration(ns).Seconds()) }

// buildSummary reads what the phases wrote.
func buildSummary(p *pipeline, pf *profileFile) (*summaryFile, error) {
	s := &summaryFile{fileHeader: newHeader("macepc-summary", pf.System, pf.Variant, pf.Nodes, pf.Seed),
		PhaseSeeds: phaseSeeds{Train: phaseSeed(pf.Seed, "train"), Profile: phaseSeed(pf.Seed, "profile"), Search: phaseSeed(pf.Seed, "search"), Diverge: phaseSeed(pf.Seed, "diverge")},
		ConfigHash: pf.ConfigHash, EDD: pf.EDDSource,
		Profile: summaryProfile{Runs: pf.Runs, Q1: secs(pf.Q1NS), Median: secs(pf.MedianNS), Q3: secs(pf.Q3NS), Threshold: secs(pf.Threshold),
			IQRFactor: pf.IQRFactor, MinSlowdown: pf.MinSlowdown, MinExcess: secs(pf.MinExcessNS), Unfinished: pf.Unfinished, Warnings: pf.Warnings},
		Correlations: []summaryCorr{}, LengthOnly: []summaryCorr{}, Replay: []string{}}
	notExist := func(err error) bool { return errors.Is(err, fs.ErrNotExist) }
	sf, err := p.loadSearch(pf)
	if err != nil {
		if notExist(err) {
			return s, nil
		}
		return nil, err
	}
	s.Anomaly = &summaryAnomaly{Explored: sf.Explored, MaxRuns: sf.MaxRuns, Complete: sf.Complete, Index: -1, FirstIndex: sf.FirstIndex, Anomalies: sf.Anomalies, Classes: []summaryClass{}}
	for _, c := range sf.Classes {
		s.Anomaly.Classes = append(s.Anomaly.Classes, summaryClass{Rank: c.Rank, Executions: c.Executions, Min: secs(c.MinNS), Median: secs(c.MedianNS), Max: secs(c.MaxNS),
			Slowdown: c.Slowdown, Finding: c.Representative.Finding, Signature: c.Signature, Representative: c.Representative.Index, Path: c.Representative.Path,
			Text: describeClass(c)})
	}
	if strings.HasPrefix(pf.EDDSource, "trained") {
		s.Training = "the event durations were trained from this machine's real handler times just now: a new training gives other durations, so the execution indexes, the times, the number of anomalies and the exact divergence step change; the classes, their signatures, the kind of divergence event and the top correlations are what should not. Pass --edd with this directory's " + fileEDD + " to repeat this run exactly"
	}
	df, err := p.loadDivergence(pf)
	an := sf.Anomaly
	if err == nil && df.Anomaly != nil {
		an = df.Anomaly // the class phase 3a analysed (diverge --class)
	}
	if an != nil {
		s.Anomaly.Found = true
		s.Anomaly.Index, s.Anomaly.ExecutionTime, s.Anomaly.Steps, s.Anomaly.Finding, s.Anomaly.Path, s.Anomaly.Class = an.Index, secs(an.ExecTimeNS), an.Steps, an.Finding, an.Path, an.Class
		s.Replay = append(s.Replay, "macepc replay --path "+an.Path)
	}
	switch {
	case err == nil:
		s.Divergence = &summaryDiverge{Step: df.Step, TotalSteps: df.TotalSteps, IgnorableFraction: df.IgnorableFraction,
			AnomalyLog: df.AnomalyLog, Diff: df.Diff, Executions: df.Executions, Criterion: df.Criterion, Limit: secs(df.LimitNS), Why: df.Why}
		s.Divergence.Event = fmt.Sprintf("step %d", df.Step)
		if e := df.Event; e != nil {
			s.Divergence.Event = describeEvent(e)
		}
		if sim := df.Similar; sim != nil {
			s.Divergence.SimilarExecutionTime, s.Divergence.SimilarPath, s.Divergence.SimilarLog = secs(sim.ExecTimeNS), sim.Path, sim.Log
			s.Replay = append(s.Replay, "macepc replay --path "+sim.Path)
		}
	case !notExist(err):
		return nil, err
	}
	var cf correlationFile
	path := p.path(fileCorrelation)
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
		sc := summaryCorr{Label: c.Label, R: c.R, WindowR: c.WindowR}
		switch {
		case c.SameAs != "": // its event label says the same
		case c.LengthOnly && len(s.LengthOnly) < summaryTop:
			s.LengthOnly = append(s.LengthOnly, sc)
		case !c.LengthOnly && len(s.Correlations) < summaryTop && c.R != nil:
			s.Correlations = append(s.Correlations, sc)
		}
	}
	return s, nil
}

func describeEvent(e *eventRec) string {
	return fmt.Sprintf("step %d: %s at %s", e.Step, eventWhat(e), timedsim.FormatTime(time.Duration(e.StartNS)))
}

func fmtS(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) + "s" }

func fmtR(r *float64) string {
	if r == nil {
		return "   n/a"
	}
	return fmt.Sprintf("%+.3f", *r)
}

// printSummary is the human summary at the end of a run.
func printSummary(w io.Writer, dir string, s *summaryFile) {
	fmt.Fprintf(w, "\nsummary (%s, seed %d):\n", filepath.Join(dir, fileSummary), s.Seed)
	pr := s.Profile
	fmt.Fprintf(w, "  normal execution time: median %s, Q3 %s; anomalous above %s (%d profile executions)\n", fmtS(pr.Median), fmtS(pr.Q3), fmtS(pr.Threshold), pr.Runs)
	an := s.Anomaly
	switch {
	case an == nil:
		fmt.Fprintf(w, "  anomaly search: not run\n")
	case !an.Found:
		fmt.Fprintf(w, "  no anomaly in %d executions\n", an.Explored)
	default:
		fmt.Fprintf(w, "  %d anomalous of %d executions (the first at %d), in %d class%s by execution time and the events that set them apart:\n",
			an.Anomalies, an.Explored, an.FirstIndex, len(an.Classes), plural(len(an.Classes), "", "es"))
		for i, c := range an.Classes {
			if i == 3 {
				fmt.Fprintf(w, "    … %d more in %s\n", len(an.Classes)-i, filepath.Join(dir, fileSearch))
				break
			}
			fmt.Fprintf(w, "    class %d: %s\n", c.Rank, c.Text)
		}
		what := fmt.Sprintf("%s (%.1fx the median)", fmtS(an.ExecutionTime), an.ExecutionTime/max(pr.Median, 1e-9))
		if an.Finding != "" {
			what = an.Finding
		}
		fmt.Fprintf(w, "  ANOMALY: class %d, execution %d of the search: %s, %d steps\n", an.Class, an.Index, what, an.Steps)
	}
	if d := s.Divergence; d != nil {
		if d.Step < 0 {
			fmt.Fprintf(w, "  divergence: no walk recovers even from the start: the anomaly does not come from a rare choice\n")
		} else {
			fmt.Fprintf(w, "  divergence point: %s; the first %.1f%% of the %d steps can be ignored\n", d.Event, 100*d.IgnorableFraction, d.TotalSteps)
			if d.Why != "" {
				fmt.Fprintf(w, "  why: %s\n", d.Why)
			}
			fmt.Fprintf(w, "  similar fast execution: %s, same first %d steps\n", fmtS(d.SimilarExecutionTime), d.Step)
			fmt.Fprintf(w, "  side by side from the divergence point: %s\n", filepath.Join(dir, d.Diff))
		}
	}
	if len(s.Correlations) > 0 {
		fmt.Fprintf(w, "  events correlated with execution time (r, r within the normal time):\n")
		for _, c := range s.Correlations {
			fmt.Fprintf(w, "    %s %s  %s\n", fmtR(c.R), fmtR(c.WindowR), c.Label)
		}
		if len(s.LengthOnly) > 0 {
			var names []string
			for _, c := range s.LengthOnly {
				names = append(names, c.Label)
			}
			fmt.Fprintf(w, "  only because long executions run longer: %s\n", strings.Join(names, ", "))
		}
	}
	for _, r := range s.Replay {
		fmt.Fprintf(w, "  replay: %s\n", strings.Replace(r, "--path ", "--path "+dir+string(filepath.Separator), 1))
	}
	if s.Training != "" && s.Anomaly != nil && s.Anomaly.Found {
		fmt.Fprintf(w, "  training: %s\n", s.Training)
	}
}

func (a *app) printTrain(p *pipeline, tf *trainFile) {
	n := 0
	for _, l := range tf.Labels {
		n += l.Samples
	}
	fmt.Fprintf(a.stdout, "phase 1a train: %d executions (seed %d), %d handler times, %d labels trained -> %s\n",
		tf.Runs, tf.PhaseSeed, n, len(tf.Labels), p.path(fileEDD))
}

func (a *app) printProfile(pf *profileFile) {
	fmt.Fprintf(a.stdout, "phase 1b profile: %d executions (seed %d): min %s Q1 %s median %s Q3 %s max %s\n",
		pf.Runs, pf.Seed, fmtS(secs(pf.MinNS)), fmtS(secs(pf.Q1NS)), fmtS(secs(pf.MedianNS)), fmtS(secs(pf.Q3NS)), fmtS(secs(pf.MaxNS)))
	fmt.Fprintf(a.stdout, "  anomaly threshold %s = max(Q3+%g*IQR = %s, %g*median, median + %s (%s))\n", fmtS(secs(pf.Threshold)), pf.IQRFactor, fmtS(secs(pf.TukeyNS)), pf.MinSlowdown,
		shortTime(time.Duration(pf.MinExcessNS)), pf.MinExcessBy)
	c := pf.Coverage
	fmt.Fprintf(a.stdout, "  EDD (%s): %d labels trained, %d fell back to their kind, %d to the seed distribution\n", pf.EDDSource, len(c.Trained), len(c.Fallback), len(c.Seed))
	for _, l := range slices.Sorted(maps.Keys(c.Fallback)) {
		fmt.Fprintf(a.stdout, "    %s uses %s\n", l, c.Fallback[l])
	}
	for _, w := range pf.Warnings {
		fmt.Fprintf(a.stderr, "macepc: warning: %s\n", w)
	}
}

func (a *app) printSearch(p *pipeline, sf *searchFile) {
	if sf.Anomaly == nil {
		fmt.Fprintf(a.stdout, "phase 2 search: no anomaly in %d executions (seed %d)\n", sf.Explored, sf.Seed)
		return
	}
	fmt.Fprintf(a.stdout, "phase 2 search: first anomaly at execution %d of %d explored (seed %d, %d more to triage): %d anomalous in %d class%s\n",
		sf.FirstIndex, sf.Explored, sf.Seed, sf.Explored-sf.FirstIndex-1, sf.Anomalies, len(sf.Classes), plural(len(sf.Classes), "", "es"))
	for i, c := range sf.Classes {
		if i == maxClassPaths {
			fmt.Fprintf(a.stdout, "  … %d more classes in %s\n", len(sf.Classes)-i, p.path(fileSearch))
			break
		}
		fmt.Fprintf(a.stdout, "  class %d: %s\n", c.Rank, describeClass(c))
		rep := c.Representative
		fmt.Fprintf(a.stdout, "    representative: execution %d, %s, %d steps -> %s\n", rep.Index, timedsim.FormatTime(time.Duration(rep.ExecTimeNS)), rep.Steps, p.path(rep.Path))
	}
}

// describeClass says what a class of anomalies is, in one line.
func describeClass(c classRec) string {
	n := fmt.Sprintf("%d execution%s", c.Executions, plural(c.Executions, "", "s"))
	if c.Finding != "" {
		return fmt.Sprintf("%s, FINDING: %s", n, c.Representative.Finding)
	}
	span := shortTime(time.Duration(c.MinNS))
	if c.MaxNS != c.MinNS {
		span += "–" + shortTime(time.Duration(c.MaxNS))
	}
	sig := "no event within the normal time sets them apart"
	if len(c.Signature) > 0 {
		sig = "set apart by " + strings.Join(c.Signature, ", ")
	}
	return fmt.Sprintf("%s of %s (%.1fx the median), %s", n, span, c.Slowdown, sig)
}

// shortTime is d with 4 significant digits ("10.01s", "747.8ms", "1.8µs").
func shortTime(d time.Duration) string {
	unit := time.Duration(1)
	for v := d; v >= 10000; v /= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (a *app) printDivergence(p *pipeline, df *divergenceFile) {
	cut := 0
	for _, pr := range df.Probes {
		cut += pr.Cut
	}
	fmt.Fprintf(a.stdout, "phase 3a divergence of class %d, execution %d: %d probes, %d walks and %d confirmation walks cut at %s (k=%d, seed %d); a walk recovers if it %s\n",
		df.Anomaly.Class, df.Anomaly.Index, len(df.Probes), df.Executions-cut, cut, timedsim.FormatTime(time.Duration(df.LimitNS)), df.Walks, df.Seed, df.Criterion)
	if df.Step < 0 {
		fmt.Fprintf(a.stdout, "  no walk recovers even from the start\n")
		return
	}
	ev := fmt.Sprintf("step %d", df.Step)
	if df.Event != nil {
		ev = describeEvent(df.Event)
	}
	fmt.Fprintf(a.stdout, "  divergence at %s of %d (%.1f%% ignorable)\n", ev, df.TotalSteps, 100*df.IgnorableFraction)
	if s := df.Similar; s != nil {
		fmt.Fprintf(a.stdout, "  similar fast execution: %s (walk %d from prefix %d) -> %s\n", timedsim.FormatTime(time.Duration(s.ExecTimeNS)), s.Walk, s.Prefix, p.path(s.Path))
	}
}

func (a *app) printCorrelation(cf *correlationFile) {
	fmt.Fprintf(a.stdout, "phase 3b correlation: %d executions (%d search, %d walks), %d labels\n", cf.Executions, cf.SearchExecutions, cf.WalkExecutions, len(cf.Labels))
}

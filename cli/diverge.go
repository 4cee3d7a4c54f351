package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/timedsim"
)

// ---- phase 3a: divergence ----

// divergenceFile is DIR/divergence.json.
type divergenceFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Seed       uint64 `json:"seed"` // walk j of the probe at prefix p continues with divergence.WalkSeed(Seed, p, j)
	Walks      int    `json:"walks"`
	// Confirm is the number of confirmation walks (k, k+1, …, cut short at
	// LimitNS) a probe ran when none of its k walks recovered.
	Confirm int `json:"confirm_walks"`
	// A walk recovers if it finishes within LimitNS: max(Q3, min(threshold,
	// √(median·anomaly))) (divergence.NewCriterion).
	Criterion   string `json:"criterion"`
	LimitNS     int64  `json:"limit_ns"`
	MedianNS    int64  `json:"median_ns"`
	Q3NS        int64  `json:"q3_ns"`
	ThresholdNS int64  `json:"threshold_ns"`
	// Step is the divergence step: the longest prefix of the anomalous
	// execution from which a walk recovers; the event at this (0-based)
	// step is the one after which none does. -1: no walk recovers even
	// from the start.
	Step              int         `json:"step"`
	TotalSteps        int         `json:"total_steps"`
	IgnorableFraction float64     `json:"ignorable_fraction"`
	Event             *eventRec   `json:"event"` // the divergence event of the anomalous execution
	Similar           *similarRec `json:"similar"`
	AnomalyLog        string      `json:"anomaly_log"`
	Diff              string      `json:"diff"`
	Executions        int         `json:"executions"`
	Probes            []probeRec  `json:"probes"`
	// Why says in one line why step Step decides the outcome.
	Why         string      `json:"why"`
	Interrupted bool        `json:"interrupted,omitempty"`
	Anomaly     *anomalyRec `json:"anomaly"`
}

type eventRec struct {
	Step    int    `json:"step"`
	Node    string `json:"node"`
	Label   string `json:"label"`
	From    string `json:"from,omitempty"`
	StartNS int64  `json:"start_ns"`
}

type similarRec struct {
	Prefix int `json:"prefix"`
	Walk   int `json:"walk"`
	// Event is the similar execution's step Prefix: where the anomaly
	// runs the divergence event, the similar execution runs this one.
	Event      *eventRec `json:"event"`
	ExecTimeNS int64     `json:"exec_time_ns"`
	Steps      int       `json:"steps"`
	Path       string    `json:"path"`
	Log        string    `json:"log"`
}

type probeRec struct {
	Prefix        int     `json:"prefix"`
	Walks         int     `json:"walks"`
	Recovered     bool    `json:"recovered"`
	RecoveredWalk int     `json:"recovered_walk"`
	ExecTimesNS   []int64 `json:"exec_times_ns"`
	Cut           int     `json:"cut_walks"` // confirmation walks that did not recover (exec_times_ns holds the others)
}

// checkDivergeable says why a search result cannot be analysed.
func (p *pipeline) checkDivergeable(sf *searchFile) error {
	if sf.Anomaly == nil {
		if !sf.Complete {
			return fmt.Errorf("the search in %s was interrupted before finding an anomaly: run 'macepc search' again", p.dir)
		}
		return fmt.Errorf("the search in %s found no anomaly in %d executions: nothing to analyse", p.dir, sf.Explored)
	}
	return nil
}

// pickClass is the anomaly of sf that phase 3a analyses: the
// representative of class rank (1: the most severe), with a path file.
func (p *pipeline) pickClass(rs *resolved, sf *searchFile, rank int) (*anomalyRec, error) {
	if err := p.checkDivergeable(sf); err != nil {
		return nil, err
	}
	if rank < 1 || rank > len(sf.Classes) {
		return nil, fmt.Errorf("--class %d: the search in %s found %d class(es) of anomalies", rank, p.dir, len(sf.Classes))
	}
	an := sf.Classes[rank-1].Representative
	if an.Path == "" {
		an.Path = classPath(rank)
		if err := p.writeAnomalyPath(rs, sf.Seed, &an, sf.ThresholdNS); err != nil {
			return nil, err
		}
	}
	return &an, nil
}

func (p *pipeline) diverge(pf *profileFile, rs *resolved, sf *searchFile, an *anomalyRec, walks, confirm int) (*divergenceFile, error) {
	apf, err := readPathFile(p.path(an.Path))
	if err != nil {
		return nil, fmt.Errorf("the anomalous execution's path file: %w (run 'macepc search --out %s' again)", errors.Unwrap(err), p.dir)
	}
	if apf.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s)", an.Path, apf.ConfigHash, pf.ConfigHash)
	}
	anomalous := apf.Path()
	opts := rs.opts
	opts.CountWindow = pf.countWindow()
	crit, err := divergence.NewCriterion(time.Duration(pf.MedianNS), time.Duration(pf.Q3NS), time.Duration(pf.Threshold), time.Duration(an.ExecTimeNS))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.path(fileProfile), err)
	}
	seed := phaseSeed(pf.Seed, "diverge")
	var lines jsonLines
	ex := &timedsim.Explorer{Scenario: rs.sc, Options: opts, Jobs: p.jobs}
	prog := p.a.startProgress(p.progress, "diverge", walks*4)
	probes := 0
	if confirm == 0 {
		confirm = -1 // divergence.Config: none
	}
	cfg := divergence.Config{Explorer: ex, Walks: walks, Confirm: confirm, Deadline: crit.Limit, Seed: seed,
		Recovers: func(r *timedsim.Result) bool { return crit.Recovered(r.Finished, r.ExecTime) },
		Each: func(prefix, walk int, r *timedsim.Result) {
			l := newCountsLine("diverge", walk, prefix, divergence.WalkSeed(seed, prefix, walk), r)
			rec := crit.Recovered(r.Finished, r.ExecTime)
			l.Recovered = &rec
			lines.add(l)
			if walk == 0 {
				probes++
				prog.grow((probes + 2) * walks)
			}
			prog.add(1, fmt.Sprintf("diverge: prefix %d", prefix))
		}}
	// A panicking execution's Steps does not count the step that panicked;
	// the prefixes to search include it.
	total := an.Steps
	if an.Outcome == timedsim.Panicked.String() {
		total++
	}
	rep, err := divergence.Find(p.a.ctx, cfg, anomalous, total)
	prog.done()
	if err != nil {
		return nil, fmt.Errorf("interrupted in phase diverge after %d walk executions; the files of the completed phases are in %s", countProbeWalks(rep), p.dir)
	}
	df := &divergenceFile{Format: "macepc-divergence", Version: 1, ConfigHash: pf.ConfigHash, Seed: seed, Walks: rep.Walks, Confirm: rep.Confirm,
		Criterion: crit.Describe(), LimitNS: int64(crit.Limit), MedianNS: pf.MedianNS, Q3NS: pf.Q3NS, ThresholdNS: pf.Threshold,
		Step: rep.Step, TotalSteps: rep.TotalSteps, IgnorableFraction: round6(rep.IgnorableFraction), Executions: rep.Executions,
		AnomalyLog: fileAnomalyLog, Anomaly: an}
	for _, pr := range rep.Probes {
		ts := make([]int64, len(pr.ExecTimes))
		for i, t := range pr.ExecTimes {
			ts[i] = int64(t)
		}
		df.Probes = append(df.Probes, probeRec{Prefix: pr.Prefix, Walks: pr.Walks, Recovered: pr.Recovered, RecoveredWalk: pr.RecoveredWalk, ExecTimesNS: ts, Cut: pr.Cut})
	}

	// Replay both executions with the event log on.
	aRes, err := p.record(rs, anomalous)
	if err != nil {
		return nil, err
	}
	if aRes.ExecTime != time.Duration(an.ExecTimeNS) || aRes.Steps != an.Steps {
		return nil, fmt.Errorf("replaying %s gave %s in %d steps, but the search recorded %s in %d: the system is not deterministic (a handler uses randomness or state outside ctx)",
			an.Path, timedsim.FormatTime(aRes.ExecTime), aRes.Steps, timedsim.FormatTime(time.Duration(an.ExecTimeNS)), an.Steps)
	}
	if err := p.writeLog(fileAnomalyLog, apf, anomalous, aRes); err != nil {
		return nil, err
	}
	var aEv, sEv *timedsim.TimedEvent
	if rep.Step >= 0 && rep.Step < len(aRes.Events) {
		aEv = &aRes.Events[rep.Step]
		df.Event = newEventRec(*aEv)
	}
	var sRes *timedsim.Result
	if rep.Similar != nil {
		if sRes, err = p.record(rs, rep.Similar.Path); err != nil {
			return nil, err
		}
		note := fmt.Sprintf("similar fast execution: the anomaly's first %d steps, then walk %d (%s <= recovery limit %s)", rep.Step, rep.SimilarWalk, timedsim.FormatTime(sRes.ExecTime), timedsim.FormatTime(crit.Limit))
		if err := p.a.writePath(p.path(fileSimilarPath), rs, rep.Similar.Path, note); err != nil {
			return nil, err
		}
		spf, err := timedsim.NewPathFile(rs.sys.Name, rs.variant, rs.sc, rs.opts, rep.Similar.Path, note)
		if err != nil {
			return nil, err
		}
		if err := p.writeLog(fileSimilarLog, spf, rep.Similar.Path, sRes); err != nil {
			return nil, err
		}
		df.Similar = &similarRec{Prefix: rep.Step, Walk: rep.SimilarWalk, ExecTimeNS: int64(sRes.ExecTime), Steps: sRes.Steps, Path: fileSimilarPath, Log: fileSimilarLog}
		if rep.Step < len(sRes.Events) {
			sEv = &sRes.Events[rep.Step]
			df.Similar.Event = newEventRec(*sEv)
		}
		df.Diff = fileDiff
		if err := atomicfile.Write(p.path(fileDiff), func(w io.Writer) error {
			return sideBySide(w, aRes, sRes, rep.Step)
		}); err != nil {
			return nil, err
		}
	}
	df.Why = df.why(aEv, sEv)
	if err := writeJSON(p.path(fileEvents), newEventsFile(pf.ConfigHash, rs.sc.Nodes, rep.Step, aRes, sRes)); err != nil {
		return nil, err
	}
	if err := lines.write(p.path(fileWalks)); err != nil {
		return nil, err
	}
	if err := writeJSON(p.path(fileDivergence), df); err != nil {
		return nil, err
	}
	return df, nil
}

func newEventRec(e timedsim.TimedEvent) *eventRec {
	r := &eventRec{Step: e.Step, Node: e.Node.String(), Label: e.Label, StartNS: int64(e.Start)}
	if e.From != timedsim.None {
		r.From = e.From.String()
	}
	return r
}

// why says in one line why the divergence step decides the outcome: the
// probes on either side of it, and what the similar fast execution does
// there instead (a, s: the two executions' events at that step; s nil
// without a similar execution).
func (df *divergenceFile) why(a, s *timedsim.TimedEvent) string {
	if df.Step < 0 || a == nil {
		return ""
	}
	var before, after *probeRec
	for i := range df.Probes {
		switch df.Probes[i].Prefix {
		case df.Step:
			before = &df.Probes[i]
		case df.Step + 1:
			after = &df.Probes[i]
		}
	}
	limit := timedsim.FormatTime(time.Duration(df.LimitNS))
	var b strings.Builder
	fmt.Fprintf(&b, "step %d decides the outcome:", df.Step)
	if before != nil && before.Recovered {
		t := before.ExecTimesNS[len(before.ExecTimesNS)-1]
		fmt.Fprintf(&b, " replaying the %d steps before it, walk %d finished in %s (within %s);", df.Step, before.RecoveredWalk, timedsim.FormatTime(time.Duration(t)), limit)
	}
	if after != nil && !after.Recovered {
		fmt.Fprintf(&b, " replaying it too, none of %d walks did", after.Walks)
		if len(after.ExecTimesNS) > 0 {
			fmt.Fprintf(&b, " (fastest %s)", timedsim.FormatTime(time.Duration(slices.Min(after.ExecTimesNS))))
		}
		b.WriteString(";")
	} else if df.Step == df.TotalSteps {
		b.WriteString(" the anomalous execution itself meets the recovery criterion;")
	}
	switch {
	case s == nil:
		fmt.Fprintf(&b, " the anomaly runs %s", eventWhat(newEventRec(*a)))
	case s.Label != a.Label || s.Node != a.Node || s.From != a.From:
		fmt.Fprintf(&b, " at this step the anomaly runs %s, the similar fast execution %s", eventWhat(newEventRec(*a)), eventWhat(newEventRec(*s)))
	default:
		fmt.Fprintf(&b, " both executions run %s here, with other random draws: %s", eventWhat(newEventRec(*a)), drawsDiffer(a, s))
	}
	return b.String()
}

// drawsDiffer says how one event differs between two executions: its
// duration, the arrival of the messages it sent, the timers it set.
func drawsDiffer(a, s *timedsim.TimedEvent) string {
	var out []string
	if a.Duration != s.Duration {
		out = append(out, fmt.Sprintf("it takes %s in the anomaly and %s in the similar fast execution", timedsim.FormatTime(a.Duration), timedsim.FormatTime(s.Duration)))
	}
	for _, m := range a.Sends {
		for _, n := range s.Sends {
			if m.To == n.To && m.Type == n.Type && m.Transport == n.Transport && (m.Arrive != n.Arrive || m.Status != n.Status) {
				out = append(out, fmt.Sprintf("its %s to %v arrives at %s in the anomaly and at %s in the similar one", m.Type, m.To, arrival(m), arrival(n)))
				break
			}
		}
	}
	for i := range min(len(a.Logs), len(s.Logs)) {
		if a.Logs[i] != s.Logs[i] {
			out = append(out, fmt.Sprintf("it logs %q in the anomaly and %q in the similar one", a.Logs[i], s.Logs[i]))
			break
		}
	}
	if len(out) == 0 {
		return "the difference is in the random choices of the handler"
	}
	return strings.Join(out, "; ")
}

func arrival(m timedsim.SentMessage) string {
	if m.Status != "sent" {
		return "never (" + m.Status + ")"
	}
	return timedsim.FormatTime(m.Arrive)
}

// eventWhat is "label [on node] [from node]" (a driver's partition is
// on no node).
func eventWhat(e *eventRec) string {
	s := e.Label
	if e.Node != timedsim.None.String() {
		s += " on " + e.Node
	}
	if e.From != "" {
		s += " from " + e.From
	}
	return s
}

func countProbeWalks(rep *divergence.Report) int {
	if rep == nil {
		return 0
	}
	return rep.Executions
}

// record replays a path with the event log on.
func (p *pipeline) record(rs *resolved, path timedsim.Path) (*timedsim.Result, error) {
	opts := rs.opts
	opts.Record = true
	sim, err := timedsim.NewSimulator(rs.sc, opts)
	if err != nil {
		return nil, err
	}
	r := sim.RunContext(p.a.ctx, path)
	if r.Outcome == timedsim.Interrupted {
		return nil, fmt.Errorf("interrupted while replaying for the event logs; the files of the completed phases are in %s", p.dir)
	}
	return r, nil
}

func (p *pipeline) writeLog(name string, pf *timedsim.PathFile, path timedsim.Path, r *timedsim.Result) error {
	h := timedsim.LogHeader{System: pf.System, Variant: pf.Variant, Nodes: pf.Nodes, ConfigHash: pf.ConfigHash, Params: pf.Params, Path: path}
	return atomicfile.Write(p.path(name), func(w io.Writer) error { return timedsim.WriteEventLog(w, h, r) })
}

func (p *pipeline) loadDivergence(pf *profileFile) (*divergenceFile, error) {
	path := p.path(fileDivergence)
	var df divergenceFile
	if err := readJSONFile(path, &df); err != nil {
		return nil, err
	}
	if err := checkFormat(path, df.Format, df.Version, "macepc-divergence"); err != nil {
		return nil, err
	}
	if df.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s)", path, df.ConfigHash, pf.ConfigHash)
	}
	return &df, nil
}

// ---- phase 3b: frequency correlation ----

// correlationFile is DIR/correlation.json.
type correlationFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	// Executions of phases 2 and 3a that were correlated.
	Executions       int                   `json:"executions"`
	SearchExecutions int                   `json:"search_executions"`
	WalkExecutions   int                   `json:"walk_executions"`
	WindowNS         int64                 `json:"window_ns"`
	MinR             float64               `json:"min_r"`
	Method           string                `json:"method"`
	Labels           []anomaly.Correlation `json:"labels"`
}

const correlationMethod = "Pearson r of each label's count per execution with the execution time (r), and of its count among the events starting within the window (window_ns, the profile's Q1) over the executions that ran the whole window (window_r); length_only marks labels whose correlation disappears in the window: they happen because the execution is long (periodic timers and the work they trigger), not before it became long; a composite label 'event → type' counts the events whose handler sent that type, 'event → note' those whose handler made that note (timedsim.Context.Note), 'event → (nothing)' those that did neither, and same_as marks a composite whose counts equal its event's in every execution (ranked last)"

func (p *pipeline) correlate(pf *profileFile) (*correlationFile, error) {
	search, err := readCountsLines(p.path(fileSearchExecs), false)
	if err != nil {
		return nil, fmt.Errorf("%w (run 'macepc search --out %s' first)", err, p.dir)
	}
	walks, err := readCountsLines(p.path(fileWalks), true)
	if err != nil {
		return nil, err
	}
	samples := make([]anomaly.Sample, 0, len(search)+len(walks))
	for _, l := range append(append([]countsLine(nil), search...), walks...) {
		samples = append(samples, anomaly.Sample{ExecTime: time.Duration(l.ExecTimeNS), Counts: l.Counts, Window: l.Window})
	}
	if len(samples) < 3 {
		return nil, fmt.Errorf("only %d executions to correlate: run the search (and divergence) phases first", len(samples))
	}
	cf := &correlationFile{Format: "macepc-correlation", Version: 1, ConfigHash: pf.ConfigHash, Executions: len(samples),
		SearchExecutions: len(search), WalkExecutions: len(walks), WindowNS: int64(pf.countWindow()), MinR: anomaly.MinR, Method: correlationMethod,
		Labels: anomaly.Correlate(samples, pf.countWindow())}
	if err := writeJSON(p.path(fileCorrelation), cf); err != nil {
		return nil, err
	}
	return cf, nil
}

func round6(x float64) float64 {
	const k = 1e6
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/critpath"
	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// ---- phase 3a: divergence ----

// DivergeConfig configures phase 3a.
type DivergeConfig struct {
	Env
	// Profile is the directory's profile (Dir.LoadProfile), Target its
	// configuration (nil: rebuilt from the profile's template with
	// Env.Systems) and Search its search (nil: read from Dir).
	Profile *results.Profile
	Target  *Target
	Search  *SearchFile
	// Class is the rank of the class of anomalies whose representative is
	// analysed (0 or 1: the most severe; see SearchFile.Classes).
	Class int
	// Walks is the number of random walks per prefix (k).
	Walks int
	// Confirm is the number of confirmation walks, cut short at the
	// recovery limit, that a prefix none of whose k walks recovered runs
	// before it counts as doomed (0: none, as in MacePC;
	// divergence.DefaultConfirm is the command line's default).
	Confirm int
}

func (c *DivergeConfig) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	switch {
	case c.Profile == nil:
		return errors.New("no profile (DivergeConfig.Profile)")
	}
	return c.Validate()
}

// Diverge runs phase 3a on the representative of class cfg.Class: the
// divergence point of the anomalous execution by exponential and binary
// search over its prefixes with k walks each (divergence.Find), a walk
// recovering if it finishes within the recovery limit
// (divergence.NewCriterion). It removes the files of the later phases and
// writes divergence.json, divergence-walks.jsonl, similar.path.json, the
// event logs anomaly.log and similar.log, divergence.diff (both side by
// side from the divergence point) and divergence-events.json. On an error
// after it started, summary.json is rewritten from the files that remain.
func Diverge(ctx context.Context, cfg DivergeConfig) (df *DivergenceFile, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	release, err := cfg.Dir.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	d, pf := cfg.Dir, cfg.Profile
	t, err := (&SearchConfig{Env: cfg.Env, Profile: pf, Target: cfg.Target}).target()
	if err != nil {
		return nil, err
	}
	sf := cfg.Search
	if sf == nil {
		if sf, err = d.loadSearch(pf); err != nil {
			return nil, err
		}
	}
	an, err := pickClass(d, t, sf, max(cfg.Class, 1))
	if err != nil {
		return nil, err
	}
	df, err = diverge(ctx, cfg.Env, pf, t, an, cfg.Walks, cfg.Confirm)
	if err != nil {
		d.salvageSummary(pf)
	}
	return df, err
}

// checkDivergeable says why a search result cannot be analysed.
func checkDivergeable(d *Dir, sf *SearchFile) error {
	if sf.Anomaly == nil {
		if !sf.Complete {
			return configErr("", [][]string{{"search"}}, "the search in %s was interrupted before finding an anomaly: run '{hint}' again", d.path)
		}
		return fmt.Errorf("the search in %s found no anomaly in %d executions: nothing to analyse", d.path, sf.Explored)
	}
	return nil
}

// pickClass is the anomaly of sf that phase 3a analyses: the
// representative of class rank (1: the most severe), with a path file.
func pickClass(d *Dir, t *Target, sf *SearchFile, rank int) (*Anomaly, error) {
	if err := checkDivergeable(d, sf); err != nil {
		return nil, err
	}
	if rank < 1 || rank > len(sf.Classes) {
		return nil, fieldErr("DivergeConfig.Class", "%d: the search in %s found %d class(es) of anomalies", rank, d.path, len(sf.Classes))
	}
	an := sf.Classes[rank-1].Representative
	if an.Path == "" {
		an.Path = results.ClassPath(rank)
		out := d.newPhaseWrite() // a file of phase 2's, written on demand
		defer out.abort()
		if err := writeAnomalyPath(out, t, sf.Seed, &an, sf.ThresholdNS); err != nil {
			return nil, err
		}
		if err := out.b.Commit(); err != nil {
			return nil, err
		}
	}
	return &an, nil
}

func diverge(ctx context.Context, env Env, pf *results.Profile, t *Target, an *Anomaly, walks, confirm int) (*DivergenceFile, error) {
	d := env.Dir
	apf, err := readPathFile(d.File(an.Path))
	if err != nil {
		return nil, configErr("", [][]string{{"search", "--out", d.path}}, "the anomalous execution's path file %s: %w (run '{hint}' again)", an.Path, errors.Unwrap(err))
	}
	if apf.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s)", an.Path, apf.ConfigHash, pf.ConfigHash)
	}
	anomalous := apf.Path()
	opts := t.Options
	opts.CountWindow = pf.CountWindow()
	crit, err := divergence.NewCriterion(time.Duration(pf.NormalMedianNS()), time.Duration(pf.NormalQ3NS()), time.Duration(pf.Threshold), time.Duration(an.ExecTimeNS))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File(results.FileProfile), err)
	}
	seed := PhaseSeed(pf.Seed, PhaseDiverge)
	var lines jsonLines
	ex := env.explorer(t, opts)
	total := walks * 4
	prog := start(env.Progress, PhaseDiverge, total)
	probes := 0
	cfg := divergence.Config{Explorer: ex, Walks: walks, Confirm: confirm, Deadline: crit.Limit, Seed: seed,
		Recovers: func(r *timedsim.Result) bool { return crit.Recovered(r.Finished, r.ExecTime) },
		Each: func(prefix, walk int, r *timedsim.Result) {
			l := newCountsLine(PhaseDiverge, walk, prefix, divergence.WalkSeed(seed, prefix, walk), r)
			rec := crit.Recovered(r.Finished, r.ExecTime)
			l.Recovered = &rec
			lines.add(l)
			if walk == 0 {
				probes++
				if n := (probes + 2) * walks; n > total { // the number of probes is not known in advance
					total = n
					prog.SetTotal(n)
				}
			}
			prog.Add(1, fmt.Sprintf("diverge: prefix %d", prefix))
		}}
	// A panicking execution's Steps does not count the step that panicked;
	// the prefixes to search include it.
	steps := an.Steps
	if an.Outcome == timedsim.Panicked || an.Outcome == timedsim.Hung {
		steps++
	}
	// Replay the anomaly with the event log on, while the search runs
	// (it fills the cores the search leaves idle, as when it simulates a
	// prefix for a snapshot): its step times tell whether the divergence
	// point is only where the time budget ran out.
	recordA := recordAsync(ctx, env, t, anomalous)
	rep, err := divergence.Find(ctx, cfg, anomalous, steps)
	if errors.Is(err, timedsim.ErrNondeterministic) {
		prog.Done()
		recordA()
		return nil, err
	}
	if err != nil {
		prog.Done()
		recordA()
		return nil, interruption(ctx, "interrupted in phase diverge after %d walk executions; the files of the completed phases are in %s", countProbeWalks(rep), d.path)
	}
	aRes, err := recordA()
	if err != nil {
		prog.Done()
		return nil, err
	}
	var budgetStep *int
	budgetExecs, replayed := 0, 0
	if budgetBound(rep, aRes) {
		step := rep.Step
		budgetStep, budgetExecs, replayed = &step, rep.Executions, rep.Replayed
		cfg.Each, cfg.MinRecovered = nil, max(walks/2, 1)
		half, err := divergence.Find(ctx, cfg, anomalous, steps)
		if err != nil {
			prog.Done()
			return nil, interruption(ctx, "interrupted in phase diverge after %d walk executions; the files of the completed phases are in %s", rep.Executions+countProbeWalks(half), d.path)
		}
		rep = half
	}
	prog.Done()
	// The divergence point is found. The phase's files are written as
	// temporaries and take their places together at the end, once the
	// whole phase has succeeded, as the files of an earlier one go
	// (commit): a phase refused, failed (a full disk) or interrupted on the
	// way changes no file.
	out := d.newPhaseWrite()
	defer out.abort()
	df := &DivergenceFile{Format: results.FormatDivergence, Version: 1, ConfigHash: pf.ConfigHash, Seed: seed, Walks: rep.Walks, Confirm: rep.Confirm,
		Criterion: crit.Bound(), LimitNS: int64(crit.Limit), MedianNS: pf.NormalMedianNS(), Q3NS: pf.NormalQ3NS(), ThresholdNS: pf.Threshold,
		Step: rep.Step, TotalSteps: rep.TotalSteps, IgnorableFraction: round6(rep.IgnorableFraction), Executions: rep.Executions,
		WalksFrom: rep.Mode, ReplayedProbes: rep.Replayed + replayed,
		AnomalyLog: results.FileAnomalyLog, Anomaly: an, BudgetStep: budgetStep, Majority: budgetStep != nil, BudgetExecutions: budgetExecs}
	for _, pr := range rep.Probes {
		ts := make([]int64, len(pr.ExecTimes))
		for i, t := range pr.ExecTimes {
			ts[i] = int64(t)
		}
		df.Probes = append(df.Probes, Probe{Prefix: pr.Prefix, Walks: pr.Walks, Recovered: pr.Recovered, RecoveredWalk: pr.RecoveredWalk, ExecTimesNS: ts, Cut: pr.Cut, Recoveries: pr.Recoveries})
	}

	if aRes.ExecTime != time.Duration(an.ExecTimeNS) || aRes.Steps != an.Steps {
		if err := watchdogMismatch(env, an.Path, an.Outcome, an.Steps, aRes); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("replaying %s gave %s in %d steps, but the search recorded %s in %d: the system is not deterministic (a handler uses randomness or state outside ctx)",
			an.Path, timedsim.FormatTime(aRes.ExecTime), aRes.Steps, timedsim.FormatTime(time.Duration(an.ExecTimeNS)), an.Steps)
	}
	// The similar execution's replay runs while anomaly.log is written.
	var recordS func() (*timedsim.Result, error)
	if rep.Similar != nil {
		recordS = recordAsync(ctx, env, t, rep.Similar.Path)
	}
	if err := writeLog(out, results.FileAnomalyLog, apf, anomalous, aRes); err != nil {
		if recordS != nil {
			recordS()
		}
		return nil, err
	}
	var aEv, sEv *timedsim.TimedEvent
	if rep.Step >= 0 && rep.Step < len(aRes.Events) {
		aEv = &aRes.Events[rep.Step]
		df.Event = newEvent(*aEv)
	}
	var sRes *timedsim.Result
	if rep.Similar != nil {
		if sRes, err = recordS(); err != nil {
			return nil, err
		}
		st, lim := twoTimes(sRes.ExecTime, crit.Limit)
		note := fmt.Sprintf("similar fast execution: the anomaly's first %d steps, then walk %d (%s <= recovery limit %s)", rep.Step, rep.SimilarWalk, st, lim)
		if err := out.writePath(results.FileSimilarPath, t, rep.Similar.Path, note); err != nil {
			return nil, err
		}
		spf, err := t.pathFile(rep.Similar.Path, note)
		if err != nil {
			return nil, err
		}
		if err := writeLog(out, results.FileSimilarLog, spf, rep.Similar.Path, sRes); err != nil {
			return nil, err
		}
		df.Similar = &Similar{Prefix: rep.Step, Walk: rep.SimilarWalk, ExecTimeNS: int64(sRes.ExecTime), Steps: sRes.Steps, Path: results.FileSimilarPath, Log: results.FileSimilarLog}
		if rep.Step < len(sRes.Events) {
			sEv = &sRes.Events[rep.Step]
			df.Similar.Event = newEvent(*sEv)
		}
		df.Diff = results.FileDiff
		df.Contrast = contrast(aRes.Events, sRes.Events, rep.Step, sRes.ExecTime)
		if err := out.write(results.FileDiff, func(w io.Writer) error {
			return sideBySide(w, aRes, sRes, rep.Step)
		}); err != nil {
			return nil, err
		}
	}
	df.Why = why(df, aEv, sEv)
	if err := out.writeJSON(results.FileEvents, newEventsFile(pf.ConfigHash, t.Scenario.Nodes, rep.Step, aRes, sRes)); err != nil {
		return nil, err
	}
	if err := out.writeLines(results.FileWalks, &lines); err != nil {
		return nil, err
	}
	if err := out.writeJSON(results.FileDivergence, df); err != nil {
		return nil, err
	}
	if err := out.commit(PhaseSearch); err != nil {
		return nil, err
	}
	return df, nil
}

// contrast are the labels of the anomaly's events from step on that start
// within until (the similar execution's time), absent from every event of
// the similar execution from step on: the counterfactual of the two
// executions that share their first step steps (DivergenceFile.Contrast).
func contrast(anomalous, similar []timedsim.TimedEvent, step int, until time.Duration) []string {
	seen := map[string]bool{}
	for _, e := range similar[min(step, len(similar)):] {
		for _, l := range critpath.EventLabels(e) {
			seen[l] = true
		}
	}
	out := map[string]bool{}
	for _, e := range anomalous[min(step, len(anomalous)):] {
		if e.Start > until {
			break
		}
		for _, l := range critpath.EventLabels(e) {
			if !seen[l] {
				out[l] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(out))
}

// budgetBound reports whether a divergence point is only where the time
// budget ran out: the prefix one step longer did not recover, yet its
// fastest walk needed no more time after its prefix (10% slack) than the
// similar walk needed after its own — it failed by starting later, not by
// going worse. A fixed-backoff duel looks so: every round can still end
// the duel, until the rounds have used up the limit (see "Time budget" in
// package divergence's documentation).
func budgetBound(rep *divergence.Report, a *timedsim.Result) bool {
	dStep := rep.Step
	if dStep < 0 || dStep >= len(a.Events) || rep.Similar == nil {
		return false
	}
	var after *divergence.ProbeRecord
	for i := range rep.Probes {
		if rep.Probes[i].Prefix == dStep+1 {
			after = &rep.Probes[i]
		}
	}
	if after == nil || after.Recovered || len(after.ExecTimes) == 0 {
		return false
	}
	prefixEnd := func(p int) time.Duration { // when the replayed steps 0..p-1 ended
		if p == 0 {
			return 0
		}
		e := a.Events[p-1]
		return e.Start + e.Duration
	}
	similar := rep.Similar.ExecTime - prefixEnd(dStep)
	fastest := slices.Min(after.ExecTimes) - prefixEnd(dStep+1)
	return float64(fastest) <= 1.1*float64(similar)
}

func newEvent(e timedsim.TimedEvent) *Event {
	r := &Event{Step: e.Step, Node: e.Node.String(), Label: e.Label, StartNS: int64(e.Start)}
	if e.From != timedsim.None {
		r.From = e.From.String()
	}
	return r
}

// why says in one line why the divergence step decides the outcome: the
// probes on either side of it, and what the similar fast execution does
// there instead (a, s: the two executions' events at that step; s nil
// without a similar execution).
func why(df *DivergenceFile, a, s *timedsim.TimedEvent) string {
	if df.Step < 0 || a == nil {
		return ""
	}
	var before, after *Probe
	for i := range df.Probes {
		switch df.Probes[i].Prefix {
		case df.Step:
			before = &df.Probes[i]
		case df.Step + 1:
			after = &df.Probes[i]
		}
	}
	limit := units.Duration(time.Duration(df.LimitNS))
	var b strings.Builder
	fmt.Fprintf(&b, "step %d decides the outcome:", df.Step)
	switch {
	case before != nil && before.Recovered && df.Majority:
		fmt.Fprintf(&b, " replaying the %d steps before it, %d of the first %d walks finished within %s;", df.Step, before.Recoveries, before.Walks, limit)
	case before != nil && before.Recovered:
		t := before.ExecTimesNS[len(before.ExecTimesNS)-1]
		fmt.Fprintf(&b, " replaying the %d steps before it, walk %d finished in %s (within %s);", df.Step, before.RecoveredWalk, units.Duration(time.Duration(t)), limit)
	}
	if after != nil && !after.Recovered && df.Majority {
		fmt.Fprintf(&b, " replaying it too, only %d of %d did", after.Recoveries, after.Walks)
		b.WriteString(";")
	} else if after != nil && !after.Recovered {
		fmt.Fprintf(&b, " replaying it too, none of %d walks did", after.Walks)
		if len(after.ExecTimesNS) > 0 {
			fmt.Fprintf(&b, " (fastest %s)", units.Duration(time.Duration(slices.Min(after.ExecTimesNS))))
		}
		b.WriteString(";")
	} else if df.Step == df.TotalSteps {
		b.WriteString(" the anomalous execution itself meets the recovery criterion;")
	}
	switch {
	case s == nil:
		fmt.Fprintf(&b, " the anomaly runs %s", newEvent(*a).What())
	case s.Label != a.Label || s.Node != a.Node || s.From != a.From:
		fmt.Fprintf(&b, " at this step the anomaly runs %s, the similar fast execution %s", newEvent(*a).What(), newEvent(*s).What())
	default:
		fmt.Fprintf(&b, " both executions run %s here, with other random draws: %s", newEvent(*a).What(), drawsDiffer(a, s))
	}
	if df.BudgetStep != nil {
		fmt.Fprintf(&b, " (asking for one recovering walk puts the point at step %d, but only because the time budget runs out there: the walks from the step after it are as fast after it as the similar one, they start too late; so the point is where half the walks stop recovering)",
			*df.BudgetStep)
	}
	return b.String()
}

// drawsDiffer says how one event differs between two executions: every
// random draw that differs — its duration, the protocol's own draws
// (Context.Rand) and what they chose (a timer's firing time, a message's
// destination), the arrival of the messages it sent — and its logs.
func drawsDiffer(a, s *timedsim.TimedEvent) string {
	var out []string
	if a.Duration != s.Duration {
		da, ds := twoTimes(a.Duration, s.Duration)
		out = append(out, fmt.Sprintf("it takes %s in the anomaly and %s in the similar fast execution", da, ds))
	}
	if !slices.Equal(a.Draws, s.Draws) {
		out = append(out, fmt.Sprintf("its handler's own random draws (ctx.Rand) differ: %s in the anomaly, %s in the similar one", fmtDraws(a.Draws), fmtDraws(s.Draws)))
	}
	// A timer fires after the handler's end: only a delay that differs
	// (a randomized timeout, a backoff) is a draw of its own.
	aEnd, sEnd := a.Start+a.Duration, s.Start+s.Duration
	for _, ta := range a.Timers {
		for _, ts := range s.Timers {
			if ta.Name == ts.Name && !ta.Cancel && !ts.Cancel && ta.At-aEnd != ts.At-sEnd {
				x, y := twoTimes(ta.At-aEnd, ts.At-sEnd)
				out = append(out, fmt.Sprintf("it sets timer %s to fire %s after it in the anomaly and %s in the similar one", ta.Name, x, y))
				break
			}
		}
	}
	if sa, ss := sendTargets(a), sendTargets(s); sa != ss {
		out = append(out, fmt.Sprintf("it sends %s in the anomaly and %s in the similar one", sa, ss))
	}
	for _, m := range a.Sends {
		for _, n := range s.Sends {
			if m.To == n.To && m.Type == n.Type && m.Transport == n.Transport && (m.Arrive != n.Arrive || m.Status != n.Status) {
				am, an := arrival(m, n.Arrive), arrival(n, m.Arrive)
				out = append(out, fmt.Sprintf("its %s to %v arrives at %s in the anomaly and at %s in the similar one", m.Type, m.To, am, an))
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

// fmtDraws renders a handler's Context.Rand draws as fractions of their
// 64-bit range ("u = 0.913, 0.127"), the first few.
func fmtDraws(ds []uint64) string {
	if len(ds) == 0 {
		return "none"
	}
	var parts []string
	for i, d := range ds {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(ds)))
			break
		}
		parts = append(parts, fmt.Sprintf("%.3f", float64(d)/(1<<64)))
	}
	return "u = " + strings.Join(parts, ", ")
}

// sendTargets is what an event sent to whom, in order: "Gossip to n3,
// Ack to n1" ("nothing").
func sendTargets(e *timedsim.TimedEvent) string {
	if len(e.Sends) == 0 {
		return "nothing"
	}
	parts := make([]string, len(e.Sends))
	for i, m := range e.Sends {
		parts[i] = fmt.Sprintf("%s to %v", m.Type, m.To)
	}
	return strings.Join(parts, ", ")
}

// arrival is when m arrives, told apart from other, the arrival it is
// compared with.
func arrival(m timedsim.SentMessage, other time.Duration) string {
	if m.Status != "sent" {
		return "never (" + m.Status + ")"
	}
	t, _ := twoTimes(m.Arrive, other)
	return t
}

// twoTimes are a and b in the unit that fits them, or to the nanosecond
// when four significant digits would print two different times alike.
func twoTimes(a, b time.Duration) (string, string) {
	sa, sb := units.Duration(a), units.Duration(b)
	if sa == sb && a != b {
		return timedsim.FormatTime(a), timedsim.FormatTime(b)
	}
	return sa, sb
}

func countProbeWalks(rep *divergence.Report) int {
	if rep == nil {
		return 0
	}
	return rep.Executions
}

// watchdogMismatch is the error of a replay that differs from the
// execution the search recorded (outcome in steps) because the handler
// watchdog stopped a handler in one of them and not at the same step in
// the other: a wall-clock limit that the handlers overrun or not by the
// machine's load (an Env.HandlerTimeout shorter than they take), not a
// protocol that is not deterministic. It is nil if the watchdog stopped
// neither, or both at the same step.
func watchdogMismatch(env Env, name string, outcome timedsim.Outcome, steps int, r *timedsim.Result) error {
	hung := timedsim.Hung
	if outcome != hung && r.Outcome != timedsim.Hung || outcome == hung && r.Outcome == timedsim.Hung && steps == r.Steps {
		return nil
	}
	what := func(outcome timedsim.Outcome, steps int) string {
		if outcome == hung {
			return fmt.Sprintf("stopped by the watchdog at step %d", steps)
		}
		return fmt.Sprintf("%s in %d steps", outcome, steps)
	}
	return fmt.Errorf("replaying %s: the handler watchdog (Env.HandlerTimeout %s) decided the execution: the search's was %s, the replay's %s; a handler that overruns the watchdog's wall-clock limit on one run and not on another is the limit at fault, not the protocol: raise Env.HandlerTimeout (default %s) above the time the handlers take",
		name, units.Duration(env.watched(timedsim.Options{}).HandlerTimeout), what(outcome, steps), what(r.Outcome, r.Steps), units.Duration(timedsim.DefaultHandlerTimeout))
}

// record replays a path with the event log on. A recording started earlier (Env.recs) is waited for instead.
func record(ctx context.Context, env Env, t *Target, path timedsim.Path) (*timedsim.Result, error) {
	if env.recs != nil {
		if wait, ok := env.recs.get(t, path); ok {
			return wait()
		}
	}
	d := env.Dir
	opts := env.watched(t.Options)
	opts.Record = true
	sim, err := timedsim.NewSimulator(t.Scenario, opts)
	if err != nil {
		return nil, err
	}
	r := sim.RunContext(ctx, path)
	if r.Outcome == timedsim.Interrupted {
		return nil, interruption(ctx, "interrupted while replaying for the event logs; the files of the completed phases are in %s", d.path)
	}
	return r, nil
}

// recordAsync starts record(ctx, env, t, path) on a goroutine of its
// own; the function it returns waits for its result. Every caller waits,
// on every return, so that no replay outlives its phase.
func recordAsync(ctx context.Context, env Env, t *Target, path timedsim.Path) func() (*timedsim.Result, error) {
	var (
		r    *timedsim.Result
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		r, err = record(ctx, env, t, path)
	}()
	return func() (*timedsim.Result, error) {
		<-done
		return r, err
	}
}

// writeLog writes the event log of r, the execution of path of pf, as the
// file name of the phase's files out.
func writeLog(out *phaseWrite, name string, pf *timedsim.PathFile, path timedsim.Path, r *timedsim.Result) error {
	h := timedsim.LogHeader{System: pf.System, Variant: pf.Variant, Nodes: pf.Nodes, ConfigHash: pf.ConfigHash, Params: pf.Params, Path: path}
	return out.write(name, func(w io.Writer) error { return timedsim.WriteEventLog(w, h, r) })
}

// LoadDivergence reads DIR/divergence.json, which must belong to pf's
// configuration.
func (d *Dir) LoadDivergence(pf *results.Profile) (df *DivergenceFile, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	if pf == nil {
		return nil, errNilProfile
	}
	return d.loadDivergence(pf)
}

func (d *Dir) loadDivergence(pf *results.Profile) (*DivergenceFile, error) {
	path := d.File(results.FileDivergence)
	var df DivergenceFile
	if err := results.ReadJSON(path, &df); err != nil {
		return nil, err
	}
	if err := results.CheckFormat(path, df.Format, df.Version, results.FormatDivergence); err != nil {
		return nil, err
	}
	if df.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s)", path, df.ConfigHash, pf.ConfigHash)
	}
	if err := df.Validate(); err != nil {
		return nil, fmt.Errorf("%s is malformed: %w", path, err)
	}
	if df.Seed != PhaseSeed(pf.Seed, PhaseDiverge) {
		return nil, fmt.Errorf("%s does not belong to profile.json: its seed differs", path)
	}
	return &df, nil
}

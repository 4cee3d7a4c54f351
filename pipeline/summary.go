package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/results"
)

const summaryTop = 5

// WriteSummary rewrites DIR/summary.json from the files of the phases
// present, pf being the directory's profile, and returns it.
func (d *Dir) WriteSummary(pf *results.Profile) (s *results.Summary, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	if pf == nil {
		return nil, errNilProfile
	}
	return d.writeSummary(pf)
}

func (d *Dir) writeSummary(pf *results.Profile) (*results.Summary, error) {
	s, err := d.buildSummary(pf)
	if err != nil {
		return nil, err
	}
	if err := d.writeJSON(results.FileSummary, s); err != nil {
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
func (d *Dir) salvageSummary(pf *results.Profile) {
	if d.exists(results.FileSummary) {
		return
	}
	if s, err := d.buildSummary(pf); err == nil {
		d.writeJSON(results.FileSummary, s)
	}
}

// buildSummary reads what the phases wrote.
func (d *Dir) buildSummary(pf *results.Profile) (*results.Summary, error) {
	s := &results.Summary{Header: results.NewHeader(results.FormatSummary, pf.System, pf.Variant, pf.Nodes, pf.Seed),
		PhaseSeeds: results.PhaseSeeds{Train: PhaseSeed(pf.Seed, PhaseTrain), Profile: PhaseSeed(pf.Seed, PhaseProfile), Search: PhaseSeed(pf.Seed, PhaseSearch), Diverge: PhaseSeed(pf.Seed, PhaseDiverge)},
		ConfigHash: pf.ConfigHash, EDD: pf.EDDSource,
		Profile: results.SummaryProfile{Runs: pf.Runs, Q1: Secs(pf.Q1NS), Median: Secs(pf.MedianNS), Q3: Secs(pf.Q3NS), Threshold: Secs(pf.Threshold),
			IQRFactor: pf.IQRFactor, MinSlowdown: pf.MinSlowdown, MinExcess: Secs(pf.MinExcessNS), Unfinished: pf.Unfinished, Warnings: pf.Warnings},
		Correlations: []results.SummaryCorr{}, LengthOnly: []results.SummaryCorr{}, Replay: []results.Replay{}}
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
	s.Anomaly = &results.SummaryAnomaly{Explored: sf.Explored, MaxRuns: sf.MaxRuns, Complete: sf.Complete, Index: -1, FirstIndex: sf.FirstIndex, Anomalies: sf.Anomalies, Classes: []results.SummaryClass{},
		Verdict: sf.DescribeVerdict(), Candidates: sf.Candidates, Tail: []results.SummaryClass{}, TailExecutions: sf.TailExecutions}
	summaryClass := func(c Class, tail bool) results.SummaryClass {
		sc := results.SummaryClass{Rank: c.Rank, Executions: c.Executions, Min: Secs(c.MinNS), Median: Secs(c.MedianNS), Max: Secs(c.MaxNS),
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
		s.Training = "the event durations were trained from this machine's real handler times just now: a new training gives other durations, so the execution indexes, the times, the number of anomalies and the exact divergence step change; the classes, their signatures, the kind of divergence event and the top correlations are what should not. Pass --edd with this directory's " + results.FileEDD + " to repeat this run exactly"
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
		s.Replay = append(s.Replay, results.NewReplay(results.ReplayAnomaly, an.Path))
	}
	switch {
	case err == nil:
		s.Divergence = &results.SummaryDivergence{Step: df.Step, TotalSteps: df.TotalSteps, IgnorableFraction: df.IgnorableFraction,
			AnomalyLog: df.AnomalyLog, Diff: df.Diff, Executions: df.Executions, WalksFrom: df.WalksFrom, Criterion: df.Criterion, Limit: Secs(df.LimitNS), Why: df.Why}
		s.Divergence.Event = fmt.Sprintf("step %d", df.Step)
		if e := df.Event; e != nil {
			s.Divergence.Event = e.Describe()
		}
		if sim := df.Similar; sim != nil {
			s.Divergence.SimilarExecutionTime, s.Divergence.SimilarPath, s.Divergence.SimilarLog = Secs(sim.ExecTimeNS), sim.Path, sim.Log
			s.Replay = append(s.Replay, results.NewReplay(results.ReplaySimilar, sim.Path))
		}
	case !notExist(err):
		return nil, err
	}
	var cf CorrelationFile
	path := d.File(results.FileCorrelation)
	if err := results.ReadJSON(path, &cf); err != nil {
		if notExist(err) {
			return s, nil
		}
		return nil, err
	}
	if err := results.CheckFormat(path, cf.Format, cf.Version, results.FormatCorrelation); err != nil {
		return nil, err
	}
	for _, c := range cf.Labels {
		sc := results.SummaryCorr{Label: c.Label, R: c.R, WindowR: c.WindowR, Critical: c.Critical}
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

// ShortTime is d with 4 significant digits in the unit that fits it
// ("10.01 s", "747.8 ms", "1.8 µs"; package internal/units).
func ShortTime(d time.Duration) string { return units.Duration(d) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

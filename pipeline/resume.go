package pipeline

// Resuming an interrupted run: the phases whose files in the
// directory are exactly what this run would write again are not run
// again. A run is deterministic given its EDD, so the files a resumed run
// writes are those of an uninterrupted one.

import (
	"encoding/json"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/results"
)

// Interrupted reports whether the directory holds a run that did not
// end: a profile.json without the summary.json that every command writes
// last (a killed run), or a search that is incomplete (interrupted), or
// that found an anomaly whose divergence or correlation is missing. The
// command line resumes such a run unless told not to; a directory that
// only looks so is harmless, since Resume keeps only what this run would
// compute again.
func (d *Dir) Interrupted() bool {
	switch {
	case !d.exists(results.FileProfile):
		return false
	case !d.exists(results.FileSummary):
		return true
	case !d.exists(results.FileSearch):
		return false
	}
	var sf struct {
		Complete bool            `json:"complete"`
		Anomaly  json.RawMessage `json:"anomaly"`
	}
	b, err := readlimit.ReadJSONFile(d.File(results.FileSearch), readlimit.MaxJSONFile)
	if err != nil || json.Unmarshal(b, &sf) != nil {
		return false // a damaged search.json: the phases refuse it
	}
	found := len(sf.Anomaly) > 0 && string(sf.Anomaly) != "null"
	return !sf.Complete || found && !d.analysed()
}

// analysed reports whether every phase after the search wrote its first
// file: the analysis of an anomaly is complete.
func (d *Dir) analysed() bool {
	after := false
	for _, p := range phaseTable() {
		if after && !d.exists(p.Files[0]) {
			return false
		}
		after = after || p.Phase == PhaseSearch
	}
	return true
}

// keptTraining is the directory's training if it is the one cfg would
// train: the same system, variant, nodes, seed, runs and simulator
// options (a system with parameters is trained again: train.json does not
// record them).
func (d *Dir) keptTraining(cfg *Config) (*TrainFile, *edd.Set, bool) {
	t := cfg.Target
	tf, err := d.LoadTraining()
	if err != nil || tf == nil || len(t.Scenario.Params) > 0 {
		return nil, nil, false
	}
	o := t.Options
	if tf.System != t.System.Name || tf.Variant != t.Variant || tf.Nodes != t.Scenario.Nodes || tf.Seed != cfg.Seed || tf.Runs != cfg.TrainRuns ||
		tf.Options != (TrainOptions{Semantics: o.Semantics.String(), ExecTime: o.ExecTime.String(), MaxSteps: o.MaxSteps, CheckSafety: o.CheckSafety}) {
		return nil, nil, false
	}
	set, err := readEDD(d.File(results.FileEDD))
	if err != nil {
		return nil, nil, false
	}
	return tf, set, true
}

// keptProfile is the directory's profile if it is the one cfg would
// write for target t (its EDD trained or given, scaled).
func (d *Dir) keptProfile(cfg *ProfileConfig) *results.Profile {
	pf, _, err := d.loadProfile(cfg.Systems)
	if err != nil {
		return nil
	}
	th := cfg.Thresholds
	if pf.ConfigHash != cfg.Target.Hash || pf.Runs != cfg.Runs || pf.Seed != cfg.Seed || pf.EDDSource != cfg.EDDSource ||
		pf.IQRFactor != th.IQRFactor || pf.MinSlowdown != th.MinSlowdown || pf.MinExcessNS != int64(th.MinExcess) || pf.MinExcessBy != th.MinExcessBy {
		return nil
	}
	return pf
}

// keptSearch is the directory's search of pf with cfg's budgets, and, if
// it was interrupted, the executions it kept (every line checked).
func (d *Dir) keptSearch(pf *results.Profile, cfg *SearchConfig) (*SearchFile, []results.CountsLine) {
	sf, err := d.loadSearch(pf)
	if err != nil || sf.MaxRuns != cfg.MaxRuns || sf.TriageRuns != cfg.TriageRuns || sf.Verdict != results.Verdict(cfg.Verdict.resolved()) {
		return nil, nil
	}
	if sf.Complete {
		for _, c := range sf.Classes {
			if p := c.Representative.Path; p != "" && !d.exists(p) {
				return nil, nil
			}
		}
		return sf, nil
	}
	lines, err := results.ReadCountsLines(d.File(results.FileSearchExecs), false, searchLines(sf))
	if err != nil {
		return nil, nil
	}
	return sf, lines
}

package pipeline

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Config configures the whole pipeline (Run). DefaultConfig has the
// defaults (the command line's flags take theirs from it) and Validate
// the rules of its settings.
type Config struct {
	Env
	// Target is the configuration under test. Its EDD gives the event
	// durations unless TrainRuns > 0.
	Target *Target
	// Seed is the run's seed; each phase derives its own (PhaseSeed).
	Seed uint64

	// TrainRuns > 0 trains the EDD first (phase 1a, Train) and profiles
	// with it; 0 uses Target's EDD, whose origin EDDSource names
	// ("--edd FILE"), and removes an older training from Dir unless
	// KeepTraining (Target's EDD is Dir's own edd.json).
	TrainRuns    int
	EDDSource    string
	KeepTraining bool
	// Scale are what-if factors (label=factor) applied to the trained
	// EDD (a given EDD carries its own).
	Scale []string

	// ProfileRuns and Thresholds configure phase 1b (ProfileConfig).
	ProfileRuns int
	Thresholds  Thresholds
	// MaxRuns, TriageRuns and Verdict configure phase 2 (SearchConfig).
	MaxRuns, TriageRuns int
	Verdict             Verdict
	// Walks and Confirm configure phase 3a (DivergeConfig).
	Walks, Confirm int

	// Resume continues an interrupted run in Dir: a training, profile
	// and search there that are what this run would compute are kept (an
	// interrupted search goes on from its last execution), the later
	// phases run again. The files are those of an uninterrupted run.
	Resume bool

	// OnPhase, if not nil, is called when a phase has written its files,
	// with the result so far (the command line prints each phase as it
	// ends). A run that skips training reports PhaseTrain with a nil
	// Result.Train.
	OnPhase func(Phase, *Result)
}

// Result is what the phases of a run wrote: nil for a phase that did not
// run (no anomaly: no divergence and no correlation).
type Result struct {
	Train       *TrainFile
	Profile     *results.Profile
	Search      *SearchFile
	Divergence  *DivergenceFile
	Correlation *CorrelationFile
	// Regress is the regression test of Regression.Run.
	Regress *results.Regress
	// Summary is summary.json, written last.
	Summary *results.Summary
}

// Found reports whether the run found an anomaly (`macepc run` then exits
// with status 1).
func (r *Result) Found() bool {
	return r != nil && r.Summary != nil && r.Summary.Anomaly != nil && r.Summary.Anomaly.Found
}

func (c *Config) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Target == nil {
		return errors.New("no target (Config.Target)")
	}
	return nil
}

// Run runs the whole pipeline into cfg.Dir: phase 1a (if cfg.TrainRuns >
// 0), 1b and 2, and, if the search found an anomaly, 3a on the
// representative of its first class and 3b; then it writes summary.json.
// A run that found an anomaly has Result.Found.
//
// The phases after the profile take their configuration from
// profile.json's template, as the phase commands do, so `macepc run` and
// its phases one by one write the same files. An error in phase 2 or
// later (an interruption among them) still rewrites summary.json from the
// files of the completed phases; the Result then holds them.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
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
	if err := cfg.Dir.create(); err != nil {
		return nil, err
	}
	if !hasSystem(cfg.Systems, cfg.Target.System.Name) {
		cfg.Systems = append(append(timedsim.Registry(nil), cfg.Systems...), cfg.Target.System)
	}
	// The search's triage keeps its recording of the anomaly for phase
	// 3a, which replays it for the event log (record).
	cfg.Env.recs = newRecordings()
	defer cfg.Env.recs.keep(nil, timedsim.Path{})
	s := &runState{ctx: ctx, cfg: &cfg, res: &Result{}, target: cfg.Target, eddSource: cfg.EDDSource}
	// A phase whose files the next one writes is reported with it, with
	// the result as it was when it ended.
	type ended struct {
		phase Phase
		res   Result
	}
	var pending []ended
	for _, p := range phaseTable() {
		stop, err := p.run(s)
		if err != nil {
			if s.res.Profile == nil {
				// Nothing in the directory changed.
				return nil, err
			}
			cfg.Dir.salvageSummary(s.res.Profile)
			return s.res, err
		}
		if p.writtenWithNext {
			pending = append(pending, ended{p.Phase, *s.res})
			continue
		}
		if cfg.OnPhase != nil {
			for _, e := range pending {
				cfg.OnPhase(e.phase, &e.res)
			}
			cfg.OnPhase(p.Phase, s.res)
		}
		pending = pending[:0]
		if stop {
			break
		}
	}
	res = s.res
	if res.Summary, err = cfg.Dir.writeSummary(res.Profile); err != nil {
		return res, err
	}
	return res, nil
}

// runState is what the phases of Run pass on to the later ones.
type runState struct {
	ctx context.Context
	cfg *Config
	res *Result
	// target is the configuration the next phase runs: Config.Target,
	// with the trained EDD after the training, then the profile's
	// template.
	target *Target
	// eddSource names the profile's EDD (ProfileFile.EDDSource).
	eddSource string
	// trained is edd.json as trained, without the what-if factors; nil
	// when the training did not run or was kept (Config.Resume).
	trained []byte
	// keep is the phase whose files the profile's commit keeps: the
	// training of an earlier run that this one keeps, or none.
	keep Phase
}

// runTrain is phase 1a within Run: it trains when Config.TrainRuns > 0
// (or keeps a resumed run's training); the profile writes its files.
// Nothing in the directory changes until the training and the profile
// succeeded: then the files of an earlier run go, and the training's and
// the profile's are written.
func runTrain(s *runState) (bool, error) {
	cfg := s.cfg
	s.keep = PhaseTrain // the directory's own edd.json: its training stays
	if cfg.TrainRuns > 0 || !cfg.KeepTraining {
		s.keep = ""
	}
	if cfg.TrainRuns <= 0 {
		return false, nil
	}
	tf, set, kept := (*TrainFile)(nil), (*edd.Set)(nil), false
	if cfg.Resume {
		tf, set, kept = cfg.Dir.keptTraining(cfg)
	}
	if kept {
		s.keep = PhaseTrain
	} else {
		var err error
		if tf, set, err = train(s.ctx, TrainConfig{Env: cfg.Env, Target: s.target, Seed: cfg.Seed, Runs: cfg.TrainRuns}); err != nil {
			return false, err
		}
		var b bytes.Buffer
		if err := edd.Write(&b, set); err != nil {
			return false, err
		}
		s.trained = b.Bytes()
	}
	if err := applyScale(set, cfg.Scale); err != nil {
		return false, err
	}
	s.target, s.eddSource, s.res.Train = s.target.withEDD(set), "trained: "+results.FileEDD, tf
	return false, nil
}

// runProfile is phase 1b within Run; its commit writes the training's
// files too.
func runProfile(s *runState) (bool, error) {
	cfg, res := s.cfg, s.res
	commit := func() error {
		out := cfg.Dir.newPhaseWrite() // the training's files appear together
		defer out.abort()
		if s.trained != nil {
			if err := out.write(results.FileEDD, func(w io.Writer) error { _, err := w.Write(s.trained); return err }); err != nil {
				return err
			}
			if err := out.writeJSON(results.FileTrain, res.Train); err != nil {
				return err
			}
		}
		return out.commit(s.keep)
	}
	t := s.target
	pcfg := ProfileConfig{Env: cfg.Env, Target: t, EDDSource: s.eddSource, Seed: cfg.Seed, Runs: cfg.ProfileRuns, Thresholds: cfg.Thresholds.resolve(t)}
	var pf *results.Profile
	if cfg.Resume && s.trained == nil {
		pf = cfg.Dir.keptProfile(&pcfg)
	}
	if pf == nil {
		var err error
		if pf, err = profile(s.ctx, pcfg, commit); err != nil {
			return false, err
		}
	}
	res.Profile = pf
	return false, nil
}

// runSearch is phase 2 within Run. The phases after the profile take
// their configuration from profile.json's template, as the phase commands
// do; without an anomaly, the run ends.
func runSearch(s *runState) (bool, error) {
	cfg, pf := s.cfg, s.res.Profile
	t, err := fromPathFile(cfg.Systems, pf.Template) // the exact configuration the files describe
	if err != nil {
		return false, err
	}
	s.target = t
	sf, err := search(s.ctx, SearchConfig{Env: cfg.Env, Profile: pf, Target: t, MaxRuns: cfg.MaxRuns, TriageRuns: cfg.TriageRuns, Verdict: cfg.Verdict, Resume: cfg.Resume})
	if err != nil {
		return false, err
	}
	s.res.Search = sf
	return sf.Anomaly == nil, nil
}

// runDiverge is phase 3a within Run, on the representative of the
// search's first class.
func runDiverge(s *runState) (bool, error) {
	df, err := diverge(s.ctx, s.cfg.Env, s.res.Profile, s.target, s.res.Search.Anomaly, s.cfg.Walks, s.cfg.Confirm)
	s.cfg.Env.recs.keep(nil, timedsim.Path{}) // the anomaly's recording, kept by the search for this phase
	s.res.Divergence = df
	return false, err
}

// runCorrelate is phase 3b within Run.
func runCorrelate(s *runState) (bool, error) {
	cf, err := correlate(s.cfg.Dir, s.res.Profile, s.res.Search, s.res.Divergence)
	s.res.Correlation = cf
	return false, err
}

func hasSystem(r timedsim.Registry, name string) bool {
	for _, s := range r {
		if s.Name == name {
			return true
		}
	}
	return false
}

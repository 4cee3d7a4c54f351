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
	res = &Result{}
	done := func(p Phase) {
		if cfg.OnPhase != nil {
			cfg.OnPhase(p, res)
		}
	}
	// Nothing in the directory changes until the training and the
	// profile succeeded: then the files of an earlier run go, and the
	// training's and the profile's are written.
	t, eddSource := cfg.Target, cfg.EDDSource
	keep := PhaseTrain // the directory's own edd.json: its training stays
	if cfg.TrainRuns > 0 || !cfg.KeepTraining {
		keep = ""
	}
	var trained []byte // edd.json as trained, without the what-if factors
	if cfg.TrainRuns > 0 {
		tf, set, kept := (*TrainFile)(nil), (*edd.Set)(nil), false
		if cfg.Resume {
			tf, set, kept = cfg.Dir.keptTraining(&cfg)
		}
		if kept {
			keep = PhaseTrain
		} else {
			if tf, set, err = train(ctx, TrainConfig{Env: cfg.Env, Target: t, Seed: cfg.Seed, Runs: cfg.TrainRuns}); err != nil {
				return nil, err
			}
			var b bytes.Buffer
			if err := edd.Write(&b, set); err != nil {
				return nil, err
			}
			trained = b.Bytes()
		}
		if err := applyScale(set, cfg.Scale); err != nil {
			return nil, err
		}
		t, eddSource, res.Train = t.withEDD(set), "trained: "+results.FileEDD, tf
	}
	commit := func() error {
		out := cfg.Dir.newPhaseWrite() // the training's files appear together
		defer out.abort()
		if trained != nil {
			if err := out.write(results.FileEDD, func(w io.Writer) error { _, err := w.Write(trained); return err }); err != nil {
				return err
			}
			if err := out.writeJSON(results.FileTrain, res.Train); err != nil {
				return err
			}
		}
		return out.commit(keep)
	}
	pcfg := ProfileConfig{Env: cfg.Env, Target: t, EDDSource: eddSource, Seed: cfg.Seed, Runs: cfg.ProfileRuns, Thresholds: cfg.Thresholds.resolve(t)}
	var pf *results.Profile
	if cfg.Resume && trained == nil {
		pf = cfg.Dir.keptProfile(&pcfg)
	}
	if pf == nil {
		if pf, err = profile(ctx, pcfg, commit); err != nil {
			return nil, err
		}
	}
	done(PhaseTrain)
	res.Profile = pf
	done(PhaseProfile)
	if err := searchOn(ctx, cfg, res, done); err != nil {
		cfg.Dir.salvageSummary(pf)
		return res, err
	}
	if res.Summary, err = cfg.Dir.writeSummary(pf); err != nil {
		return res, err
	}
	return res, nil
}

// searchOn runs phases 2 to 3b after the profile.
func searchOn(ctx context.Context, cfg Config, res *Result, done func(Phase)) error {
	pf := res.Profile
	t, err := fromPathFile(cfg.Systems, pf.Template) // the exact configuration the files describe
	if err != nil {
		return err
	}
	// The search's triage keeps its recording of the anomaly for phase
	// 3a, which replays it for the event log (record).
	cfg.Env.recs = newRecordings()
	defer cfg.Env.recs.keep(nil, timedsim.Path{})
	sf, err := search(ctx, SearchConfig{Env: cfg.Env, Profile: pf, Target: t, MaxRuns: cfg.MaxRuns, TriageRuns: cfg.TriageRuns, Verdict: cfg.Verdict, Resume: cfg.Resume})
	if err != nil {
		return err
	}
	res.Search = sf
	done(PhaseSearch)
	if sf.Anomaly == nil {
		return nil
	}
	res.Divergence, err = diverge(ctx, cfg.Env, pf, t, sf.Anomaly, cfg.Walks, cfg.Confirm)
	cfg.Env.recs.keep(nil, timedsim.Path{})
	if err != nil {
		return err
	}
	done(PhaseDiverge)
	if res.Correlation, err = correlate(cfg.Dir, pf, sf, res.Divergence); err != nil {
		return err
	}
	done(PhaseCorrelate)
	return nil
}

func hasSystem(r timedsim.Registry, name string) bool {
	for _, s := range r {
		if s.Name == name {
			return true
		}
	}
	return false
}

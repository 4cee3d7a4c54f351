package pipeline

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Env is what the phases share: the results directory they write, the
// systems that the directory's files may name, the number of workers and
// who follows the executions.
type Env struct {
	// Dir is the results directory (OpenDir).
	Dir *Dir
	// Systems resolve the system a results file names: the phases after
	// the profile rebuild their configuration from profile.json's
	// template path file. Run adds its Target's system.
	Systems timedsim.Registry
	// Jobs is the number of worker goroutines (0: GOMAXPROCS). Results do
	// not depend on it.
	Jobs int
	// Progress, if not nil, follows each phase's executions.
	Progress Progress
	// HandlerTimeout is the handler watchdog of every execution
	// (timedsim.Options.HandlerTimeout): a handler that does not return
	// within it is a finding, Outcome Hung, like a panic. 0:
	// timedsim.DefaultHandlerTimeout; negative: no watchdog.
	HandlerTimeout time.Duration
	// CheckDeterminism runs every execution twice and fails on any
	// difference (timedsim.Explorer.CheckDeterminism).
	CheckDeterminism bool
	// recs, if not nil, holds replays with the event log on that were
	// started ahead of need or are kept for a later phase (record).
	recs *recordings
}

// watched is opts with e's handler watchdog.
func (e *Env) watched(opts timedsim.Options) timedsim.Options {
	switch {
	case e.HandlerTimeout == 0:
		opts.HandlerTimeout = timedsim.DefaultHandlerTimeout
	case e.HandlerTimeout > 0:
		opts.HandlerTimeout = e.HandlerTimeout
	}
	return opts
}

func (e *Env) check() error {
	switch {
	case e.Dir == nil:
		return errors.New("no results directory (Env.Dir)")
	}
	return checkJobs(e.Jobs)
}

// explorer runs t's executions with e's workers.
func (e *Env) explorer(t *Target, opts timedsim.Options) *timedsim.Explorer {
	return &timedsim.Explorer{Scenario: t.Scenario, Options: e.watched(opts), Jobs: e.Jobs, CheckDeterminism: e.CheckDeterminism}
}

// ---- phase 1a: EDD training ----

// TrainConfig configures phase 1a.
type TrainConfig struct {
	Env
	// Target is the configuration to train; its EDD is not used: training
	// measures the handlers under the seed distributions.
	Target *Target
	// Seed is the run's seed; execution i of the training is
	// SeedPath(ExecutionSeed(PhaseSeed(Seed, PhaseTrain), i)).
	Seed uint64
	// Runs is the number of executions whose real handler times train the
	// EDD.
	Runs int
}

// Train runs phase 1a: the explorer with the seed EDDs, measuring each
// handler's real time, and trains edd.json from the samples. It starts a
// new results directory: every file of an earlier run in it is removed
// first. It returns train.json and the trained set (as written to
// edd.json).
//
// Real handler times differ from one training to the next: the trained
// set is the one input of the pipeline that is not a function of the
// seed. Pass the written edd.json to later runs to repeat them exactly.
func Train(ctx context.Context, cfg TrainConfig) (tf *TrainFile, set *edd.Set, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	release, err := cfg.Dir.hold()
	if err != nil {
		return nil, nil, err
	}
	defer release()
	tf, set, err = train(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return tf, set, writeTraining(cfg.Dir, tf, set) // only once the training succeeded
}

func (c *TrainConfig) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	switch {
	case c.Target == nil:
		return errors.New("no target to train (TrainConfig.Target)")
	}
	return c.Validate()
}

// train runs phase 1a; it writes nothing (writeTraining).
func train(ctx context.Context, cfg TrainConfig) (*TrainFile, *edd.Set, error) {
	t, d := cfg.Target, cfg.Dir
	opts := t.Options
	opts.EDD = edd.NewSet(edd.DefaultSeed())
	opts.MeasureRealTime = true
	ps := PhaseSeed(cfg.Seed, PhaseTrain)
	ex := cfg.explorer(t, opts)
	samples := map[string][]time.Duration{}
	prog := start(cfg.Progress, PhaseTrain, cfg.Runs)
	_, done, err := ex.Run(ctx, timedsim.Work{N: cfg.Runs, Path: timedsim.Seeded(ps), Each: func(i int, r *timedsim.Result) bool {
		for l, xs := range r.RealTimes {
			samples[l] = append(samples[l], xs...)
		}
		prog.Add(1, "")
		return true
	}})
	prog.Done()
	if errors.Is(err, timedsim.ErrNondeterministic) {
		return nil, nil, err
	}
	if err != nil || done < cfg.Runs {
		return nil, nil, d.interrupted(ctx, PhaseTrain, done, cfg.Runs)
	}
	set, err := edd.Train(samples, edd.DefaultSeed(), 0)
	if err != nil {
		return nil, nil, err
	}
	tf := &TrainFile{Header: results.NewHeader(results.FormatTrain, t.System.Name, t.Variant, t.Scenario.Nodes, cfg.Seed), PhaseSeed: ps, Runs: cfg.Runs, SeedLabels: []string{},
		Options: TrainOptions{Semantics: t.Options.Semantics.String(), ExecTime: t.Options.ExecTime.String(), MaxSteps: t.Options.MaxSteps, CheckSafety: t.Options.CheckSafety},
		Note:    "edd.json holds measured real handler times: training again gives slightly different distributions; pass --edd " + results.FileEDD + " to reuse these"}
	for _, l := range set.Labels() {
		dist, _, _ := set.Lookup(l)
		e := dist.(*edd.Empirical)
		tf.Labels = append(tf.Labels, TrainLabel{Label: l, Samples: e.N(), MedianNS: int64(e.Quantile(0.5)), P99NS: int64(e.Quantile(0.99)), MaxNS: int64(e.Quantile(1))})
	}
	return tf, set, nil
}

// writeTraining writes a training's files, edd.json and train.json,
// together, in place of every file of the directory (they all depend on
// the training).
func writeTraining(d *Dir, tf *TrainFile, set *edd.Set) error {
	out := d.newPhaseWrite()
	defer out.abort()
	if err := out.write(results.FileEDD, func(w io.Writer) error { return edd.Write(w, set) }); err != nil {
		return err
	}
	if err := out.writeJSON(results.FileTrain, tf); err != nil {
		return err
	}
	return out.commit("")
}

// LoadTraining reads DIR/train.json: the configuration that edd.json was
// trained with, which a profile of this directory must use. A directory
// without train.json gives (nil, nil).
func (d *Dir) LoadTraining() (tf *TrainFile, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	path := d.File(results.FileTrain)
	if !fileExists(path) {
		return nil, nil
	}
	if tf, err = results.ReadTrain(path); err != nil {
		return nil, err
	}
	return tf, nil
}

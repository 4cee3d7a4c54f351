package pipeline

import (
	"math"

	"github.com/macepc/macepc/divergence"
)

// The defaults and the rules of the pipeline's settings. They are
// declared here once: the command line's flags take their defaults from
// DefaultConfig and leave their checks to Validate and the phase
// configurations' checks, whose ConfigErrors name the fields (the command
// line names its flags instead).

// DefaultConfig is the pipeline's configuration of target with seed 1,
// writing into dir: 20 training executions, 50 profile executions, the
// default thresholds, a search of at most 1000 executions with 200 more
// to triage, divergence.DefaultWalks walks per prefix and
// divergence.DefaultConfirm confirmation walks. The command line's
// defaults are these.
func DefaultConfig(dir *Dir, target *Target) Config {
	return Config{Env: Env{Dir: dir}, Target: target, Seed: 1, TrainRuns: 20, ProfileRuns: 50, Thresholds: DefaultThresholds(),
		MaxRuns: 1000, TriageRuns: 200, Verdict: DefaultVerdict(), Walks: divergence.DefaultWalks, Confirm: divergence.DefaultConfirm}
}

// Validate checks c's settings, the counts, thresholds, verdict and
// workers, as Run does before it starts, but not Env.Dir nor Target: a
// front end can check what it was given before it opens anything. Its
// error is a *ConfigError naming the field ("Config.Walks must be at
// least 1, got 0").
func (c *Config) Validate() (err error) {
	defer wrapErr(&err)
	if err := checkJobs(c.Jobs); err != nil {
		return err
	}
	switch {
	case c.TrainRuns < 0:
		return fieldErr("Config.TrainRuns", "must be at least 0 (0: no training), got %d", c.TrainRuns)
	case c.TrainRuns > 0: // TrainConfig's rule
		if err := checkTrainRuns("Config.TrainRuns", c.TrainRuns); err != nil {
			return err
		}
	}
	return firstErr(checkRuns("Config.ProfileRuns", c.ProfileRuns), c.Thresholds.check(), checkMaxRuns("Config.MaxRuns", c.MaxRuns),
		checkTriageRuns("Config.TriageRuns", c.TriageRuns), c.Verdict.check(), checkWalks("Config.Walks", c.Walks), checkConfirm("Config.Confirm", c.Confirm))
}

// Validate checks c's settings, as Train does before it starts, but not
// Env.Dir nor Target.
func (c *TrainConfig) Validate() (err error) {
	defer wrapErr(&err)
	return firstErr(checkJobs(c.Jobs), checkTrainRuns("TrainConfig.Runs", c.Runs))
}

// Validate checks c's settings, as Profile does before it starts, but not
// Env.Dir nor Target.
func (c *ProfileConfig) Validate() (err error) {
	defer wrapErr(&err)
	return firstErr(checkJobs(c.Jobs), checkRuns("ProfileConfig.Runs", c.Runs), c.Thresholds.check())
}

// Validate checks c's settings, as Search does before it starts, but not
// Env.Dir nor Profile.
func (c *SearchConfig) Validate() (err error) {
	defer wrapErr(&err)
	return firstErr(checkJobs(c.Jobs), checkMaxRuns("SearchConfig.MaxRuns", c.MaxRuns), checkTriageRuns("SearchConfig.TriageRuns", c.TriageRuns), c.Verdict.check())
}

// Validate checks c's settings, as Diverge does before it starts, but not
// Env.Dir nor Profile.
func (c *DivergeConfig) Validate() (err error) {
	defer wrapErr(&err)
	if c.Class < 0 {
		return fieldErr("DivergeConfig.Class", "must be at least 0 (0 or 1: the most severe class), got %d", c.Class)
	}
	return firstErr(checkJobs(c.Jobs), checkWalks("DivergeConfig.Walks", c.Walks), checkConfirm("DivergeConfig.Confirm", c.Confirm))
}

// Validate checks c's settings, as Simulate does before it starts, but not
// Env.Dir nor Target.
func (c *SimulateConfig) Validate() (err error) {
	defer wrapErr(&err)
	return firstErr(checkJobs(c.Jobs), checkRuns("SimulateConfig.Runs", c.Runs))
}

// firstErr is the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// The rules of the settings, each field named by its caller: the phase
// configurations and Config check the same setting with the same rule.

func checkJobs(n int) error {
	if n < 0 {
		return fieldErr("Env.Jobs", "must be at least 0, got %d", n)
	}
	return nil
}

func checkTrainRuns(field string, n int) error {
	if n < 1 {
		return fieldErr(field, "must be at least 1, got %d", n)
	}
	return checkMemory(field, n, bytesPerTrainRun)
}

func checkRuns(field string, n int) error {
	if n < 1 {
		return fieldErr(field, "must be at least 1, got %d", n)
	}
	return checkMemory(field, n, bytesPerExecLine)
}

func checkMaxRuns(field string, n int) error {
	if n < 1 {
		return fieldErr(field, "must be at least 1, got %d", n)
	}
	return nil
}

func checkTriageRuns(field string, n int) error {
	if n < 0 {
		return fieldErr(field, "must be at least 0, got %d", n)
	}
	return nil
}

func checkWalks(field string, n int) error {
	if n < 1 {
		return fieldErr(field, "must be at least 1, got %d", n)
	}
	return checkMemory(field, n, bytesPerCountsLine)
}

func checkConfirm(field string, n int) error {
	if n < 0 {
		return fieldErr(field, "must be at least 0, got %d", n)
	}
	return nil
}

// check refuses thresholds that anomaly.NewProfile would (a factor that
// is not a positive number, a slowdown below 0, an excess below 0 other
// than with AutoMinExcess), before any execution runs.
func (th Thresholds) check() error {
	switch {
	case !(th.IQRFactor > 0) || math.IsInf(th.IQRFactor, 0):
		return fieldErr("Thresholds.IQRFactor", "must be a positive number, got %v", th.IQRFactor)
	case !(th.MinSlowdown >= 0) || math.IsInf(th.MinSlowdown, 0):
		return fieldErr("Thresholds.MinSlowdown", "must be a number >= 0, got %v", th.MinSlowdown)
	case th.MinExcess < 0 && !th.AutoMinExcess:
		return fieldErr("Thresholds.MinExcess", "must be at least 0 (or AutoMinExcess), got %v", th.MinExcess)
	}
	return nil
}

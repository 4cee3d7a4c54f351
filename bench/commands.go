package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// commands runs the macepc commands of a workload as calls of package
// pipeline, with the configuration the command line would give them and
// the files it would write (summary.json and the report included), and
// names each by the command a reader would type (without --jobs,
// --progress and --out).
type commands struct {
	ctx      context.Context
	what     string // "paper", "regress", "stability": the prefix of errors
	work     string // each command writes into a directory of work
	jobs     int
	systems  timedsim.Registry
	progress io.Writer // nil: none; else one line per command
	// fenceOnly runs the phase-2 verdict of the paper (--fence-only):
	// every execution above the threshold is an anomaly.
	fenceOnly bool
}

func (c *commands) errorf(format string, args ...any) error {
	return fmt.Errorf("bench: "+c.what+": "+format, args...)
}

// target is `--system sys --variant variant [--nodes nodes] [--edd eddFile]
// [--exec-time avg-clock]`.
func (c *commands) target(sys timedsim.System, variant string, nodes int, eddFile string, execTime timedsim.ExecTimeDef) (*pipeline.Target, error) {
	opts := timedsim.Options{ExecTime: execTime}
	if eddFile != "" {
		set, err := pipeline.ReadEDD(eddFile)
		if err != nil {
			return nil, c.errorf("%w", err)
		}
		opts.EDD = set
	}
	t, err := pipeline.ResolveTarget(sys, variant, nodes, nil, opts)
	if err != nil {
		return nil, c.errorf("%w", err)
	}
	return t, nil
}

func (c *commands) env(dir string) (pipeline.Env, error) {
	d, err := pipeline.OpenDir(filepath.Join(c.work, dir))
	if err != nil {
		return pipeline.Env{}, c.errorf("%w", err)
	}
	return pipeline.Env{Dir: d, Systems: c.systems, Jobs: c.jobs}, nil
}

func (c *commands) say(cmd string) {
	if c.progress != nil {
		fmt.Fprintln(c.progress, cmd)
	}
}

// profile is `macepc profile` of t with --edd eddFile into dir, cmd being
// the command as typed.
func (c *commands) profile(dir, cmd string, t *pipeline.Target, eddFile string, seed uint64, runs int) (*results.Profile, error) {
	c.say(cmd)
	env, err := c.env(dir)
	if err != nil {
		return nil, err
	}
	pf, err := pipeline.Profile(c.ctx, pipeline.ProfileConfig{Env: env, Target: t, EDDSource: "--edd " + eddFile, Seed: seed, Runs: runs, Thresholds: pipeline.DefaultThresholds()})
	if err != nil {
		return nil, c.errorf("%s: %w", cmd, err)
	}
	if _, err := env.Dir.WriteSummary(pf); err != nil {
		return nil, c.errorf("%s: %w", cmd, err)
	}
	c.report(env.Dir)
	return pf, nil
}

// report renders the directory's report, as the command does at its end;
// as for the command, a failure leaves the results standing.
func (c *commands) report(d *pipeline.Dir) {
	_ = report.Write(d.Path())
}

// run is `macepc run` of t into dir: with --edd eddFile (no training), or
// trained afresh when eddFile is "". maxRuns 0 is the default search
// budget.
func (c *commands) run(dir, cmd string, t *pipeline.Target, eddFile string, seed uint64, maxRuns int) (*pipeline.Result, time.Duration, error) {
	c.say(cmd)
	env, err := c.env(dir)
	if err != nil {
		return nil, 0, err
	}
	cfg := pipeline.DefaultConfig(env.Dir, t)
	cfg.Env, cfg.Seed = env, seed
	if eddFile != "" {
		cfg.TrainRuns, cfg.EDDSource = 0, "--edd "+eddFile
	}
	if maxRuns > 0 {
		cfg.MaxRuns = maxRuns
	}
	cfg.Verdict.FenceOnly = c.fenceOnly
	start := time.Now()
	res, err := pipeline.Run(c.ctx, cfg)
	if err == nil {
		c.report(env.Dir)
	}
	wall := time.Since(start) // the command's time, its report included
	if err != nil {
		return nil, wall, c.errorf("%s: %w", cmd, err)
	}
	return res, wall, nil
}

// line is a command as typed: "macepc" and its arguments.
func line(args ...string) string { return "macepc " + strings.Join(args, " ") }

func itoa(n int) string { return strconv.Itoa(n) }

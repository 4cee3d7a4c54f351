package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/shard"
	"github.com/macepc/macepc/timedsim"
)

// ---- phase 1b: profile ----

const estimatorDoc = "gonum stat.Quantile with stat.LinInterp (Hyndman-Fan type 4: linear interpolation of the empirical CDF, p(k) = k/n)"

// Thresholds are the settings of the anomaly threshold
// (anomaly.Profile): the largest of Tukey's Q3 + IQRFactor·IQR,
// MinSlowdown·median and median + MinExcess.
type Thresholds struct {
	IQRFactor   float64
	MinSlowdown float64
	// MinExcess is the minimum excess over the median (profile.json's
	// min_excess_ns), unless AutoMinExcess.
	MinExcess time.Duration
	// AutoMinExcess makes MinExcess one link latency of the scenario's
	// network: an anomaly must be slower than the median by at least one
	// more message. The profile resolves it for its target.
	AutoMinExcess bool
	// MinExcessBy says where MinExcess came from, for profile.json
	// ("--min-excess 100ms"); the profile sets it for AutoMinExcess.
	MinExcessBy string
}

// DefaultMinSlowdown is the default Thresholds.MinSlowdown: an anomaly
// takes at least 1.5 times the median.
const DefaultMinSlowdown = 1.5

// DefaultThresholds are the command line's: mild outliers (the paper),
// at least 1.5 times the median and one link latency slower than it.
func DefaultThresholds() Thresholds {
	return Thresholds{IQRFactor: anomaly.MildOutliers, MinSlowdown: DefaultMinSlowdown, AutoMinExcess: true}
}

// resolve fixes AutoMinExcess for t's network (anomaly.NewProfile checks
// the rest).
func (th Thresholds) resolve(t *Target) Thresholds {
	if th.AutoMinExcess {
		lat := t.Scenario.Network.WithDefaults().Latency
		th.MinExcess, th.AutoMinExcess, th.MinExcessBy = lat, false, "auto: one link latency ("+units.Duration(lat)+")"
	}
	return th
}

// profileThresholds are a profile's threshold settings.
func profileThresholds(pf *results.Profile) Thresholds {
	return Thresholds{IQRFactor: pf.IQRFactor, MinSlowdown: pf.MinSlowdown, MinExcess: time.Duration(pf.MinExcessNS), MinExcessBy: pf.MinExcessBy}
}

// ProfileConfig configures phase 1b.
type ProfileConfig struct {
	Env
	// Target is the configuration to profile; its EDD is the trained one.
	Target *Target
	// EDDSource says where Target's EDD came from, for profile.json
	// ("trained: edd.json", "--edd FILE").
	EDDSource string
	// Seed is the profile's seed: execution i is
	// SeedPath(ExecutionSeed(Seed, i)), as in `macepc simulate`.
	Seed uint64
	// Runs is the number of executions that define the normal execution
	// time.
	Runs       int
	Thresholds Thresholds
}

func (c *ProfileConfig) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	switch {
	case c.Target == nil:
		return errors.New("no target to profile (ProfileConfig.Target)")
	}
	return c.Validate()
}

// Profile runs phase 1b, the normal execution time: cfg.Runs executions
// of cfg.Target, their quartiles and the anomaly threshold. It removes the
// files of the later phases and writes profile.json.
func Profile(ctx context.Context, cfg ProfileConfig) (pf *results.Profile, err error) {
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
	cfg.Thresholds = cfg.Thresholds.resolve(cfg.Target)
	return profile(ctx, cfg, func() error { return cfg.Dir.clearAfter(PhaseProfile) })
}

// profile runs phase 1b with resolved thresholds. Once the profile is
// computed, and only then, it calls commit (which removes the files the
// new profile makes stale) and writes profile.json: a profile that fails
// or is interrupted changes no file.
func profile(ctx context.Context, cfg ProfileConfig, commit func() error) (*results.Profile, error) {
	th := cfg.Thresholds
	lines, seen, err := profileExecs(ctx, cfg.Env, cfg.Target, cfg.Seed, shard.Spec{Index: 0, Count: 1}, cfg.Runs)
	if err != nil {
		return nil, err
	}
	pf, err := newProfileFile(cfg.Target, cfg.Seed, cfg.Runs, th, cfg.EDDSource, lines, seen)
	if err != nil {
		return nil, err
	}
	if err := commit(); err != nil {
		return nil, err
	}
	if err := cfg.Dir.writeJSON(results.FileProfile, pf); err != nil {
		return nil, err
	}
	return pf, nil
}

// profileExecs runs shard sp's share of phase 1b's executions 0..runs-1
// (all of them for shard 0/1): one line per execution in index order, and
// the labels they ran.
func profileExecs(ctx context.Context, env Env, t *Target, seed uint64, sp shard.Spec, runs int) ([]results.ExecLine, map[string]bool, error) {
	if err := checkContext(ctx); err != nil { // Regression.Run
		return nil, nil, err
	}
	ex := env.explorer(t, t.Options)
	n := sp.Len(runs)
	lines := make([]results.ExecLine, 0, initialCap(n))
	seen := map[string]bool{}
	prog := start(env.Progress, PhaseProfile, n)
	path := timedsim.Seeded(seed)
	_, done, err := ex.Run(ctx, timedsim.Work{N: n, Path: func(j int) timedsim.Path { return path(sp.Global(j)) }, Each: func(j int, r *timedsim.Result) bool {
		lines = append(lines, results.ExecLine{Index: sp.Global(j), Seed: r.Path.Segments[0].Seed, ExecTimeNS: int64(r.ExecTime), Steps: r.Steps, Finished: r.Finished, Outcome: r.Outcome})
		for l := range r.Counts {
			seen[l] = true
		}
		prog.Add(1, "")
		return true
	}})
	prog.Done()
	if errors.Is(err, timedsim.ErrNondeterministic) {
		return nil, nil, err
	}
	if err != nil || done < n {
		return nil, nil, env.Dir.interrupted(ctx, PhaseProfile, done, n)
	}
	return lines, seen, nil
}

// newProfileFile is phase 1b's result from its executions (in index
// order) and the labels they ran.
func newProfileFile(t *Target, seed uint64, runs int, th Thresholds, eddSource string, lines []results.ExecLine, seen map[string]bool) (*results.Profile, error) {
	times := make([]time.Duration, 0, len(lines))
	unfinished := 0
	outcomes := map[timedsim.Outcome]int{}
	for _, l := range lines {
		times = append(times, time.Duration(l.ExecTimeNS))
		if !l.Finished {
			unfinished++
			outcomes[l.Outcome]++
		}
	}
	prof, err := anomaly.NewProfile(times, unfinished, th.IQRFactor)
	if err != nil {
		return nil, err
	}
	prof.FenceFastMode(times)
	if err := prof.RequireSlowdown(th.MinSlowdown); err != nil {
		return nil, err
	}
	if err := prof.RequireExcess(th.MinExcess); err != nil {
		return nil, err
	}
	for _, o := range []timedsim.Outcome{timedsim.Panicked, timedsim.Hung, timedsim.SafetyViolated, timedsim.TimedOut, timedsim.Stalled, timedsim.StepLimit} {
		if k := outcomes[o]; k > 0 {
			prof.Warnings = append(prof.Warnings, fmt.Sprintf("%d of %d profile executions ended %s", k, runs, o))
		}
	}
	if lat := t.Scenario.Network.WithDefaults().Latency; prof.Median < lat {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("the median execution takes %s, less than one link latency (%s): these executions exchange (almost) no messages and differ only in handler durations; an anomaly must be at least %s slower than the median (--min-excess)",
			units.Duration(prof.Median), units.Duration(lat), units.Duration(prof.MinExcess)))
	}
	if w := slowWarning(prof.Above(times), len(times), prof.Threshold, prof.Max); w != "" {
		prof.Warnings = append(prof.Warnings, w)
	}
	prof.Warnings = append(prof.Warnings, unscaledWarning(t.Options.EDD, seen, "the profile's executions")...)
	tmpl, err := t.pathFile(timedsim.Seeded(seed)(0), fmt.Sprintf("profile seed=%d execution 0", seed))
	if err != nil {
		return nil, err
	}
	labels := make([]string, 0, len(seen))
	for l := range seen {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	pf := &results.Profile{Header: results.NewHeader(results.FormatProfile, t.System.Name, t.Variant, t.Scenario.Nodes, seed), Runs: runs, ConfigHash: tmpl.ConfigHash, EDDSource: eddSource, Estimator: estimatorDoc, IQRFactor: th.IQRFactor,
		MinExcessNS: int64(prof.MinExcess), MinExcessBy: th.MinExcessBy,
		MinNS: int64(prof.Min), Q1NS: int64(prof.Q1), MedianNS: int64(prof.Median), Q3NS: int64(prof.Q3), MaxNS: int64(prof.Max),
		Threshold: int64(prof.Threshold), TukeyNS: int64(prof.TukeyThreshold), FastMode: prof.FastMode, FastMedianNS: int64(prof.FastMedian), FastQ3NS: int64(prof.FastQ3), MinSlowdown: prof.MinSlowdown, Unfinished: prof.Unfinished, Warnings: append([]string{}, prof.Warnings...),
		Coverage: t.Options.EDD.Coverage(labels), Executions: lines, Template: tmpl}
	return pf, nil
}

// A profile's executions above its own threshold are "not rare" when a
// one-sided binomial test rejects, at level RareLevel, that at most
// RareRate of the scenario's executions are that slow
// (anomaly.SlowNotRare, which the report uses too).
const (
	RareRate  = anomaly.RareRate
	RareLevel = anomaly.RareLevel
)

// SlowNotRare is anomaly.SlowNotRare.
func SlowNotRare(k, n int) (p float64, notRare bool) { return anomaly.SlowNotRare(k, n) }

// slowWarning is the profile's warning about its own executions above its
// threshold, or "" when they are as rare as anomalies should be.
func slowWarning(above, runs int, threshold, slowest time.Duration) string {
	p, notRare := SlowNotRare(above, runs)
	if !notRare {
		return ""
	}
	return fmt.Sprintf("%d of %d profile executions (%.0f%%) are already above the threshold %s (the slowest %s): more than %.0f%% of this scenario's executions are this slow (one-sided binomial test, p = %.2g < %g), so they are a regular part of its behaviour: the search calls them anomalies only if the tail of the faster executions cannot explain them (a distinct slow mode, such as a latent bug's, it calls so however often it happens); to see them as normal, raise the threshold (--iqr-factor, --min-slowdown, --min-excess)",
		above, runs, 100*float64(above)/float64(runs), units.Duration(threshold), units.Duration(slowest), 100*RareRate, p, RareLevel)
}

// LoadProfile reads DIR/profile.json and rebuilds the configuration of its
// template from systems; the profile's config hash must be its template's.
func (d *Dir) LoadProfile(systems timedsim.Registry) (pf *results.Profile, t *Target, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, nil, errNilDir
	}
	return d.loadProfile(systems)
}

func (d *Dir) loadProfile(systems timedsim.Registry) (*results.Profile, *Target, error) {
	path := d.File(results.FileProfile)
	var pf results.Profile
	if err := results.ReadJSON(path, &pf); err != nil {
		return nil, nil, configErr("", [][]string{{"profile", "--out", d.path}}, "%w (run '{hint}' first)", err)
	}
	if err := results.CheckFormat(path, pf.Format, pf.Version, results.FormatProfile); err != nil {
		return nil, nil, err
	}
	if err := pf.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s is malformed: %w", path, err)
	}
	t, err := fromPathFile(systems, pf.Template)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Hash != pf.ConfigHash {
		return nil, nil, fmt.Errorf("%s: config hash %s does not match its template's %s", path, pf.ConfigHash, t.Hash)
	}
	return &pf, t, nil
}

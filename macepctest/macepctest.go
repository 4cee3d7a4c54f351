package macepctest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// update is -macepctest.update: rewrite the baselines instead of comparing.
// A flag, not an environment variable: it is scoped to one `go test`
// invocation of the packages named on its command line, shows in
// `go test -args -h`, and a variable left set in a CI job cannot silently
// turn the gate into a rewrite. Flags are the one package-level mutable
// state the project accepts.
var update = flag.Bool("macepctest.update", false, "rewrite the baseline files of macepctest.Profile instead of comparing with them")

// DefaultRuns is the number of profile executions when Config.Runs is 0.
const DefaultRuns = 50

// outlierPath is the path file of the first anomalous execution in the
// results directory (the name `macepc regress` uses).
const outlierPath = "regress-outlier.path.json"

// Config is one scenario to profile and what to compare it with.
type Config struct {
	// System is the system under test, Variant its variant ("": the
	// system's default) and Nodes its node count (0: the default).
	System  timedsim.System
	Variant string
	Nodes   int
	// Runs is the number of profile executions (0: DefaultRuns) and Seed
	// the profile seed; the baseline must have been made with the same.
	Runs int
	Seed uint64
	// EDD is an edd.json file ("": the seed distributions, uniform
	// 1–10 ms). Commit it next to the baseline: training measures real
	// handler times and is not reproducible, a committed file is.
	EDD string
	// Scale applies what-if factors (label=factor) to the EDD of the
	// current run only, e.g. "deliver Join=2" to see the gate fire.
	Scale []string
	// Baseline is a baseline file: a profile.json as written by `macepc
	// profile` or by Update. "" checks anomalies only.
	Baseline string
	// Alpha and MaxSlowdown are the regression test's thresholds (0:
	// anomaly.DefaultAlpha and anomaly.DefaultMaxSlowdown; a negative
	// MaxSlowdown tolerates nothing).
	Alpha, MaxSlowdown float64
	// MaxSlowRate is the tolerated share of current executions above the
	// baseline's threshold (0: anomaly.DefaultMaxSlowRate) and MaxRuns
	// caps the current executions of the sequential test (0:
	// anomaly.DefaultMaxRuns).
	MaxSlowRate float64
	MaxRuns     int
	// Jobs is the number of workers (0: GOMAXPROCS); results do not
	// depend on it.
	Jobs int
	// Out is the results directory (profile.json, regress.json, the plot,
	// summary.json and the path file of the first anomalous execution;
	// `macepc report --out DIR` renders its HTML report); "" is a
	// temporary directory that Profile removes after a passing test and
	// keeps after a failing one (under the -artifacts output directory
	// with `go test -artifacts`, else a new directory of os.TempDir whose
	// path the failure names).
	Out string
	// Update rewrites Baseline from this run instead of comparing, as the
	// -macepctest.update flag does.
	Update bool
}

// Result is what a profile found.
type Result struct {
	// Dir is the results directory.
	Dir string
	// Regression is the regression test's verdict against the baseline,
	// Reasons its explanation; Report says it in a few lines (the
	// profile's quartiles and threshold without a baseline), for the
	// test's log.
	Regression bool
	Reasons    []string
	Report     string
	// Anomalies are the executions above the threshold: the profile's
	// own when there is no baseline or it was rewritten (each fails the
	// test); against a baseline, the current executions above the
	// baseline's threshold (the first pipeline.MaxListedSlow), which fail
	// the test only through the regression test's slow-rate test.
	Anomalies []Anomaly
	// SlowRate is the regression test's slow-rate test (nil without a
	// baseline): how many current executions it took and how many were
	// slow.
	SlowRate *anomaly.SlowRateResult
	// ThresholdNS is that threshold.
	ThresholdNS int64
	// MedianRatio and Q3Ratio are current/baseline (0 without baseline).
	MedianRatio, Q3Ratio float64
	// Updated is true when the baseline file was (re)written.
	Updated bool
}

// Anomaly is one execution above the threshold.
type Anomaly struct {
	Index      int    `json:"index"`
	Seed       uint64 `json:"seed"`
	ExecTimeNS int64  `json:"exec_time_ns"`
}

// Failed reports whether the result fails a test: a regression against
// the baseline, or without one an anomaly.
func (r *Result) Failed() bool { return r.Regression || (r.SlowRate == nil && len(r.Anomalies) > 0) }

// Profile runs Run in a test and fails t on an anomaly, on a regression
// against the baseline, or when the baseline is missing or belongs to
// another configuration; with -macepctest.update (or Config.Update) it
// rewrites the baseline and fails only on an anomaly.
func Profile(t testing.TB, cfg Config) *Result {
	t.Helper()
	temp := cfg.Out == ""
	if temp {
		cfg.Out = t.TempDir()
	}
	r, err := run(context.Background(), cfg, t.Name())
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	if temp && r.Failed() {
		// The temporary directory goes with the test: keep what explains
		// the failure where it stays.
		kept, err := keepResults(t, cfg.Out)
		if err != nil {
			t.Logf("macepctest: the results of the failed run could not be kept: %v", err)
			kept = ""
		}
		r.Dir = kept
	}
	where := "set Config.Out to keep the results"
	if r.Dir != "" {
		where = "results in " + r.Dir + " (" + shellquote.Join("macepc", "report", "--out", r.Dir) + " renders them)"
	}
	if r.Updated {
		t.Logf("macepctest: wrote the baseline %s", cfg.Baseline)
	}
	if r.Report != "" {
		t.Logf("%s", r.Report)
	}
	if r.Regression {
		replay := ""
		if len(r.Anomalies) > 0 && r.Dir != "" {
			a := r.Anomalies[0]
			replay = fmt.Sprintf("\n  the first current execution above the baseline's threshold is execution %d (seed %d), %s: replay with %s", a.Index, a.Seed, units.Duration(ns(a.ExecTimeNS)), shellquote.Join("macepc", "replay", "--path", filepath.Join(r.Dir, outlierPath)))
		}
		t.Errorf("macepctest: performance regression of %s against %s (%s):\n  %s%s", describe(cfg), cfg.Baseline, where, strings.Join(r.Reasons, "\n  "), replay)
	}
	if n := len(r.Anomalies); n > 0 && r.SlowRate == nil {
		a := r.Anomalies[0]
		path := "not kept (" + where + ")"
		if r.Dir != "" {
			path = filepath.Join(r.Dir, outlierPath) + " (replay with " + shellquote.Join("macepc", "replay", "--path", filepath.Join(r.Dir, outlierPath)) + ")"
		}
		t.Errorf("macepctest: %d of %d executions of %s are anomalous (above %s); the first is execution %d (seed %d), %s: its path file is %s",
			n, runs(cfg), describe(cfg), units.Duration(ns(r.ThresholdNS)), a.Index, a.Seed, units.Duration(ns(a.ExecTimeNS)), path)
	}
	return r
}

// keepResults copies the results directory dir where it outlives the test:
// t's artifact directory with `go test -artifacts`, else a new directory
// in os.TempDir.
func keepResults(t testing.TB, dir string) (string, error) {
	var kept string
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		kept = filepath.Join(t.ArtifactDir(), "macepctest")
	} else {
		d, err := os.MkdirTemp("", "macepctest-")
		if err != nil {
			return "", err
		}
		kept = d
	}
	if err := os.CopyFS(kept, os.DirFS(dir)); err != nil {
		return "", err
	}
	return kept, nil
}

// Run profiles cfg's scenario and compares it with cfg.Baseline (or
// rewrites the baseline, with Update or -macepctest.update). Errors are a
// missing or stale baseline, a bad configuration, or a failed run.
func Run(ctx context.Context, cfg Config) (*Result, error) { return run(ctx, cfg, "") }

// run is Run; test is the name of the test it runs in ("" outside one),
// for the command its messages give.
func run(ctx context.Context, cfg Config, test string) (*Result, error) {
	if cfg.System.Name == "" {
		return nil, errors.New("macepctest: Config.System is not set")
	}
	if cfg.Out == "" {
		return nil, errors.New("macepctest: Config.Out is not set")
	}
	set := edd.NewSet(edd.DefaultSeed())
	if cfg.EDD != "" {
		var err error
		if set, err = pipeline.ReadEDD(cfg.EDD); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
	}
	eddHash := set.Hash() // before the what-if factors, as the baseline's
	target, err := pipeline.ResolveTarget(cfg.System, cfg.Variant, cfg.Nodes, nil, timedsim.Options{EDD: set})
	if err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	if err := pipeline.ApplyScale(target.Options.EDD, cfg.Scale); err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	env := pipeline.Env{Dir: pipeline.NewDir(cfg.Out), Systems: timedsim.Registry{cfg.System}, Jobs: cfg.Jobs}
	if cfg.Baseline == "" || cfg.Update || *update {
		return profileOnly(ctx, cfg, env, target)
	}

	if err := checkBaseline(cfg, target, eddHash, test); err != nil {
		return nil, err
	}
	cmp := anomaly.DefaultCompareConfig()
	if cfg.Alpha != 0 {
		cmp.Alpha = cfg.Alpha
	}
	if cfg.MaxSlowdown != 0 {
		cmp.MaxSlowdown = max(cfg.MaxSlowdown, 0)
	}
	r, err := pipeline.StartRegress(pipeline.RegressConfig{Env: env, Baseline: cfg.Baseline, Seed: &cfg.Seed, Runs: runs(cfg), Scale: cfg.Scale, Compare: cmp, MaxSlowRate: cfg.MaxSlowRate, MaxRuns: cfg.MaxRuns})
	if err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	res, err := r.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	rf := res.Regress
	out := &Result{Dir: cfg.Out, Regression: rf.Regression, Reasons: rf.Reasons, Report: regressReport(cfg, rf), ThresholdNS: rf.Outliers.ThresholdNS,
		MedianRatio: rf.MedianRatio.Estimate, Q3Ratio: rf.Q3Ratio.Estimate, SlowRate: rf.SlowRate}
	for _, e := range rf.Outliers.Executions {
		out.Anomalies = append(out.Anomalies, Anomaly{Index: e.Index, Seed: e.Seed, ExecTimeNS: e.ExecTimeNS})
	}
	return out, nil
}

// profileOnly profiles cfg's scenario, reports the executions above the
// profile's own threshold and, with a baseline file, rewrites it.
func profileOnly(ctx context.Context, cfg Config, env pipeline.Env, target *pipeline.Target) (*Result, error) {
	eddSource := "seed (uniform 1-10ms)"
	if cfg.EDD != "" {
		eddSource = "--edd " + cfg.EDD
	}
	pf, err := pipeline.Profile(ctx, pipeline.ProfileConfig{Env: env, Target: target, EDDSource: eddSource, Seed: cfg.Seed, Runs: runs(cfg), Thresholds: pipeline.DefaultThresholds()})
	if err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	if _, err := env.Dir.WriteSummary(pf); err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	r := &Result{Dir: cfg.Out, ThresholdNS: pf.Threshold, Report: profileReport(pf)}
	for _, e := range pf.Executions {
		if e.ExecTimeNS > pf.Threshold {
			r.Anomalies = append(r.Anomalies, Anomaly{Index: e.Index, Seed: e.Seed, ExecTimeNS: e.ExecTimeNS})
		}
	}
	if len(r.Anomalies) > 0 {
		// Execution i of the profile is SeedPath of its seed.
		a := r.Anomalies[0]
		note := fmt.Sprintf("macepctest: profile execution %d, above the profile's threshold", a.Index)
		if err := pipeline.WritePathFile(env.Dir.File(outlierPath), target, timedsim.SeedPath(a.Seed), note); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
	}
	if cfg.Baseline != "" {
		b, err := os.ReadFile(env.Dir.File(results.FileProfile))
		if err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
		// The first -macepctest.update of a new project: testdata/ may not
		// exist yet.
		if err := os.MkdirAll(filepath.Dir(cfg.Baseline), 0o755); err != nil {
			return nil, fmt.Errorf("macepctest: writing the baseline: %w", err)
		}
		if err := atomicfile.WriteBytes(cfg.Baseline, b); err != nil {
			return nil, fmt.Errorf("macepctest: writing the baseline: %w", err)
		}
		r.Updated = true
	}
	return r, nil
}

// updateCommand is the command that rewrites test's baseline: go test
// -run with the test's name anchored (each subtest level on its own), and
// -macepctest.update.
func updateCommand(test string) string {
	if test == "" {
		return "Config.Update, or -macepctest.update in the test that runs it"
	}
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return "go test -run '" + strings.Join(parts, "/") + "' -macepctest.update"
}

// updateAdvice says how to rewrite a stale baseline and what that does.
func updateAdvice(test string) string {
	return "if the test's configuration changed on purpose, rewrite the baseline with " + updateCommand(test) +
		" (it replaces the baseline with this run's profile, whatever its performance: check the new profile before you commit it)"
}

// checkBaseline refuses a missing baseline, or one of another system,
// variant, node count, seed, number of runs or EDD than cfg's (eddHash:
// the hash of its EDD before the what-if factors).
func checkBaseline(cfg Config, t *pipeline.Target, eddHash uint64, test string) error {
	rewrite := updateAdvice(test)
	var f struct {
		Format string `json:"format"`
	}
	if err := readJSON(cfg.Baseline, &f); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("macepctest: the baseline %s does not exist: create it with %s", cfg.Baseline, updateCommand(test))
		}
		return err
	}
	if f.Format != "macepc-profile" {
		return fmt.Errorf("macepctest: %s is not a baseline (format %q, want macepc-profile)", cfg.Baseline, f.Format)
	}
	_, base, err := pipeline.ReadBaseline(cfg.Baseline)
	if err != nil {
		return fmt.Errorf("macepctest: %w", err)
	}
	variant, nodes := t.Variant, t.Scenario.Nodes
	if base.System != cfg.System.Name || base.Variant != variant || base.Seed != cfg.Seed || base.Runs != runs(cfg) {
		return fmt.Errorf("macepctest: the baseline %s is of %s variant %s seed %d with %d runs, the test of %s variant %s seed %d with %d runs: %s",
			cfg.Baseline, base.System, base.Variant, base.Seed, base.Runs, cfg.System.Name, variant, cfg.Seed, runs(cfg), rewrite)
	}
	if base.Nodes != nodes {
		return fmt.Errorf("macepctest: the baseline %s is a profile of %d nodes, not %d: %s", cfg.Baseline, base.Nodes, nodes, rewrite)
	}
	opts, err := base.Template.Options()
	if err != nil {
		return fmt.Errorf("macepctest: the baseline %s: %w", cfg.Baseline, err)
	}
	if opts.EDD.Hash() != eddHash {
		return fmt.Errorf("macepctest: the baseline %s was profiled with other event duration distributions than %s: %s", cfg.Baseline, eddName(cfg), rewrite)
	}
	return nil
}

func eddName(cfg Config) string {
	if cfg.EDD == "" {
		return "the seed distributions"
	}
	return cfg.EDD
}

// profileReport is a profile in two lines.
func profileReport(pf *results.Profile) string {
	above := 0
	for _, e := range pf.Executions {
		if e.ExecTimeNS > pf.Threshold {
			above++
		}
	}
	return fmt.Sprintf("profile of %s %s: %d executions (seed %d): median %s, Q3 %s\n  anomaly threshold %s: %d above it",
		pf.System, pf.Variant, pf.Runs, pf.Seed, units.Duration(ns(pf.MedianNS)), units.Duration(ns(pf.Q3NS)), units.Duration(ns(pf.Threshold)), above)
}

// regressReport is the regression test's verdict with its reasons and
// warnings.
func regressReport(cfg Config, rf *results.Regress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "regression test against %s: median %s -> %s (%+.1f%%), Q3 %s -> %s (%+.1f%%); %d of %d executions above the baseline's threshold %s (baseline %d of %d): ",
		cfg.Baseline, units.Duration(ns(rf.BaseMedianNS)), units.Duration(ns(rf.CurMedianNS)), 100*(rf.MedianRatio.Estimate-1),
		units.Duration(ns(rf.BaseQ3NS)), units.Duration(ns(rf.CurQ3NS)), 100*(rf.Q3Ratio.Estimate-1),
		rf.Outliers.Current, rf.Current.Runs, units.Duration(ns(rf.Outliers.ThresholdNS)), rf.Outliers.Base, rf.Baseline.Runs)
	if rf.Regression {
		b.WriteString("REGRESSION")
	} else {
		b.WriteString("no regression")
	}
	if sr := rf.SlowRate; sr != nil {
		b.WriteString("\n  slow-rate test: " + sr.Statement())
	}
	for _, r := range rf.Reasons {
		b.WriteString("\n  " + r)
	}
	for _, w := range rf.Warnings {
		b.WriteString("\n  warning: " + w)
	}
	return b.String()
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("macepctest: %s: %w", path, err)
	}
	return nil
}

func runs(cfg Config) int {
	if cfg.Runs == 0 {
		return DefaultRuns
	}
	return cfg.Runs
}

func describe(cfg Config) string {
	return fmt.Sprintf("%s %s", cfg.System.Name, cfg.System.ResolveVariant(cfg.Variant))
}

func ns(v int64) time.Duration { return time.Duration(v) }

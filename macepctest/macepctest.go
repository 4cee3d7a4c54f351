package macepctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
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
	// Jobs is the number of workers (0: GOMAXPROCS); results do not
	// depend on it.
	Jobs int
	// Out is the results directory (profile.json, regress.json, the plot
	// and the path file of the first anomalous execution); "" is a
	// temporary directory that Profile removes after the test.
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
	// Reasons its explanation; Report is `macepc regress`'s summary.
	Regression bool
	Reasons    []string
	Report     string
	// Anomalies are the executions above the threshold: the baseline's,
	// or the profile's own when there is no baseline or it was rewritten.
	Anomalies []Anomaly
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

// Failed reports whether the result fails a test: a regression or an
// anomaly.
func (r *Result) Failed() bool { return r.Regression || len(r.Anomalies) > 0 }

// Profile runs Run in a test and fails t on an anomaly, on a regression
// against the baseline, or when the baseline is missing or belongs to
// another configuration; with -macepctest.update (or Config.Update) it
// rewrites the baseline and fails only on an anomaly.
func Profile(t testing.TB, cfg Config) *Result {
	t.Helper()
	if cfg.Out == "" {
		cfg.Out = t.TempDir()
	}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	if r.Updated {
		t.Logf("macepctest: wrote the baseline %s", cfg.Baseline)
	}
	if r.Report != "" {
		t.Logf("%s", r.Report)
	}
	if r.Regression {
		t.Errorf("macepctest: performance regression of %s against %s:\n  %s", describe(cfg), cfg.Baseline, strings.Join(r.Reasons, "\n  "))
	}
	if n := len(r.Anomalies); n > 0 {
		a := r.Anomalies[0]
		t.Errorf("macepctest: %d of %d executions of %s are anomalous (above %s); the first is execution %d (seed %d), %s: its path file is %s",
			n, runs(cfg), describe(cfg), timedsim.FormatTime(ns(r.ThresholdNS)), a.Index, a.Seed, timedsim.FormatTime(ns(a.ExecTimeNS)),
			filepath.Join(r.Dir, outlierPath)+" (set Config.Out to keep it; replay with macepc replay --path FILE)")
	}
	return r
}

// Run profiles cfg's scenario and compares it with cfg.Baseline (or
// rewrites the baseline, with Update or -macepctest.update). Errors are a
// missing or stale baseline, a bad configuration, or a failed run.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.System.Name == "" {
		return nil, errors.New("macepctest: Config.System is not set")
	}
	if cfg.Out == "" {
		return nil, errors.New("macepctest: Config.Out is not set")
	}
	variant := cfg.System.ResolveVariant(cfg.Variant)
	sc, err := cfg.System.Scenario(variant, cfg.Nodes)
	if err != nil {
		return nil, fmt.Errorf("macepctest: %w", err)
	}
	common := []string{"--seed", strconv.FormatUint(cfg.Seed, 10), "--out", cfg.Out, "--progress", "never", "--jobs", strconv.Itoa(cfg.Jobs)}
	for _, s := range cfg.Scale {
		common = append(common, "--scale", s)
	}
	if cfg.EDD != "" {
		common = append(common, "--edd", cfg.EDD)
	}
	if cfg.Baseline == "" || cfg.Update || *update {
		args := append([]string{"profile", "--system", cfg.System.Name, "--variant", variant, "--nodes", strconv.Itoa(sc.Nodes), "--profile-runs", strconv.Itoa(runs(cfg))}, common...)
		out, err := runCLI(ctx, cfg.System, args)
		if err != nil {
			return nil, err
		}
		r, err := ownAnomalies(cfg.Out)
		if err != nil {
			return nil, err
		}
		r.Report = out
		if cfg.Baseline != "" {
			b, err := os.ReadFile(filepath.Join(cfg.Out, "profile.json"))
			if err != nil {
				return nil, fmt.Errorf("macepctest: %w", err)
			}
			if err := atomicfile.WriteBytes(cfg.Baseline, b); err != nil {
				return nil, fmt.Errorf("macepctest: writing the baseline: %w", err)
			}
			r.Updated = true
		}
		return r, nil
	}

	if err := checkBaseline(cfg, variant, sc.Nodes); err != nil {
		return nil, err
	}
	args := append([]string{"regress", "--baseline", cfg.Baseline, "--system", cfg.System.Name, "--nodes", strconv.Itoa(sc.Nodes), "--runs", strconv.Itoa(runs(cfg))}, common...)
	if cfg.EDD == "" {
		// Pin the seed distributions with a file, so that a baseline
		// profiled with another EDD is refused.
		seedEDD := filepath.Join(cfg.Out, "macepctest-seed-edd.json")
		var b bytes.Buffer
		if err := edd.Write(&b, edd.NewSet(edd.DefaultSeed())); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
		if err := atomicfile.WriteBytes(seedEDD, b.Bytes()); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
		args = append(args, "--edd", seedEDD)
	}
	if cfg.Alpha != 0 {
		args = append(args, "--alpha", strconv.FormatFloat(cfg.Alpha, 'g', -1, 64))
	}
	if cfg.MaxSlowdown != 0 {
		args = append(args, "--max-slowdown", strconv.FormatFloat(100*max(cfg.MaxSlowdown, 0), 'g', 12, 64)+"%") // a percentage: a bare 1 is ambiguous to the CLI
	}
	out, err := runCLI(ctx, cfg.System, args)
	if err != nil {
		return nil, err
	}
	var rf struct {
		Format      string   `json:"format"`
		Regression  bool     `json:"regression"`
		Reasons     []string `json:"reasons"`
		MedianRatio struct {
			Estimate float64 `json:"estimate"`
		} `json:"median_ratio"`
		Q3Ratio struct {
			Estimate float64 `json:"estimate"`
		} `json:"q3_ratio"`
		Outliers struct {
			ThresholdNS int64     `json:"threshold_ns"`
			Executions  []Anomaly `json:"executions"`
		} `json:"outliers"`
	}
	if err := readJSON(filepath.Join(cfg.Out, "regress.json"), &rf); err != nil {
		return nil, err
	}
	if rf.Format != "macepc-regress" {
		return nil, fmt.Errorf("macepctest: regress.json has format %q", rf.Format)
	}
	return &Result{Dir: cfg.Out, Regression: rf.Regression, Reasons: rf.Reasons, Report: out, Anomalies: rf.Outliers.Executions,
		ThresholdNS: rf.Outliers.ThresholdNS, MedianRatio: rf.MedianRatio.Estimate, Q3Ratio: rf.Q3Ratio.Estimate}, nil
}

// checkBaseline refuses a missing baseline, or one of another variant,
// seed or number of runs (regress itself refuses another system, node
// count or EDD).
func checkBaseline(cfg Config, variant string, nodes int) error {
	var f struct {
		Format string `json:"format"`
	}
	if err := readJSON(cfg.Baseline, &f); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("macepctest: the baseline %s does not exist: create it with go test -run '^TestName$' -macepctest.update", cfg.Baseline)
		}
		return err
	}
	if f.Format != "macepc-profile" {
		return fmt.Errorf("macepctest: %s is not a baseline (format %q, want macepc-profile)", cfg.Baseline, f.Format)
	}
	var h struct {
		System  string `json:"system"`
		Variant string `json:"variant"`
		Seed    uint64 `json:"seed"`
		Runs    int    `json:"runs"`
	}
	if err := readJSON(cfg.Baseline, &h); err != nil {
		return err
	}
	if h.System != cfg.System.Name || h.Variant != variant || h.Seed != cfg.Seed || h.Runs != runs(cfg) {
		return fmt.Errorf("macepctest: the baseline %s is of %s variant %s seed %d with %d runs, the test of %s variant %s seed %d with %d runs: rewrite it with -macepctest.update",
			cfg.Baseline, h.System, h.Variant, h.Seed, h.Runs, cfg.System.Name, variant, cfg.Seed, runs(cfg))
	}
	return nil
}

// ownAnomalies reads a profile's executions above its own threshold and
// writes the first one's path file, as regress does.
func ownAnomalies(dir string) (*Result, error) {
	var pf struct {
		Threshold  int64           `json:"threshold_ns"`
		Executions []Anomaly       `json:"executions"`
		Template   json.RawMessage `json:"template"`
	}
	if err := readJSON(filepath.Join(dir, "profile.json"), &pf); err != nil {
		return nil, err
	}
	r := &Result{Dir: dir, ThresholdNS: pf.Threshold}
	for _, e := range pf.Executions {
		if e.ExecTimeNS > pf.Threshold {
			r.Anomalies = append(r.Anomalies, e)
		}
	}
	if len(r.Anomalies) > 0 {
		// The template is execution 0's path file; execution i differs
		// only in its seed.
		tmpl, err := timedsim.ReadPathFile(bytes.NewReader(pf.Template))
		if err != nil {
			return nil, fmt.Errorf("macepctest: %s: %w", filepath.Join(dir, "profile.json"), err)
		}
		a := r.Anomalies[0]
		tmpl.Segments = timedsim.SeedPath(a.Seed).Segments
		tmpl.Note = fmt.Sprintf("macepctest: profile execution %d, above the profile's threshold", a.Index)
		if err := atomicfile.Write(filepath.Join(dir, outlierPath), func(w io.Writer) error { return timedsim.WritePathFile(w, tmpl) }); err != nil {
			return nil, fmt.Errorf("macepctest: %w", err)
		}
	}
	return r, nil
}

// runCLI runs the macepc command line on the system: exit 0 and 1 are
// results, 2 an error with its message.
func runCLI(ctx context.Context, sys timedsim.System, args []string) (string, error) {
	var out, errs bytes.Buffer
	st := cli.Run(ctx, args, &out, &errs, sys)
	if st == cli.ExitError {
		return out.String(), fmt.Errorf("macepctest: macepc %s: %s", args[0], strings.TrimSpace(strings.TrimPrefix(errs.String(), "macepc: ")))
	}
	return out.String(), nil
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

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// regressFile is the part of regress.json the tests read.
type regressFile struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	Variant  string `json:"variant"`
	Seed     uint64 `json:"seed"`
	Baseline struct {
		Variant string `json:"variant"`
		Seed    uint64 `json:"seed"`
		Runs    int    `json:"runs"`
	} `json:"baseline"`
	Current struct {
		Scale []string `json:"scale"`
	} `json:"current"`
	MedianRatio struct{ Estimate, Low, High float64 } `json:"median_ratio"`
	MannWhitney struct {
		U     float64 `json:"u"`
		P     float64 `json:"p"`
		Exact bool    `json:"exact"`
	} `json:"mann_whitney"`
	Outliers struct {
		Base            int     `json:"base"`
		P               float64 `json:"p"`
		ExcessP         float64 `json:"excess_p"`
		BaseExcessNS    int64   `json:"base_excess_ns"`
		CurrentExcessNS int64   `json:"current_excess_ns"`
		Current         int     `json:"current"`
		Executions      []struct {
			Index int `json:"index"`
		} `json:"executions"`
		Path string `json:"path"`
	} `json:"outliers"`
	Tests []struct {
		Name       string  `json:"name"`
		P          float64 `json:"p"`
		Attainable float64 `json:"attainable_p"`
		Excluded   bool    `json:"excluded"`
		Level      float64 `json:"level"`
		AdjustedP  float64 `json:"adjusted_p"`
		Rejected   bool    `json:"rejected"`
	} `json:"tests"`
	Regression bool     `json:"regression"`
	Reasons    []string `json:"reasons"`
	Warnings   []string `json:"warnings"`
}

func readRegress(t *testing.T, dir string) *regressFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "regress.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r regressFile
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Format != "macepc-regress" || r.Version != 1 {
		t.Fatalf("regress.json format %q version %d", r.Format, r.Version)
	}
	return &r
}

// pingpongBaseline profiles pingpong (4 nodes, seed distributions, which
// are deterministic) into dir.
func pingpongBaseline(t *testing.T, dir string, seed int) {
	t.Helper()
	if out, errs, st := run(t, dir, "profile", "--system", "pingpong", "--nodes", "4", "--seed", fmt.Sprint(seed), "--profile-runs", "40", "--out", "$DIR/base", "--progress", "never"); st != 0 {
		t.Fatalf("profile: status %d\n%s%s", st, out, errs)
	}
}

// The acceptance test of the CI gate: the same code against its own
// baseline is no regression (exit 0); a what-if that makes one hot label
// (pingpong's Ping handler) twice as slow is one (exit 1), with the
// median's interval above the tolerated 5%. Both outputs are golden, and
// the files do not depend on --jobs.
func TestRegressScaledLabelIsARegression(t *testing.T) {
	dir := t.TempDir()
	pingpongBaseline(t, dir, 7)

	out, errs, st := run(t, dir, "regress", "--baseline", "$DIR/base", "--out", "$DIR/same", "--progress", "never")
	if st != cli.ExitOK {
		t.Fatalf("same code: status %d, want 0\n%s%s", st, out, errs)
	}
	golden(t, "regress-same.stdout", out)
	golden(t, "regress-same.stderr", errs)
	r := readRegress(t, filepath.Join(dir, "same"))
	if r.Regression || r.MedianRatio.Estimate != 1 || r.MannWhitney.U != 40*40/2 || r.MannWhitney.P < 0.4 {
		t.Errorf("same code, same seed: %+v", r)
	}

	for _, jobs := range []string{"1", "2"} {
		out, errs, st = run(t, dir, "regress", "--baseline", "$DIR/base/profile.json", "--scale", "deliver Ping=2", "--out", "$DIR/slow"+jobs, "--jobs", jobs, "--progress", "never")
		if st != cli.ExitFinding {
			t.Fatalf("deliver Ping=2: status %d, want 1\n%s%s", st, out, errs)
		}
	}
	golden(t, "regress-scaled.stdout", strings.ReplaceAll(out, "slow2", "slow"))
	golden(t, "regress-scaled.stderr", errs)
	sameFiles(t, "regress --jobs 1 vs 2", readDir(t, filepath.Join(dir, "slow1")), readDir(t, filepath.Join(dir, "slow2")))
	r = readRegress(t, filepath.Join(dir, "slow1"))
	if !r.Regression || r.MedianRatio.Low <= 1.05 || r.MannWhitney.P >= 0.01 || len(r.Current.Scale) != 1 || !strings.HasPrefix(r.Reasons[0], "median +") {
		t.Errorf("deliver Ping=2: %+v", r)
	}
	files := readDir(t, filepath.Join(dir, "slow1"))
	for _, name := range []string{"profile.json", "summary.json", "regress.json", "regress.svg", "regress.png"} {
		if len(files[name]) == 0 {
			t.Errorf("%s missing", name)
		}
	}
	if !bytes.HasPrefix(files["regress.svg"], []byte("<svg")) || !bytes.HasPrefix(files["regress.png"], []byte("\x89PNG")) {
		t.Errorf("regress.svg / regress.png are not an SVG and a PNG")
	}
	// The current profile is a results directory of its own: the later
	// phases run on it.
	if _, errs, st := run(t, dir, "search", "--out", "$DIR/slow1", "--max-runs", "5", "--progress", "never"); st == cli.ExitError {
		t.Errorf("search on the regress directory: %s", errs)
	}
	// A new profile there makes the comparison stale: it goes.
	if _, errs, st := run(t, dir, "profile", "--system", "pingpong", "--profile-runs", "5", "--out", "$DIR/slow1", "--progress", "never"); st != cli.ExitOK {
		t.Fatalf("profile: %s", errs)
	}
	for _, name := range []string{"regress.json", "regress.svg", "regress.png", "regress-outlier.path.json"} {
		if _, err := os.Stat(filepath.Join(dir, "slow1", name)); err == nil {
			t.Errorf("a new profile left the stale %s", name)
		}
	}
}

// The false-positive rate: the same code, profiled with another seed than
// the baseline's, over 20 seed pairs. Executions differ, so the test does
// not pass trivially; at alpha 0.01 with a 5% tolerance no pair should
// fail (the rule errs at rate well under alpha when nothing changed); one
// is allowed. The same pairs with a 0% tolerance and alpha 0.5 show that
// the measure can fail.
func TestRegressFalsePositiveRate(t *testing.T) {
	dir := t.TempDir()
	pingpongBaseline(t, dir, 1)
	count := func(extra ...string) (fp int) {
		for s := 2; s <= 21; s++ {
			args := append([]string{"regress", "--baseline", "$DIR/base", "--seed", fmt.Sprint(s), "--out", "$DIR/cur", "--progress", "never"}, extra...)
			out, errs, st := run(t, dir, args...)
			switch st {
			case cli.ExitFinding:
				fp++
			case cli.ExitOK:
			default:
				t.Fatalf("seed %d: status %d\n%s%s", s, st, out, errs)
			}
			if r := readRegress(t, filepath.Join(dir, "cur")); r.MedianRatio.Estimate == 1 && r.MannWhitney.U == 800 {
				t.Fatalf("seed %d gave the baseline's executions", s)
			}
		}
		return fp
	}
	fp := count()
	t.Logf("false positives: %d of 20 seed pairs (alpha 0.01, max slowdown 5%%)", fp)
	if fp > 1 {
		t.Errorf("%d of 20 seed pairs of the same code are regressions", fp)
	}
	if loose := count("--alpha", "0.5", "--max-slowdown", "0"); loose <= fp {
		t.Errorf("alpha 0.5 with no tolerance: %d false positives, not more than %d", loose, fp)
	}
}

// --variant profiles another variant against the baseline (RandTree fixed
// against buggy, same seed); without it the baseline's variant is used.
func TestRegressVariantOverride(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if out, errs, st := runRT(t, ctx, "profile", "--variant", "buggy", "--seed", "3", "--profile-runs", "30", "--out", filepath.Join(dir, "base"), "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	out, errs, st := runRT(t, ctx, "regress", "--baseline", filepath.Join(dir, "base"), "--variant", "fixed", "--out", filepath.Join(dir, "cur"), "--progress", "never")
	if st == cli.ExitError {
		t.Fatalf("regress --variant fixed: %s%s", out, errs)
	}
	r := readRegress(t, filepath.Join(dir, "cur"))
	if r.Variant != "fixed" || r.Baseline.Variant != "buggy" || r.Seed != 3 || r.Baseline.Runs != 30 {
		t.Errorf("regress.json: variant %q against %q, seed %d, runs %d", r.Variant, r.Baseline.Variant, r.Seed, r.Baseline.Runs)
	}
	if !strings.Contains(out, "current: variant=fixed seed=3 runs=30") {
		t.Errorf("stdout lacks the current configuration:\n%s", out)
	}
	// The fix is not slower: no regression.
	if st != cli.ExitOK || r.Regression {
		t.Errorf("fixed against buggy: status %d, %+v", st, r)
	}
}

// Bad baselines and flags: a one-line error, exit 2, and no --out
// directory.
func TestRegressRefusalsGolden(t *testing.T) {
	dir := t.TempDir()
	pingpongBaseline(t, dir, 7)
	base, err := os.ReadFile(filepath.Join(dir, "base", "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("garbage.json", "{not json")
	write("summary.json", strings.Replace(string(base), `"format": "macepc-profile"`, `"format": "macepc-summary"`, 1))
	write("tampered.json", strings.Replace(string(base), `"config_hash": "`, `"config_hash": "0`, 1))
	write("no-threshold.json", regexp.MustCompile(`"threshold_ns": [0-9]+`).ReplaceAllString(string(base), `"threshold_ns": 0`))
	write("gone-variant.json", strings.ReplaceAll(string(base), `"variant": "default"`, `"variant": "nosuch"`))
	var other bytes.Buffer
	if st := cli.Run(context.Background(), []string{"train", "--system", "pingpong", "--train-runs", "2", "--out", filepath.Join(dir, "trained"), "--progress", "never"}, &other, &other, pingpong.System()); st != 0 {
		t.Fatalf("train: %s", other.String())
	}
	var rt bytes.Buffer
	if st := cli.Run(context.Background(), []string{"profile", "--system", "randtree", "--nodes", "4", "--profile-runs", "3", "--out", filepath.Join(dir, "rt"), "--progress", "never"}, &rt, &rt, randtree.System()); st != 0 {
		t.Fatalf("profile randtree: %s", rt.String())
	}
	cases := []struct {
		name string
		args []string
	}{
		{"regress-no-baseline", []string{"regress", "--out", "$DIR/out"}},
		{"regress-missing-baseline", []string{"regress", "--baseline", "$DIR/nosuch", "--out", "$DIR/out"}},
		{"regress-malformed-baseline", []string{"regress", "--baseline", "$DIR/garbage.json", "--out", "$DIR/out"}},
		{"regress-wrong-format", []string{"regress", "--baseline", "$DIR/summary.json", "--out", "$DIR/out"}},
		{"regress-inconsistent-baseline", []string{"regress", "--baseline", "$DIR/tampered.json", "--out", "$DIR/out"}},
		{"regress-bad-threshold", []string{"regress", "--baseline", "$DIR/no-threshold.json", "--out", "$DIR/out"}},
		{"regress-stale-variant", []string{"regress", "--baseline", "$DIR/gone-variant.json", "--out", "$DIR/out"}},
		{"regress-unknown-system", []string{"regress", "--baseline", "$DIR/rt", "--out", "$DIR/out"}},
		{"regress-other-system", []string{"regress", "--baseline", "$DIR/base", "--system", "randtree", "--out", "$DIR/out"}},
		{"regress-other-nodes", []string{"regress", "--baseline", "$DIR/base", "--nodes", "2", "--out", "$DIR/out"}},
		{"regress-other-edd", []string{"regress", "--baseline", "$DIR/base", "--edd", "$DIR/trained/edd.json", "--out", "$DIR/out"}},
		{"regress-bad-max-slowdown", []string{"regress", "--baseline", "$DIR/base", "--max-slowdown", "five", "--out", "$DIR/out"}},
		{"regress-bare-max-slowdown", []string{"regress", "--baseline", "$DIR/base", "--max-slowdown", "5", "--out", "$DIR/out"}},
		{"regress-bad-alpha", []string{"regress", "--baseline", "$DIR/base", "--alpha", "1", "--out", "$DIR/out"}},
		{"regress-out-is-baseline", []string{"regress", "--baseline", "$DIR/base"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string(nil), c.args...)
			if c.name == "regress-out-is-baseline" {
				args = append(args, "--out", "$DIR/base")
			}
			stdout, stderr, status := run(t, dir, args...)
			if status != cli.ExitError {
				t.Errorf("exit status %d, want 2; stderr: %s", status, stderr)
			}
			golden(t, c.name+".stdout", stdout)
			golden(t, c.name+".stderr", stderr)
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("error is not one line: %q", stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Errorf("a refused regress left $DIR/out behind")
			}
		})
	}
}

// The acceptance test on the real bug: RandTree buggy (the join race,
// about 7% of executions end after the 10 s recovery timer) against a
// baseline of the fixed variant, 200 executions each with the seed
// distributions and another seed than the baseline's: the quartiles hardly
// move, but the rate of executions above the baseline's threshold does
// (exit 1, Fisher's test). The fixed variant against the same baseline is
// no regression (exit 0).
func TestRegressBuggyAgainstFixedBaseline(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if out, errs, st := runRT(t, ctx, "profile", "--variant", "fixed", "--seed", "7", "--profile-runs", "200", "--out", filepath.Join(dir, "base"), "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	out, errs, st := runRT(t, ctx, "regress", "--baseline", filepath.Join(dir, "base"), "--variant", "buggy", "--seed", "8", "--out", filepath.Join(dir, "buggy"), "--progress", "never")
	if st != cli.ExitFinding {
		t.Fatalf("buggy against fixed: status %d, want 1\n%s%s", st, out, errs)
	}
	r := readRegress(t, filepath.Join(dir, "buggy"))
	if !r.Regression || len(r.Reasons) == 0 || !strings.Contains(r.Reasons[0], "executions above the baseline's threshold") || r.Outliers.Current < 5 ||
		r.Outliers.Path != "regress-outlier.path.json" || len(r.Outliers.Executions) < r.Outliers.Current {
		t.Errorf("buggy against fixed: %+v", r)
	}
	// The outlier's path file replays to an execution above the threshold.
	if out, errs, st := runRT(t, ctx, "replay", "--path", filepath.Join(dir, "buggy", r.Outliers.Path), "--log", filepath.Join(dir, "outlier.log")); st == cli.ExitError || !strings.Contains(out, "exec time 10.") {
		t.Errorf("replay of the outlier: status %d\n%s%s", st, out, errs)
	}
	out, errs, st = runRT(t, ctx, "regress", "--baseline", filepath.Join(dir, "base"), "--seed", "8", "--out", filepath.Join(dir, "fixed"), "--progress", "never")
	if st != cli.ExitOK {
		t.Errorf("fixed against fixed, another seed: status %d, want 0\n%s%s", st, out, errs)
	}
}

// A baseline whose configuration hash the current code no longer gives
// (a bumped scenario revision, say) is compared anyway — the change is
// what is under test — with a warning and config_changed in regress.json.
func TestRegressChangedScenarioWarns(t *testing.T) {
	dir := t.TempDir()
	pingpongBaseline(t, dir, 7)
	b, err := os.ReadFile(filepath.Join(dir, "base", "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`"config_hash": "([0-9a-f]+)"`).FindSubmatch(b)
	if old == nil {
		t.Fatal("no config_hash in profile.json")
	}
	b = bytes.ReplaceAll(b, old[1], []byte("123abc"))
	if err := os.WriteFile(filepath.Join(dir, "old.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, st := run(t, dir, "regress", "--baseline", "$DIR/old.json", "--out", "$DIR/cur", "--progress", "never")
	if st != cli.ExitOK || !strings.Contains(errs, "warning: the configuration of pingpong default changed since the baseline (config hash 123abc, now "+string(old[1])+")") {
		t.Errorf("status %d\n%s%s", st, out, errs)
	}
	var rf struct {
		ConfigChanged bool `json:"config_changed"`
	}
	c, _ := os.ReadFile(filepath.Join(dir, "cur", "regress.json"))
	if json.Unmarshal(c, &rf) != nil || !rf.ConfigChanged {
		t.Errorf("regress.json: config_changed not set")
	}
}

// heavyTailSystem is RandTree with a variant whose recovery timer fires
// every 40 s instead of 10 s: the executions that the join race slows
// down are as many as in the buggy variant, but four times longer.
func heavyTailSystem() timedsim.System {
	sys := randtree.System()
	sys.Name = "randtree-slow-recovery"
	sys.Variants = append(sys.Variants, timedsim.Variant{Name: "slow-recovery", Doc: "buggy, with a 40 s recovery timer"})
	sys.Build = func(variant string, nodes int) (*timedsim.Scenario, error) {
		if variant != "slow-recovery" {
			return randtree.Build(variant, nodes)
		}
		w := randtree.DefaultWorkload(nodes)
		w.Config.RecoveryPeriod = 4 * randtree.DefaultRecoveryPeriod
		return randtree.NewScenario(w)
	}
	return sys
}

// The heavy tail, where the baseline already has slow
// executions: RandTree buggy as the baseline, and a change that makes its
// recovery four times slower. About as many executions as before end
// above the baseline's threshold (Fisher's test sees nothing, and the
// quartiles do not move), but each one is 40 s instead of 10 s: the tail
// test's excess over the threshold fails the gate (exit 1). The rule that
// counted executions above the threshold passed it.
func TestRegressHeavierTailIsARegression(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	sys := heavyTailSystem()
	rt := func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		st := cli.Run(ctx, args, &o, &e, sys)
		return o.String(), e.String(), st
	}
	if out, errs, st := rt("profile", "--system", sys.Name, "--variant", "buggy", "--seed", "7", "--profile-runs", "200", "--out", filepath.Join(dir, "base"), "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	out, errs, st := rt("regress", "--baseline", filepath.Join(dir, "base"), "--variant", "slow-recovery", "--seed", "8", "--out", filepath.Join(dir, "cur"), "--progress", "never")
	r := readRegress(t, filepath.Join(dir, "cur"))
	// The slow-rate test allows the baseline's own 8% (16 of 200) and sees
	// nothing: the excess is what tells.
	if st != cli.ExitFinding || !r.Regression || len(r.Tests) != 3 || r.Tests[0].Name != "shift" || r.Tests[0].Rejected || r.Tests[1].Name != "tail" || !r.Tests[1].Rejected ||
		r.Tests[2].Name != "slow-rate" || r.Tests[2].Rejected {
		t.Fatalf("slow recovery against buggy: status %d, tests %+v\n%s%s", st, r.Tests, out, errs)
	}
	o := r.Outliers
	t.Logf("baseline %d, current %d above the threshold, Fisher p %.3g; excess %.3gs vs %.3gs, p %.3g; Mann-Whitney p %.3g", o.Base, o.Current, o.P, float64(o.CurrentExcessNS)/1e9, float64(o.BaseExcessNS)/1e9, o.ExcessP, r.MannWhitney.P)
	if o.Base < 5 || o.P < 0.05 || o.ExcessP >= 0.005 || o.CurrentExcessNS < 3*o.BaseExcessNS || len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "per execution spent above it") ||
		!strings.Contains(out, "tail test (more or longer executions above the threshold; min-P of Fisher") {
		t.Errorf("slow recovery against buggy: the count should not tell, the excess should: %+v, reasons %q\n%s", o, r.Reasons, out)
	}
}

// The issue's own case: RandTree buggy against a fixed baseline, 50
// executions each with the seed distributions (baseline seed 1, current
// seed 3): 6 current executions, 12%, are about 20 times slower, none of
// the baseline's. No exact two-sample test can reach p < C(50,6)/C(100,6)
// = 0.0133 here, and the tail test is left out of Holm's family; before
// the slow-rate test the gate passed this (exit 0) with a warning. The
// slow-rate test asks whether more than 1% of the current executions are
// above the baseline's threshold, and 6 of 50 is enough evidence at
// once: exit 1, decided after the first batch.
func TestRegressRareSlowTailIsARegression(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if out, errs, st := runRT(t, ctx, "profile", "--variant", "fixed", "--seed", "1", "--out", filepath.Join(dir, "base"), "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	out, errs, st := runRT(t, ctx, "regress", "--baseline", filepath.Join(dir, "base"), "--variant", "buggy", "--seed", "3", "--out", filepath.Join(dir, "cur"), "--progress", "never")
	r := readRegress(t, filepath.Join(dir, "cur"))
	if st != cli.ExitFinding || !r.Regression || r.Outliers.Current != 6 || r.Outliers.Base != 0 || len(r.Tests) != 3 {
		t.Fatalf("status %d, %+v\n%s%s", st, r, out, errs)
	}
	tail, rate := r.Tests[1], r.Tests[2]
	if tail.Name != "tail" || math.Abs(tail.Attainable-0.0133305) > 1e-6 || !tail.Excluded || tail.Rejected {
		t.Errorf("tail test %+v: want it left out (it cannot go below C(50,6)/C(100,6) = 0.0133)", tail)
	}
	if tail.P < tail.Attainable {
		t.Errorf("tail test p %.4g below its smallest attainable p %.4g", tail.P, tail.Attainable)
	}
	if rate.Name != "slow-rate" || !rate.Rejected || len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "6 of 50 current executions (12%) above the baseline's threshold") ||
		!strings.Contains(r.Reasons[0], "more than the allowed 1% (the tolerated rate)") || !strings.Contains(out, "REGRESSION: 6 of 50 current executions") {
		t.Errorf("slow-rate test %+v, reasons %q\n%s", rate, r.Reasons, out)
	}
}

// The gate's verdict is one: the exit status, stdout's verdict line,
// regress.json, the plot's title, the report's banner and the plot's
// caption agree, on a regression (RandTree buggy against a fixed
// baseline) and on a pass (the fixed variant with another seed).
func TestRegressVerdictAgreesEverywhere(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if out, errs, st := runRT(t, ctx, "profile", "--variant", "fixed", "--seed", "1", "--out", filepath.Join(dir, "base"), "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	for _, c := range []struct {
		variant, seed string
		status        int
		line, title   string
		banner, cap   string
		decision      string
	}{
		{"buggy", "3", cli.ExitFinding, "\nREGRESSION: ", ": REGRESSION (", `<div class="verdict finding">Regression against the baseline`, "A regression: ", "regression"},
		{"fixed", "2", cli.ExitOK, "\nno regression\n", ": no regression (", `<div class="verdict clean">No regression against the baseline`, "No regression: no test found one, and fewer than 2% of the current executions are slow", "pass"},
	} {
		out := filepath.Join(dir, c.variant)
		stdout, errs, st := runRT(t, ctx, "regress", "--baseline", filepath.Join(dir, "base"), "--variant", c.variant, "--seed", c.seed, "--out", out, "--progress", "never")
		if st != c.status || !strings.Contains(stdout, c.line) {
			t.Errorf("%s: status %d (want %d), stdout lacks %q\n%s%s", c.variant, st, c.status, c.line, stdout, errs)
		}
		var rf struct {
			Regression bool `json:"regression"`
			SlowRate   struct {
				Decision string `json:"decision"`
				Runs     int    `json:"runs"`
			} `json:"slow_rate"`
		}
		b, err := os.ReadFile(filepath.Join(out, "regress.json"))
		if err != nil || json.Unmarshal(b, &rf) != nil {
			t.Fatalf("%s: regress.json: %v", c.variant, err)
		}
		if rf.Regression != (c.status == cli.ExitFinding) || rf.SlowRate.Decision != c.decision {
			t.Errorf("%s: regress.json regression %v, decision %q, want %q", c.variant, rf.Regression, rf.SlowRate.Decision, c.decision)
		}
		if want := fmt.Sprintf("verdict after %d current executions", rf.SlowRate.Runs); !strings.Contains(stdout, want) {
			t.Errorf("%s: stdout lacks %q", c.variant, want)
		}
		svg, err := os.ReadFile(filepath.Join(out, "regress.svg"))
		if err != nil || !bytes.Contains(svg, []byte(c.title)) {
			t.Errorf("%s: regress.svg's title lacks %q (%v)", c.variant, c.title, err)
		}
		html, err := os.ReadFile(filepath.Join(out, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		h := strings.ReplaceAll(string(html), "&#39;", "'")
		caption := regexp.MustCompile(`<figcaption>Drawn by macepc regress[^<]*</figcaption>`).FindString(h)
		if !strings.Contains(h, c.banner) || !strings.Contains(caption, c.cap) {
			t.Errorf("%s: report.html's banner or the plot's caption disagree with exit %d: caption %q", c.variant, st, caption)
		}
	}
}

// regress writes both sides' execution times in the Go benchmark format;
// benchstat's own parser reads them: one result per execution, the
// baseline's the profile's times, the current side's every batch's, in
// one configuration (system, nodes) so that benchstat pairs them.
func TestRegressWritesBenchstatFiles(t *testing.T) {
	dir := t.TempDir()
	pingpongBaseline(t, dir, 7)
	if out, errs, st := run(t, dir, "regress", "--baseline", "$DIR/base", "--seed", "8", "--out", "$DIR/cur", "--progress", "never"); st != cli.ExitOK {
		t.Fatalf("regress: %d\n%s%s", st, out, errs)
	}
	read := func(name string) (vals []float64, cfg map[string]string) {
		f, err := os.Open(filepath.Join(dir, "cur", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg = map[string]string{}
		r := benchfmt.NewReader(f, name)
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				if string(rec.Name.Full()) != "Execution" || len(rec.Values) != 1 || rec.Values[0].OrigUnit != "ns/exec" || rec.Iters != 1 {
					t.Fatalf("%s: result %s %d %+v", name, rec.Name.Full(), rec.Iters, rec.Values)
				}
				vals = append(vals, rec.Values[0].OrigValue)
				for _, c := range rec.Config {
					cfg[c.Key] = string(c.Value)
				}
			case *benchfmt.SyntaxError:
				t.Fatalf("%s: %v", name, rec)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return vals, cfg
	}
	base, bcfg := read("baseline.bench.txt")
	cur, ccfg := read("current.bench.txt")
	var pf struct {
		Executions []struct {
			ExecTimeNS int64 `json:"exec_time_ns"`
		} `json:"executions"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "base", "profile.json"))
	if err != nil || json.Unmarshal(b, &pf) != nil {
		t.Fatalf("baseline profile.json: %v", err)
	}
	var rf struct {
		SlowRate struct {
			Runs int `json:"runs"`
		} `json:"slow_rate"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "cur", "regress.json"))
	if err != nil || json.Unmarshal(b, &rf) != nil {
		t.Fatalf("regress.json: %v", err)
	}
	if len(base) != len(pf.Executions) || base[0] != float64(pf.Executions[0].ExecTimeNS) || len(cur) != rf.SlowRate.Runs || len(cur) <= len(base) {
		t.Errorf("%d baseline results for %d executions (first %v, want %d); %d current for %d runs", len(base), len(pf.Executions), base[0], pf.Executions[0].ExecTimeNS, len(cur), rf.SlowRate.Runs)
	}
	if bcfg["system"] != "pingpong" || bcfg["nodes"] != "4" || fmt.Sprint(bcfg) != fmt.Sprint(ccfg) {
		t.Errorf("configurations %v and %v: want the same, system pingpong, nodes 4", bcfg, ccfg)
	}
}

package macepctest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/macepc/macepc/macepctest"
	"github.com/macepc/macepc/systems/randtree"
)

const (
	baselineFile = "testdata/randtree-fixed.baseline.json"
	eddFile      = "testdata/edd.json"
)

// randtreeFixed is the configuration of the committed baseline.
func randtreeFixed() macepctest.Config {
	return macepctest.Config{System: randtree.System(), Variant: "fixed", Runs: 50, Seed: 1, EDD: eddFile, Baseline: baselineFile}
}

// The gate on a bundled system: RandTree fixed against its committed
// baseline. It fails when a change to RandTree (or to the simulator)
// makes the join slower; after an intended change, rewrite the baseline
// with go test ./macepctest -run TestRandTreeFixedPerformance
// -macepctest.update.
func TestRandTreeFixedPerformance(t *testing.T) {
	macepctest.Profile(t, randtreeFixed())
}

// recorder is a testing.TB that records failures instead of failing, to
// test what Profile does to a test.
type recorder struct {
	testing.TB
	failed, fatal bool
	msgs          []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(f string, args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) {
	r.Errorf(f, args...)
	r.fatal = true
	runtime.Goexit()
}

// profile runs Profile with a recorder in its own goroutine (Fatalf ends
// it).
func profile(t *testing.T, cfg macepctest.Config) (*recorder, *macepctest.Result) {
	rec := &recorder{TB: t}
	var res *macepctest.Result
	done := make(chan struct{})
	go func() {
		defer close(done)
		res = macepctest.Profile(rec, cfg)
	}()
	<-done
	return rec, res
}

// A what-if that makes RandTree's Join handler twice as slow fails the
// test as a regression (Q3 about +9%, the tolerance is 5%), with the
// reason in the message; with a 20% tolerance it passes.
func TestSlowerJoinFailsTheTest(t *testing.T) {
	cfg := randtreeFixed()
	cfg.Scale = []string{"deliver Join=2"}
	rec, r := profile(t, cfg)
	if !rec.failed || rec.fatal || r == nil || !r.Regression {
		t.Fatalf("deliver Join=2: failed %v fatal %v result %+v messages %q", rec.failed, rec.fatal, r, rec.msgs)
	}
	if msg := strings.Join(rec.msgs, "\n"); !strings.Contains(msg, "performance regression of randtree fixed") || !strings.Contains(msg, "the tolerated +5.0%: shift test") {
		t.Errorf("message: %s", msg)
	}
	// Without Config.Out the results went to the test's temporary
	// directory; a failure keeps them where they outlive the test, and
	// names that place (before, it named a directory it then deleted).
	kept := r.Dir
	t.Cleanup(func() { os.RemoveAll(kept) })
	if msg := strings.Join(rec.msgs, "\n"); !strings.Contains(msg, "results in "+r.Dir+" ") {
		t.Errorf("the message does not name the kept results %s: %s", r.Dir, msg)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "regress.json")); err != nil || strings.HasPrefix(r.Dir, filepath.Dir(t.TempDir())) {
		t.Errorf("results not kept out of the test's temporary directories: %s: %v", r.Dir, err)
	}
	cfg.MaxSlowdown = 0.2
	if rec, _ := profile(t, cfg); rec.failed {
		t.Errorf("20%% tolerated: %q", rec.msgs)
	}
	// Three times as slow: more executions above the baseline's
	// threshold than the tolerated 1%, a regression by the slow-rate test
	// even with a 100% tolerance of the quartiles, with the first one's
	// path file.
	cfg.Scale, cfg.MaxSlowdown, cfg.Out = []string{"deliver Join=3"}, 1, t.TempDir()
	rec, r = profile(t, cfg)
	msg := strings.Join(rec.msgs, "\n")
	if !rec.failed || r == nil || !r.Regression || len(r.Anomalies) == 0 || r.SlowRate == nil || r.SlowRate.Decision != "regression" ||
		!strings.Contains(msg, "slow-rate test p = ") || !strings.Contains(msg, fmt.Sprintf("the first current execution above the baseline's threshold is execution %d", r.Anomalies[0].Index)) {
		t.Errorf("deliver Join=3: %q %+v", rec.msgs, r)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "regress-outlier.path.json")); err != nil {
		t.Errorf("no path file of the anomaly: %v", err)
	}
	// Every current execution above the threshold, by the profile's file.
	var pf struct {
		Executions []struct {
			ExecTimeNS int64 `json:"exec_time_ns"`
		} `json:"executions"`
	}
	b, err := os.ReadFile(filepath.Join(cfg.Out, "profile.json"))
	if err != nil || json.Unmarshal(b, &pf) != nil {
		t.Fatalf("current profile.json: %v", err)
	}
	// The profile holds the first batch; the anomalies list the slow
	// executions of every batch, in index order.
	above, listed := 0, 0
	for _, e := range pf.Executions {
		if e.ExecTimeNS > r.ThresholdNS {
			above++
		}
	}
	for _, a := range r.Anomalies {
		if a.Index < len(pf.Executions) {
			listed++
		}
	}
	if above != listed || len(r.Anomalies) != r.SlowRate.Slow {
		t.Errorf("%d anomalies reported (%d in the profile's %d executions, %d above %d ns there), %d slow in all", len(r.Anomalies), listed, len(pf.Executions), above, r.ThresholdNS, r.SlowRate.Slow)
	}
}

// A baseline of another configuration, or none, stops the test with a
// message that says how to rewrite it.
func TestStaleOrMissingBaselineIsFatal(t *testing.T) {
	for name, change := range map[string]func(*macepctest.Config){
		"variant": func(c *macepctest.Config) { c.Variant = "buggy" },
		"seed":    func(c *macepctest.Config) { c.Seed = 2 },
		"runs":    func(c *macepctest.Config) { c.Runs = 20 },
		"nodes":   func(c *macepctest.Config) { c.Nodes = 8 },
		"edd": func(c *macepctest.Config) {
			c.EDD = ""
			c.Scale = nil
			c.System = randtree.System()
			c.EDD = writeScaledEDD(t)
		},
		"missing":  func(c *macepctest.Config) { c.Baseline = filepath.Join(t.TempDir(), "nosuch.json") },
		"not-json": func(c *macepctest.Config) { c.Baseline = eddFile },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := randtreeFixed()
			change(&cfg)
			rec, _ := profile(t, cfg)
			msg := strings.Join(rec.msgs, "\n")
			if !rec.fatal || !strings.HasPrefix(msg, "macepctest: ") {
				t.Fatalf("want a fatal macepctest error, got fatal %v: %q", rec.fatal, msg)
			}
			want := map[string]string{"missing": "create it with go test -run '^TestStaleOrMissingBaselineIsFatal$/^missing$' -macepctest.update", "not-json": "is not a baseline", "nodes": "not 8", "edd": "other event duration distributions"}[name]
			if want == "" {
				// The command names this test (before, it said '^TestName$'),
				// and says what rewriting does.
				want = "rewrite the baseline with go test -run '^TestStaleOrMissingBaselineIsFatal$/^" + name + "$' -macepctest.update (it replaces the baseline with this run's profile"
			}
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		})
	}
}

// writeScaledEDD writes the seed distributions with a what-if factor: an
// EDD other than the baseline's.
func writeScaledEDD(t *testing.T) string {
	b, err := os.ReadFile(eddFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "edd.json")
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"scale": {}`, `"scale": {"deliver Join": 2}`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Update writes a baseline that the next run compares equal to; without
// a baseline, an anomalous execution (RandTree buggy's join race, seed 5,
// 40 runs: one 10 s execution) fails the test and gets a path file.
func TestUpdateThenCompareAndAnomaly(t *testing.T) {
	dir := t.TempDir()
	cfg := randtreeFixed()
	cfg.Runs, cfg.Baseline, cfg.Update = 20, filepath.Join(dir, "b.json"), true
	if rec, r := profile(t, cfg); rec.failed || !r.Updated {
		t.Fatalf("update: %q %+v", rec.msgs, r)
	}
	cfg.Update = false
	if rec, r := profile(t, cfg); rec.failed || r.MedianRatio != 1 {
		t.Fatalf("against the fresh baseline: %q %+v", rec.msgs, r)
	}

	bug := macepctest.Config{System: randtree.System(), Variant: "buggy", Runs: 40, Seed: 5, Out: filepath.Join(dir, "bug")}
	r, err := macepctest.Run(context.Background(), bug)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Anomalies) == 0 {
		t.Fatalf("no anomaly in RandTree buggy seed 5: %+v", r)
	}
	rec, _ := profile(t, bug)
	if !rec.failed || !strings.Contains(strings.Join(rec.msgs, "\n"), "are anomalous") {
		t.Errorf("anomaly: %q", rec.msgs)
	}
	if _, err := os.Stat(filepath.Join(dir, "bug", "regress-outlier.path.json")); err != nil {
		t.Errorf("no path file of the anomaly: %v", err)
	}
}

package pipeline_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// The MacePC pipeline on RandTree's join race (paper 004, Figure 1), with
// the committed event durations so that the answer repeats exactly: the
// search finds executions that wait for the 10 s recovery timer, the
// divergence search finds the step after which no walk recovers, and the
// correlation names the race's events.
func Example() {
	out, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)

	set, err := pipeline.ReadEDD("../systems/randtree/testdata/edd.json")
	if err != nil {
		log.Fatal(err)
	}
	target, err := pipeline.ResolveTarget(randtree.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := pipeline.OpenDir(out)
	if err != nil {
		log.Fatal(err)
	}
	cfg := pipeline.DefaultConfig(dir, target)
	cfg.TrainRuns, cfg.EDDSource = 0, "--edd systems/randtree/testdata/edd.json" // no training: the committed EDD
	res, err := pipeline.Run(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}

	ns := func(v int64) string { return timedsim.FormatTime(time.Duration(v)) }
	fmt.Printf("normal: median %s, anomalous above %s\n", ns(res.Profile.MedianNS), ns(res.Profile.Threshold))
	an := res.Search.Anomaly
	fmt.Printf("found %v: execution %d of the search, %s in %d steps\n", res.Found(), an.Index, ns(an.ExecTimeNS), an.Steps)
	dv := res.Divergence
	fmt.Printf("divergence: step %d of %d (%s on %s); similar fast execution %s\n", dv.Step, dv.TotalSteps, dv.Event.Label, dv.Event.Node, ns(dv.Similar.ExecTimeNS))
	fmt.Printf("top correlation: %s\n", res.Summary.Correlations[0].Label)
	// Output:
	// normal: median 497.501347 ms, anomalous above 746.252021 ms
	// found true: execution 241 of the search, 10.004987815 s in 205 steps
	// divergence: step 66 of 205 (timer start on n7); similar fast execution 505.489238 ms
	// top correlation: deliver JoinReply → Remove
}

// The phases one at a time, as `macepc profile`, `search` and `diverge`
// run them: each later phase takes its configuration from the directory's
// profile.json (SearchConfig.Target and DivergeConfig.Target are nil),
// and the divergence is read back from the directory. The answer is
// Run's.
func ExampleDiverge() {
	out, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	set, err := pipeline.ReadEDD("../systems/randtree/testdata/edd.json")
	if err != nil {
		log.Fatal(err)
	}
	target, err := pipeline.ResolveTarget(randtree.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := pipeline.OpenDir(out)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	env := pipeline.Env{Dir: dir, Systems: timedsim.Registry{randtree.System()}}
	def := pipeline.DefaultConfig(dir, target) // the command line's settings
	pf, err := pipeline.Profile(ctx, pipeline.ProfileConfig{Env: env, Target: target, Seed: def.Seed, Runs: def.ProfileRuns, Thresholds: def.Thresholds})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := pipeline.Search(ctx, pipeline.SearchConfig{Env: env, Profile: pf, MaxRuns: def.MaxRuns, TriageRuns: def.TriageRuns}); err != nil {
		log.Fatal(err)
	}
	if _, err := pipeline.Diverge(ctx, pipeline.DivergeConfig{Env: env, Profile: pf, Walks: def.Walks, Confirm: def.Confirm}); err != nil {
		log.Fatal(err)
	}

	df, err := dir.LoadDivergence(pf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("class %d, execution %d: divergence at %s\n", df.Anomaly.Class, df.Anomaly.Index, df.Event.Describe())
	fmt.Printf("%.1f%% of the steps can be ignored; %d walk executions\n", 100*df.IgnorableFraction, df.Executions)
	fmt.Printf("a walk recovers if it %s\n", df.Criterion.Describe())
	// Output:
	// class 1, execution 241: divergence at step 66: timer start on n7 at 10.63 ms
	// 32.2% of the steps can be ignored; 621 walk executions
	// a walk recovers if it finishes within the anomaly threshold
}

// MaceMC's liveness search on RandTree's liveness bug: a node whose
// recovery timer fires at the wrong moment makes itself a second root,
// and the tree never becomes one again. The search finds the violation
// and its critical transition.
func ExampleLiveness() {
	out, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	dir, err := pipeline.OpenDir(out)
	if err != nil {
		log.Fatal(err)
	}
	sys := randtree.System()
	sc, err := sys.Scenario("liveness-bug", 3)
	if err != nil {
		log.Fatal(err)
	}
	res, err := pipeline.Liveness(context.Background(), pipeline.LivenessConfig{Dir: dir, System: sys, Variant: "liveness-bug",
		Search: liveness.Config{Scenario: sc, Seed: 1}})
	if err != nil {
		log.Fatal(err)
	}
	rep := res.Report()
	v, c := rep.Violation, rep.Critical
	fmt.Printf("%s violation of %s at step %d\n", v.Kind, v.Property, v.Step)
	fmt.Printf("critical transition (%s) at step %d: %s\n", c.Class, c.Step, c.DeadEvent)
	fmt.Println("files:", res.File.Files)
	// Output:
	// liveness violation of one-root at step 1000
	// critical transition (C1) at step 12: n1 timer recovery
	// files: [dead.path.json dead.log live.path.json live.log state.diff]
}

// The regression test of a CI gate: a baseline profiled once (here with
// the seed distributions, uniform 1–10 ms per handler), then the current
// code profiled as the baseline was and compared with it. Unchanged code
// compares equal; a Join handler twice as slow (a what-if) is a
// regression.
func ExampleStartRegress() {
	out, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	ctx := context.Background()
	systems := timedsim.Registry{randtree.System()}
	target, err := pipeline.ResolveTarget(randtree.System(), "fixed", 0, nil, timedsim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	base, err := pipeline.OpenDir(filepath.Join(out, "base"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := pipeline.Profile(ctx, pipeline.ProfileConfig{Env: pipeline.Env{Dir: base}, Target: target, Seed: 1, Runs: 50, Thresholds: pipeline.DefaultThresholds()}); err != nil {
		log.Fatal(err)
	}

	for _, scale := range [][]string{nil, {"deliver Join=2"}} {
		r, err := pipeline.StartRegress(pipeline.RegressConfig{Env: pipeline.Env{Dir: pipeline.NewDir(filepath.Join(out, "current")), Systems: systems},
			Baseline: base.Path(), Scale: scale, Compare: anomaly.DefaultCompareConfig()})
		if err != nil {
			log.Fatal(err)
		}
		res, err := r.Run(ctx)
		if err != nil {
			log.Fatal(err)
		}
		rf := res.Regress
		fmt.Printf("scale %v: median %+.1f%%, Q3 %+.1f%%, regression %v\n", scale, 100*(rf.MedianRatio.Estimate-1), 100*(rf.Q3Ratio.Estimate-1), rf.Regression)
	}
	// Output:
	// scale []: median +0.0%, Q3 +0.0%, regression false
	// scale [deliver Join=2]: median +7.1%, Q3 +9.5%, regression true
}

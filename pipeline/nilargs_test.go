package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// The exported entry points return an error for a nil
// or zero argument instead of panicking (Run's panic was in a worker
// goroutine, out of the caller's reach).
func TestNilArgumentsAreErrors(t *testing.T) {
	target := randtreeTarget(t, "buggy")
	var nilDir *pipeline.Dir
	var nilCtx context.Context
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"Run(nil ctx)", func() error {
			cfg := pipeline.DefaultConfig(openDir(t), target)
			_, err := pipeline.Run(nilCtx, cfg)
			return err
		}, "nil context"},
		{"Simulate(nil ctx)", func() error {
			_, err := pipeline.Simulate(nilCtx, pipeline.SimulateConfig{Env: pipeline.Env{Dir: openDir(t)}, Target: target, Runs: 1})
			return err
		}, "nil context"},
		{"Replay(nil ctx)", func() error {
			_, err := pipeline.Replay(nilCtx, nil, nil, -1, 0)
			return err
		}, "nil context"},
		{"Replay(nil path file)", func() error {
			_, err := pipeline.Replay(ctx, timedsim.Registry{randtree.System()}, nil, -1, 0)
			return err
		}, "no path file"},
		{"TargetFromPathFile(nil, nil)", func() error {
			_, err := pipeline.TargetFromPathFile(nil, nil)
			return err
		}, "no path file"},
		{"NewTarget(nil scenario)", func() error {
			_, err := pipeline.NewTarget(target.System, target.Variant, nil, target.Options)
			return err
		}, "no scenario"},
		{"NewTarget(invalid scenario)", func() error {
			sc := *target.Scenario
			sc.Nodes = 0
			_, err := pipeline.NewTarget(target.System, target.Variant, &sc, target.Options)
			return err
		}, "timedsim:"},
		{"ApplyScale(nil set)", func() error { return pipeline.ApplyScale(nil, []string{"*=2"}) }, "nil *edd.Set"},
		{"nil Dir Lock", func() error { _, err := nilDir.Lock(); return err }, "nil *Dir"},
		{"nil Dir ClearAfter", func() error { return nilDir.ClearAfter(pipeline.PhaseProfile) }, "nil *Dir"},
		{"nil Dir Check", func() error { return nilDir.Check(nil) }, "nil *Dir"},
		{"nil Dir LoadTraining", func() error { _, err := nilDir.LoadTraining(); return err }, "nil *Dir"},
		{"nil Dir LoadProfile", func() error { _, _, err := nilDir.LoadProfile(nil); return err }, "nil *Dir"},
		{"nil Dir LoadSearch", func() error { _, err := nilDir.LoadSearch(nil); return err }, "nil *Dir"},
		{"nil Dir LoadDivergence", func() error { _, err := nilDir.LoadDivergence(nil); return err }, "nil *Dir"},
		{"nil Dir WriteSummary", func() error { _, err := nilDir.WriteSummary(nil); return err }, "nil *Dir"},
		{"WriteSummary(nil profile)", func() error { _, err := openDir(t).WriteSummary(nil); return err }, "nil *results.Profile"},
		{"LoadSearch(nil profile)", func() error { _, err := openDir(t).LoadSearch(nil); return err }, "nil *results.Profile"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if err == nil || !strings.HasPrefix(err.Error(), "pipeline: ") || strings.Count(err.Error(), "pipeline: ") != 1 || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a pipeline error about %q", err, c.want)
			}
		})
	}
	if f := pipeline.Finding(nil); f != "" {
		t.Errorf("Finding(nil) = %q", f)
	}
	if f := pipeline.Finding(&timedsim.Result{Outcome: timedsim.Panicked}); f != "panicked" {
		t.Errorf("Finding of a Panicked result without its PanicInfo = %q", f)
	}
}

package pipeline

import (
	"context"
	"testing"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// marked reports whether e has a mark of kind at step.
func marked(e *explore.Execution, kind string, step int) bool {
	for _, m := range e.Marks {
		if m.Kind == kind && m.Step == step {
			return true
		}
	}
	return false
}

// The executions of a liveness run as explore shows them: the dead and the
// live path, the critical step marked in both, the violation at the dead
// path's end, and the two paths' first difference at the critical step
// (the live path shares the dead path's first Step steps).
func TestExploreLivenessMarks(t *testing.T) {
	d := NewDir(t.TempDir())
	sys := randtree.System()
	sc, err := sys.Scenario(randtree.VariantLivenessBug, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Liveness(context.Background(), LivenessConfig{Dir: d, System: sys, Variant: randtree.VariantLivenessBug, Search: liveness.Config{Scenario: sc, Seed: 1, Jobs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Report().Critical
	data := &explore.Data{}
	if err := exploreLiveness(timedsim.Registry{sys}, d, data); err != nil {
		t.Fatal(err)
	}
	if len(data.Executions) != 2 || len(data.Pairs) != 1 {
		t.Fatalf("%d executions, %d pairs, want dead and live side by side", len(data.Executions), len(data.Pairs))
	}
	dead, live := data.Executions[0], data.Executions[1]
	if !marked(dead, explore.MarkCritical, c.Step) || !marked(live, explore.MarkCritical, c.Step) {
		t.Errorf("critical step %d not marked: dead %+v, live %+v", c.Step, dead.Marks, live.Marks)
	}
	if !marked(dead, explore.MarkViolation, len(dead.Steps)-1) {
		t.Errorf("the violation is not marked at the dead path's last step: %+v", dead.Marks)
	}
	if got := data.Pairs[0].FirstDiff; got != c.Step {
		t.Errorf("dead and live first differ at step %d, want the critical step %d", got, c.Step)
	}
	if got := dead.Steps[c.Step].Desc; got != c.DeadEvent {
		t.Errorf("the dead path's step %d is %q, the report says %q", c.Step, got, c.DeadEvent)
	}
	if got := live.Steps[c.Step].Desc; got != c.LiveEvent {
		t.Errorf("the live path's step %d is %q, the report says %q", c.Step, got, c.LiveEvent)
	}
}

// The executions of a pipeline run: the anomalous one with the divergence
// point marked, the similar fast one with its branch point, both as long
// as divergence.json says, and identical before the branch point.
func TestExploreTimedMarks(t *testing.T) {
	set, err := ReadEDD("../systems/randtree/testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	target, err := ResolveTarget(randtree.System(), randtree.VariantBuggy, 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(d, target)
	cfg.TrainRuns, cfg.Jobs = 0, 2
	res, err := Run(context.Background(), cfg)
	if err != nil || !res.Found() {
		t.Fatalf("run: found %v, %v", res.Found(), err)
	}
	df := res.Divergence
	data := &explore.Data{}
	if err := exploreTimed(context.Background(), timedsim.Registry{target.System}, d, data); err != nil {
		t.Fatal(err)
	}
	if len(data.Executions) != 2 || len(data.Pairs) != 1 {
		t.Fatalf("%d executions, %d pairs, want anomalous and similar side by side", len(data.Executions), len(data.Pairs))
	}
	a, s := data.Executions[0], data.Executions[1]
	if !marked(a, explore.MarkDivergence, df.Step) || !marked(s, explore.MarkDivergence, df.Similar.Prefix) {
		t.Errorf("divergence step %d, similar prefix %d: marks %+v and %+v", df.Step, df.Similar.Prefix, a.Marks, s.Marks)
	}
	if len(a.Steps) != df.TotalSteps || len(s.Steps) != df.Similar.Steps {
		t.Errorf("%d and %d steps, divergence.json says %d and %d", len(a.Steps), len(s.Steps), df.TotalSteps, df.Similar.Steps)
	}
	if got := data.Pairs[0].FirstDiff; got < df.Similar.Prefix {
		t.Errorf("the executions differ at step %d, before the similar one branches off at %d", got, df.Similar.Prefix)
	}
	if e := df.Event; e == nil || a.Steps[df.Step].Label != e.Label || a.Steps[df.Step].Start.Nanoseconds() != e.StartNS {
		t.Errorf("step %d is %+v, divergence.json's event %+v", df.Step, a.Steps[df.Step], e)
	}
}

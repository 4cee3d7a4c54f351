package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// stuck: every node ticks every 10 ms; a tick hangs (loops, calling the
// simulator) with probability 1/15.
type stuck struct{}

func (stuck) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", 10*time.Millisecond, nil) }
func (stuck) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (stuck) Timer(ctx timedsim.Context, _ string, _ any) {
	if ctx.Rand().IntN(15) == 0 {
		for {
			ctx.Now()
		}
	}
	ctx.SetTimer("tick", 10*time.Millisecond, nil)
}

func stuckSystem() timedsim.System {
	return timedsim.System{
		Name: "stuck", Doc: "test system whose handler sometimes never returns",
		Variants: []timedsim.Variant{{Name: "v"}}, DefaultNodes: 2,
		Build: func(string, int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return stuck{} },
				Stop: func(w timedsim.World) bool { return w.Now() > 50*time.Millisecond }, Timeout: time.Second, Network: netmodel.DefaultConfig()}, nil
		},
	}
}

// A handler that never returns is a finding with a path file, like a
// panic, and the run goes on; the path hangs again at the same step.
func TestHungHandlerIsAFindingWithAPathFile(t *testing.T) {
	target, err := pipeline.ResolveTarget(stuckSystem(), "v", 0, nil, timedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := pipeline.Env{Dir: openDir(t), HandlerTimeout: 20 * time.Millisecond, Jobs: 2}
	res, err := pipeline.Simulate(context.Background(), pipeline.SimulateConfig{Env: env, Target: target, Seed: 1, Runs: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || len(res.Lines) != 30 {
		t.Fatalf("%d findings in %d executions", len(res.Findings), len(res.Lines))
	}
	f := res.Findings[0]
	if f.Outcome != timedsim.Hung || !strings.Contains(f.Finding, "handler hung at step") || !strings.Contains(f.Finding, `"timer tick"`) {
		t.Fatalf("finding %+v", f)
	}
	pf, err := pipeline.ReadPathFile(env.Dir.File(results.FindingPath(f.Index)))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := timedsim.NewSimulator(target.Scenario, timedsim.Options{HandlerTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r := sim.Run(pf.Path()); r.Outcome != timedsim.Hung || r.Steps != f.Steps {
		t.Fatalf("replay: %v at step %d, the finding at %d", r.Outcome, r.Steps, f.Steps)
	}
}

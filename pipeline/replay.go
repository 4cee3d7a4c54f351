package pipeline

import (
	"context"
	"errors"

	"github.com/macepc/macepc/timedsim"
)

// ReplayResult is one execution replayed with its event log.
type ReplayResult struct {
	// Target is the path file's configuration (without the event log).
	Target *Target
	// Path is the path replayed (branched, if asked).
	Path   timedsim.Path
	Result *timedsim.Result
	// Header is the event log's header (timedsim.WriteEventLog).
	Header timedsim.LogHeader
}

// Replay re-runs the execution of path file pf with the event log on,
// resolving its system from systems and refusing a stale file. With
// branchAt >= 0 it replays the first branchAt steps and continues with
// branchSeed; a branchAt at or past the path's last step is an error.
func Replay(ctx context.Context, systems timedsim.Registry, pf *timedsim.PathFile, branchAt int, branchSeed uint64) (r *ReplayResult, err error) {
	defer wrapErr(&err)
	return replay(ctx, systems, pf, branchAt, branchSeed, false)
}

// replay is Replay; states also records each event's node state
// (timedsim.Options.RecordStates).
func replay(ctx context.Context, systems timedsim.Registry, pf *timedsim.PathFile, branchAt int, branchSeed uint64, states bool) (*ReplayResult, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if pf == nil {
		return nil, errors.New("no path file (nil *timedsim.PathFile)")
	}
	sys, sc, err := pathScenario(systems, pf.System, pf.Variant, pf.Nodes, pf.Params)
	if err != nil {
		return nil, err
	}
	opts, err := pf.Options()
	if err != nil {
		return nil, err
	}
	if err := pf.Check(sc, opts); err != nil {
		return nil, err
	}
	p := pf.Path()
	if branchAt >= 0 {
		p = p.Branch(branchAt, branchSeed)
	}
	rec := opts
	rec.Record, rec.RecordStates = true, states
	rec.HandlerTimeout = timedsim.DefaultHandlerTimeout // a hung handler's replay ends too
	sim, err := timedsim.NewSimulator(sc, rec)
	if err != nil {
		return nil, err
	}
	res := sim.RunContext(ctx, p)
	if res.Outcome == timedsim.Interrupted {
		return nil, interruption(ctx, "replay interrupted at step %d; nothing written", res.Steps)
	}
	if branchAt >= 0 && res.Steps <= branchAt {
		// The steps before branchAt are the path's own, so the path itself
		// ends there: a branch past its end would silently be a plain
		// replay.
		return nil, fieldErr("Replay.branchAt", "%d is past the end of the path, which has %d steps: branch at a step from 0 to %d", branchAt, res.Steps, res.Steps-1)
	}
	return &ReplayResult{Target: &Target{System: sys, Variant: pf.Variant, Scenario: sc, Options: opts, Hash: pf.ConfigHash}, Path: p, Result: res,
		Header: timedsim.LogHeader{System: pf.System, Variant: pf.Variant, Nodes: pf.Nodes, ConfigHash: pf.ConfigHash, Params: pf.Params, Path: p}}, nil
}

package liveness

import (
	"cmp"
	"context"
	"fmt"
)

// searcher is one search's state.
type searcher struct {
	r       *resolved
	drv     schedule
	base    Path // the replayed prefix, every choice explicit; Steps is its length
	dfs     *world
	workers []*world
	// tick, if set, sees the division's statistics every 256 sequences.
	tick func(Stats)
}

// progress reports the statistics so far to Config.Progress.
func (s *searcher) progress(st Stats) {
	if s.r.Progress != nil {
		s.r.Progress(st)
	}
}

func newSearcher(r *resolved, driver uint64) (*searcher, error) {
	drv, err := driverSchedule(r.Scenario, driver)
	if err != nil {
		return nil, err
	}
	s := &searcher{r: r, drv: drv, dfs: newWorld(r.set, drv)}
	for range r.jobs {
		s.workers = append(s.workers, newWorld(r.set, drv))
	}
	return s, nil
}

// Run searches the scenario for safety and liveness violations: an
// iterative-deepening DFS over the choice sequences from Depth to MaxDepth
// in DepthStep increments, with state hashing, checking safety after every
// step, and from the end of every DFS path not cut as a duplicate a random
// walk up to DMax steps, checking safety and then liveness on every state
// beyond the DFS bound; a walk that never reaches a live state is a dead
// path, a suspected liveness violation, whose critical transition
// FindCritical then isolates (Report.Critical).
//
// The search stops at the first violation in search order (DFS order, the
// periphery walks in the order of their DFS paths). On cancellation of ctx
// it returns the report so far (End "interrupted") with ctx's error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r, s, v, err := start(cfg)
	if r == nil {
		return nil, err
	}
	rep := &Report{Settings: r.settingsReport()}
	if err != nil || v != nil {
		rep.Violation, rep.End = v, "violation"
		return rep, err
	}
	v, st, end, err := s.search(ctx)
	rep.End, rep.Stats, rep.Violation = end, st, v
	if err != nil {
		return rep, err
	}
	return s.finish(ctx, rep)
}

// start resolves cfg and replays its prefix path (if any): a searcher
// ready to search, or the prefix's own violation. r is nil if cfg is bad.
func start(cfg Config) (r *resolved, s *searcher, v *Violation, err error) {
	if r, err = cfg.resolve(); err != nil {
		return nil, nil, nil, err
	}
	p := startPath(r.Seed)
	if r.Prefix != nil {
		p = *r.Prefix
	}
	if s, err = newSearcher(r, p.Driver); err != nil {
		return nil, nil, nil, err
	}
	if r.Prefix == nil && r.LivePrefix > 0 {
		lp, err := s.livePrefix(p)
		if err != nil {
			return nil, nil, nil, err
		}
		r.Prefix, p = &lp, lp
	}
	v, err = s.replayPrefix(p)
	return r, s, v, err
}

// livePrefix is the random walk from p's start up to its first live
// state, within LivePrefix steps.
func (s *searcher) livePrefix(p Path) (Path, error) {
	p.Steps = s.r.LivePrefix
	res := s.dfs.walk(p, walkOptions{liveFrom: 0})
	switch {
	case res.err != nil:
		return p, res.err
	case res.safety != "" || res.panicked != "":
		return p, fmt.Errorf("liveness: the random walk to a live state ends in a violation (%s) after %d steps: search from the start", cmp.Or(res.safety, res.panicked), res.steps)
	case !res.live:
		return p, fmt.Errorf("liveness: a random walk of %d steps reaches no live state: raise the live prefix's steps", s.r.LivePrefix)
	}
	p.Steps = res.liveAt
	return p, nil
}

// finish runs the critical-transition search of a liveness violation.
func (s *searcher) finish(ctx context.Context, rep *Report) (*Report, error) {
	if v := rep.Violation; v != nil && v.Kind == KindLiveness && !s.r.NoCritical {
		c, err := s.critical(ctx, v.Path)
		if err != nil {
			// An interrupted critical search has no class or step: the
			// violation stands, the analysis is incomplete.
			rep.End = "interrupted"
			return rep, err
		}
		rep.Critical = c
	}
	return rep, nil
}

// replayPrefix replays the prefix path p to its end and makes its choices
// explicit: the search's base.
func (s *searcher) replayPrefix(p Path) (*Violation, error) {
	w := s.dfs
	var choices []int
	res := w.walk(p, walkOptions{liveFrom: -1, onChoice: func(c int) { choices = append(choices, c) }})
	if res.err != nil {
		return nil, res.err
	}
	if v := s.violation(res, p, 0); v != nil {
		return v, nil
	}
	s.base = Path{Driver: p.Driver, Choices: choices, Segments: p.Segments, Steps: len(choices)}
	return nil, nil
}

// violation turns a walk result into a violation (nil if none), with its
// path cut at the violating step.
func (s *searcher) violation(res walkResult, p Path, depth int) *Violation {
	v := &Violation{Depth: depth, Path: p}
	switch {
	case res.panicked != "":
		v.Kind, v.Panic, v.Step = KindPanic, res.panicked, res.steps-1
		v.Path.Steps = res.steps
	case res.safety != "":
		v.Kind, v.Property, v.Step = KindSafety, res.safety, res.steps-1
		v.Path.Steps = res.steps
	case res.dead:
		v.Kind, v.Failed, v.Step, v.Quiescent = KindLiveness, res.failed, res.steps, res.quiescent
		if len(res.failed) > 0 {
			v.Property = res.failed[0]
		}
		v.Path.Steps = res.steps
	default:
		return nil
	}
	return v
}

// search is the iterative deepening: every iteration is divided into
// prefix tasks (divide) that the workers search in parallel (runTasks),
// and their results are folded in task order (fold), so the first
// violation in DFS order is the one reported, whatever the number of
// workers.
func (s *searcher) search(ctx context.Context) (*Violation, Stats, string, error) {
	r := s.r
	f := &fold{r: r}
	fps := newFPSet()
	// upto is the search position up to which the fold went: Distinct
	// counts the states first reached before it.
	g0, upto, leaves := 0, uint64(0), 0
	result := func(v *Violation, end string, err error) (*Violation, Stats, string, error) {
		f.stats.Distinct = fps.countBelow(upto)
		return v, f.stats, end, err
	}
	// The division's progress is reported on top of the fold's.
	s.tick = func(div Stats) {
		st := f.stats
		st.add(div)
		s.progress(st)
	}
	for depth := r.Depth; depth <= r.MaxDepth; depth += r.DepthStep {
		tasks, split, err := s.divide(ctx, depth, &leaves)
		if err != nil {
			return result(nil, "interrupted", fmt.Errorf("liveness: search interrupted: %w", err))
		}
		f.begin(depth, split)
		idx := make([]int, len(tasks))
		for i := range idx {
			idx[i] = i
		}
		recs, err := s.runTasks(ctx, tasks, idx, depth, split, func(i int) int { return g0 + i }, fps)
		for i, rec := range recs {
			if rec == nil || !rec.done {
				break
			}
			v, end := f.add(rec)
			s.progress(f.stats)
			upto = fpPos(g0+i+1, 0)
			if v != nil {
				upto = fpPos(g0+i, rec.local)
			}
			if end != "" {
				return result(v, end, nil)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return result(nil, "interrupted", fmt.Errorf("liveness: search interrupted: %w", err))
			}
			return result(nil, "", err)
		}
		g0 += len(tasks)
		if v, end := f.finish(); end != "" {
			return result(v, end, nil)
		}
		if r.DepthStep == 0 {
			break
		}
	}
	return result(nil, "max-depth", nil)
}

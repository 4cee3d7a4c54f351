package liveness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// searcher is one search's state.
type searcher struct {
	r       *resolved
	drv     schedule
	base    Path // the replayed prefix, every choice explicit; Steps is its length
	dfs     *world
	workers []*world
	// lv is the level division so far (Config.LevelDivision).
	lv *lvState
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
	defer func() { rep.Warnings = s.warnings(rep.Warnings) }()
	if err != nil || v != nil {
		rep.Violation, rep.End = v, "violation"
		return rep, err
	}
	v, st, end, err := s.search(ctx)
	rep.End, rep.Stats, rep.Violation = end, st, s.confirm(s.dfs, v)
	if err != nil {
		return rep, err
	}
	return s.finish(ctx, rep)
}

// confirm re-executes the path of violation v on w with every state
// described, as a replay does (walkOptions.describe): the search's random
// walks describe no state, nor does the DFS without state hashing, so a
// Describe that panics on the way may not have been seen. It is the
// violation then, a panic at its own step, to which the path replays. A
// path the DFS hashed all the way comes back as it was.
func (s *searcher) confirm(w *world, v *Violation) *Violation {
	if v == nil {
		return nil
	}
	res := w.walk(v.Path, walkOptions{liveFrom: -1, describe: true})
	if res.err != nil || res.panicked == "" || v.Kind == KindPanic && res.steps >= v.Path.Steps {
		return v
	}
	c := *v
	c.Kind, c.Panic, c.Step, c.Property, c.Failed, c.Quiescent = KindPanic, res.panicked, res.steps-1, "", nil, false
	c.Path.Steps = res.steps
	return &c
}

// warnings adds to have the warnings of the search's worlds about the
// services, and keeps the first in text order (one is enough, and it is
// the same whatever world saw it first): a Describe that is not
// deterministic (world.nondet).
func (s *searcher) warnings(have []string) []string {
	all := slices.Clone(have)
	for _, w := range append([]*world{s.dfs}, s.workers...) {
		if w.nondet != "" {
			all = append(all, w.nondet)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return []string{slices.Min(all)}
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

// MaxRecheck bounds the re-checks of a C2: dmax doubles up to this many
// times its setting before the violation is called inconclusive.
const MaxRecheck = 8

// finish runs the critical-transition search of a liveness violation. A
// C2 is no verdict (MaceMC: "raise dmax"): finish raises it itself,
// doubling dmax up to MaxRecheck times its setting. It continues the dead
// walk to the new bound: a walk that becomes live was slow, not dead, and
// one that does not is searched for its critical transition again, with
// walks of the new length. A C1 found so replaces the violation's path; a
// C2 at the last bound leaves the violation inconclusive
// (Report.Inconclusive). A C1 is checked too: its dead walk, continued to
// the largest bound, must stay dead, or the critical transition was only
// k walks that all missed a rare way to become live.
func (s *searcher) finish(ctx context.Context, rep *Report) (*Report, error) {
	v := rep.Violation
	if v == nil || v.Kind != KindLiveness || s.r.NoCritical {
		return rep, nil
	}
	c, err := s.critical(ctx, v.Path)
	if err != nil {
		// An interrupted critical search has no class or step: the
		// violation stands, the analysis is incomplete.
		rep.End = "interrupted"
		return rep, err
	}
	rep.Critical = c
	base := s.r.DMax
	defer func() { s.r.DMax = base }()
	for dmax := 2 * base; c.Class == C2 && dmax <= MaxRecheck*base; dmax *= 2 {
		ext := v.Path
		ext.Steps = v.Path.Steps - base + dmax // the same walk, dmax steps long
		// Described, as the violation's path was (confirm): it may become
		// the violation's path.
		res := s.dfs.walk(ext, walkOptions{liveFrom: v.Path.Steps, describe: true})
		check := Recheck{DMax: dmax}
		switch {
		case res.err != nil:
			return rep, res.err
		case res.live:
			check.Reason = fmt.Sprintf("the dead walk, continued, reaches a live state at step %d: it was slow, not dead", res.liveAt)
			c.Rechecks = append(c.Rechecks, check)
			c.Reason = fmt.Sprintf("inconclusive: with dmax %d the dead walk becomes live at step %d (it was slow, not dead); the search saw no dead state", dmax, res.liveAt)
			return rep, nil
		case res.safety != "" || res.panicked != "":
			check.Reason = "the dead walk, continued, ends in another violation: " + cmp.Or(res.safety, res.panicked)
			c.Rechecks = append(c.Rechecks, check)
			return rep, nil
		}
		s.r.DMax = dmax
		nc, err := s.critical(ctx, ext)
		if err != nil {
			rep.End = "interrupted"
			return rep, err
		}
		check.Class, check.Reason = nc.Class, nc.Reason
		nc.Rechecks = append(c.Rechecks, check)
		c, rep.Critical = nc, nc
		if nc.Class == C1 {
			v.Path, v.Step = ext, ext.Steps
		}
	}
	if c.Class == C1 {
		// A C1 says the path is dead from its critical step on. The dead
		// walk itself, continued to the largest bound, must stay dead: one
		// that becomes live refutes it (with a low chance of becoming live
		// from any state, k walks at the step after it can all miss).
		ext := v.Path
		ext.Steps = v.Path.Steps - s.r.DMax + MaxRecheck*base
		res := s.dfs.walk(ext, walkOptions{liveFrom: v.Path.Steps})
		if res.err != nil {
			return rep, res.err
		}
		if res.live {
			c.Rechecks = append(c.Rechecks, Recheck{DMax: MaxRecheck * base, Reason: fmt.Sprintf("the dead walk, continued, reaches a live state at step %d: the critical transition at step %d was a run of unlucky walks, the path slow, not dead", res.liveAt, c.Step)})
			c.Class = C2
			c.Reason = fmt.Sprintf("inconclusive: the dead walk becomes live at step %d when continued to %d steps (it was slow, not dead); the walks from step %d that did not were too few or too short: try a larger --dmax or more --walks", res.liveAt, ext.Steps, c.Step+1)
			return rep, nil
		}
	}
	switch {
	case c.Class == C2 && c.Step < 0:
		// Not even a walk from the initial state becomes live, with
		// dmax raised MaxRecheck-fold: the initial state is dead (MaceMC's
		// Chord bug), unless the system needs yet longer to become live.
		c.DeadFromStart = true
		c.Reason = fmt.Sprintf("dead from the start: no random walk of up to %d steps from the initial state reaches a live state (dmax raised to %d); if the system needs longer, raise --dmax", s.r.DMax, s.r.DMax)
	case c.Class == C2:
		c.Reason = fmt.Sprintf("inconclusive after raising dmax to %d: %s; try a larger --dmax, or --unbiased weights", s.r.DMax, c.Reason)
	}
	return rep, nil
}

// replayPrefix replays the prefix path p to its end and makes its choices
// explicit: the search's base.
func (s *searcher) replayPrefix(p Path) (*Violation, error) {
	w := s.dfs
	var choices []int
	res := w.walk(p, walkOptions{liveFrom: -1, describe: true, onChoice: func(c int) { choices = append(choices, c) }})
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
	lvBytes := func() int64 {
		if s.lv == nil {
			return 0
		}
		return s.lv.bytes()
	}
	for depth := r.Depth; depth <= r.MaxDepth; depth += r.DepthStep {
		src, split, err := s.divide(ctx, depth, &leaves, fps.bytes())
		if _, ok := err.(*errMemory); ok {
			f.stats.Depth = depth
			return result(nil, EndMemory, nil)
		}
		if err != nil {
			return result(nil, "interrupted", fmt.Errorf("liveness: search interrupted: %w", err))
		}
		f.begin(depth, split)
		off := 0
		for {
			tasks, err := src.next(r.chunkSize())
			if err != nil {
				return result(nil, "", err)
			}
			if len(tasks) == 0 {
				break
			}
			idx := make([]int, len(tasks))
			for i := range idx {
				idx[i] = i
			}
			recs, err := s.runTasks(ctx, tasks, idx, off, depth, split, func(i int) int { return g0 + i }, fps)
			for i, rec := range recs {
				if rec == nil || !rec.done {
					break
				}
				v, end := f.add(rec)
				s.progress(f.stats)
				upto = fpPos(g0+off+i+1, 0)
				if v != nil {
					upto = fpPos(g0+off+i, rec.local)
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
			off += len(tasks)
			if r.MaxMemory > 0 && fps.bytes()+lvBytes() > r.MaxMemory {
				return result(nil, EndMemory, nil)
			}
		}
		g0 += off
		if v, end := f.finish(); end != "" {
			return result(v, end, nil)
		}
		if r.DepthStep == 0 {
			break
		}
	}
	return result(nil, "max-depth", nil)
}

package liveness

import (
	"context"
	"fmt"
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// batchSize is the number of periphery walks run together. Results do not
// depend on it (nor on the number of workers): walks are taken in index
// order and the statistics of a violation are those of its leaf.
const batchSize = 64

// searcher is one search's state.
type searcher struct {
	r       *resolved
	drv     schedule
	base    Path // the replayed prefix, every choice explicit; Steps is its length
	dfs     *world
	workers []*world

	stats     Stats // the DFS's part: Depth, Paths, States, Duplicates, Steps
	walks     int64
	walkSteps int64
	leaves    int
	batch     []leaf
}

// leaf is a DFS path from whose end a random walk runs.
type leaf struct {
	path     Path
	liveFrom int
	snap     Stats // the DFS statistics when it was found
	depth    int
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
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	start := startPath(r.Seed)
	if r.Prefix != nil {
		start = *r.Prefix
	}
	s, err := newSearcher(r, start.Driver)
	if err != nil {
		return nil, err
	}
	rep := &Report{Settings: r.settingsReport()}
	if v, err := s.replayPrefix(start); err != nil || v != nil {
		rep.Violation, rep.End = v, "violation"
		return rep, err
	}
	v, end, err := s.search(ctx)
	rep.End, rep.Stats = end, s.total()
	if v != nil {
		rep.Violation, rep.Stats = v.Violation, v.stats
	}
	if err != nil {
		return rep, err
	}
	if v != nil && v.Kind == KindLiveness && !r.NoCritical {
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

// foundViolation is a Violation with the statistics at its finding.
type foundViolation struct {
	*Violation
	stats Stats
}

// replayPrefix replays the prefix path p to its end and makes its choices
// explicit: the search's base.
func (s *searcher) replayPrefix(p Path) (*Violation, error) {
	w := s.dfs
	var choices []int
	res := w.walk(p, walkOptions{liveFrom: -1, onEvent: func(_ int, _ string, c, _ int) { choices = append(choices, c) }})
	if res.err != nil {
		return nil, res.err
	}
	if v := s.violation(res, p, 0); v != nil {
		return v.Violation, nil
	}
	s.base = Path{Driver: p.Driver, Choices: choices, Segments: p.Segments, Steps: len(choices)}
	return nil, nil
}

// violation turns a walk result into a violation (nil if none), with its
// path cut at the violating step.
func (s *searcher) violation(res walkResult, p Path, depth int) *foundViolation {
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
	return &foundViolation{Violation: v}
}

func (s *searcher) search(ctx context.Context) (*foundViolation, string, error) {
	r := s.r
	base := s.base
	B := len(base.Choices)
	for depth := r.Depth; depth <= r.MaxDepth; depth += r.DepthStep {
		s.stats.Depth = depth
		seen := map[uint64]int32{}
		reachedBound := false
		// With hashing, a state space that only cycles ends every sequence
		// in a duplicate and runs no walk: remember whether any state
		// reached was live, and one dead sequence to report if none was.
		anyLive := false
		var deadSeq []int
		var deadRes walkResult
		var seq, widths []int
		// fresh is the first step of the current path that differs from
		// the previous path: the states before it are that path's own,
		// already hashed.
		fresh := 0
		w := s.dfs
		for paths := 0; ; paths++ {
			if paths&255 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, "interrupted", fmt.Errorf("liveness: search interrupted: %w", err)
				}
				s.progress()
			}
			w.start(base)
			for w.step < B {
				w.seedStep()
				w.exec(w.enabled()[base.Choices[w.step]])
			}
			end := endDepth
			var found *foundViolation
			if !r.NoHashing && len(seen) == 0 {
				seen[w.hash()] = 0
				anyLive = anyLive || w.live()
			}
			for i := 0; i < depth; i++ {
				en := w.enabled()
				if len(en) == 0 {
					end = endQuiescent
					seq, widths = seq[:i], widths[:i]
					break
				}
				if i == len(seq) {
					seq, widths = append(seq, 0), append(widths, 0)
				}
				widths[i] = len(en)
				w.seedStep()
				ok := w.exec(en[seq[i]])
				s.stats.Steps++
				res := walkResult{steps: w.step}
				if !ok {
					res.panicked = w.panicked
				} else if name := w.violatedSafety(); name != "" {
					res.safety = name
				} else if w.panicked != "" {
					res.panicked = w.panicked
				}
				if res.panicked != "" || res.safety != "" {
					p := Path{Driver: base.Driver, Choices: append(slices.Clone(base.Choices), seq[:i+1]...), Segments: base.Segments}
					found = s.violation(res, p, depth)
					break
				}
				if !r.NoHashing && i >= fresh {
					h := w.hash()
					d, dup := seen[h]
					if dup && d <= int32(i+1) {
						s.stats.Duplicates++
						end = endDuplicate
						seq, widths = seq[:i+1], widths[:i+1]
						if deadSeq == nil && !anyLive {
							deadSeq = slices.Clone(seq)
							deadRes = walkResult{steps: w.step, dead: true, failed: w.failing()}
						}
						break
					}
					if !dup {
						s.stats.States++
						anyLive = anyLive || w.live()
					}
					seen[h] = int32(i + 1)
				}
			}
			s.stats.Paths++
			if found != nil {
				// Walks of earlier leaves come first in search order.
				if v, err := s.flush(ctx); v != nil || err != nil {
					return v, endOf(v, err), err
				}
				found.stats = s.total()
				return found, "violation", nil
			}
			if r.visit != nil {
				r.visit(slices.Clone(seq), end)
			}
			if end == endDepth {
				reachedBound = true
			}
			if end != endDuplicate {
				s.addLeaf(seq, depth)
				if len(s.batch) >= batchSize || (r.RandomWalks > 0 && s.leaves >= r.RandomWalks) {
					if v, err := s.flush(ctx); v != nil || err != nil {
						return v, endOf(v, err), err
					}
				}
				if r.RandomWalks > 0 && s.leaves >= r.RandomWalks {
					return nil, "walk-budget", nil
				}
			}
			j := len(seq) - 1
			for j >= 0 && seq[j]+1 >= widths[j] {
				j--
			}
			if j < 0 {
				break
			}
			seq[j]++
			seq, widths = seq[:j+1], widths[:j+1]
			fresh = j
		}
		if v, err := s.flush(ctx); v != nil || err != nil {
			return v, endOf(v, err), err
		}
		if !reachedBound {
			if !r.NoHashing && !anyLive && deadSeq != nil {
				// Every reachable state was visited and none is live.
				p := Path{Driver: base.Driver, Choices: append(slices.Clone(base.Choices), deadSeq...), Segments: base.Segments}
				found := s.violation(deadRes, p, depth)
				found.stats = s.total()
				return found, "violation", nil
			}
			return nil, "exhausted", nil
		}
		if r.DepthStep == 0 {
			break
		}
	}
	return nil, "max-depth", nil
}

func endOf(v *foundViolation, err error) string {
	if err != nil {
		return "interrupted"
	}
	if v != nil {
		return "violation"
	}
	return ""
}

// total is the statistics so far.
// progress reports the statistics so far to Config.Progress.
func (s *searcher) progress() {
	if s.r.Progress != nil {
		s.r.Progress(s.total())
	}
}

func (s *searcher) total() Stats {
	st := s.stats
	st.Walks = s.walks
	st.Steps += s.walkSteps
	return st
}

func (s *searcher) addLeaf(seq []int, depth int) {
	base := s.base
	choices := append(slices.Clone(base.Choices), seq...)
	p := Path{Driver: base.Driver, Choices: choices, Segments: base.Segments}
	p = p.Branch(len(choices), timedsim.ExecutionSeed(s.r.Seed, s.leaves), len(base.Choices)+s.r.DMax)
	s.leaves++
	s.batch = append(s.batch, leaf{path: p, liveFrom: len(choices) + 1, snap: s.stats, depth: depth})
}

// flush runs the pending periphery walks and returns the first violation
// among them, in index order.
func (s *searcher) flush(ctx context.Context) (*foundViolation, error) {
	batch := s.batch
	s.batch = s.batch[:0]
	if len(batch) == 0 {
		return nil, nil
	}
	res, cut, err := parallel(ctx, s.workers, len(batch), func(w *world, i int) walkResult {
		return w.walk(batch[i].path, walkOptions{liveFrom: batch[i].liveFrom})
	}, func(r walkResult) bool { return r.safety != "" || r.panicked != "" || r.dead || r.err != nil })
	if err != nil {
		return nil, fmt.Errorf("liveness: search interrupted: %w", err)
	}
	for i := range cut {
		s.walks++
		s.walkSteps += int64(res[i].steps)
	}
	s.progress()
	last := res[cut-1]
	if last.err != nil {
		return nil, last.err
	}
	v := s.violation(last, batch[cut-1].path, batch[cut-1].depth)
	if v == nil {
		return nil, nil
	}
	v.stats = batch[cut-1].snap
	v.stats.Walks = s.walks
	v.stats.Steps += s.walkSteps
	return v, nil
}

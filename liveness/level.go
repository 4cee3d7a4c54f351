package liveness

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
)

// Level division (Config.LevelDivision): the prefix division to the split
// depth as a level-synchronous search on all the workers, with one
// concurrent, pruning visited set. At each level the frontier's successors
// are computed in parallel (each worker takes the next frontier entry),
// each recording its state's fingerprint in the set with its search key
// (level, frontier index, choice), the set keeping the smallest; after the
// level, the successors are merged in DFS order: a successor whose state
// was reached at an earlier level, or at this one by a smaller key, is cut
// as a duplicate; every other one is a new state, kept once, its
// DFS-smallest sequence as representative. The tree so built depends on
// the configuration alone.
//
// The tree holds no sequences: each state has a parent pointer and the
// choice from it (lvTree), a sequence is rebuilt from them when a worker
// expands its state or a task is made, and the tasks are made in DFS order
// by walking the tree (lvSource), a chunk at a time, as the search runs
// them: memory per state is a few words, not its sequence.

// lvChunk is the number of frontier entries expanded and merged at a
// time: the expansions held at once, and the granularity of the memory
// cap's check within a level. A constant, so that the check stops every
// run of one configuration at the same point.
const lvChunk = 1 << 12

// lvKey is the set key of the successor by choice c of frontier entry e
// at level l: the set keeps, for each state, its smallest key, so its
// lowest level and, within it, its first sequence in DFS order.
func lvKey(l, e, c int) uint64 { return uint64(l)<<56 | uint64(e)<<24 | uint64(c) }

// lvChild is one successor of a frontier entry.
type lvChild struct {
	choice    int
	fp, key   uint64
	violating bool
}

// lvExpand is what a worker found expanding one frontier entry.
type lvExpand struct {
	quiescent bool
	children  []lvChild
	steps     int64
	lookups   int64
	err       error
}

// replaySeq runs the base and then seq on w.
func (s *searcher) replaySeq(w *world, seq []int) {
	w.start(s.base)
	for w.step < len(s.base.Choices) {
		w.seedStep()
		w.execChoice(w.enabled(), s.base.Choices[w.step])
	}
	for _, c := range seq {
		w.seedStep()
		w.execChoice(w.enabled(), c)
	}
}

// expand computes the successors of frontier entry e (index ei, level l)
// on w, recording their fingerprints in set. It forks every successor
// from a snapshot of e's state when the services can be copied (cloner),
// the snapshot made from the world's snapshots of the entry expanded
// before (snapAt), else replays e for each; Steps counts the replays
// either way (the executions' steps), so the statistics do not depend on
// it.
func (s *searcher) expand(w *world, e []int, ei, l int, set *fpSet, anyLive *atomic.Bool) lvExpand {
	var out lvExpand
	reads, width := 0, 1
	var snap *worldSnap
	if !s.r.Replay {
		snap = s.snapAt(w, e, true)
	}
	for c := 0; c < width; c++ {
		if snap != nil {
			w.restore(snap)
		} else {
			s.replaySeq(w, e)
		}
		out.steps += int64(len(e))
		en := w.enabled()
		if len(en) == 0 {
			out.quiescent = true
			return out
		}
		n := len(en)
		w.seedStep()
		ok := w.execChoice(en, c)
		out.steps++
		reads = max(reads, min(w.clockReads, maxClockChoices))
		width = n << reads
		if c/n>>w.clockReads != 0 {
			continue // answers to comparisons this choice did not make
		}
		if c >= 1<<24 || ei >= 1<<32 || l+1 >= 1<<8 {
			out.err = fmt.Errorf("liveness: level division: choice %d, frontier entry %d or level %d is beyond its keys", c, ei, l+1)
			return out
		}
		ch := lvChild{choice: c}
		if !ok || w.violatedSafety() != "" || w.panicked != "" {
			ch.violating = true
		} else if ch.fp, ch.key = w.hash(), lvKey(l+1, ei, c); w.panicked != "" {
			ch.violating = true // a Describe panicked
		} else {
			set.add(ch.fp, ch.key)
			out.lookups++
			if !anyLive.Load() && w.live() {
				anyLive.Store(true)
			}
		}
		out.children = append(out.children, ch)
	}
	return out
}

// Node flags of an lvTree.
const (
	lvExpanded  uint8 = 1 << iota // its successors are merged (edges)
	lvQuiescent                   // no event is enabled in its state
)

// lvTree is the level division's tree of states: node 0 is the initial
// state, every other node a new state with its parent and the choice from
// it; the nodes of a level are contiguous, in DFS order. An expanded
// node's edges, edges[start[i]:end[i]], are its successors in choice
// order: a node (>= 0), a duplicate (lvDup) or the violating successor
// (lvViol).
type lvTree struct {
	parent     []int32
	choice     []int32
	fp         []uint64
	steps      []uint32 // the steps of the node's expansion, until counted
	flags      []uint8
	start, end []uint32
	edges      []int32
}

// lvDup and lvViol encode a duplicate and the violating successor by
// choice c as an edge; lvEdgeChoice decodes them.
func lvDup(c int) int32            { return int32(-1 - c) }
func lvViol(c int) int32           { return int32(-1 - (c | 1<<30)) }
func lvEdgeChoice(e int32) int     { return int(-1-e) &^ (1 << 30) }
func lvEdgeViolating(e int32) bool { return int(-1-e)&(1<<30) != 0 }

// add appends a node: its index.
func (t *lvTree) add(parent int32, choice int, fp uint64) int32 {
	t.parent = append(t.parent, parent)
	t.choice = append(t.choice, int32(choice))
	t.fp = append(t.fp, fp)
	t.steps = append(t.steps, 0)
	t.flags = append(t.flags, 0)
	t.start = append(t.start, 0)
	t.end = append(t.end, 0)
	return int32(len(t.parent) - 1)
}

// seq is node i's sequence, in buf's storage.
func (t *lvTree) seq(i int32, buf []int) []int {
	buf = buf[:0]
	for ; i > 0; i = t.parent[i] {
		buf = append(buf, int(t.choice[i]))
	}
	slices.Reverse(buf)
	return buf
}

// bytes is the memory of the tree's arrays.
func (t *lvTree) bytes() int64 {
	return int64(cap(t.parent))*4 + int64(cap(t.choice))*4 + int64(cap(t.fp))*8 + int64(cap(t.steps))*4 +
		int64(cap(t.flags)) + int64(cap(t.start))*4 + int64(cap(t.end))*4 + int64(cap(t.edges))*4
}

// lvState is a searcher's level division so far: the levels up to level
// are the same for every bound at or beyond it, so the next iteration
// goes on from them rather than starting again.
type lvState struct {
	set            *fpSet
	anyLive        atomic.Bool
	lookups, fresh int64
	collision      float64 // the estimate reported so far
	tree           lvTree
	// The frontier is the nodes [from, to) of level level; prevFront is
	// the size of the level before it (0 at the initial state).
	from, to  int32
	prevFront int64
	level     int
	viol      bool // a successor violates
	st        Stats
}

// newLevels starts a level division at the initial state.
func (s *searcher) newLevels() *lvState {
	lv := &lvState{set: newFPSet(), lookups: 1, fresh: 1}
	w := s.dfs
	s.replaySeq(w, nil)
	fp := w.hash()
	lv.set.add(fp, 0)
	lv.anyLive.Store(w.live())
	lv.tree.add(-1, 0, fp)
	lv.from, lv.to = 0, 1
	return lv
}

// bytes is the level division's memory: its tree and its visited set.
func (lv *lvState) bytes() int64 { return lv.tree.bytes() + lv.set.bytes() }

// errMemory is a search stopped at Config.MaxMemory.
type errMemory struct {
	depth int   // the iteration that would not fit
	used  int64 // the bytes used
	next  int64 // the bytes the next level would have needed (0: used is past the cap)
}

func (e *errMemory) Error() string {
	if e.next > 0 {
		return fmt.Sprintf("liveness: memory cap reached: the division of depth %d holds %d MB and its next level needs about %d MB more", e.depth, e.used>>20, e.next>>20)
	}
	return fmt.Sprintf("liveness: memory cap reached: the division of depth %d holds %d MB", e.depth, e.used>>20)
}

// fits checks, before level l is expanded, that the division's memory
// (with the search's set extra) and the next level's estimate stay within
// Config.MaxMemory: the next level is estimated to grow the frontier as
// the last one did, each new state costing what the states so far cost on
// average. Every figure is a function of the tree, so the check stops
// every run of one configuration at the same level.
func (s *searcher) fits(lv *lvState, extra int64, depth int) error {
	capB := s.r.MaxMemory
	if capB <= 0 {
		return nil
	}
	used := lv.bytes() + extra
	if used > capB {
		return &errMemory{depth: depth, used: used}
	}
	nodes := int64(len(lv.tree.parent))
	front := int64(lv.to - lv.from)
	grow := front * 8 // the first level: a guess
	if lv.prevFront > 0 {
		grow = max(front*front/lv.prevFront, front) // the frontier grows as it last did
	}
	next := grow * used / nodes
	if used+next > capB {
		return &errMemory{depth: depth, used: used, next: next}
	}
	return nil
}

// enumerateLevels is the level division at split depth sd, going on from
// the searcher's earlier levels: the source of its tasks, as enumerate's
// (in DFS order, the duplicates with the task before them). Steps counts
// the steps it executed for this division only. extra is the memory of
// the search's other structures, for Config.MaxMemory.
func (s *searcher) enumerateLevels(ctx context.Context, sd int, extra int64) (*lvSource, error) {
	lv := s.lv
	if lv == nil || lv.viol || lv.level > sd {
		lv = s.newLevels()
		s.lv = lv
	}
	t := &lv.tree
	for ; lv.level < sd && lv.to > lv.from; lv.level++ {
		if err := s.fits(lv, extra, sd); err != nil {
			return nil, err
		}
		l, from, to := lv.level, lv.from, lv.to
		next := int32(len(t.parent))
		chunk := int32(lvChunk)
		if s.r.chunk > 0 {
			chunk = int32(s.r.chunk)
		}
		// A level is expanded and merged lvChunk entries at a time: a
		// later chunk only adds larger keys, so a successor that holds
		// its fingerprint's key after its own chunk holds it for good.
	level:
		for c0 := from; c0 < to; c0 += chunk {
			c1 := min(c0+chunk, to)
			res, _, err := parallel(ctx, s.workers, int(c1-c0), func(w *world, i int) lvExpand {
				e := c0 + int32(i)
				return s.expand(w, t.seq(e, make([]int, 0, l)), int(e-from), l, lv.set, &lv.anyLive)
			}, func(lvExpand) bool { return false })
			if err != nil {
				s.lv = nil // a level half merged: start again
				return nil, err
			}
			for ei := range res {
				r, e := &res[ei], c0+int32(ei)
				if r.err != nil {
					s.lv = nil
					return nil, r.err
				}
				lv.lookups += r.lookups
				t.steps[e] = uint32(r.steps)
				t.flags[e] |= lvExpanded
				if r.quiescent {
					t.flags[e] |= lvQuiescent
					lv.st.Paths++
					continue
				}
				t.start[e] = uint32(len(t.edges))
				for _, ch := range r.children {
					switch {
					case ch.violating:
						t.edges = append(t.edges, lvViol(ch.choice))
						t.end[e] = uint32(len(t.edges))
						lv.viol = true
						lv.st.Paths++
						break level // every later successor comes after it in DFS order
					case lv.set.get(ch.fp) == ch.key:
						lv.fresh++
						lv.st.States++
						t.edges = append(t.edges, t.add(e, ch.choice, ch.fp))
					default:
						lv.st.Duplicates++
						lv.st.Paths++
						t.edges = append(t.edges, lvDup(ch.choice))
					}
				}
				t.end[e] = uint32(len(t.edges))
			}
			if used := lv.bytes() + extra; s.r.MaxMemory > 0 && used > s.r.MaxMemory {
				s.lv = nil // a level half merged
				return nil, &errMemory{depth: sd, used: used}
			}
		}
		lv.prevFront = int64(to - from)
		lv.from, lv.to = next, int32(len(t.parent))
		if s.tick != nil {
			s.tick(lv.st)
		}
	}
	if lv.to == lv.from {
		lv.level = max(lv.level, sd)
	}
	c := tlcCollision(lv.fresh, lv.lookups)
	src := &lvSource{s: s, lv: lv, sd: sd, anyLive: lv.anyLive.Load(), collision: c - lv.collision}
	lv.collision = c
	src.stack = []lvFrame{{node: 0}}
	src.pending = []int32{0}
	return src, nil
}

// lvFrame is a node of the walk of the tree and its next edge.
type lvFrame struct {
	node int32
	edge uint32
	// begun: the node's own terminal (leaf, quiescent) or edges were
	// entered.
	begun bool
}

// lvSource makes the level division's tasks in DFS order by walking its
// tree: a terminal sequence (a leaf at the split depth, a quiescent
// state, a duplicate, the violating successor) ends a walk step; the
// states met since the last terminal (and their expansion's steps) are
// counted with it, as with the first sequence through them. The walk ends
// at the first violating successor. A task is handed out once the next
// one is made (the duplicates after a task go with it).
type lvSource struct {
	s         *searcher
	lv        *lvState
	sd        int
	anyLive   bool
	collision float64
	stack     []lvFrame
	pending   []int32 // the nodes met since the last terminal
	last      *task   // made, not handed out (its cuts may grow)
	made      int     // tasks made
	deadSet   bool
	done      bool
	buf       []int
}

// terminal turns a terminal sequence into a task or the last task's cut,
// counting the pending nodes with it.
func (src *lvSource) terminal(seq []int, end pathEnd, violating bool, out *[]*task) {
	t := &src.lv.tree
	var states, steps int64
	var fps []uint64
	for _, n := range src.pending {
		steps += int64(t.steps[n])
		t.steps[n] = 0 // executed once, counted once
		if n != 0 {
			states++
			fps = append(fps, t.fp[n])
		}
	}
	src.pending = src.pending[:0]
	if violating || end != endDuplicate {
		tk := &task{prefix: slices.Clone(seq), dfs: true, states: states, steps: steps, end: end, fps: fps, violating: violating}
		src.push(tk, out)
		return
	}
	if src.last == nil {
		src.push(&task{}, out)
	}
	c := &src.last.cuts
	c.st.add(Stats{Paths: 1, Duplicates: 1, States: states, Steps: steps})
	c.fps = append(c.fps, fps...)
	if src.s.r.visit != nil {
		c.visits = append(c.visits, seqVisit{slices.Clone(seq), endDuplicate})
	}
	if !src.anyLive && !src.deadSet {
		// The first duplicate as a dead path: the iteration's violation
		// if no sequence reaches the bound.
		w := src.s.dfs
		src.s.replaySeq(w, seq)
		c.deadEnd, src.deadSet = src.s.violation(walkResult{steps: w.step, dead: true, failed: w.failing()}, src.s.seqPath(seq), src.sd), true
	}
}

// push makes tk the last task, handing out the one before it.
func (src *lvSource) push(tk *task, out *[]*task) {
	if src.last != nil {
		*out = append(*out, src.last)
	}
	if src.made == 0 {
		tk.cuts.anyLive = tk.cuts.anyLive || src.anyLive
		tk.cuts.collision += src.collision
	}
	src.made++
	src.last = tk
}

// next is the next tasks, up to n of them (n > 0); none once all are out.
func (src *lvSource) next(n int) ([]*task, error) {
	var out []*task
	lv, t := src.lv, &src.lv.tree
	frontier := func(i int32) bool { return lv.level == src.sd && i >= lv.from && i < lv.to }
	for !src.done && len(out) < n {
		if len(src.stack) == 0 {
			src.done = true
			break
		}
		f := &src.stack[len(src.stack)-1]
		i := f.node
		if !f.begun {
			f.begun = true
			switch {
			case frontier(i):
				src.buf = t.seq(i, src.buf)
				src.terminal(src.buf, endDepth, false, &out)
				src.stack = src.stack[:len(src.stack)-1]
				continue
			case t.flags[i]&lvQuiescent != 0:
				src.buf = t.seq(i, src.buf)
				src.terminal(src.buf, endQuiescent, false, &out)
				src.stack = src.stack[:len(src.stack)-1]
				continue
			case t.flags[i]&lvExpanded == 0:
				// After the violation (a frontier entry whose level was
				// not merged past it): the walk ends before it.
				src.stack = src.stack[:len(src.stack)-1]
				continue
			}
			f.edge = t.start[i]
		}
		if f.edge == t.end[i] {
			src.stack = src.stack[:len(src.stack)-1]
			continue
		}
		e := t.edges[f.edge]
		f.edge++
		if e >= 0 {
			src.pending = append(src.pending, e)
			src.stack = append(src.stack, lvFrame{node: e})
			continue
		}
		seq := append(t.seq(i, src.buf), lvEdgeChoice(e))
		src.buf = seq
		if lvEdgeViolating(e) {
			src.terminal(seq, endDepth, true, &out)
			src.stack = src.stack[:0]
			continue
		}
		src.terminal(seq, endDuplicate, false, &out)
	}
	if src.done && src.last != nil {
		out = append(out, src.last)
		src.last = nil
	}
	if src.done && src.made == 0 {
		src.made = 1
		tk := &task{}
		tk.cuts.anyLive, tk.cuts.collision = src.anyLive, src.collision
		out = append(out, tk)
	}
	return out, nil
}

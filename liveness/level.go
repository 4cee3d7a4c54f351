package liveness

import (
	"cmp"
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

// lvTerm is a terminal sequence of the level division: a leaf (at the
// split depth or quiescent), a duplicate or the violating sequence. Its
// sequence is base followed by last (if last >= 0): a duplicate shares its
// parent's sequence rather than copy it, the most of the terminals.
type lvTerm struct {
	base      []int
	last      int
	end       pathEnd
	violating bool
	states    int64
	steps     int64
	fps       []uint64
}

// seq is t's sequence.
func (t *lvTerm) seq() []int {
	if t.last < 0 {
		return t.base
	}
	return append(slices.Clip(t.base), t.last)
}

// cmpSeq compares sequences a·al and b·bl (al, bl < 0: none) in DFS order
// (lexicographic, a prefix first).
func cmpSeq(a []int, al int, b []int, bl int) int {
	na, nb := len(a), len(b)
	if al >= 0 {
		na++
	}
	if bl >= 0 {
		nb++
	}
	for i := range min(na, nb) {
		x, y := al, bl
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return cmp.Compare(na, nb)
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
// on w, recording their fingerprints in set.
func (s *searcher) expand(w *world, e []int, ei, l int, set *fpSet, anyLive *atomic.Bool) lvExpand {
	var out lvExpand
	reads, width := 0, 1
	for c := 0; c < width; c++ {
		s.replaySeq(w, e)
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

// lvNode is a state of the level division: the initial one or a new
// state, with its representative sequence. It is attributed to the first
// terminal at or after it in DFS order (the first sequence through it),
// and so are the steps of its expansion.
type lvNode struct {
	seq   []int
	fp    uint64
	root  bool
	steps int64
}

// lvState is a searcher's level division so far: the levels up to level
// are the same for every bound at or beyond it, so the next iteration
// goes on from them rather than starting again.
type lvState struct {
	set             *fpSet
	anyLive         atomic.Bool
	lookups, fresh  int64
	collision       float64 // the estimate reported so far
	terms           []*lvTerm
	nodes, frontier []*lvNode // frontier: the nodes of level level
	level           int
	viol            []int // the smallest violating sequence so far
	st              Stats
}

// newLevels starts a level division at the initial state.
func (s *searcher) newLevels() *lvState {
	lv := &lvState{set: newFPSet(), lookups: 1, fresh: 1}
	w := s.dfs
	s.replaySeq(w, nil)
	lv.set.add(w.hash(), 0)
	lv.anyLive.Store(w.live())
	lv.nodes = []*lvNode{{seq: []int{}, root: true}}
	lv.frontier = lv.nodes
	return lv
}

// enumerateLevels is the level division at split depth sd: tasks as
// enumerate's (in DFS order, the duplicates with the task before them),
// from the level-synchronous search, going on from the searcher's earlier
// levels. Steps counts the steps it executed for this division only.
func (s *searcher) enumerateLevels(ctx context.Context, sd int) ([]*task, error) {
	lv := s.lv
	if lv == nil || lv.viol != nil || lv.level > sd {
		lv = s.newLevels()
		s.lv = lv
	}
	for ; lv.level < sd && len(lv.frontier) > 0; lv.level++ {
		l, frontier := lv.level, lv.frontier
		res, _, err := parallel(ctx, s.workers, len(frontier), func(w *world, i int) lvExpand {
			return s.expand(w, frontier[i].seq, i, l, lv.set, &lv.anyLive)
		}, func(lvExpand) bool { return false })
		if err != nil {
			s.lv = nil // a level half merged: start again
			return nil, err
		}
		var next []*lvNode
	merge:
		for ei, e := range frontier {
			r := res[ei]
			if r.err != nil {
				s.lv = nil
				return nil, r.err
			}
			lv.lookups += r.lookups
			e.steps = r.steps
			if r.quiescent {
				lv.terms = append(lv.terms, &lvTerm{base: e.seq, last: -1, end: endQuiescent})
				continue
			}
			for _, ch := range r.children {
				switch {
				case ch.violating:
					lv.viol = append(slices.Clip(e.seq), ch.choice)
					lv.terms = append(lv.terms, &lvTerm{base: lv.viol, last: -1, violating: true})
					break merge // every later successor comes after it in DFS order
				case lv.set.get(ch.fp) == ch.key:
					lv.fresh++
					lv.st.States++
					n := &lvNode{seq: append(slices.Clip(e.seq), ch.choice), fp: ch.fp}
					lv.nodes = append(lv.nodes, n)
					next = append(next, n)
				default:
					lv.st.Duplicates++
					lv.terms = append(lv.terms, &lvTerm{base: e.seq, last: ch.choice, end: endDuplicate})
				}
			}
		}
		lv.frontier = next
		lv.st.Paths = int64(len(lv.terms))
		if s.tick != nil {
			s.tick(lv.st)
		}
	}
	if len(lv.frontier) == 0 {
		lv.level = max(lv.level, sd)
	}
	// The leaves: the frontier at the split depth.
	terms := slices.Clip(lv.terms)
	if lv.level == sd {
		for _, n := range lv.frontier {
			terms = append(terms, &lvTerm{base: n.seq, last: -1, end: endDepth})
		}
	}
	c := tlcCollision(lv.fresh, lv.lookups)
	tasks, err := s.levelTasks(terms, lv.nodes, lv.viol, lv.anyLive.Load(), c-lv.collision, sd)
	lv.collision = c
	for _, n := range lv.nodes {
		n.steps = 0 // executed once, counted once
	}
	return tasks, err
}

// levelTasks turns the level division's terminals into tasks in DFS order,
// up to the smallest violating sequence viol (if any), with each node's
// state and steps attributed to its first terminal.
func (s *searcher) levelTasks(terms []*lvTerm, nodes []*lvNode, viol []int, anyLive bool, collision float64, sd int) ([]*task, error) {
	terms = slices.Clone(terms) // sorted here, kept in level order by the caller
	for _, t := range terms {
		t.states, t.steps, t.fps = 0, 0, nil // of an earlier bound's division
	}
	slices.SortFunc(terms, func(a, b *lvTerm) int { return cmpSeq(a.base, a.last, b.base, b.last) })
	at := func(t *lvTerm, v []int) int { return cmpSeq(t.base, t.last, v, -1) }
	if viol != nil {
		i, _ := slices.BinarySearchFunc(terms, viol, at)
		terms = terms[:i+1]
	}
	for _, n := range nodes {
		i, _ := slices.BinarySearchFunc(terms, n.seq, at)
		if i == len(terms) {
			continue // after the violation
		}
		t := terms[i]
		t.steps += n.steps
		if !n.root {
			t.states++
			t.fps = append(t.fps, n.fp)
		}
	}
	var tasks []*task
	deadSet := false
	for _, t := range terms {
		if t.violating || t.end != endDuplicate {
			tasks = append(tasks, &task{prefix: t.seq(), dfs: true, states: t.states, steps: t.steps, end: t.end, fps: t.fps, violating: t.violating})
			continue
		}
		if len(tasks) == 0 {
			tasks = append(tasks, &task{})
		}
		c := &tasks[len(tasks)-1].cuts
		c.st.add(Stats{Paths: 1, Duplicates: 1, States: t.states, Steps: t.steps})
		c.fps = append(c.fps, t.fps...)
		if s.r.visit != nil {
			c.visits = append(c.visits, seqVisit{t.seq(), endDuplicate})
		}
		if !anyLive && !deadSet {
			// The first duplicate as a dead path: the iteration's
			// violation if no sequence reaches the bound.
			w := s.dfs
			seq := t.seq()
			s.replaySeq(w, seq)
			c.deadEnd, deadSet = s.violation(walkResult{steps: w.step, dead: true, failed: w.failing()}, s.seqPath(seq), sd), true
		}
	}
	if len(tasks) == 0 {
		tasks = append(tasks, &task{})
	}
	tasks[0].cuts.anyLive = tasks[0].cuts.anyLive || anyLive
	tasks[0].cuts.collision += collision
	return tasks, nil
}

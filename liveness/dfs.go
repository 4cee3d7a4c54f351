package liveness

import (
	"context"
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// SplitGap is how far above the depth bound the automatic prefix
// division is: the split depth is the bound minus SplitGap (at least 1).
// The division, a DFS to the split depth with one visited set, is
// sequential (Config.LevelDivision makes it a parallel level-by-level
// search instead, level.go); below it the prefix tasks run in parallel, each with its own
// visited set, so they re-explore the states that several of them reach.
// At 0 the division is the whole sequential DFS (MaceMC's, with one visited
// set) and the tasks are its sequences, whose replays and random walks run
// in parallel; Config.SplitDepth moves the split up to run the DFS's last
// levels in parallel too (bench/RESULTS.md measures both). It depends on
// the bound alone, never on the number of workers or shards.
const SplitGap = 0

// dfsRun is one bounded depth-first search over the choice sequences
// that extend a fixed prefix, with its own visited set (MaceMC's state
// hashing with depths: a sequence stops at a state already reached at no
// greater depth).
type dfsRun struct {
	s     *searcher
	w     *world
	depth int      // the depth bound
	seq   []int    // the first sequence: the fixed prefix
	fixed int      // len of the fixed prefix: backtracking stops there
	seen  *fpTable // fingerprint → the smallest depth it was reached at
	st    Stats    // Paths, States, Duplicates, Steps
	// lookups counts the fingerprints looked up in seen, fresh the new
	// ones (st.States counts those past the fixed prefix only: the
	// division counted the prefix's own).
	lookups, fresh int64
	anyLive        bool
	bound          bool       // some sequence reached the depth bound
	deadEnd        *Violation // the first sequence cut as a duplicate while no state was live
	onNew          func(fp uint64)
	tick           func(Stats) // every 256 sequences
	// maxBytes, if positive, stops the search with an *errMemory when
	// its visited set and extra bytes pass it (checked every 256
	// sequences: the division's, which is sequential).
	maxBytes, extra int64
}

// run explores the sequences in DFS order. leaf sees every sequence that
// reached the bound or a state with no event enabled, cut every sequence
// cut as a duplicate; leaf may end the search with a violation (or
// stop). A safety violation or a panic ends it too.
func (d *dfsRun) run(ctx context.Context, leaf func(seq []int, end pathEnd) (*Violation, bool, error), cut func(seq []int)) (*Violation, error) {
	s, r, w := d.s, d.s.r, d.w
	base := s.base
	B := len(base.Choices)
	seq := d.seq
	// widths[i] is the number of choices at position i: the enabled
	// events, times 2^reads[i] for the most clock comparisons a choice
	// there has made.
	widths, reads := make([]int, len(seq)), make([]int, len(seq))
	// fresh is the first step of the current sequence that differs from
	// the previous one: the states before it are already hashed.
	fresh := 0
	// snaps[i] is the state after the base and seq[:i] when the services
	// can be copied (fork): a sequence restores the state before its
	// first fresh step instead of replaying the steps before it.
	var snaps []*worldSnap
	fork := !r.Replay
	for paths := 0; ; paths++ {
		// Every sequence: one can take long (a start of many nodes), and
		// an interruption keeps the partial report.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if paths&255 == 0 {
			if d.tick != nil {
				d.tick(d.st)
			}
			if d.maxBytes > 0 && d.seen != nil && d.seen.bytes()+d.extra > d.maxBytes {
				return nil, &errMemory{depth: d.depth, used: d.seen.bytes() + d.extra}
			}
		}
		from := 0
		if fork && fresh < len(snaps) {
			w.restore(snaps[fresh])
			w.segs = base.Segments
			from = fresh
			d.st.Steps += int64(fresh) // as if replayed
			snaps = snaps[:fresh+1]
		} else {
			snaps = snaps[:0]
			w.start(base)
			for w.step < B {
				w.seedStep()
				w.execChoice(w.enabled(), base.Choices[w.step])
			}
		}
		if !r.NoHashing && d.seen == nil {
			d.seen = &fpTable{}
			d.seen.put(w.hash(), 0, keepLast)
			d.lookups++
			if w.panicked != "" { // a Describe (the prefix's walk finds it first)
				d.st.Paths++
				return s.violation(walkResult{steps: w.step, panicked: w.panicked}, s.seqPath(seq[:0]), d.depth), nil
			}
			d.anyLive = w.live()
		}
		end := endDepth
		var found *Violation
		redundant := false
		for i := from; i < d.depth; i++ {
			en := w.enabled()
			if len(en) == 0 {
				end = endQuiescent
				seq, widths, reads = seq[:i], widths[:i], reads[:i]
				break
			}
			if fork && i == len(snaps) {
				if sn := w.snapshot(false); sn != nil {
					snaps = append(snaps, sn)
				} else {
					fork, snaps = false, nil // a service without Clone, or a panic: replay
				}
			}
			if i == len(seq) {
				seq, widths, reads = append(seq, 0), append(widths, 0), append(reads, 0)
			}
			n := len(en)
			w.seedStep()
			ok := w.execChoice(en, seq[i])
			d.st.Steps++
			reads[i] = max(reads[i], min(w.clockReads, maxClockChoices))
			widths[i] = n << reads[i]
			if seq[i]/n>>w.clockReads != 0 {
				// Answers to comparisons this choice did not make: a
				// sibling with fewer answers ran the same step.
				redundant = true
				seq, widths, reads = seq[:i+1], widths[:i+1], reads[:i+1]
				break
			}
			res := walkResult{steps: w.step}
			if !ok {
				res.panicked = w.panicked
			} else if name := w.violatedSafety(); name != "" {
				res.safety = name
			} else if w.panicked != "" {
				res.panicked = w.panicked
			}
			if res.panicked != "" || res.safety != "" {
				found = s.violation(res, s.seqPath(seq[:i+1]), d.depth)
				break
			}
			if !r.NoHashing && i >= fresh {
				h := w.hash()
				if w.panicked != "" { // a Describe: a finding as a handler's panic is
					found = s.violation(walkResult{steps: w.step, panicked: w.panicked}, s.seqPath(seq[:i+1]), d.depth)
					break
				}
				d.lookups++
				dd, dup := d.seen.get(h)
				if dup && dd <= uint64(i+1) {
					d.st.Duplicates++
					end = endDuplicate
					seq, widths, reads = seq[:i+1], widths[:i+1], reads[:i+1]
					if d.deadEnd == nil && !d.anyLive {
						d.deadEnd = s.violation(walkResult{steps: w.step, dead: true, failed: w.failing()}, s.seqPath(seq), d.depth)
					}
					break
				}
				if !dup {
					d.fresh++
					if i >= d.fixed {
						d.st.States++
					}
					d.anyLive = d.anyLive || w.live()
					if d.onNew != nil {
						d.onNew(h)
					}
				}
				d.seen.put(h, uint64(i+1), keepLast)
			}
		}
		if found != nil {
			d.st.Paths++
			return found, nil
		}
		if !redundant {
			d.st.Paths++
			if end == endDepth {
				d.bound = true
			}
			if end == endDuplicate {
				cut(seq)
			} else if v, stop, err := leaf(seq, end); v != nil || stop || err != nil {
				return v, err
			}
		}
		j := len(seq) - 1
		for j >= d.fixed && seq[j]+1 >= widths[j] {
			j--
		}
		if j < d.fixed {
			return nil, nil
		}
		seq[j]++
		seq, widths, reads = seq[:j+1], widths[:j+1], reads[:j+1]
		fresh = j
	}
}

// seqPath is the path of DFS sequence seq (relative to the base).
func (s *searcher) seqPath(seq []int) Path {
	b := s.base
	return Path{Driver: b.Driver, Choices: append(slices.Clone(b.Choices), seq...), Segments: b.Segments}
}

// task is one prefix of an iteration's division: the unit of parallel
// and sharded work. Its DFS explores the sequences extending prefix; cuts
// are the division's own sequences cut as duplicates that follow it in
// DFS order.
type task struct {
	prefix []int
	// seed is the walk seed of a division at the bound, whose tasks are
	// single sequences: that of the sequential search's leaf. Such a task
	// only walks: end says how its sequence ended, fps are the
	// fingerprints of the states new to the division along it.
	seed      uint64
	seeded    bool
	end       pathEnd
	fps       []uint64
	violating bool // the division's violating sequence
	dfs       bool // false: a task with cut sequences only (they came first)
	// states is the number of states new to the division along prefix,
	// steps the division's steps counted with the task (a division at the
	// bound: its sequence's; a level division: the expansions of the
	// states attributed to it).
	states, steps int64
	cuts          taskCuts
}

type taskCuts struct {
	st        Stats
	fps       []uint64
	visits    []seqVisit
	anyLive   bool
	deadEnd   *Violation
	collision float64
}

// seqVisit is a DFS sequence and how it ended (the Config.visit test hook).
type seqVisit struct {
	seq []int
	end pathEnd
}

// taskSource hands out an iteration's tasks in index order, a chunk at a
// time, so that the search holds one chunk of tasks and results at once.
type taskSource interface {
	// next is the next tasks, up to n (n > 0); none once all are out.
	next(n int) ([]*task, error)
}

// sliceSource hands out tasks made beforehand.
type sliceSource struct{ tasks []*task }

func (s *sliceSource) next(n int) ([]*task, error) {
	k := min(n, len(s.tasks))
	out := s.tasks[:k:k]
	s.tasks = s.tasks[k:]
	return out, nil
}

// allTasks drains src.
func allTasks(src taskSource) ([]*task, error) {
	var all []*task
	for {
		tasks, err := src.next(chunkTasks)
		if err != nil || len(tasks) == 0 {
			return all, err
		}
		all = append(all, tasks...)
	}
}

// chunkTasks is the number of tasks the search makes and runs at a time.
// It is a constant, so where a search stops between chunks (at
// Config.MaxMemory) depends on the configuration alone.
const chunkTasks = 1 << 14

// chunkSize is the number of tasks the search makes and runs at a time.
func (r *resolved) chunkSize() int {
	if r.chunk > 0 {
		return r.chunk
	}
	return chunkTasks
}

// seededSource numbers and seeds the tasks of a division at the bound as
// they are handed out (divide).
type seededSource struct {
	taskSource
	s      *searcher
	leaves *int
}

func (d *seededSource) next(n int) ([]*task, error) {
	tasks, err := d.taskSource.next(n)
	if err != nil {
		return tasks, err
	}
	for _, t := range tasks {
		if t.dfs && !t.violating {
			t.seed, t.seeded = timedsim.ExecutionSeed(d.s.r.Seed, *d.leaves), true
			*d.leaves++
			if !d.s.r.LevelDivision {
				t.steps = int64(len(t.prefix))
			}
		}
	}
	return tasks, nil
}

// divide is the deterministic prefix division of the iteration with bound
// depth at the split depth (Config.SplitDepth, or depth − SplitGap): the
// prefixes, in DFS order. The division is itself a DFS to the split depth
// with state hashing: a sequence reaching a state already reached at no
// greater depth is cut (and counted) there, every other one is a prefix.
// A safety violation within the split depth ends the division with its
// sequence as the last prefix.
//
// A division at the bound numbers its sequences from leaves, the number
// of sequences of the earlier iterations, and seeds each one's walk as
// the sequential search does (timedsim.ExecutionSeed(Seed, leaf)); leaves
// is counted on as the source hands its tasks out, so an iteration's
// tasks must all be taken before the next iteration is divided. extra is
// the memory of the search's own visited set, for Config.MaxMemory.
func (s *searcher) divide(ctx context.Context, depth int, leaves *int, extra int64) (taskSource, int, error) {
	sd := max(depth-SplitGap, 1)
	if s.r.SplitDepth > 0 {
		sd = s.r.SplitDepth
	}
	sd = min(sd, depth)
	var src taskSource
	if s.r.LevelDivision && !s.r.NoHashing {
		lsrc, err := s.enumerateLevels(ctx, sd, extra)
		if err != nil {
			return nil, sd, err
		}
		src = lsrc
	} else {
		tasks, err := s.enumerate(ctx, sd, extra)
		if err != nil {
			return nil, sd, err
		}
		src = &sliceSource{tasks}
	}
	if sd == depth {
		src = &seededSource{taskSource: src, s: s, leaves: leaves}
	}
	return src, sd, nil
}

// enumerate divides at split depth sd.
func (s *searcher) enumerate(ctx context.Context, sd int, extra int64) (tasks []*task, err error) {
	d := &dfsRun{s: s, w: s.dfs, depth: sd, tick: s.tick}
	if s.r.MaxMemory > 0 {
		d.maxBytes, d.extra = s.r.MaxMemory, extra
	}
	var mark Stats
	var fps []uint64
	d.onNew = func(fp uint64) { fps = append(fps, fp) }
	deadSet := false
	leaf := func(seq []int, end pathEnd) (*Violation, bool, error) {
		tasks = append(tasks, &task{prefix: slices.Clone(seq), dfs: true, states: d.st.States - mark.States, end: end, fps: slices.Clone(fps)})
		mark, fps = d.st, fps[:0]
		return nil, false, nil
	}
	cut := func(seq []int) {
		if len(tasks) == 0 {
			tasks = append(tasks, &task{})
		}
		c := &tasks[len(tasks)-1].cuts
		c.st.add(d.st.minus(mark))
		c.fps = append(c.fps, fps...)
		if s.r.visit != nil {
			c.visits = append(c.visits, seqVisit{slices.Clone(seq), endDuplicate})
		}
		if d.deadEnd != nil && !deadSet {
			c.deadEnd, deadSet = d.deadEnd, true
		}
		mark, fps = d.st, fps[:0]
	}
	v, err := d.run(ctx, leaf, cut)
	if err != nil {
		return nil, err
	}
	if v != nil {
		// The violating sequence is the last prefix: its task finds it.
		tasks = append(tasks, &task{prefix: slices.Clone(v.Path.Choices[len(s.base.Choices):]), dfs: true, states: d.st.States - mark.States, violating: true})
	}
	if len(tasks) == 0 {
		tasks = append(tasks, &task{})
	}
	tasks[0].cuts.anyLive = tasks[0].cuts.anyLive || d.anyLive
	tasks[0].cuts.collision += tlcCollision(d.fresh, d.lookups)
	return tasks, nil
}

// PrefixResult is the outcome of one prefix task: what the search of the
// sequences extending the prefix found, with its statistics. A sharded
// search writes one per task; merging folds them in task order exactly as
// the search does.
type PrefixResult struct {
	// Depth is the iteration's depth bound, Split its split depth, Index
	// the prefix's index in the iteration's division.
	Depth  int   `json:"depth"`
	Split  int   `json:"split"`
	Index  int   `json:"index"`
	Prefix []int `json:"prefix"`
	// Stats are the task's, up to its violation if it has one.
	Stats  Stats `json:"stats"`
	Leaves int   `json:"leaves"`
	// Bound: some sequence reached the depth bound; AnyLive: some state
	// reached was live.
	Bound   bool `json:"bound"`
	AnyLive bool `json:"any_live"`
	// Violation is the task's first violation in DFS order.
	Violation *Violation `json:"violation,omitempty"`
	// DeadEnd is the task's first sequence cut as a duplicate, as a dead
	// path: the iteration's violation if no sequence reached the bound and
	// no state was live.
	DeadEnd *Violation `json:"dead_end,omitempty"`
	// Warnings are a shard's warnings about the services (Report.Warnings),
	// on its first record.
	Warnings []string `json:"warnings,omitempty"`

	visits []seqVisit
	local  int // states new to the task's visited set (fpSet positions)
	done   bool
	err    error
}

// runTask searches task t (global index g) of the iteration with bound
// depth on world w: the DFS below its prefix with its own visited set,
// a random walk from the end of every sequence not cut as a duplicate.
func (s *searcher) runTask(ctx context.Context, w *world, t *task, depth, split, index, g int, fps *fpSet) *PrefixResult {
	r := s.r
	rec := &PrefixResult{Depth: depth, Split: split, Index: index, Prefix: t.prefix}
	if rec.Prefix == nil {
		rec.Prefix = []int{}
	}
	var collision float64
	if t.dfs {
		d := &dfsRun{s: s, w: w, depth: depth, seq: slices.Clone(t.prefix), fixed: len(t.prefix)}
		local := 0
		if fps != nil {
			d.onNew = func(fp uint64) { fps.add(fp, fpPos(g, local)); local++ }
		}
		var walks, walkSteps int64
		leaf := func(seq []int, end pathEnd) (*Violation, bool, error) {
			if r.visit != nil {
				rec.visits = append(rec.visits, seqVisit{slices.Clone(seq), end})
			}
			p := s.seqPath(seq)
			n := len(p.Choices)
			seed := leafSeed(r.Seed, depth, index, rec.Leaves)
			if t.seeded {
				seed = t.seed
			}
			p = p.Branch(n, seed, len(s.base.Choices)+r.DMax)
			rec.Leaves++
			// The walk goes on from seq's state rather than replaying it:
			// the division's (a snapshot, seeded) or the DFS's, which just
			// executed it.
			o := walkOptions{liveFrom: n + 1}
			switch {
			case t.seeded:
				o.from = s.snapAt(w, seq, false)
			case !r.Replay && w.step == n:
				o.here = true
			}
			res := w.walk(p, o)
			walks++
			walkSteps += int64(res.steps)
			if res.err != nil {
				return nil, false, res.err
			}
			if v := s.violation(res, p, depth); v != nil {
				return v, true, nil
			}
			return nil, r.RandomWalks > 0 && rec.Leaves >= r.RandomWalks, nil
		}
		cut := func(seq []int) {
			if r.visit != nil {
				rec.visits = append(rec.visits, seqVisit{slices.Clone(seq), endDuplicate})
			}
		}
		var v *Violation
		var err error
		if t.seeded {
			// The division ran this sequence, checking and hashing its
			// states: only its walk is left.
			if fps != nil {
				for _, fp := range t.fps {
					fps.add(fp, fpPos(g, local))
					local++
				}
			}
			v, _, err = leaf(t.prefix, t.end)
			rec.Stats = Stats{Paths: 1, States: t.states, Steps: t.steps + walkSteps, Walks: walks}
			rec.Bound, rec.local = t.end == endDepth, local
		} else {
			v, err = d.run(ctx, leaf, cut)
			rec.Stats = d.st
			rec.Stats.States += t.states
			rec.Stats.Walks, rec.Stats.Steps = walks, d.st.Steps+walkSteps+t.steps
			rec.Bound, rec.AnyLive, rec.DeadEnd, rec.local = d.bound, d.anyLive, d.deadEnd, local
			collision = tlcCollision(d.fresh, d.lookups)
		}
		if err != nil {
			rec.err = err
			return rec
		}
		if v != nil {
			rec.Violation = v
			rec.Stats.Collision = collision
			rec.done = true
			return rec
		}
	}
	c := &t.cuts
	rec.Stats.add(c.st)
	rec.Stats.Collision = collision + c.collision
	rec.AnyLive = rec.AnyLive || c.anyLive
	if rec.DeadEnd == nil {
		rec.DeadEnd = c.deadEnd
	}
	rec.visits = append(rec.visits, c.visits...)
	if fps != nil {
		for j, fp := range c.fps {
			fps.add(fp, fpPos(g, cutBase+j))
		}
	}
	rec.done = true
	return rec
}

// leafSeed is the seed of the random walk from the leaf-th leaf of prefix
// index of the iteration with bound depth: a function of the task alone,
// so that walks do not depend on the order in which tasks run.
func leafSeed(seed uint64, depth, index, leaf int) uint64 {
	return splitmix64(seed ^ splitmix64(uint64(depth)<<48^uint64(index)<<24^uint64(leaf)^0x2545f4914f6cdd1d))
}

// runTasks runs tasks[idx[i]], the tasks of an iteration's division from
// index off on (gidx gives their global index), on the workers, in parallel: each worker takes the next task not yet taken
// (tasks are taken in index order, so idle workers always get work) and
// no task beyond the first one found violating. The results are in index
// order; those after the first violation or an interruption may be
// missing (done false).
func (s *searcher) runTasks(ctx context.Context, tasks []*task, idx []int, off, depth, split int, gidx func(i int) int, fps *fpSet) ([]*PrefixResult, error) {
	out, _, err := parallel(ctx, s.workers, len(idx), func(w *world, i int) *PrefixResult {
		return s.runTask(ctx, w, tasks[idx[i]], depth, split, off+idx[i], gidx(off+idx[i]), fps)
	}, func(r *PrefixResult) bool { return r.Violation != nil || r.err != nil })
	for _, r := range out {
		if r != nil && r.err != nil && ctx.Err() == nil {
			return out, r.err
		}
	}
	return out, err
}

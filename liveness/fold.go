package liveness

// fold puts the prefix tasks' results together in task order, as the
// sequential search would have met them: the first violation in that
// order, the statistics up to it, the iteration's end. The unsharded
// search and the merge of a sharded one use it alike.
type fold struct {
	r     *resolved
	stats Stats
	// leaves counts the DFS sequences from which a walk ran (RandomWalks).
	leaves int
	// The current iteration.
	bound, anyLive bool
	deadEnd        *Violation
}

// begin starts the iteration with bound depth, divided at split.
func (f *fold) begin(depth, split int) {
	f.stats.Depth, f.stats.Split = depth, split
	f.bound, f.anyLive, f.deadEnd = false, false, nil
}

// add folds the next task's result; a non-empty end ends the search (with
// v for "violation").
func (f *fold) add(rec *PrefixResult) (v *Violation, end string) {
	if f.r.visit != nil {
		for _, vi := range rec.visits {
			f.r.visit(vi.seq, vi.end)
		}
	}
	f.stats.add(rec.Stats)
	f.stats.Prefixes++
	if rec.Violation != nil {
		return rec.Violation, "violation"
	}
	f.leaves += rec.Leaves
	f.bound = f.bound || rec.Bound
	f.anyLive = f.anyLive || rec.AnyLive
	if f.deadEnd == nil {
		f.deadEnd = rec.DeadEnd
	}
	if f.r.RandomWalks > 0 && f.leaves >= f.r.RandomWalks {
		return nil, "walk-budget"
	}
	return nil, ""
}

// finish ends the iteration: "exhausted" when no sequence reached the
// bound (the whole state space was searched), with a violation if no
// state reached was live.
func (f *fold) finish() (v *Violation, end string) {
	f.stats.DepthDone = f.stats.Depth
	if f.bound {
		return nil, ""
	}
	if !f.r.NoHashing && !f.anyLive && f.deadEnd != nil {
		return f.deadEnd, "violation"
	}
	return nil, "exhausted"
}

func (s *Stats) add(o Stats) {
	s.Paths += o.Paths
	s.States += o.States
	s.Duplicates += o.Duplicates
	s.Walks += o.Walks
	s.Steps += o.Steps
	s.Collision += o.Collision
}

func (s Stats) minus(o Stats) Stats {
	return Stats{Paths: s.Paths - o.Paths, States: s.States - o.States, Duplicates: s.Duplicates - o.Duplicates, Walks: s.Walks - o.Walks, Steps: s.Steps - o.Steps}
}

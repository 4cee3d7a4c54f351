package liveness

// prefixCache is a world's snapshots along the last choice sequence it
// reached (searcher.snapAt): snaps[k] is the state after the search's base
// and seq[:k]. The level division expands its frontier, and the workers
// walk from their tasks' sequences, in DFS order, so consecutive sequences
// share most of their prefix: the next one restores the snapshot at the
// longest common prefix and executes only the steps after it, instead of
// replaying its whole sequence from the initial state.
type prefixCache struct {
	owner *searcher // the search whose base the snapshots extend
	off   bool      // the services cannot be copied: replay
	seq   []int
	snaps []*worldSnap
}

// snapAt is a snapshot of the state after the base and seq, from w's
// cache (extended by the steps it lacks), or nil if the search replays
// (Config.Replay, services without Clone) or a step on the way panicked:
// the caller then replays, and meets whatever ended the sequence itself.
// With prime, the snapshot's nodes have what hashing needs computed
// (world.primeState). It leaves w in an unspecified state. seq must be a
// sequence the search executed without a violation before its last step.
func (s *searcher) snapAt(w *world, seq []int, prime bool) *worldSnap {
	pc := &w.prefix
	if pc.owner != s {
		*pc = prefixCache{owner: s}
	}
	if pc.off || s.r.Replay {
		return nil
	}
	k := 0
	for k < len(seq) && k < len(pc.seq) && k+1 < len(pc.snaps) && seq[k] == pc.seq[k] {
		k++
	}
	if k == len(seq) && k < len(pc.snaps) && (!prime || pc.snaps[k].primed) {
		return pc.snaps[k]
	}
	if k < len(pc.snaps) {
		w.restore(pc.snaps[k])
		w.segs = s.base.Segments
	} else {
		s.replaySeq(w, nil)
		sn := w.snapshot(false)
		if sn == nil {
			pc.off = !w.cloners()
			return nil
		}
		pc.seq, pc.snaps = pc.seq[:0], append(pc.snaps[:0], sn)
	}
	pc.seq, pc.snaps = append(pc.seq[:k], seq[k:]...), pc.snaps[:k+1]
	for j := k; j < len(seq); j++ {
		w.seedStep()
		w.execChoice(w.enabled(), seq[j])
		sn := w.snapshot(prime && j == len(seq)-1)
		if sn == nil {
			pc.seq, pc.snaps = pc.seq[:j], pc.snaps[:j+1]
			return nil
		}
		pc.snaps = append(pc.snaps, sn)
	}
	if prime && k == len(seq) {
		// The cached snapshot was not primed: a primed one in its place.
		sn := w.snapshot(true)
		if sn == nil {
			return nil
		}
		pc.snaps[k] = sn
	}
	return pc.snaps[len(seq)]
}

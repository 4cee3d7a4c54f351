package liveness

import (
	"sync"
)

// fpShards is the number of lock stripes of an fpSet.
const fpShards = 64

// fpSet is the search's concurrent set of visited-state fingerprints
// (xxhash of the canonical state, world.hash), striped over fpShards
// mutex-guarded maps by the fingerprint's top bits. Each fingerprint keeps
// the smallest search position that reached it (the prefix task's global
// index and the state's order in it), so that the number of distinct
// states up to any position is the same whatever the order in which the
// workers inserted them: every task before the position is complete, and
// the tasks after it only add larger positions.
type fpSet struct {
	shards [fpShards]struct {
		mu sync.Mutex
		m  map[uint64]uint64
	}
}

func newFPSet() *fpSet {
	s := &fpSet{}
	for i := range s.shards {
		s.shards[i].m = map[uint64]uint64{}
	}
	return s
}

// add records fingerprint fp at position pos (keeping the smallest).
func (s *fpSet) add(fp, pos uint64) {
	sh := &s.shards[fp>>58]
	sh.mu.Lock()
	if old, ok := sh.m[fp]; !ok || pos < old {
		sh.m[fp] = pos
	}
	sh.mu.Unlock()
}

// countBelow is the number of fingerprints first reached before pos.
func (s *fpSet) countBelow(pos uint64) int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, p := range sh.m {
			if p < pos {
				n++
			}
		}
		sh.mu.Unlock()
	}
	return n
}

// fpPos is the position of the local-th state of task (global index) g;
// a task's cut paths come after its own states (local >= 1<<31).
func fpPos(g int, local int) uint64 { return uint64(g)<<32 | uint64(uint32(local)) }

// cutBase is the first local position of a task's cut paths.
const cutBase = 1 << 31

// tlcCollision is TLC's estimate of the probability that a visited set
// of n distinct 64-bit fingerprints, looked up t times, wrongly took a new
// state for a visited one: each of the t−n lookups that found a
// fingerprint could have matched one of the n by chance, n·(t−n)/2^64.
func tlcCollision(n, t int64) float64 {
	if t <= n {
		return 0
	}
	return float64(n) * float64(t-n) / (1 << 64)
}

package liveness

import (
	"sync"
	"sync/atomic"
)

// fpTable is a flat open-addressing hash table from 64-bit state
// fingerprints (xxhash, world.hash) to a 64-bit value, with linear
// probing: two parallel arrays of 8-byte words, no per-entry allocation
// or pointer for the garbage collector to follow, 16 bytes a slot and at
// most 3/4 of the slots used. Fingerprints are already uniform, so the
// slot is the fingerprint's low bits. Key 0 marks an empty slot; the
// fingerprint 0 is kept apart (hasZero). It is not safe for concurrent
// use (fpSet stripes it).
type fpTable struct {
	keys, vals []uint64
	n          int // fingerprints held, 0 included
	hasZero    bool
	zero       uint64
}

// fpSlotBytes is the size of one slot of an fpTable.
const fpSlotBytes = 16

// fpMinSlots is the size of a table's first allocation.
const fpMinSlots = 64

// get is fp's value, and whether fp is in t.
func (t *fpTable) get(fp uint64) (uint64, bool) {
	if fp == 0 {
		return t.zero, t.hasZero
	}
	if len(t.keys) == 0 {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case fp:
			return t.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// slot is the slot of fp (fp != 0): where it is, or the empty slot where
// it goes. The table has room (len(keys) > n).
func (t *fpTable) slot(fp uint64) int {
	mask := uint64(len(t.keys) - 1)
	i := fp & mask
	for t.keys[i] != fp && t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	return int(i)
}

// put sets fp's value to v if fp is absent, or if keep(old, v) says to
// replace its value old; it returns the bytes the table grew by.
func (t *fpTable) put(fp, v uint64, replace func(old, v uint64) bool) (grew int64) {
	if fp == 0 {
		if !t.hasZero {
			t.hasZero, t.zero = true, v
			t.n++
		} else if replace(t.zero, v) {
			t.zero = v
		}
		return 0
	}
	if 4*(t.n+1) > 3*len(t.keys) {
		grew = t.grow()
	}
	i := t.slot(fp)
	if t.keys[i] == 0 {
		t.keys[i], t.vals[i] = fp, v
		t.n++
	} else if replace(t.vals[i], v) {
		t.vals[i] = v
	}
	return grew
}

// grow doubles the table (or makes its first one) and rehashes it.
func (t *fpTable) grow() int64 {
	oldK, oldV := t.keys, t.vals
	size := max(2*len(oldK), fpMinSlots)
	t.keys, t.vals = make([]uint64, size), make([]uint64, size)
	for i, k := range oldK {
		if k != 0 {
			j := t.slot(k)
			t.keys[j], t.vals[j] = k, oldV[i]
		}
	}
	return int64(size-len(oldK)) * fpSlotBytes
}

// bytes is the table's memory.
func (t *fpTable) bytes() int64 { return int64(len(t.keys)) * fpSlotBytes }

// each calls f with every fingerprint and its value.
func (t *fpTable) each(f func(fp, v uint64)) {
	if t.hasZero {
		f(0, t.zero)
	}
	for i, k := range t.keys {
		if k != 0 {
			f(k, t.vals[i])
		}
	}
}

// keepMin keeps the smaller value; keepLast the newer one.
func keepMin(old, v uint64) bool  { return v < old }
func keepLast(old, v uint64) bool { return true }

// fpShards is the number of lock stripes of an fpSet.
const fpShards = 64

// fpSet is the search's concurrent set of visited-state fingerprints
// (xxhash of the canonical state, world.hash), striped over fpShards
// mutex-guarded flat tables (fpTable) by the fingerprint's top bits. Each
// fingerprint keeps the smallest search position that reached it (the
// prefix task's global index and the state's order in it), so that the
// number of distinct states up to any position is the same whatever the
// order in which the workers inserted them: every task before the
// position is complete, and the tasks after it only add larger positions.
type fpSet struct {
	shards [fpShards]struct {
		mu sync.Mutex
		t  fpTable
	}
	size atomic.Int64 // bytes of all the tables
}

func newFPSet() *fpSet { return &fpSet{} }

// add records fingerprint fp at position pos (keeping the smallest).
func (s *fpSet) add(fp, pos uint64) {
	sh := &s.shards[fp>>58]
	sh.mu.Lock()
	grew := sh.t.put(fp, pos, keepMin)
	sh.mu.Unlock()
	if grew != 0 {
		s.size.Add(grew)
	}
}

// get is fingerprint fp's smallest position (0 if absent).
func (s *fpSet) get(fp uint64) uint64 {
	sh := &s.shards[fp>>58]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	v, _ := sh.t.get(fp)
	return v
}

// len is the number of fingerprints in the set.
func (s *fpSet) len() int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += int64(sh.t.n)
		sh.mu.Unlock()
	}
	return n
}

// bytes is the memory of the set's tables.
func (s *fpSet) bytes() int64 { return s.size.Load() }

// countBelow is the number of fingerprints first reached before pos.
func (s *fpSet) countBelow(pos uint64) int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.t.each(func(_, p uint64) {
			if p < pos {
				n++
			}
		})
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

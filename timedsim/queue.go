package timedsim

import (
	"sort"
	"time"
)

// entry is one pending event in the queue, 16 bytes so that the four
// children of a 4-ary heap node share a cache line: the start time, and
// key = class | counter << slotBits | slot. Entries are ordered by
// (at, key); counters are unique within a class, so slot bits never decide.
//
// Classes, in the order they run at the same instant:
//   - first (00): a reset node's Init, which must precede anything else
//     the fresh service sees;
//   - waiting (01): an event that found its node busy, with the re-queue
//     counter it got on arrival. Only the first waiting event of a node is
//     in the heap (at the node's clock); the others wait in the node's
//     list and enter the heap one at a time as the node runs them. A busy
//     node therefore handles its events in arrival order (FIFO per
//     connection holds, and a zero-delay timer cannot starve a waiting
//     message), and at one instant waiting events of different nodes run
//     in the order they arrived;
//   - normal (1x): everything else, with the insertion counter.
type entry struct {
	at  time.Duration
	key uint64
}

const (
	firstClass   = 0
	waitingClass = 1 << 62
	normalClass  = 1 << 63
	slotBits     = 24
	slotMask     = 1<<slotBits - 1
	// maxSlots bounds the number of pending events of one execution.
	maxSlots = 1 << slotBits
	// maxCount bounds each class's counter (38 bits).
	maxCount = 1<<(62-slotBits) - 1
)

// key builds an entry key; it panics before a counter could spill into
// the class bits.
func key(class, count uint64, slot int32) uint64 {
	if count > maxCount {
		panic("timedsim: more than 2^38 queue operations in one execution")
	}
	return class | count<<slotBits | uint64(slot)
}

func (e *entry) slot() int32 { return int32(e.key & slotMask) }

func (a *entry) less(b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// queue is a 4-ary min-heap of entries specialised for the simulator: no
// interface boxing, and every move writes the entry's position back into
// its record (pos) so that a timer can be cancelled in O(log n).
//
// Ties are broken by the insertion counter seq, never by heap layout, so
// the pop order is a pure function of the push sequence.
type queue struct {
	h    []entry
	pos  []int32 // pos[slot] = index in h, or -1
	seq  uint64  // insertion counter
	rseq uint64  // re-queue counter
	fseq uint64  // first-class counter
	// held: the front entry was taken but is still physically at h[0];
	// the next push overwrites it (one sift-down instead of a sift-down
	// for the pop and a sift-up for the push: most events schedule one
	// more), and settle removes it if nothing was pushed.
	held bool
}

func (q *queue) reset() {
	q.h = q.h[:0]
	q.seq, q.rseq, q.fseq = 0, 0, 0
	q.held = false
}

// take returns the front entry and marks it held. While it is held the
// caller may remove other entries and push; it must call settle before
// looking at the queue again.
func (q *queue) take() entry {
	q.held = true
	return q.h[0]
}

// requeue puts the held front back at time at (its node's clock) in the
// re-queued class (see entry).
func (q *queue) requeue(at time.Duration) {
	q.held = false
	q.rseq++
	q.h[0] = entry{at: at, key: key(waitingClass, q.rseq, q.h[0].slot())}
	q.down(0)
}

// nextWaitSeq hands out a re-queue counter to an event joining a busy
// node's wait list.
func (q *queue) nextWaitSeq() uint64 {
	q.rseq++
	return q.rseq
}

// pushWaiting inserts slot at time at in the waiting class with the
// counter seq it got on arrival (a busy node's next event, promoted from
// its wait list).
func (q *queue) pushWaiting(at time.Duration, slot int32, seq uint64) {
	q.settle()
	q.h = append(q.h, entry{at: at, key: key(waitingClass, seq, slot)})
	i := len(q.h) - 1
	q.setPos(slot, i)
	q.up(i)
}

// pushFirst inserts slot at time at ahead of every other event at that
// time (a reset node's Init). It must not be called while the front is
// held.
func (q *queue) pushFirst(at time.Duration, slot int32) {
	q.fseq++
	q.h = append(q.h, entry{at: at, key: key(firstClass, q.fseq, slot)})
	i := len(q.h) - 1
	q.setPos(slot, i)
	q.up(i)
}

// rewait moves the waiting entries whose slots satisfy match to time at, in
// their current order, with fresh re-queue counters (a reset node's
// waiting events: its clock went back to the reset time). O(queue length).
func (q *queue) rewait(at time.Duration, match func(slot int32) bool) {
	var w []entry
	for _, e := range q.h {
		if e.key&(3<<62) == waitingClass && match(e.slot()) {
			w = append(w, e)
		}
	}
	sort.Slice(w, func(i, j int) bool { return w[i].less(&w[j]) })
	for _, e := range w {
		q.rseq++
		i := q.pos[e.slot()]
		q.h[i] = entry{at: at, key: key(waitingClass, q.rseq, e.slot())}
		if !q.down(int(i)) {
			q.up(int(i))
		}
	}
}

// settle finishes a take after which nothing was pushed.
func (q *queue) settle() {
	if q.held {
		q.held = false
		q.removeAt(0)
	}
}

func (q *queue) len() int { return len(q.h) }

func (q *queue) setPos(slot int32, i int) {
	for int(slot) >= len(q.pos) {
		q.pos = append(q.pos, -1)
	}
	q.pos[slot] = int32(i)
}

// push inserts slot at time at.
func (q *queue) push(at time.Duration, slot int32) {
	q.seq++
	if q.held {
		q.held = false
		q.pos[q.h[0].slot()] = -1
		q.h[0] = entry{at: at, key: key(normalClass, q.seq, slot)}
		q.setPos(slot, 0)
		q.down(0)
		return
	}
	q.h = append(q.h, entry{at: at, key: key(normalClass, q.seq, slot)})
	i := len(q.h) - 1
	q.setPos(slot, i)
	q.up(i)
}

// remove deletes slot from the queue if it is queued.
func (q *queue) remove(slot int32) bool {
	if int(slot) >= len(q.pos) {
		return false
	}
	i := q.pos[slot]
	if i < 0 {
		return false
	}
	q.removeAt(int(i))
	return true
}

func (q *queue) removeAt(i int) {
	last := len(q.h) - 1
	q.pos[q.h[i].slot()] = -1
	if i != last {
		q.h[i] = q.h[last]
		q.pos[q.h[i].slot()] = int32(i)
	}
	q.h = q.h[:last]
	if i < last {
		if !q.down(i) {
			q.up(i)
		}
	}
}

func (q *queue) up(i int) {
	h := q.h
	e := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		q.pos[h[i].slot()] = int32(i)
		i = p
	}
	h[i] = e
	q.pos[e.slot()] = int32(i)
}

// down sifts i down and reports whether it moved. A node with all four
// children picks the least of them in a tournament of three comparisons,
// on an array pointer (no bounds checks): the event queue's sift-down was
// the simulator's largest cost. Entries are never equal (keys are
// unique), so the least child is the same whichever way it is found.
func (q *queue) down(i int) bool {
	h := q.h
	n := len(h)
	e := h[i]
	start := i
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		if c+4 <= n {
			k := (*[4]entry)(h[c : c+4])
			a, b := 0, 2
			if k[1].less(&k[0]) {
				a = 1
			}
			if k[3].less(&k[2]) {
				b = 3
			}
			if k[b].less(&k[a]) {
				a = b
			}
			m += a
		} else {
			for j := c + 1; j < n; j++ {
				if h[j].less(&h[m]) {
					m = j
				}
			}
		}
		if !h[m].less(&e) {
			break
		}
		h[i] = h[m]
		q.pos[h[i].slot()] = int32(i)
		i = m
	}
	h[i] = e
	q.pos[e.slot()] = int32(i)
	return i != start
}

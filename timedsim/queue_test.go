package timedsim

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
	"unsafe"
)

// The 4-ary heap against a deliberately naive reference: a slice sorted by
// (at, seq) on every pop. Random pushes, pops and removals (timer cancels).
func TestQueueMatchesNaiveReference(t *testing.T) {
	seed := uint64(20261122)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	// The reference order: (at, class, counter), class -1 for pushFirst
	// (its counter), 0 for re-queued entries (re-queue counter), 1 for
	// pushed ones (insertion counter).
	type ref struct {
		at   time.Duration
		cls  int
		seq  uint64
		slot int32
	}
	sortRef := func(naive []ref) {
		sort.Slice(naive, func(i, j int) bool {
			a, b := naive[i], naive[j]
			if a.at != b.at {
				return a.at < b.at
			}
			if a.cls != b.cls {
				return a.cls < b.cls
			}
			return a.seq < b.seq
		})
	}
	for round := 0; round < 50; round++ {
		var q queue
		var naive []ref
		var seq, rseq, fseq uint64
		live := map[int32]bool{}
		next := int32(0)
		for op := 0; op < 2000; op++ {
			switch k := r.IntN(14); {
			case k == 13:
				// a reset node's Init: ahead of everything at its time.
				at := time.Duration(r.IntN(50))
				q.pushFirst(at, next)
				fseq++
				naive = append(naive, ref{at, -1, fseq, next})
				next++
			case k == 12 && len(naive) > 0:
				// take the front and requeue it later with its original key.
				sortRef(naive)
				got := q.take()
				if got.slot() != naive[0].slot {
					t.Fatalf("take %+v, want %+v", got, naive[0])
				}
				naive[0].at += time.Duration(r.IntN(20))
				rseq++
				naive[0].cls, naive[0].seq = 0, rseq
				q.requeue(naive[0].at)
			case k >= 10 && len(naive) > 0:
				// take the front, then either push (which replaces it) or settle.
				sortRef(naive)
				want := naive[0]
				naive = naive[1:]
				got := q.take()
				if got.slot() != want.slot {
					t.Fatalf("round %d op %d: take %+v, want %+v", round, op, got, want)
				}
				// While the front is held the simulator cancels timers:
				// remove another entry first, sometimes.
				if len(naive) > 0 && r.IntN(2) == 0 {
					i := r.IntN(len(naive))
					if !q.remove(naive[i].slot) {
						t.Fatalf("remove while held failed")
					}
					naive = append(naive[:i], naive[i+1:]...)
				}
				if k == 10 {
					at := want.at + time.Duration(r.IntN(50))
					q.push(at, next)
					seq++
					naive = append(naive, ref{at, 1, seq, next})
					next++
				} else {
					q.settle()
				}
			case k < 5 || len(naive) == 0:
				at := time.Duration(r.IntN(50)) // many ties
				q.push(at, next)
				seq++
				naive = append(naive, ref{at, 1, seq, next})
				live[next] = true
				next++
			case k < 8:
				sortRef(naive)
				want := naive[0]
				naive = naive[1:]
				got := q.take()
				q.settle()
				if got.slot() != want.slot || got.at != want.at {
					t.Fatalf("round %d op %d: pop %+v, want %+v", round, op, got, want)
				}
				delete(live, got.slot())
			default:
				i := r.IntN(len(naive))
				victim := naive[i]
				naive = append(naive[:i], naive[i+1:]...)
				if !q.remove(victim.slot) {
					t.Fatalf("remove of queued slot %d failed", victim.slot)
				}
				if q.remove(victim.slot) {
					t.Fatalf("second remove of slot %d succeeded", victim.slot)
				}
				delete(live, victim.slot)
			}
			if q.len() != len(naive) {
				t.Fatalf("len %d, want %d", q.len(), len(naive))
			}
		}
	}
}

// A node is two cache lines, the fields the loop reads at every event in
// the first.
func TestNode_HotHalf(t *testing.T) {
	if got := unsafe.Sizeof(node{}); got != 128 {
		t.Fatalf("node is %d bytes, want 128", got)
	}
	if off := unsafe.Offsetof(node{}.whead) + unsafe.Sizeof(node{}.whead); off > 64 {
		t.Fatalf("the hot fields end at byte %d, want at most 64", off)
	}
}

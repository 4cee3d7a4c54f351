package timedsim

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// The 4-ary heap against a deliberately naive reference: a slice sorted by
// (at, seq) on every pop. Random pushes, pops and removals (timer cancels).
func TestQueueMatchesNaiveReference(t *testing.T) {
	seed := uint64(20261122)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	type ref struct {
		at   time.Duration
		seq  uint64
		slot int32
	}
	for round := 0; round < 50; round++ {
		var q queue
		var naive []ref
		var seq uint64
		live := map[int32]bool{}
		next := int32(0)
		for op := 0; op < 2000; op++ {
			switch k := r.IntN(12); {
			case k >= 10 && len(naive) > 0:
				// take the front, then either push (which replaces it) or settle.
				sort.Slice(naive, func(i, j int) bool {
					return naive[i].at < naive[j].at || (naive[i].at == naive[j].at && naive[i].seq < naive[j].seq)
				})
				want := naive[0]
				naive = naive[1:]
				got := q.take()
				if got.slot() != want.slot {
					t.Fatalf("round %d op %d: take %+v, want %+v", round, op, got, want)
				}
				if k == 10 {
					at := want.at + time.Duration(r.IntN(50))
					q.push(at, next)
					seq++
					naive = append(naive, ref{at, seq, next})
					next++
				} else {
					q.settle()
				}
			case k < 5 || len(naive) == 0:
				at := time.Duration(r.IntN(50)) // many ties
				q.push(at, next)
				seq++
				naive = append(naive, ref{at, seq, next})
				live[next] = true
				next++
			case k < 8:
				sort.Slice(naive, func(i, j int) bool {
					return naive[i].at < naive[j].at || (naive[i].at == naive[j].at && naive[i].seq < naive[j].seq)
				})
				want := naive[0]
				naive = naive[1:]
				got := q.pop()
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

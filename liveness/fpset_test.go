package liveness

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestFPTableAgainstMap: the flat table against a Go map, the naive
// reference, over random fingerprints (0 included, and keys that share
// their low bits, so that probes run past each other and across the
// table's growth), with both replacement rules.
func TestFPTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rule := range []struct {
		name string
		f    func(old, v uint64) bool
	}{{"min", keepMin}, {"last", keepLast}} {
		var tb fpTable
		ref := map[uint64]uint64{}
		var grew int64
		for i := range 20000 {
			var fp uint64
			switch i % 4 {
			case 0:
				fp = rng.Uint64()
			case 1:
				fp = uint64(rng.IntN(64)) << 40 // the same low bits: one probe run
			case 2:
				fp = uint64(rng.IntN(300)) // small keys, 0 among them
			default:
				fp = rng.Uint64() | 1
			}
			v := rng.Uint64N(1000)
			grew += tb.put(fp, v, rule.f)
			if old, ok := ref[fp]; !ok || rule.f(old, v) {
				ref[fp] = v
			}
			if q := rng.Uint64(); i%7 == 0 {
				got, ok := tb.get(q)
				want, wok := ref[q]
				if ok != wok || got != want {
					t.Fatalf("%s: get(%#x) = %d, %v; want %d, %v", rule.name, q, got, ok, want, wok)
				}
			}
		}
		if tb.n != len(ref) {
			t.Fatalf("%s: %d fingerprints, want %d", rule.name, tb.n, len(ref))
		}
		if grew != tb.bytes() || 4*tb.n > 3*len(tb.keys) {
			t.Fatalf("%s: grew %d bytes, holds %d; %d of %d slots used", rule.name, grew, tb.bytes(), tb.n, len(tb.keys))
		}
		seen := 0
		tb.each(func(fp, v uint64) {
			seen++
			if want, ok := ref[fp]; !ok || want != v {
				t.Fatalf("%s: each gives %#x=%d, want %d (%v)", rule.name, fp, v, want, ok)
			}
		})
		if seen != len(ref) {
			t.Fatalf("%s: each gives %d fingerprints, want %d", rule.name, seen, len(ref))
		}
	}
}

// TestFPSetOrderFree: the concurrent set keeps every fingerprint's
// smallest position whatever the order of the adds (4 goroutines, each
// adding its share backwards), so countBelow is the same as one
// goroutine's.
func TestFPSetOrderFree(t *testing.T) {
	const n = 5000
	fps := make([]uint64, n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range fps {
		fps[i] = rng.Uint64N(n / 2) // about 2 adds a fingerprint
	}
	one, four := newFPSet(), newFPSet()
	for i, fp := range fps {
		one.add(fp, uint64(i))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := n - 1 - g; i >= 0; i -= 4 {
				four.add(fps[i], uint64(i))
			}
		})
	}
	wg.Wait()
	for _, pos := range []uint64{0, 1, 100, 2500, n} {
		if a, b := one.countBelow(pos), four.countBelow(pos); a != b {
			t.Fatalf("below %d: %d in order, %d concurrently", pos, a, b)
		}
	}
	if one.len() != four.len() || one.len() < n/4 {
		t.Fatalf("%d and %d fingerprints", one.len(), four.len())
	}
	for _, fp := range fps[:100] {
		if one.get(fp) != four.get(fp) {
			t.Fatalf("%#x at %d and %d", fp, one.get(fp), four.get(fp))
		}
	}
}

package divergence

import (
	"context"
	"fmt"
)

// Probe is one oracle call of Search.
type Probe struct {
	// Prefix is the number of replayed steps the oracle was asked about.
	Prefix int
	// Recovered is the oracle's answer.
	Recovered bool
}

// Oracle reports whether some continuation from the first prefix steps of
// an execution recovers. It must be monotone in prefix — true up to some
// D, false after — for Search to find D; see Search for what a
// non-monotone oracle gets.
type Oracle func(ctx context.Context, prefix int) (bool, error)

// SearchResult is the outcome of Search.
type SearchResult struct {
	// Last is the longest prefix (0..n) for which the oracle returned
	// true; -1 if it is false even for prefix 0. When Search returns an
	// error, Last is the longest prefix confirmed true so far (a lower
	// bound), -1 if none.
	Last int
	// Probes lists the oracle calls that returned, in call order; each
	// prefix appears at most once.
	Probes []Probe
}

// Search finds the longest prefix in 0..n for which recovers is true, with
// the exponential-then-binary search of the MacePC paper's Figure 3 (and of
// MaceMC's critical-transition search):
//
//  1. Probe prefixes 1, 2, 4, 8, … (the last one capped at n) while the
//     oracle says true. If it is true at n, Last = n.
//  2. If prefix 1 is already false, probe prefix 0: true gives Last = 0,
//     false gives Last = -1.
//  3. Otherwise binary-search the open interval between the last true and
//     the first false prefix.
//
// n = 0 probes prefix 0 alone. The oracle is never called twice for the
// same prefix, and at most 2·⌈log2(n+1)⌉+2 times in all.
//
// Whatever the oracle, the result satisfies: Last = -1 and prefix 0 was
// probed false; or Last = n and prefix n was probed true; or prefix Last
// was probed true and prefix Last+1 false. For a monotone oracle Last is
// therefore its exact boundary.
//
// Search checks ctx before each call. An error from the oracle, or ctx's
// error, is returned wrapped (errors.Is sees it) together with the probes
// done so far. Search panics if n < 0 or recovers is nil: those are caller
// bugs.
func Search(ctx context.Context, n int, recovers Oracle) (SearchResult, error) {
	if n < 0 {
		panic(fmt.Sprintf("divergence: Search over %d steps", n))
	}
	if recovers == nil {
		panic("divergence: Search with a nil oracle")
	}
	res := SearchResult{Last: -1}
	probe := func(p int) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("divergence: search interrupted before prefix %d: %w", p, err)
		}
		ok, err := recovers(ctx, p)
		if err != nil {
			return false, fmt.Errorf("divergence: prefix %d: %w", p, err)
		}
		res.Probes = append(res.Probes, Probe{Prefix: p, Recovered: ok})
		if ok && p > res.Last {
			res.Last = p
		}
		return ok, nil
	}

	// Exponential phase: lo is the longest prefix known true (-1: none
	// yet), hi the shortest known false; the loop either returns (true
	// all the way) or sets hi.
	lo, hi := -1, 0
	for p := min(1, n); ; p = min(2*p, n) {
		ok, err := probe(p)
		if err != nil {
			return res, err
		}
		if !ok {
			hi = p
			break
		}
		lo = p
		if p == n {
			return res, nil // true all the way: Last = n
		}
	}
	if lo < 0 {
		// Prefix min(1, n) is false; decide prefix 0 unless that was it.
		if hi > 0 {
			if _, err := probe(0); err != nil {
				return res, err
			}
		}
		return res, nil
	}

	// Binary phase: lo true, hi false, lo < hi.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := probe(mid)
		if err != nil {
			return res, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return res, nil
}

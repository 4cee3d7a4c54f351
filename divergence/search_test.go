package divergence

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// searchBound is the documented maximum number of oracle calls for n
// steps: 2·⌈log2(n+1)⌉+2.
func searchBound(n int) int {
	return 2*bits.Len(uint(n)) + 2 // bits.Len(n) = ⌈log2(n+1)⌉
}

// recordingOracle answers with answer(prefix) and fails the test if a
// prefix is out of range or asked twice.
type recordingOracle struct {
	t      *testing.T
	n      int
	answer func(prefix int) bool
	calls  []Probe
}

func (o *recordingOracle) call(_ context.Context, p int) (bool, error) {
	o.t.Helper()
	if p < 0 || p > o.n {
		o.t.Fatalf("oracle called with prefix %d outside [0,%d]", p, o.n)
	}
	for _, c := range o.calls {
		if c.Prefix == p {
			o.t.Fatalf("oracle called twice with prefix %d (calls %v)", p, o.calls)
		}
	}
	ok := o.answer(p)
	o.calls = append(o.calls, Probe{Prefix: p, Recovered: ok})
	return ok, nil
}

// boundaries returns the D values to test for n: all of -1..n for small n,
// otherwise a spread including -1, 0, 1, n-1, n, powers of two and their
// neighbours, and random values.
func boundaries(n int) []int {
	if n <= 100 {
		var ds []int
		for d := -1; d <= n; d++ {
			ds = append(ds, d)
		}
		return ds
	}
	ds := []int{-1, 0, 1, 2, 3, n / 3, n / 2, n - 2, n - 1, n}
	for p := 4; p < n; p *= 2 {
		ds = append(ds, p-1, p, p+1)
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	for range 20 {
		ds = append(ds, r.IntN(n+1))
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}

// TestSearchFigure3 checks the exponential+binary search of the paper's
// Figure 3 against monotone oracles "prefix <= D": the exact boundary,
// each prefix probed once, the call bound, and probes that report the
// oracle's answers in call order.
func TestSearchFigure3(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 8, 100, 1000, 20000} {
		maxCalls := 0
		for _, d := range boundaries(n) {
			o := &recordingOracle{t: t, n: n, answer: func(p int) bool { return p <= d }}
			res, err := Search(context.Background(), n, o.call)
			if err != nil {
				t.Fatalf("n=%d D=%d: %v", n, d, err)
			}
			if res.Last != d {
				t.Errorf("n=%d D=%d: Last = %d (probes %v)", n, d, res.Last, res.Probes)
			}
			if !slices.Equal(res.Probes, o.calls) {
				t.Errorf("n=%d D=%d: Probes %v, oracle calls %v", n, d, res.Probes, o.calls)
			}
			if len(o.calls) > searchBound(n) {
				t.Errorf("n=%d D=%d: %d oracle calls, bound %d (%v)", n, d, len(o.calls), searchBound(n), o.calls)
			}
			maxCalls = max(maxCalls, len(o.calls))
		}
		t.Logf("n=%d: at most %d calls (bound %d)", n, maxCalls, searchBound(n))
	}
}

// TestSearchExponentialPhase: the first probes are 1, 2, 4, … capped at n
// while the oracle says true, and a false prefix 1 leads to prefix 0.
func TestSearchExponentialPhase(t *testing.T) {
	cases := []struct {
		n, d int
		want []int
	}{
		{0, 0, []int{0}},
		{0, -1, []int{0}},
		{1, 1, []int{1}},
		{1, 0, []int{1, 0}},
		{1, -1, []int{1, 0}},
		{10, 10, []int{1, 2, 4, 8, 10}},
		{10, 9, []int{1, 2, 4, 8, 10, 9}},
		{10, 5, []int{1, 2, 4, 8, 6, 5}},
		{16, 16, []int{1, 2, 4, 8, 16}},
		{16, 0, []int{1, 0}},
		{16, 1, []int{1, 2}},
	}
	for _, c := range cases {
		o := &recordingOracle{t: t, n: c.n, answer: func(p int) bool { return p <= c.d }}
		res, err := Search(context.Background(), c.n, o.call)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, p := range res.Probes {
			got = append(got, p.Prefix)
		}
		if !slices.Equal(got, c.want) || res.Last != c.d {
			t.Errorf("n=%d D=%d: probes %v Last %d, want %v Last %d", c.n, c.d, got, res.Last, c.want, c.d)
		}
	}
}

// TestSearchNonMonotone: whatever the oracle answers, Search terminates
// within the bound, probes each prefix once, and returns a Last that the
// probes justify: prefix Last true and Last+1 false, or the ends.
func TestSearchNonMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := r.IntN(300)
		if trial%10 == 0 {
			n = r.IntN(5)
		}
		answers := make([]bool, n+1)
		for i := range answers {
			answers[i] = r.IntN(2) == 0
		}
		o := &recordingOracle{t: t, n: n, answer: func(p int) bool { return answers[p] }}
		res, err := Search(context.Background(), n, o.call)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.calls) > searchBound(n) {
			t.Fatalf("n=%d: %d calls, bound %d", n, len(o.calls), searchBound(n))
		}
		probed := func(p int) (ok, found bool) {
			for _, c := range res.Probes {
				if c.Prefix == p {
					return c.Recovered, true
				}
			}
			return false, false
		}
		switch {
		case res.Last == -1:
			if ok, found := probed(0); !found || ok {
				t.Fatalf("n=%d answers %v: Last -1 but prefix 0 not probed false (%v)", n, answers, res.Probes)
			}
		case res.Last == n:
			if ok, found := probed(n); !found || !ok {
				t.Fatalf("n=%d answers %v: Last n but prefix n not probed true (%v)", n, answers, res.Probes)
			}
		case res.Last < -1 || res.Last > n:
			t.Fatalf("n=%d: Last %d out of range", n, res.Last)
		default:
			ok, found := probed(res.Last)
			ok1, found1 := probed(res.Last + 1)
			if !found || !ok || !found1 || ok1 {
				t.Fatalf("n=%d answers %v: Last %d not justified by probes %v", n, answers, res.Last, res.Probes)
			}
		}
	}
}

// TestSearchOracleError: an oracle error stops the search at once and is
// returned wrapped, with the probes done before it and the best prefix
// known so far.
func TestSearchOracleError(t *testing.T) {
	errBoom := errors.New("boom")
	const n, d = 1000, 300
	full, err := Search(context.Background(), n, func(_ context.Context, p int) (bool, error) { return p <= d, nil })
	if err != nil {
		t.Fatal(err)
	}
	for failAt := 0; failAt <= len(full.Probes); failAt++ {
		var calls int
		var last []int
		oracle := func(_ context.Context, p int) (bool, error) {
			calls++
			if calls == failAt+1 {
				return false, errBoom
			}
			last = append(last, p)
			return p <= d, nil
		}
		res, err := Search(context.Background(), n, oracle)
		if failAt == len(full.Probes) { // the search is over before the failing call
			if err != nil || res.Last != d || calls != failAt {
				t.Fatalf("failAt %d: Last %d err %v", failAt, res.Last, err)
			}
			continue
		}
		if !errors.Is(err, errBoom) || !strings.HasPrefix(err.Error(), "divergence: ") {
			t.Fatalf("failAt %d: err %v", failAt, err)
		}
		if calls != failAt+1 || len(res.Probes) != failAt {
			t.Fatalf("failAt %d: %d calls, %d probes", failAt, calls, len(res.Probes))
		}
		want := -1
		for i, p := range res.Probes {
			if p.Prefix != last[i] {
				t.Fatalf("failAt %d: probe %d is %d, oracle saw %d", failAt, i, p.Prefix, last[i])
			}
			if p.Recovered {
				want = max(want, p.Prefix)
			}
		}
		if res.Last != want {
			t.Errorf("failAt %d: Last %d, longest recovered probe %d", failAt, res.Last, want)
		}
	}
}

// TestSearchCancel: a cancelled context stops the search before the next
// oracle call, and its error is returned.
func TestSearchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	oracle := func(_ context.Context, p int) (bool, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return p <= 50, nil
	}
	res, err := Search(ctx, 100, oracle)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "divergence: ") {
		t.Fatalf("err %v", err)
	}
	if calls != 3 || len(res.Probes) != 3 || res.Last != 4 {
		t.Fatalf("%d calls, probes %v, Last %d", calls, res.Probes, res.Last)
	}

	// An oracle that notices the cancellation itself.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	res, err = Search(ctx2, 100, func(ctx context.Context, _ int) (bool, error) { return false, ctx.Err() })
	if !errors.Is(err, context.Canceled) || len(res.Probes) != 0 || res.Last != -1 {
		t.Fatalf("pre-cancelled: probes %v Last %d err %v", res.Probes, res.Last, err)
	}
}

// TestSearchPanics: caller bugs panic with the package prefix.
func TestSearchPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative n": func() {
			Search(context.Background(), -1, func(context.Context, int) (bool, error) { return true, nil })
		},
		"nil oracle": func() { Search(context.Background(), 5, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s := fmt.Sprint(r); r == nil || !strings.HasPrefix(s, "divergence: ") {
					t.Errorf("recovered %v, want a divergence panic", r)
				}
			}()
			f()
		})
	}
}

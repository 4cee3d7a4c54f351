package liveness

import (
	"context"
	"fmt"
	"slices"

	"github.com/macepc/macepc/divergence"
)

// FindCritical isolates the critical transition of a dead path
// (Algorithm 3 of the MaceMC paper, FindCriticalTransition): the prefix
// search of divergence.Search over prefixes 0..dead.Steps, whose oracle
// for prefix p runs up to Config.Walks random walks of Config.DMax steps
// from the state after the first p steps of dead and says whether one
// reaches a live state (the state after p steps counts). See Critical for
// the classification. cfg must describe the scenario and settings the
// dead path was found with.
func FindCritical(ctx context.Context, cfg Config, dead Path) (*Critical, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := dead.Validate(); err != nil {
		return nil, err
	}
	s, err := newSearcher(r, dead.Driver)
	if err != nil {
		return nil, err
	}
	return s.critical(ctx, dead)
}

// critical runs FindCritical's search. MaceMC's walks from prefix p run to
// the absolute depth dmax, which starves late prefixes of steps; this is
// why its exponential phase gives up (C2) past dmax/2. Here every walk gets
// DMax steps past its prefix, so the only inconclusive outcomes are the
// two ends: no walk becomes live even from the initial state, or walks
// become live from the end of the dead path (it was slow, not dead).
//
// The walks of a probe at prefix p fork from a snapshot of the dead
// path's state after p steps where the services can be copied
// (Critical.WalksFrom), else each replays those steps: the same walks,
// the same results.
func (s *searcher) critical(ctx context.Context, dead Path) (*Critical, error) {
	r := s.r
	c := &Critical{Dead: dead, Probes: []Probe{}}
	type live struct {
		path Path
		at   int
	}
	lives := map[int]live{}
	c.WalksFrom = WalksSnapshot
	if r.Replay {
		c.WalksFrom = WalksReplay
	}
	oracle := func(ctx context.Context, p int) (bool, error) {
		// The probe's walks share the dead path's first p steps: run
		// once, they fork from a snapshot of their state.
		var snap *worldSnap
		if c.WalksFrom == WalksSnapshot {
			w := s.workers[0]
			snap = w.forkPrefix(dead, p)
			switch {
			case snap != nil:
			case !w.cloners():
				c.WalksFrom = WalksReplay // and so for every probe
			default:
				c.Replayed++
			}
		}
		res, cut, err := parallel(ctx, s.workers, r.Walks, func(w *world, j int) walkResult {
			path := dead.Branch(p, WalkSeed(r.Seed, p, j), p+r.DMax)
			return w.walk(path, walkOptions{liveFrom: p, from: snap})
		}, func(res walkResult) bool { return res.live || res.err != nil })
		if err != nil {
			return false, err
		}
		if cut > 0 && res[cut-1].err != nil {
			return false, res[cut-1].err
		}
		pr := Probe{Prefix: p, Walks: cut}
		if cut > 0 && res[cut-1].live {
			pr.Recovered = true
			lives[p] = live{dead.Branch(p, WalkSeed(r.Seed, p, cut-1), res[cut-1].liveAt), res[cut-1].liveAt}
		}
		c.Probes = append(c.Probes, pr)
		c.Walks += cut
		return pr.Recovered, nil
	}
	sr, err := divergence.Search(ctx, dead.Steps, oracle)
	if err != nil {
		return c, fmt.Errorf("liveness: critical transition: %w", err)
	}
	c.Step = sr.Last
	switch {
	case sr.Last < 0:
		c.Class = C2
		c.Reason = fmt.Sprintf("no random walk of %d steps reaches a live state even from the initial state: raise dmax (or the initial state is dead)", r.DMax)
	case sr.Last >= dead.Steps:
		c.Class = C2
		c.Reason = fmt.Sprintf("random walks from the end of the dead path reach a live state within %d steps: the path was slow, not dead; raise dmax", r.DMax)
		l := lives[sr.Last]
		c.Live = &l.path
	default:
		c.Class = C1
		l := lives[sr.Last]
		c.Live = &l.path
		c.DeadEvent, c.LiveEvent, c.Diff, err = s.diffAt(dead, l.path, sr.Last, l.at)
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// diffAt replays both paths through step `step` and returns their events
// at that step and the nodes whose canonical state then differs. When the
// live path was already live before step `step` (liveAt <= step), there is
// no live alternative to that step: the diff is then of the states before
// (live) and after (dead) the critical event.
func (s *searcher) diffAt(dead, live Path, step, liveAt int) (deadEv, liveEv string, diff []NodeDiff, err error) {
	run := func(w *world, p Path, steps int) (string, error) {
		var ev string
		p.Steps = steps
		res := w.walk(p, walkOptions{liveFrom: -1, onEvent: func(i int, desc string, _, _ int) {
			if i == step {
				ev = desc
			}
		}})
		if res.err != nil {
			return "", res.err
		}
		return ev, nil
	}
	wd, wl := s.workers[0], newWorld(s.r.set, s.drv)
	if deadEv, err = run(wd, dead, step+1); err != nil {
		return
	}
	if liveAt <= step {
		if _, err = run(wl, live, step); err != nil {
			return
		}
		liveEv = "none: the state before this step is live"
	} else if liveEv, err = run(wl, live, step+1); err != nil {
		return
	}
	for i := range wd.nodes {
		a, b := wd.nodeText(i), wl.nodeText(i)
		if !slices.Equal(a, b) {
			diff = append(diff, NodeDiff{Node: i, Lines: lineDiff(a, b)})
		}
	}
	return
}

// lineDiff is a line diff of a (prefixed "-") against b (prefixed "+"),
// common lines prefixed " ", by longest common subsequence.
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	return out
}

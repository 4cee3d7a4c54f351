package liveness

import (
	"math"
	"time"
)

// Cost is what a search's time depends on, measured before it runs
// (MeasureCost). It bounds the first DFS iteration from below; it is no
// estimate of the whole search, whose size the state space decides.
type Cost struct {
	// Enabled is the number of events enabled in the search's initial
	// state (after its prefix): the first DFS iteration runs at least one
	// sequence per enabled event (unless a violation ends it first), each
	// executed again from the initial state (MaceMC's search is
	// stateless).
	Enabled int
	// Restart is the time of what every such sequence does whichever
	// event it takes first: the services made anew, their Inits, the
	// prefix's steps, the enabled events listed and, with state hashing,
	// the state after the first step hashed (every node described).
	Restart time.Duration
	// Workers is the number of workers that share those sequences: 1, as
	// every iteration's division is a sequential DFS, unless
	// Config.LevelDivision divides on every worker.
	Workers int
}

// Least is the least time of the first DFS iteration: ⌈Enabled/Workers⌉
// sequences of at least Restart each (saturated at the longest
// time.Duration).
func (c Cost) Least() time.Duration {
	if c.Workers < 1 || c.Enabled < 1 || c.Restart <= 0 {
		return 0
	}
	n := time.Duration((c.Enabled + c.Workers - 1) / c.Workers)
	if c.Restart > math.MaxInt64/n {
		return math.MaxInt64
	}
	return n * c.Restart
}

// MeasureCost measures cfg's search before it runs: it resolves cfg,
// replays its prefix as Run does (not a live prefix's walk: it measures
// from the initial state then) and times, with now (time.Now; a test
// passes its own clock), the start of one DFS sequence. It reads the
// clock, so it is no part of a Report; a search that would stop in its
// prefix (a violation) costs nothing (Enabled 0).
func MeasureCost(cfg Config, now func() time.Time) (Cost, error) {
	r, err := cfg.resolve()
	if err != nil {
		return Cost{}, err
	}
	p := startPath(r.Seed)
	if r.Prefix != nil {
		p = *r.Prefix
	}
	drv, err := driverSchedule(r.Scenario, p.Driver)
	if err != nil {
		return Cost{}, err
	}
	w := newWorld(r.set, drv)
	var choices []int
	res := w.walk(p, walkOptions{liveFrom: -1, describe: true, onChoice: func(c int) { choices = append(choices, c) }})
	if res.err != nil {
		return Cost{}, res.err
	}
	c := Cost{Workers: 1}
	if r.LevelDivision && !r.NoHashing {
		c.Workers = r.jobs
	}
	if res.panicked != "" || res.safety != "" {
		return c, nil
	}
	base := Path{Driver: p.Driver, Choices: choices, Segments: p.Segments, Steps: len(choices)}
	t0 := now()
	w.start(base)
	for w.step < len(choices) {
		w.seedStep()
		w.execChoice(w.enabled(), choices[w.step])
	}
	en := w.enabled()
	c.Enabled = len(en)
	t1 := now()
	c.Restart = t1.Sub(t0)
	if c.Enabled == 0 || r.NoHashing {
		return c, nil
	}
	// The first event is the sequence's own: not timed. The hash of the
	// state after it describes every node again, whichever it was.
	w.seedStep()
	w.execChoice(en, 0)
	t2 := now()
	w.hash()
	c.Restart += now().Sub(t2)
	return c, nil
}

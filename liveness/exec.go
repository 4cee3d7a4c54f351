package liveness

import (
	"fmt"

	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/timedsim"
)

// check evaluates property p on the world; a property that panics is
// reported through w.panicked.
func (w *world) check(p *timedsim.Property, kind string) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			w.panicked = fmt.Sprintf("%s property %s panicked: %s", kind, visible.String(p.Name), panicText(v))
			ok = false
		}
	}()
	return p.Check(w)
}

// violatedSafety returns the name of the first safety property that does
// not hold, "" if all hold (or a property panicked: see w.panicked). The
// names of properties, as the violations and logs show them, have their
// hidden characters made visible (package internal/visible).
func (w *world) violatedSafety() string {
	for i := range w.set.safety {
		if p := &w.set.safety[i]; !w.check(p, "safety") {
			if w.panicked != "" {
				return ""
			}
			return visible.String(p.Name)
		}
	}
	return ""
}

// live reports whether every liveness property holds.
func (w *world) live() bool {
	for i := range w.set.liveness {
		if !w.check(&w.set.liveness[i], "liveness") {
			return false
		}
	}
	return true
}

// failing lists the liveness properties that do not hold.
func (w *world) failing() []string {
	var out []string
	for i := range w.set.liveness {
		if p := &w.set.liveness[i]; !w.check(p, "liveness") {
			out = append(out, visible.String(p.Name))
		}
	}
	return out
}

// walkResult is how one execution (a random walk, or a replay) ended.
type walkResult struct {
	steps  int  // steps executed
	live   bool // reached a live state
	liveAt int  // the step count of the first live state checked
	// A violation ends the execution: a safety property (safety), a
	// panicking handler or property (panicked), or — when liveness was
	// checked and never held — a dead path (dead; quiescent if it ended
	// because no event was enabled).
	safety    string
	panicked  string
	dead      bool
	quiescent bool
	failed    []string
	err       error // a stale path
}

// walkOptions say what a walk checks.
type walkOptions struct {
	// liveFrom: liveness is checked on every state reached after at least
	// liveFrom steps, and the walk ends at the first live one; -1: never.
	liveFrom int
	// onEvent, if set, sees every executed event (for event logs) before
	// it runs; onChoice sees its choice, with the answers of its clock
	// comparisons, after.
	onEvent  func(step int, desc string, choice, of int)
	onChoice func(choice int)
	// describe describes every state, as the DFS's state hashing does
	// (after the safety properties): a Describe that panics ends the walk
	// where the DFS would find it. Replays and the paths of violations
	// describe (confirmed); the search's random walks, whose states are
	// not hashed, do not pay for it.
	describe bool
	// from, if set, is a snapshot of the world after the first from.step
	// steps of the walk's path, made by an execution of those steps that
	// met no violation (forkPrefix): the walk restores it instead of
	// replaying them, and goes on as the replay would have. The path must
	// agree with the snapshot's on those steps (a Branch at from.step or
	// later of it); describe must be off.
	from *worldSnap
	// here: the world is already in the state after the first w.step
	// steps of the walk's path, made as from's is: the walk goes on from
	// it.
	here bool
}

// walk runs path p from the start (or from snapshot o.from): its explicit
// choices, then weighted random ones, up to p.Steps steps, checking the
// safety properties after every step.
func (w *world) walk(p Path, o walkOptions) walkResult {
	var r walkResult
	if o.from != nil || o.here {
		if o.from != nil {
			w.restore(o.from)
		}
		// The segments the snapshot's steps used are the path's first
		// ones, at the same indices: w.seg stays valid.
		w.segs = p.Segments
		r.steps = w.step
	} else {
		w.start(p)
	}
	checkLive := func() bool {
		if o.liveFrom < 0 || w.step < o.liveFrom {
			return false
		}
		if w.live() {
			r.live, r.liveAt = true, w.step
			return true
		}
		return false
	}
	if w.panicked == "" && o.from == nil && !o.here {
		// (A snapshot's state was checked by the execution that made it.)
		if name := w.violatedSafety(); name != "" {
			r.safety = name
			return r
		}
	}
	if w.panicked == "" && o.describe {
		for i := range w.nodes {
			if w.nodeDesc(i); w.panicked != "" {
				break
			}
		}
	}
	if w.panicked == "" && checkLive() {
		return r
	}
	for w.panicked == "" && w.step < p.Steps {
		en := w.enabled()
		if len(en) == 0 {
			r.quiescent = true
			break
		}
		i, err := w.choose(en, p.Choices)
		if err != nil {
			r.err = err
			return r
		}
		if w.tracer != nil {
			w.tracer.begin(w, en[i])
		}
		if o.onEvent != nil {
			o.onEvent(w.step, w.describeEvent(en[i]), i, len(en))
		}
		n := len(en)
		ok := w.execEvent(en[i])
		if w.tracer != nil {
			w.tracer.end(w, en[i])
		}
		if st := w.step - 1; st < len(p.Choices) && w.clockMask>>w.clockReads != 0 {
			r.err = fmt.Errorf("liveness: path chooses event %d at step %d, but only %d are enabled (stale path?)", p.Choices[st], st, n)
			return r
		}
		if o.onChoice != nil {
			o.onChoice(i + n*w.clockMask)
		}
		if !ok {
			break
		}
		r.steps = w.step
		if name := w.violatedSafety(); name != "" {
			r.safety = name
			return r
		}
		if w.panicked == "" && o.describe && w.stepNode >= 0 {
			w.nodeDesc(int(w.stepNode)) // the one node the step changed
		}
		if w.panicked == "" && checkLive() {
			return r
		}
	}
	r.steps = w.step
	if w.panicked == "" && o.liveFrom >= 0 {
		if r.quiescent && w.live() {
			// Nothing can happen any more, in a live state: the execution
			// satisfies liveness (a quiescent state is its own infinite
			// suffix).
			r.live, r.liveAt = true, w.step
		} else if failed := w.failing(); w.panicked == "" {
			r.dead, r.failed = true, failed
		}
	}
	r.panicked = w.panicked
	return r
}

// forkPrefix runs the first n steps of path p on w, checking them as a
// walk does, and returns a snapshot of the state they reach for walks
// that branch from p at n to fork from (walkOptions.from); nil if the
// services cannot be copied or if those steps do not all run cleanly (a
// violation, a stale choice, no event enabled): the walks then replay, and
// meet whatever ended the prefix themselves, as before.
func (w *world) forkPrefix(p Path, n int) *worldSnap {
	p.Steps = n
	res := w.walk(p, walkOptions{liveFrom: -1})
	if res.err != nil || res.safety != "" || res.panicked != "" || res.quiescent || res.steps != n || w.step != n {
		return nil
	}
	return w.snapshot(false)
}

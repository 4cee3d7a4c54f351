package randtree

import (
	"slices"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// TestNotes: each note is made in the situation its doc describes, and a
// join without a race makes none (only what a handler drops, ignores or
// defers is noted).
func TestNotes(t *testing.T) {
	t.Run("none in sequential joins", func(t *testing.T) {
		for _, v := range variants {
			h := newHarness(t, 6, v.cfg)
			h.join(0, 0)
			for id := NodeID(1); id < 6; id++ {
				h.join(id, 0)
				h.run()
			}
			if len(h.notes) > 0 {
				t.Errorf("%s: notes %q", v.name, h.notes)
			}
		}
	})
	t.Run(NoteNotStarted, func(t *testing.T) {
		h := newHarness(t, 2, Config{})
		h.join(1, 0) // n0 is still in Init
		deliver[Join](h, 1, 0)
		if !h.noted(0, NoteNotStarted) {
			t.Errorf("notes %q", h.notes)
		}
	})
	t.Run(NoteStarted, func(t *testing.T) {
		h := newHarness(t, 1, Config{})
		h.join(0, 0)
		h.join(0, 0)
		if !slices.Equal(h.notes, []string{"n0 " + NoteStarted}) {
			t.Errorf("notes %q", h.notes)
		}
	})
	t.Run(NoteNotJoined, func(t *testing.T) {
		h := newHarness(t, 2, Config{})
		h.join(1, 0)
		h.queue = nil
		h.nodes[1].Deliver(h.ctx(1), 0, Probe{Root: 0})
		if !h.noted(1, NoteNotJoined) || len(h.queue) != 0 {
			t.Errorf("notes %q, sent %v", h.notes, h.queue)
		}
	})
	t.Run(NoteNotChild, func(t *testing.T) {
		h := newHarness(t, 3, Config{})
		h.join(0, 0)
		h.join(1, 0)
		h.run()
		h.nodes[0].Deliver(h.ctx(0), 2, Remove{})
		if !h.noted(0, NoteNotChild) || !h.nodes[0].HasChild(1) {
			t.Errorf("notes %q: %v", h.notes, h.nodes[0])
		}
	})
	t.Run(NoteDuplicate, func(t *testing.T) {
		// n1's join timer fires before n0's JoinReply arrives: n0 accepts
		// it twice, and n1 ignores the second acceptance.
		h := newHarness(t, 2, Config{})
		h.join(0, 0)
		h.join(1, 0)
		h.fire(1, TimerJoin)
		h.run()
		if !h.noted(1, NoteDuplicate) || h.nodes[1].Parent() != 0 || !h.nodes[0].HasChild(1) {
			t.Errorf("notes %q:%s", h.notes, h.describe())
		}
	})
	t.Run(NoteNotParent, func(t *testing.T) {
		h := newHarness(t, 3, Config{})
		h.join(0, 0)
		h.join(1, 0)
		h.run()
		h.nodes[1].Deliver(h.ctx(1), 2, Dropped{})
		if !h.noted(1, NoteNotParent) || h.nodes[1].Parent() != 0 || len(h.queue) != 0 {
			t.Errorf("notes %q, sent %v: %v", h.notes, h.queue, h.nodes[1])
		}
	})
	t.Run(NoteTieBreak, func(t *testing.T) {
		// A rejoining node that knows no root gets a Join from a more fit
		// node: in the fixed variant it makes it a root and joins under
		// it (the buggy variant takes the joiner as a child).
		for _, v := range variants {
			h := newHarness(t, 3, v.cfg)
			h.join(1, 1)
			h.join(2, 1)
			h.run()
			h.nodes[2].Error(h.ctx(2), &timedsim.TransportError{Transport: "tcp", Peer: 1, Err: timedsim.ErrConnectionBroken})
			h.queue = nil
			h.join(0, 2)
			deliver[Join](h, 0, 2)
			if got := h.noted(2, NoteTieBreak); got != v.cfg.Fixed {
				t.Errorf("%s: tie-break %v, notes %q", v.name, got, h.notes)
			}
		}
	})
	t.Run(NoteNotFitter, func(t *testing.T) {
		h := newHarness(t, 2, Config{})
		h.join(0, 0)
		h.nodes[0].Deliver(h.ctx(0), 1, RootJoin{Target: 1})
		if !h.noted(0, NoteNotFitter) || !h.nodes[0].IsRoot() || len(h.queue) != 0 {
			t.Errorf("notes %q, sent %v", h.notes, h.queue)
		}
	})
	t.Run(NoteDeferred, func(t *testing.T) {
		// TestRejoinDefersJoins' situation: a rejoining node that knows no
		// root holds a Join in the fixed variant (and takes the joiner in
		// the buggy one).
		for _, v := range variants {
			h := newHarness(t, 5, v.cfg)
			h.join(0, 0)
			for id := NodeID(1); id < 4; id++ {
				h.join(id, 0)
				h.run()
			}
			h.nodes[3].Error(h.ctx(3), &timedsim.TransportError{Transport: "tcp", Peer: 0, Err: timedsim.ErrConnectionBroken})
			h.join(4, 3)
			deliver[Join](h, 4, 3)
			if got := h.noted(3, NoteDeferred); got != v.cfg.Fixed {
				t.Errorf("%s: deferred %v, notes %q", v.name, got, h.notes)
			}
		}
	})
	t.Run(NoteNotRearmed, func(t *testing.T) {
		h := newHarness(t, 2, Config{RecoveryOnlyJoined: true})
		h.join(1, 0)
		h.fire(1, TimerRecovery)
		if !h.noted(1, NoteNotRearmed) {
			t.Errorf("notes %q", h.notes)
		}
	})
}

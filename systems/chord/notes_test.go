package chord

import (
	"testing"
)

// TestNotes: each note is made in the situation its doc describes, and
// joins one at a time make none (only what a handler drops, ignores or
// holds is noted).
func TestNotes(t *testing.T) {
	t.Run("none in sequential joins", func(t *testing.T) {
		for _, fixed := range []bool{false, true} {
			h := newHarness(t, 5, Config{JoinRace: !fixed})
			h.quiet = true
			h.join(0, 0)
			for id := NodeID(1); id < 5; id++ {
				h.join(id, id-1)
				h.run()
			}
			if len(h.notes) > 0 {
				t.Errorf("fixed=%v: notes %q", fixed, h.notes)
			}
		}
	})
	// TestJoinWhileJoining's race: node 2 joins through node 1 while node 1
	// is still joining. The fixed node 1 holds the Join; the buggy one
	// answers it as a one-node ring and then drops its own JoinReply.
	for _, fixed := range []bool{false, true} {
		h := newHarness(t, 3, Config{JoinRace: !fixed})
		h.join(0, 0)
		h.join(1, 0)
		h.join(2, 1)
		deliver[Join](h, 2, 1)
		if got := h.noted(1, NoteHeld); got != fixed {
			t.Errorf("fixed=%v: Join held %v, notes %q", fixed, got, h.notes)
		}
		h.run()
		if got := h.noted(1, NoteNotJoining); got == fixed {
			t.Errorf("fixed=%v: own JoinReply dropped %v, notes %q", fixed, got, h.notes)
		}
	}
	t.Run(NoteNotJoined, func(t *testing.T) {
		h := newHarness(t, 2, Config{})
		h.join(0, 0)
		h.join(1, 0) // joining: Joins sent, no JoinReply yet
		h.nodes[1].Deliver(h.ctx(1), 0, Notify{})
		h.nodes[1].Deliver(h.ctx(1), 0, GetPred{})
		if !h.noted(1, NoteNotJoined) || h.nodes[1].Pred() != None {
			t.Errorf("notes %q: %v", h.notes, h.nodes[1])
		}
	})
	t.Run(NoteStale, func(t *testing.T) {
		h := newHarness(t, 3, Config{})
		h.join(0, 0)
		h.join(1, 0)
		h.run()
		h.nodes[1].Deliver(h.ctx(1), 2, GetPredReply{Pred: 2, Succs: []NodeID{2}})
		if !h.noted(1, NoteStale) || h.nodes[1].Succ() != 0 {
			t.Errorf("notes %q: %v", h.notes, h.nodes[1])
		}
	})
	t.Run(NoteStarted, func(t *testing.T) {
		h := newHarness(t, 1, Config{})
		h.join(0, 0)
		h.join(0, 0)
		if !h.noted(0, NoteStarted) {
			t.Errorf("notes %q", h.notes)
		}
	})
}

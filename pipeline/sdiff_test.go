package pipeline

import (
	"strings"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// TestSideBySideNotes: the same event handled another way — a different
// note (timedsim.Context.Note) — is a different event in the divergence
// diff ('|'), and the notes are shown (cut, like any line, at the
// column's width).
func TestSideBySideNotes(t *testing.T) {
	ev := func(step int, notes ...string) timedsim.TimedEvent {
		return timedsim.TimedEvent{Step: step, Node: 1, From: 0, Label: "deliver JoinReply", Notes: notes}
	}
	a := &timedsim.Result{Steps: 2, Events: []timedsim.TimedEvent{ev(0), ev(1, "dropped: not joining")}}
	b := &timedsim.Result{Steps: 2, Events: []timedsim.TimedEvent{ev(0), ev(1)}}
	var out strings.Builder
	if err := sideBySide(&out, a, b, 1); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "n1 deliver JoinReply from n0 [dropped: not") || !strings.Contains(last, " | ") {
		t.Errorf("the noted event is not shown as a different one:\n%s", out.String())
	}
	if first := lines[len(lines)-3]; strings.Contains(first, " | ") || strings.Contains(first, "[") {
		t.Errorf("identical events without notes differ:\n%s", out.String())
	}
}

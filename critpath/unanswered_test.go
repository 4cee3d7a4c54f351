package critpath_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/critpath"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/timedsim"
)

// Chord's silent predecessor (the buggy variant): a node with a stale
// successor walks to its place one stabilize round per node it passes,
// because the nodes it notifies drop or ignore it without telling it of
// the nearer node. The critical path waits on the walking node's own
// stabilize timer; FindUnanswered names its silently handled Notifies and
// nothing it was answered (its GetPreds, the replies it sent).
func TestUnansweredNamesTheIgnoredNotify(t *testing.T) {
	slow, ps, pf := slowAndFast(t, chord.System(), chord.VariantBuggy, 32, "../systems/chord/testdata/edd.json", 1500*time.Millisecond, 900*time.Millisecond, 200)
	top, ok := critpath.Attribute(ps, pf).Top()
	if !ok || top.Kind != critpath.Timer {
		t.Fatalf("top part %+v, want a timer wait", top)
	}
	u, ok := critpath.FindUnanswered(slow.Events, ps, top.Largest)
	if !ok {
		t.Fatalf("no unanswered request; the wait is %+v", top.Largest)
	}
	t.Log(u.Text(slow.Events))
	if u.Node != top.Largest.Node || u.Silent < 3 || u.Silent > u.Rounds {
		t.Fatalf("unanswered %+v, want at least 3 silent rounds of %v", u, top.Largest.Node)
	}
	l := u.Labels(slow.Events)
	if !slices.Contains(l, "deliver Notify → "+chord.NoteDropped) && !slices.Contains(l, "deliver Notify → "+chord.NoteNotNearer) {
		t.Fatalf("labels %v lack the bug's Notify", l)
	}
	for _, lb := range l {
		if !strings.HasPrefix(lb, "deliver Notify") {
			t.Fatalf("label %q of an answered request", lb)
		}
	}
}

// A round's request is unanswered when its delivery sends nothing; a
// request that was answered, a reply the node sent, and the rounds'
// other nodes' messages are not; one such round is not enough.
func TestUnansweredSkipsAnswersAndReplies(t *testing.T) {
	n0, n1, n2 := timedsim.NodeID(0), timedsim.NodeID(1), timedsim.NodeID(2)
	ms, s, us := time.Millisecond, time.Second, time.Microsecond
	sent := func(to timedsim.NodeID, typ string, at time.Duration) timedsim.SentMessage {
		return timedsim.SentMessage{To: to, Type: typ, Status: "sent", Arrive: at}
	}
	evs := []timedsim.TimedEvent{
		{Step: 0, Node: n0, From: timedsim.None, Label: "init", Duration: us, Cause: -1, CauseSend: -1, Timers: []timedsim.TimerChange{{Name: "poll"}}},
		{Step: 1, Node: n1, From: timedsim.None, Label: "init", Duration: us, Cause: -1, CauseSend: -1},
		{Step: 2, Node: n0, From: timedsim.None, Label: "timer poll", Start: s, Ready: s, Duration: us, Cause: 0, CauseSend: -1,
			Sends: []timedsim.SentMessage{sent(n1, "Req", s+ms)}, Timers: []timedsim.TimerChange{{Name: "poll"}}},
		{Step: 3, Node: n1, From: n0, Label: "deliver Req", Start: s + ms, Ready: s + ms, Duration: us, Cause: 2, CauseSend: 0,
			Sends: []timedsim.SentMessage{sent(n0, "Ack", s+2*ms)}},
		{Step: 4, Node: n0, From: n1, Label: "deliver Ack", Start: s + 2*ms, Ready: s + 2*ms, Duration: us, Cause: 3, CauseSend: 0,
			Sends: []timedsim.SentMessage{sent(n2, "Tell", s+3*ms), sent(n1, "Thanks", s+3*ms)}},
		{Step: 5, Node: n2, From: n0, Label: "deliver Tell", Start: s + 3*ms, Ready: s + 3*ms, Duration: us, Cause: 4, CauseSend: 0},
		{Step: 6, Node: n1, From: n0, Label: "deliver Thanks", Start: s + 3*ms + us, Ready: s + 3*ms, Duration: us, Cause: 4, CauseSend: 1},
		{Step: 7, Node: n0, From: timedsim.None, Label: "timer poll", Start: 2 * s, Ready: 2 * s, Duration: us, Cause: 2, CauseSend: -1,
			Sends: []timedsim.SentMessage{sent(n2, "Tell", 2*s+ms)}, Timers: []timedsim.TimerChange{{Name: "poll"}}},
		{Step: 8, Node: n2, From: n0, Label: "deliver Tell", Start: 2*s + ms, Ready: 2*s + ms, Duration: us, Cause: 7, CauseSend: 0},
		{Step: 9, Node: n0, From: timedsim.None, Label: "timer poll", Start: 3 * s, Ready: 3 * s, Duration: us, Cause: 7, CauseSend: -1},
	}
	p, err := critpath.Compute(evs)
	if err != nil {
		t.Fatal(err)
	}
	var wait critpath.Segment
	for _, sg := range p.Segments {
		if sg.Kind == critpath.Timer && sg.Len() > wait.Len() {
			wait = sg
		}
	}
	u, ok := critpath.FindUnanswered(evs, p, wait)
	if !ok || u.Node != n0 || u.Rounds != 3 || u.Silent != 2 || !slices.Equal(u.Steps, []int{5, 8}) {
		t.Fatalf("unanswered %+v, %v; want the Tells of 2 of 3 rounds", u, ok)
	}
	if got, want := u.Labels(evs), []string{"deliver Tell", "deliver Tell → (nothing)"}; !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	want := "in 2 of its 3 waits on timer poll, n0's request went unanswered: Tell to n2, delivered at step 5 (deliver Tell at 1.003 s), sent nothing; Tell to n2, delivered at step 8 (deliver Tell at 2.001 s), sent nothing"
	if u.Text(evs) != want {
		t.Fatalf("text %q,\nwant %q", u.Text(evs), want)
	}
	// One silent round is no polling in vain.
	evs[5].Sends = []timedsim.SentMessage{sent(n0, "Told", 3*s)}
	if u, ok := critpath.FindUnanswered(evs, p, wait); ok {
		t.Fatalf("one unanswered round is reported: %+v", u)
	}
}

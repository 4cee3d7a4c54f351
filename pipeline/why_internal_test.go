package pipeline

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/timedsim"
)

// The why-line names every draw that differs at the divergence step: the
// handler's duration, its own ctx.Rand draws and what they chose (a
// backoff timer, a gossip target), and its messages' arrivals.
func TestWhyNamesTheProtocolsDraws(t *testing.T) {
	ev := func(dur time.Duration, draws []uint64, timerAt time.Duration, to timedsim.NodeID) *timedsim.TimedEvent {
		return &timedsim.TimedEvent{Step: 7, Node: 1, From: timedsim.None, Label: "deliver Nack", Duration: dur, Draws: draws,
			Timers: []timedsim.TimerChange{{Name: "retry", At: dur + timerAt}}, // after the handler's end
			Sends:  []timedsim.SentMessage{{To: to, Type: "Gossip", Transport: "tcp", Status: "sent", Arrive: 9 * time.Millisecond}}}
	}
	a := ev(time.Microsecond, []uint64{1 << 63}, 20*time.Millisecond, 3)
	s := ev(time.Microsecond, []uint64{1 << 61}, 8*time.Millisecond, 2)
	got := drawsDiffer(a, s)
	for _, want := range []string{"ctx.Rand", "u = 0.500", "u = 0.125", "timer retry to fire 20 ms after it in the anomaly and 8 ms in the similar one", "Gossip to n3 in the anomaly and Gossip to n2"} {
		if !strings.Contains(got, want) {
			t.Errorf("why-line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "it takes") {
		t.Errorf("why-line %q names a duration that did not differ", got)
	}
}

// A divergence point is budget-bound when the walks from the next step are
// as fast after their prefix as the similar walk after its own: they fail
// only because they start later. One whose walks go worse is not.
func TestBudgetBound(t *testing.T) {
	events := []timedsim.TimedEvent{{Start: 0, Duration: time.Millisecond}, {Start: 5 * time.Millisecond, Duration: time.Millisecond}, {Start: 10 * time.Millisecond}}
	a := &timedsim.Result{Events: events}
	rep := func(after time.Duration) *divergence.Report {
		return &divergence.Report{Step: 1, Similar: &timedsim.Result{ExecTime: 8 * time.Millisecond},
			Probes: []divergence.ProbeRecord{{Prefix: 1, Recovered: true}, {Prefix: 2, ExecTimes: []time.Duration{after, after + time.Second}}}}
	}
	// The similar walk needed 7 ms after step 0 ended (1 ms); a walk from
	// prefix 2 that needs 7 ms after step 1 ended (6 ms) ends at 13 ms:
	// too late, but no worse.
	if !budgetBound(rep(13*time.Millisecond), a) {
		t.Error("a walk as fast after its prefix is not budget-bound")
	}
	if budgetBound(rep(10*time.Second), a) {
		t.Error("walks that wait 10 s more are budget-bound")
	}
}

// The contrast of an anomaly with its similar fast execution holds the
// labels of what the anomaly did from the divergence step on, within the
// similar execution's time, that the similar one never did from there:
// not what both did, not what the anomaly did before the step, not what it
// did after the fast one was done.
func TestContrast(t *testing.T) {
	ev := func(step int, start time.Duration, label string, sends ...string) timedsim.TimedEvent {
		e := timedsim.TimedEvent{Step: step, Node: 0, From: timedsim.None, Label: label, Start: start, Duration: time.Microsecond}
		for _, s := range sends {
			e.Sends = append(e.Sends, timedsim.SentMessage{Type: s, Status: "sent"})
		}
		return e
	}
	anomalous := []timedsim.TimedEvent{ev(0, 0, "init", "Hello"), ev(1, time.Millisecond, "deliver Hello", "Vote"),
		ev(2, 2*time.Millisecond, "timer persist", "MsgVote"), ev(3, 9*time.Millisecond, "timer late")}
	similar := []timedsim.TimedEvent{ev(0, 0, "init", "Hello"), ev(1, time.Millisecond, "deliver Hello", "Vote"), ev(2, 3*time.Millisecond, "timer persist")}
	got := contrast(anomalous, similar, 1, 5*time.Millisecond)
	want := []string{"timer persist → MsgVote"}
	if !slices.Equal(got, want) {
		t.Fatalf("contrast %q, want %q", got, want)
	}
}

package timedsim_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// TestCountWindow checks the windowed counts of phase 3b against the
// recorded event log: an event counts when it started before the window,
// in plain and composite form; without a window there are no windowed
// counts, and the window changes nothing else.
func TestCountWindow(t *testing.T) {
	sc := gossipScenario(8)
	plain, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	base := plain.Run(timedsim.SeedPath(7))
	if base.WindowCounts != nil || base.WindowComposite != nil {
		t.Fatalf("windowed counts without a window: %v %v", base.WindowCounts, base.WindowComposite)
	}
	if len(base.Events) < 20 {
		t.Fatalf("gossip ran only %d events", len(base.Events))
	}
	allComp := map[string]int{}
	for _, e := range base.Events {
		addComposite(allComp, e)
	}
	if !reflect.DeepEqual(base.Composite, allComp) {
		t.Errorf("composite %v, want %v", base.Composite, allComp)
	}
	if allComp[timedsim.CompositeLabel("deliver Rumor", timedsim.SentNothing)] == 0 {
		t.Errorf("no gossip delivery without a send: %v", allComp)
	}
	for _, cut := range []int{0, 1, len(base.Events) / 3, len(base.Events) - 1} {
		window := max(base.Events[cut].Start, time.Nanosecond) // 0 means no window
		wantPlain, wantComp := map[string]int{}, map[string]int{}
		for _, e := range base.Events {
			if e.Start >= window {
				continue
			}
			wantPlain[e.Label]++
			addComposite(wantComp, e)
		}
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true, CountWindow: window})
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 2; rep++ { // a reused simulator starts from zero
			r := sim.Run(timedsim.SeedPath(7))
			if !reflect.DeepEqual(r.WindowCounts, wantPlain) {
				t.Errorf("window %v (cut %d): counts %v, want %v", window, cut, r.WindowCounts, wantPlain)
			}
			if !reflect.DeepEqual(r.WindowComposite, wantComp) {
				t.Errorf("window %v (cut %d): composite %v, want %v", window, cut, r.WindowComposite, wantComp)
			}
			if r.ExecTime != base.ExecTime || r.Steps != base.Steps || !reflect.DeepEqual(r.Counts, base.Counts) {
				t.Fatalf("the window changed the execution")
			}
		}
	}
}

// addComposite counts e's composite labels from the event log: one per
// message type it sent (failed sends included), per note it made and per
// timer it set or cancelled, or "→ (nothing)" for a handler that did none
// of these.
func addComposite(comp map[string]int, e timedsim.TimedEvent) {
	switch e.Label {
	case "reset", "break", "partition", "heal": // driver faults run no handler
		return
	}
	if len(e.Sends) == 0 && len(e.Notes) == 0 && len(e.Timers) == 0 {
		comp[timedsim.CompositeLabel(e.Label, timedsim.SentNothing)]++
	}
	seen := map[string]bool{}
	for _, s := range e.Sends {
		if !seen[s.Type] {
			seen[s.Type] = true
			comp[timedsim.CompositeLabel(e.Label, s.Type)]++
		}
	}
	for _, n := range e.Notes {
		if !seen[n] {
			seen[n] = true
			comp[timedsim.CompositeLabel(e.Label, n)]++
		}
	}
	for _, tc := range e.Timers {
		if tt := timedsim.TimerComposite(tc.Name, tc.Cancel); !seen[tt] {
			seen[tt] = true
			comp[timedsim.CompositeLabel(e.Label, tt)]++
		}
	}
}

// Optional safety properties are not checked by the timed simulator (they
// are selected by name in the liveness mode); required ones are.
func TestOptionalSafetyProperty(t *testing.T) {
	fails := func(timedsim.World) bool { return false }
	for _, optional := range []bool{true, false} {
		sc := gossipScenario(3)
		sc.Safety = []timedsim.Property{{Name: "never", Check: fails, Optional: optional}}
		sim, err := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
		if err != nil {
			t.Fatal(err)
		}
		r := sim.Run(timedsim.SeedPath(1))
		if got := r.Outcome == timedsim.SafetyViolated; got == optional {
			t.Errorf("optional=%v: outcome %v", optional, r.Outcome)
		}
	}
	if got := timedsim.Required([]timedsim.Property{{Name: "a"}, {Name: "b", Optional: true}}); len(got) != 1 || got[0].Name != "a" {
		t.Errorf("Required: %v", got)
	}
}

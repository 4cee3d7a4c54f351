package critpath_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/critpath"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/systems/elect"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

func record(t *testing.T, sys timedsim.System, variant string, nodes int, eddFile string, seed uint64) *timedsim.Result {
	t.Helper()
	sc, err := sys.Scenario(variant, nodes)
	if err != nil {
		t.Fatal(err)
	}
	opts := timedsim.Options{Record: true}
	if eddFile != "" {
		if opts.EDD, err = edd.ReadFile(eddFile); err != nil {
			t.Fatal(err)
		}
	}
	sim, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Run(timedsim.SeedPath(seed))
}

// slowAndFast records the first execution of seeds 1 to seeds−1 slower
// than slowAbove and the first faster than fastBelow, and returns the
// slow one with the critical paths of both.
func slowAndFast(t *testing.T, sys timedsim.System, variant string, nodes int, eddFile string, slowAbove, fastBelow time.Duration, seeds uint64) (*timedsim.Result, *critpath.Path, *critpath.Path) {
	t.Helper()
	var slow, fast *timedsim.Result
	for seed := uint64(1); seed < seeds && (slow == nil || fast == nil); seed++ {
		r := record(t, sys, variant, nodes, eddFile, seed)
		switch {
		case r.ExecTime > slowAbove && slow == nil:
			slow = r
		case r.ExecTime < fastBelow && fast == nil:
			fast = r
		}
	}
	if slow == nil || fast == nil {
		t.Fatalf("no slow or no fast execution in %d seeds", seeds-1)
	}
	ps, err := critpath.Compute(slow.Events)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := critpath.Compute(fast.Events)
	if err != nil {
		t.Fatal(err)
	}
	return slow, ps, pf
}

// The critical path's segments tile [0, End] without gap or overlap, End
// is the execution time, and every step on it is a real step, for every
// kind of system: one with sends only, one with timers and randomness,
// one with a driver, one with busy nodes and bandwidth sharing.
func TestSegmentsTileTheExecution(t *testing.T) {
	cases := []struct {
		sys     timedsim.System
		variant string
		nodes   int
		edd     string
	}{
		{pingpong.System(), "", 4, ""},
		{elect.System(), elect.VariantEarlyElected, 5, "../systems/elect/testdata/edd.json"},
		{backoff.System(), "", 3, "../systems/backoff/testdata/edd.json"},
		{randtree.System(), "buggy", 32, "../systems/randtree/testdata/edd.json"},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 40; seed++ {
			r := record(t, c.sys, c.variant, c.nodes, c.edd, seed)
			p, err := critpath.Compute(r.Events)
			if err != nil {
				t.Fatalf("%s seed %d: %v", c.sys.Name, seed, err)
			}
			if p.End != r.ExecTime {
				t.Fatalf("%s seed %d: path ends at %v, execution at %v", c.sys.Name, seed, p.End, r.ExecTime)
			}
			at := time.Duration(0)
			for _, s := range p.Segments {
				if s.Start != at || s.End <= s.Start {
					t.Fatalf("%s seed %d: segment %+v after %v", c.sys.Name, seed, s, at)
				}
				at = s.End
			}
			if at != p.End {
				t.Fatalf("%s seed %d: segments end at %v of %v", c.sys.Name, seed, at, p.End)
			}
			if p.Steps[len(p.Steps)-1] != len(r.Events)-1 {
				t.Fatalf("%s seed %d: path does not end at the last step", c.sys.Name, seed)
			}
		}
	}
}

// RandTree's join race makes an execution wait for the 10 s recovery
// timer; the attribution against a normal execution says so, and the
// excess is not the models' draws.
func TestRandTreeRaceWaitsOnTheRecoveryTimer(t *testing.T) {
	_, ps, pf := slowAndFast(t, randtree.System(), "buggy", 32, "../systems/randtree/testdata/edd.json", 5*time.Second, time.Second, 400)
	a := critpath.Attribute(ps, pf)
	top, ok := a.Top()
	if !ok || top.Kind != critpath.Timer || !strings.Contains(top.Label, "recovery") {
		t.Fatalf("top part %+v; headline %q", top, a.Headline())
	}
	if top.Excess < a.Excess*9/10 {
		t.Fatalf("the timer explains %v of %v", top.Excess, a.Excess)
	}
	if a.DrawShare > 0.1 {
		t.Fatalf("draw share %.2f for a timer wait", a.DrawShare)
	}
	t.Log(a.Headline())
}

// A slow ping-pong execution is slow because of the network's draws: the
// attribution's excess is almost all propagation, and its headline names
// the percentile of the longest delay.
func TestPingPongExcessIsNetworkDraws(t *testing.T) {
	var slow, fast *timedsim.Result
	for seed := uint64(1); seed < 2000; seed++ {
		r := record(t, pingpong.System(), "", 2, "", seed)
		if slow == nil || r.ExecTime > slow.ExecTime {
			slow = r
		}
		if fast == nil || r.ExecTime < fast.ExecTime {
			fast = r
		}
	}
	ps, _ := critpath.Compute(slow.Events)
	pf, _ := critpath.Compute(fast.Events)
	a := critpath.Attribute(ps, pf)
	if a.DrawShare < 0.9 {
		t.Fatalf("draw share %.2f: %q", a.DrawShare, a.Headline())
	}
	if h := a.Headline(); !strings.Contains(h, "percentile") && !strings.Contains(h, "running") {
		t.Fatalf("headline %q", h)
	}
	t.Log(a.Headline())
}

func TestBadEvents(t *testing.T) {
	if _, err := critpath.Compute(nil); err == nil {
		t.Fatal("no events accepted")
	}
	evs := []timedsim.TimedEvent{{Step: 0, Cause: -1, CauseSend: -1}, {Step: 1, Cause: 1, CauseSend: -1}}
	if _, err := critpath.Compute(evs); err == nil {
		t.Fatal("a step caused by itself accepted")
	}
	evs = []timedsim.TimedEvent{{Step: 0, Cause: -1, CauseSend: -1}, {Step: 1, Cause: 0, CauseSend: 3, Label: "deliver X"}}
	if _, err := critpath.Compute(evs); err == nil {
		t.Fatal("a send index out of range accepted")
	}
}

// The lead-in of elect's early-Elected bug: the node that waits on its
// 200 ms tick ignored an Elected before a normal execution would have
// been done, and that note is among the labels of what it did while it
// waited; the tick's own firing, 200 ms later, is not.
func TestLeadInHoldsTheIgnoredElected(t *testing.T) {
	for seed := uint64(1); seed < 300; seed++ {
		r := record(t, elect.System(), elect.VariantEarlyElected, 5, "../systems/elect/testdata/edd.json", seed)
		if r.ExecTime < 100*time.Millisecond {
			continue
		}
		p, err := critpath.Compute(r.Events)
		if err != nil {
			t.Fatal(err)
		}
		var wait *critpath.Segment
		for i, s := range p.Segments {
			if s.Kind == critpath.Timer && (wait == nil || s.Len() > wait.Len()) {
				wait = &p.Segments[i]
			}
		}
		if wait == nil {
			t.Fatalf("seed %d: no timer wait on the path of a %v execution", seed, r.ExecTime)
		}
		labels := critpath.LeadIn(r.Events, *wait, 20*time.Millisecond)
		want := timedsim.CompositeLabel("deliver Elected", "ignored: still collecting")
		if !slices.Contains(labels, want) || slices.Contains(labels, "timer tick") {
			t.Fatalf("seed %d: lead-in of %v's wait: %v", seed, wait.Node, labels)
		}
		return
	}
	t.Fatal("no slow execution in 300 seeds")
}

// Bullet′'s join-reject bug strands a late receiver: the last node to
// finish got a JoinReject that offered nobody else to try and heard
// nothing more until RanSub's next epoch on the root. The critical path
// waits on the root's epoch timer; FindStranded names the JoinReject.
func TestStrandedNamesTheJoinReject(t *testing.T) {
	slow, ps, pf := slowAndFast(t, bullet.System(), "join-reject", 0, "../systems/bullet/testdata/edd.json", 4*time.Second, 3*time.Second, 80)
	top, ok := critpath.Attribute(ps, pf).Top()
	if !ok || top.Kind != critpath.Timer {
		t.Fatalf("top part %+v, want a timer wait", top)
	}
	st, ok := critpath.FindStranded(slow.Events, ps, top.Largest, pf.End*3/2)
	if !ok {
		t.Fatalf("no stranded node; the wait is %+v", top.Largest)
	}
	if st.Node == top.Largest.Node || st.Label != "deliver JoinReject" {
		t.Fatalf("stranded %+v, want a deliver JoinReject on another node than %v", st, top.Largest.Node)
	}
	if l := st.Labels(slow.Events); !slices.Contains(l, "deliver JoinReject → idle: no candidate left, waiting for RanSub") {
		t.Fatalf("labels %v lack the idle note", l)
	}
	// With the threshold at the JoinReject, which the node did nothing
	// with, the stranding is an earlier message; with the threshold at
	// the start, the node acted on news after it and is not stranded.
	if earlier, ok := critpath.FindStranded(slow.Events, ps, top.Largest, st.Start); !ok || earlier.Step >= st.Step {
		t.Fatalf("with the threshold at step %d: %+v, %v; want an earlier stranding", st.Step, earlier, ok)
	}
	if _, ok := critpath.FindStranded(slow.Events, ps, top.Largest, 1); ok {
		t.Fatal("a node that acted on news after the threshold is stranded")
	}
	t.Log(st.Text())
}

// A message to the stranded node that a full transport queue lost is
// named with its error upcall; its labels are the stranding's, one lost
// to an unreachable node's fault is listed but not labelled.
func TestStrandedListsLostMessages(t *testing.T) {
	n0, n1, n2 := timedsim.NodeID(0), timedsim.NodeID(1), timedsim.NodeID(2)
	ms, s := time.Millisecond, time.Second
	evs := []timedsim.TimedEvent{
		{Step: 0, Node: n0, From: timedsim.None, Label: "init", Duration: ms, Cause: -1, CauseSend: -1, Sends: []timedsim.SentMessage{
			{To: n2, Type: "Diff", Status: "queue-full"},
			{To: n2, Type: "X", Status: "sent", Arrive: s},
			{To: n2, Type: "Ping", Status: "unreachable"},
		}},
		{Step: 1, Node: n0, From: timedsim.None, Label: "error queue-full", Start: ms, Ready: ms, Duration: time.Microsecond, Cause: 0, CauseSend: -1, Notes: []string{"lost Diff"}},
		{Step: 2, Node: n0, From: timedsim.None, Label: "error unreachable", Start: 2 * ms, Ready: 2 * ms, Duration: time.Microsecond, Cause: 0, CauseSend: -1},
		{Step: 3, Node: n1, From: timedsim.None, Label: "init", Duration: time.Microsecond, Cause: -1, CauseSend: -1, Timers: []timedsim.TimerChange{{Name: "repair"}}},
		{Step: 4, Node: n2, From: timedsim.None, Label: "init", Duration: time.Microsecond, Cause: -1, CauseSend: -1},
		{Step: 5, Node: n2, From: n0, Label: "deliver X", Start: s, Ready: s, Duration: time.Microsecond, Cause: 0, CauseSend: 1},
		{Step: 6, Node: n1, From: timedsim.None, Label: "timer repair", Start: 5 * s, Ready: 5 * s, Duration: time.Microsecond, Cause: 3, CauseSend: -1,
			Sends: []timedsim.SentMessage{{To: n2, Type: "Hello", Status: "sent", Arrive: 5*s + ms}}},
		{Step: 7, Node: n2, From: n1, Label: "deliver Hello", Start: 5*s + ms, Ready: 5*s + ms, Duration: time.Microsecond, Cause: 6, CauseSend: 0},
	}
	p, err := critpath.Compute(evs)
	if err != nil {
		t.Fatal(err)
	}
	var wait critpath.Segment
	for _, sg := range p.Segments {
		if sg.Kind == critpath.Timer {
			wait = sg
		}
	}
	if wait.Node != n1 {
		t.Fatalf("segments %+v: no wait on n1", p.Segments)
	}
	st, ok := critpath.FindStranded(evs, p, wait, 3*s)
	if !ok || st.Node != n2 || st.Step != 5 || st.Next != 7 {
		t.Fatalf("stranded %+v, %v; want n2 from step 5 to step 7", st, ok)
	}
	if len(st.Lost) != 2 || st.Lost[0].Upcall != 1 || st.Lost[1].Upcall != 2 || st.Lost[1].Status != "unreachable" {
		t.Fatalf("lost %+v", st.Lost)
	}
	want := []string{"deliver X", "deliver X → (nothing)", "error queue-full", "error queue-full → lost Diff"}
	if got := st.Labels(evs); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	if got := st.SelfLostLabels(evs); !slices.Equal(got, want[2:]) {
		t.Fatalf("self-lost labels %v, want %v", got, want[2:])
	}
	if !strings.Contains(st.Text(), "2 messages to it were lost: Diff from n0 at step 0 (queue-full), Ping from n0 at step 0 (unreachable)") {
		t.Fatalf("text %q", st.Text())
	}
	if _, ok := critpath.FindStranded(evs, p, wait, s/2); ok {
		t.Fatal("news at 1 s is stranding with a threshold of 0.5 s")
	}
}

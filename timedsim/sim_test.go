package timedsim_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

func newSim(t testing.TB, sc *timedsim.Scenario, opts timedsim.Options) *timedsim.Simulator {
	t.Helper()
	s, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func eventLog(t testing.TB, r *timedsim.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := timedsim.WriteEventLog(&b, timedsim.LogHeader{System: "test", Nodes: 1, Path: r.Path}, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// §3.1 Deterministic replay: the same path gives a byte-identical event log,
// on a fresh simulator and on one that ran other executions before.
func TestDeterministicReplaySamePathSameLog(t *testing.T) {
	sc := gossipScenario(12)
	opts := timedsim.Options{Record: true}
	a := newSim(t, sc, opts)
	b := newSim(t, sc, opts)
	for seed := uint64(1); seed <= 5; seed++ {
		b.Run(timedsim.SeedPath(seed + 100)) // dirty b's reused memory
		r1 := a.Run(timedsim.SeedPath(seed))
		r2 := b.Run(timedsim.SeedPath(seed))
		if !r1.Finished {
			t.Fatalf("seed %d: gossip did not finish: %v", seed, r1.Outcome)
		}
		l1, l2 := eventLog(t, r1), eventLog(t, r2)
		if l1 != l2 {
			t.Fatalf("seed %d: event logs differ:\n%s", seed, firstDiff(l1, l2))
		}
		if r1.Steps < 50 || len(r1.Events) != r1.Steps {
			t.Fatalf("seed %d: %d steps, %d recorded events", seed, r1.Steps, len(r1.Events))
		}
	}
	// Different seeds give different executions.
	if eventLog(t, a.Run(timedsim.SeedPath(1))) == eventLog(t, a.Run(timedsim.SeedPath(2))) {
		t.Fatal("seeds 1 and 2 gave the same execution")
	}
}

// Recording the log must not change the execution (metamorphic: with and
// without logging).
func TestRecordingDoesNotChangeExecution(t *testing.T) {
	sc := gossipScenario(10)
	rec := newSim(t, sc, timedsim.Options{Record: true}).Run(timedsim.SeedPath(7))
	plain := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(7))
	meas := newSim(t, sc, timedsim.Options{MeasureRealTime: true}).Run(timedsim.SeedPath(7))
	for _, r := range []*timedsim.Result{plain, meas} {
		if r.ExecTime != rec.ExecTime || r.Steps != rec.Steps {
			t.Fatalf("exec %v/%d steps vs recorded %v/%d", r.ExecTime, r.Steps, rec.ExecTime, rec.Steps)
		}
	}
	if len(meas.RealTimes["timer tick"]) != meas.Counts["timer tick"] || meas.Counts["timer tick"] == 0 {
		t.Fatalf("real times: %d samples for %d timer events", len(meas.RealTimes["timer tick"]), meas.Counts["timer tick"])
	}
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + itoa(i+1) + ":\n- " + la[i] + "\n+ " + lb[i]
		}
	}
	return "lengths differ"
}

// body drops the header lines (which name the path).
func body(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func itoa(i int) string { return timedsim.NodeID(i).String()[1:] }

// Algorithm 2: the explorer's results are identical for 1 and 2 workers.
func TestExplorerSameResultsForAnyWorkers(t *testing.T) {
	sc := gossipScenario(10)
	run := func(jobs int) []*timedsim.Result {
		ex := &timedsim.Explorer{Scenario: sc, Jobs: jobs}
		res, done, err := ex.Run(context.Background(), timedsim.Work{N: 40, Path: timedsim.Seeded(3), Keep: true})
		if err != nil || done != 40 {
			t.Fatalf("jobs=%d: done %d, err %v", jobs, done, err)
		}
		return res
	}
	one, two := run(1), run(2)
	distinct := map[time.Duration]bool{}
	for i := range one {
		a, b := one[i], two[i]
		if a.ExecTime != b.ExecTime || a.Steps != b.Steps || a.Path.Segments[0] != b.Path.Segments[0] {
			t.Fatalf("execution %d: jobs=1 %v/%d, jobs=2 %v/%d", i, a.ExecTime, a.Steps, b.ExecTime, b.Steps)
		}
		if !reflect.DeepEqual(a.Composite, b.Composite) || !reflect.DeepEqual(a.Counts, b.Counts) || !reflect.DeepEqual(a.NodeClocks, b.NodeClocks) {
			t.Fatalf("execution %d: counts, composites or node clocks differ between 1 and 2 workers", i)
		}
		distinct[a.ExecTime] = true
	}
	if len(distinct) < 20 {
		t.Fatalf("only %d distinct execution times in 40 executions: executions are not varied", len(distinct))
	}
}

// The explorer hands results to Each in index order and stops at the first
// false, keeping everything before it.
func TestExplorerStopsInIndexOrder(t *testing.T) {
	ex := &timedsim.Explorer{Scenario: gossipScenario(6), Jobs: 2}
	var seen []int
	res, done, err := ex.Run(context.Background(), timedsim.Work{N: 30, Path: timedsim.Seeded(1), Keep: true,
		Each: func(i int, r *timedsim.Result) bool { seen = append(seen, i); return i < 9 }})
	if err != nil || done != 10 || len(res) != 10 {
		t.Fatalf("done %d, %d results, err %v", done, len(res), err)
	}
	for i, v := range seen {
		if v != i {
			t.Fatalf("Each saw %v, want 0..9 in order", seen)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, done, err = ex.Run(ctx, timedsim.Work{N: 30, Path: timedsim.Seeded(1)})
	if !errors.Is(err, context.Canceled) || done != 0 {
		t.Fatalf("cancelled run: done %d err %v", done, err)
	}
}

// §3.1: a prefix replayed then branched follows the original up to the
// branch point and its own randomness after it.
func TestBranchReplaysPrefix(t *testing.T) {
	sc := gossipScenario(8)
	sim := newSim(t, sc, timedsim.Options{Record: true})
	orig := sim.Run(timedsim.SeedPath(11))
	const at = 40
	br := sim.Run(timedsim.SeedPath(11).Branch(at, 999))
	for i := 0; i < at; i++ {
		a, b := orig.Events[i], br.Events[i]
		if a.Label != b.Label || a.Node != b.Node || a.Start != b.Start || a.Duration != b.Duration {
			t.Fatalf("step %d differs before the branch point: %+v vs %+v", i, a, b)
		}
	}
	same := true
	for i := at; i < at+20 && i < len(orig.Events) && i < len(br.Events); i++ {
		same = same && orig.Events[i].Duration == br.Events[i].Duration
	}
	if same {
		t.Fatal("the branch drew the same durations as the original after the branch point")
	}
	// Branching at the same point with the original seed is the original.
	again := sim.Run(timedsim.SeedPath(11).Branch(at, 11))
	if body(eventLog(t, again)) != body(eventLog(t, orig)) {
		t.Fatal("branch with the original seed differs from the original")
	}
}

func slowEDD(t *testing.T, label string, factor float64) *edd.Set {
	set := edd.NewSet(edd.Uniform{Min: time.Millisecond, Max: time.Millisecond})
	if err := set.Scale(label, factor); err != nil {
		t.Fatal(err)
	}
	return set
}

// Re-queue semantics: node 1 is busy with a 1 s event when node 0's message
// arrives. With Requeue the delivery starts when node 1 is free and every
// event starts no earlier than the one before (global time order). With
// Paper semantics the queue is popped by scheduled start, so an event can
// start before the previous one did.
func TestRequeueSemanticsForBusyNode(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 3,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			if name == "send" {
				ctx.Send(1, Blob{Bytes: 10})
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(10*time.Millisecond, 1, "slow", nil) // node 1 busy 10ms..1.01s
			d.App(20*time.Millisecond, 0, "send", nil) // message reaches node 1 ~23ms
			d.App(30*time.Millisecond, 2, "tick", nil)
			d.App(500*time.Millisecond, 2, "tick", nil)
		},
		Stop:    func(w timedsim.World) bool { return w.Steps() == 8 }, // 3 inits, 4 app events, 1 delivery
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	set := slowEDD(t, "app slow", 1000) // 1 ms * 1000 = 1 s
	req := newSim(t, sc, timedsim.Options{EDD: set, Record: true}).Run(timedsim.SeedPath(1))
	pap := newSim(t, sc, timedsim.Options{EDD: set, Record: true, Semantics: timedsim.Paper}).Run(timedsim.SeedPath(1))
	deliverStart := func(r *timedsim.Result) (time.Duration, int) {
		for i, e := range r.Events {
			if strings.HasPrefix(e.Label, "deliver") {
				return e.Start, i
			}
		}
		t.Fatal("no delivery")
		return 0, 0
	}
	ds, di := deliverStart(req)
	if ds != 1010*time.Millisecond {
		t.Fatalf("requeue: delivery started at %v, want 1.01s (when node 1 is free)", ds)
	}
	for i := 1; i < len(req.Events); i++ {
		if req.Events[i].Start < req.Events[i-1].Start {
			t.Fatalf("requeue: step %d starts at %v before step %d at %v", i, req.Events[i].Start, i-1, req.Events[i-1].Start)
		}
	}
	if req.Events[di-1].Label != "app tick" || req.Events[di-1].Start != 500*time.Millisecond {
		t.Fatalf("requeue: the 0.5s tick on node 2 should run before the delayed delivery, got %+v", req.Events[di-1])
	}
	// Paper semantics: the delivery is popped at ~23ms and runs at once at
	// node 1's clock (1.01s), before node 2's 0.5s tick.
	ps, pi := deliverStart(pap)
	if ps != 1010*time.Millisecond {
		t.Fatalf("paper: delivery start %v, want 1.01s", ps)
	}
	if pap.Events[pi+1].Start >= ps {
		t.Fatalf("paper: the event after the delivery should start earlier (out of global order), got %v", pap.Events[pi+1].Start)
	}
}

// §4 bounded transport queue (Mace default 20): the 21st undelivered
// message on a connection fails, Send returns ErrQueueFull and the node
// gets an "error queue-full" upcall; composite labels record the sends.
func TestFullSendQueueFailsAndUpcalls(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			for i := 0; i < 25; i++ {
				s.sendEr = append(s.sendEr, ctx.Send(1, Blob{Bytes: 100}))
			}
		}),
		Driver:  func(d *timedsim.Driver) { d.App(0, 0, "burst", nil) },
		Stop:    func(w timedsim.World) bool { return len(w.Node(1).(*scripted).got) == 21 }, // init + 20 deliveries,
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	sim := newSim(t, sc, timedsim.Options{Record: true})
	r := sim.Run(timedsim.SeedPath(1))
	if !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	// Inspect node 0 through a replay that keeps the world: use Counts and the log.
	if r.Counts["error queue-full"] != 5 {
		t.Fatalf("error upcalls: %d, want 5 (counts %v)", r.Counts["error queue-full"], r.Counts)
	}
	if r.Composite["app burst → Blob"] != 1 {
		t.Fatalf("composite counts %v", r.Composite)
	}
	var statuses []string
	for _, s := range r.Events[2].Sends { // step 0,1: inits; step 2: burst
		statuses = append(statuses, s.Status)
	}
	if len(statuses) != 25 || statuses[19] != "sent" || statuses[20] != "queue-full" || statuses[24] != "queue-full" {
		t.Fatalf("send statuses %v", statuses)
	}
	if !strings.Contains(eventLog(t, r), "-> n1 Blob 100B on tcp: queue-full") {
		t.Fatal("event log does not show the failed send")
	}
}

func TestSendErrorReturnedToHandler(t *testing.T) {
	var got []error
	var upcalls []*timedsim.TransportError
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			for i := 0; i < 21; i++ {
				if err := ctx.Send(1, Blob{Bytes: 10}); err != nil {
					got = append(got, err)
				}
			}
		}),
		Driver: func(d *timedsim.Driver) { d.App(0, 0, "burst", nil) },
		Stop: func(w timedsim.World) bool {
			upcalls = w.Node(0).(*scripted).errs
			return len(upcalls) > 0
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	if !r.Finished || len(got) != 1 || !errors.Is(got[0], timedsim.ErrQueueFull) {
		t.Fatalf("outcome %v, returned errors %v", r.Outcome, got)
	}
	if len(upcalls) != 1 || !errors.Is(upcalls[0], timedsim.ErrQueueFull) || upcalls[0].Peer != 1 || upcalls[0].Msg == nil {
		t.Fatalf("upcalls %+v", upcalls)
	}
}

// A node reset loses the node's state, timers and in-flight messages, and
// its peers get an ErrConnectionBroken upcall.
func TestNodeResetBreaksConnections(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 3,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			switch name {
			case "send":
				ctx.Send(1, Blob{Bytes: 1_000_000}) // 1 s of transmission
			case "arm":
				ctx.SetTimer("t", time.Second, nil)
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "send", nil)
			d.App(0, 1, "arm", nil)
			d.Reset(100*time.Millisecond, 1)
			d.App(3*time.Second, 2, "end", nil)
		},
		Stop:    func(w timedsim.World) bool { return w.Now() >= 3*time.Second },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	sim := newSim(t, sc, timedsim.Options{Record: true})
	r := sim.Run(timedsim.SeedPath(1))
	if !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if r.Counts["deliver Blob"] != 0 {
		t.Fatal("the message in flight to the reset node was delivered")
	}
	if r.Counts["timer t"] != 0 {
		t.Fatal("the reset node's timer fired")
	}
	if r.Counts["reset"] != 1 || r.Counts["init"] != 4 {
		t.Fatalf("counts %v: want one reset and a fresh init", r.Counts)
	}
	if r.Counts["error broken"] != 1 {
		t.Fatalf("node 0 should get one broken-connection upcall, counts %v", r.Counts)
	}
	log := eventLog(t, r)
	if !regexp.MustCompile(`(?m)^ +\d+ n0 .*error broken from n1$`).MatchString(log) {
		t.Fatalf("log lacks node 0's upcall about n1:\n%s", log)
	}
}

// Timers: SetTimer replaces a pending timer of the same name, CancelTimer
// cancels it, and TimerPending sees changes made earlier in the handler.
func TestTimersReplaceAndCancel(t *testing.T) {
	var pendingSeen []bool
	sc := &timedsim.Scenario{
		Nodes: 1,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			switch name {
			case "a":
				ctx.SetTimer("x", time.Second, nil)
				ctx.SetTimer("x", 2*time.Second, nil) // replaces
				ctx.SetTimer("y", time.Second, nil)
				pendingSeen = append(pendingSeen, ctx.TimerPending("y"))
				ctx.CancelTimer("y")
				pendingSeen = append(pendingSeen, ctx.TimerPending("y"))
			case "b":
				pendingSeen = append(pendingSeen, ctx.TimerPending("x"))
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "a", nil)
			d.App(500*time.Millisecond, 0, "b", nil)
		},
		Stop:    func(w timedsim.World) bool { return w.Now() > 5*time.Second },
		Timeout: 10 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, timedsim.Options{Record: true, EDD: slowEDD(t, "*", 1)}).Run(timedsim.SeedPath(1))
	if r.Counts["timer x"] != 1 || r.Counts["timer y"] != 0 {
		t.Fatalf("counts %v", r.Counts)
	}
	for _, e := range r.Events {
		// init runs 0-1ms, "a" 1-2ms: the replacing timer fires 2s after that.
		if e.Label == "timer x" && e.Start != 2*time.Second+2*time.Millisecond {
			t.Fatalf("timer x fired at %v, want 2.002s", e.Start)
		}
	}
	if len(pendingSeen) != 3 || !pendingSeen[0] || pendingSeen[1] || !pendingSeen[2] {
		t.Fatalf("TimerPending saw %v, want [true false true]", pendingSeen)
	}
	if r.Outcome != timedsim.Stalled {
		t.Fatalf("outcome %v, want stalled (no events left)", r.Outcome)
	}
}

// A panicking handler is a finding, not a crash.
func TestPanickingHandlerIsReported(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			var m map[string]int
			//lint:ignore SA5000 the handler's panic is what the test needs
			m["boom"]++ // nil map write
		}),
		Driver:  func(d *timedsim.Driver) { d.App(time.Second, 1, "boom", nil) },
		Stop:    func(w timedsim.World) bool { return false },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	sim := newSim(t, sc, timedsim.Options{Record: true})
	r := sim.Run(timedsim.SeedPath(1))
	if r.Outcome != timedsim.Panicked || r.Panic == nil {
		t.Fatalf("outcome %v", r.Outcome)
	}
	if r.Panic.Step != 2 || r.Panic.Node != 1 || r.Panic.Label != "app boom" || !strings.Contains(r.Panic.Value, "nil map") {
		t.Fatalf("panic info %+v", r.Panic)
	}
	// The simulator is reusable after a panic.
	if r2 := sim.Run(timedsim.SeedPath(1)); r2.Outcome != timedsim.Panicked || r2.Steps != r.Steps {
		t.Fatalf("rerun after panic: %v, %d steps", r2.Outcome, r2.Steps)
	}
}

func TestTimeoutAndExecTimeDefinitions(t *testing.T) {
	sc := pingpong.Scenario(4, -1) // never stops
	sc.Timeout = 2 * time.Second
	r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	// No event starts after the timeout; the last one may end after it.
	if r.Outcome != timedsim.TimedOut || r.ExecTime != 2*time.Second || r.EndTime > 2*time.Second+10*time.Millisecond {
		t.Fatalf("outcome %v exec %v end %v", r.Outcome, r.ExecTime, r.EndTime)
	}
	sc = pingpong.Scenario(4, 10)
	stop := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(1))
	avg := newSim(t, sc, timedsim.Options{ExecTime: timedsim.AvgClock}).Run(timedsim.SeedPath(1))
	var sum time.Duration
	for _, c := range avg.NodeClocks {
		sum += c
	}
	if avg.ExecTime != sum/4 || stop.ExecTime != stop.EndTime || avg.ExecTime > stop.ExecTime {
		t.Fatalf("avg %v (clocks %v), stop %v end %v", avg.ExecTime, avg.NodeClocks, stop.ExecTime, stop.EndTime)
	}
}

func TestSafetyPropertyEndsExecution(t *testing.T) {
	sc := pingpong.Scenario(2, -1)
	sc.Safety = []timedsim.Property{{Name: "fewer than 5 pongs", Check: func(w timedsim.World) bool {
		return w.Node(0).(*pingpong.Node).Pongs() < 5
	}}}
	r := newSim(t, sc, timedsim.Options{CheckSafety: true}).Run(timedsim.SeedPath(1))
	if r.Outcome != timedsim.SafetyViolated || r.Violation != "fewer than 5 pongs" || r.Counts["deliver Pong"] != 5 {
		t.Fatalf("outcome %v violation %q counts %v", r.Outcome, r.Violation, r.Counts)
	}
}

// Named transports: a lossy datagram transport drops about p of its
// messages (the sender is not told), and a reliable transport with its own
// queue capacity applies it.
func TestNamedTransports(t *testing.T) {
	net := netmodel.DefaultConfig()
	net.Transports = append(net.Transports,
		netmodel.TransportConfig{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.3},
		netmodel.TransportConfig{Name: "data", Kind: netmodel.Reliable, QueueCap: 1})
	var dataErrs []error
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			for i := 0; i < 1000; i++ {
				if err := ctx.SendOn("udp", 1, Blob{Bytes: 10}); err != nil {
					t.Errorf("datagram send returned %v", err)
				}
			}
			dataErrs = append(dataErrs, ctx.SendOn("data", 1, Blob{Bytes: 10}), ctx.SendOn("data", 1, Blob{Bytes: 10}))
		}),
		Driver:  func(d *timedsim.Driver) { d.App(0, 0, "go", nil) },
		Stop:    func(w timedsim.World) bool { return false },
		Timeout: time.Minute,
		Network: net,
	}
	r := newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(3))
	got := r.Counts["deliver Blob"] - 1 // one over "data"
	if got < 630 || got > 770 {         // 700 ± 5 standard errors (sqrt(1000·0.3·0.7) ≈ 14.5)
		t.Fatalf("%d of 1000 datagrams delivered, want about 700", got)
	}
	if len(dataErrs) != 2 || dataErrs[0] != nil || !errors.Is(dataErrs[1], timedsim.ErrQueueFull) {
		t.Fatalf("data transport with QueueCap 1: %v", dataErrs)
	}
	if r.Counts["error queue-full"] != 1 {
		t.Fatalf("counts %v", r.Counts)
	}
}

// A partition breaks the connections that cross it (both ends are told),
// sends across it fail with ErrUnreachable, and Heal lets them through.
func TestPartitionAndHeal(t *testing.T) {
	var sendErrs []error
	sc := &timedsim.Scenario{
		Nodes: 3,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			switch name {
			case "big":
				ctx.Send(1, Blob{Bytes: 1_000_000}) // in flight for ~1 s
			case "try":
				sendErrs = append(sendErrs, ctx.Send(1, Blob{Bytes: 10}), ctx.Send(2, Blob{Bytes: 10}))
			}
		}),
		Driver: func(d *timedsim.Driver) {
			d.App(0, 0, "big", nil)
			d.Partition(100*time.Millisecond, []timedsim.NodeID{1})
			d.App(200*time.Millisecond, 0, "try", nil)
			d.Heal(300 * time.Millisecond)
			d.App(400*time.Millisecond, 0, "try", nil)
		},
		Stop:    func(w timedsim.World) bool { return w.Now() > 2*time.Second },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	r := newSim(t, sc, timedsim.Options{Record: true}).Run(timedsim.SeedPath(1))
	if len(sendErrs) != 4 || !errors.Is(sendErrs[0], timedsim.ErrUnreachable) || sendErrs[1] != nil || sendErrs[2] != nil || sendErrs[3] != nil {
		t.Fatalf("send errors %v", sendErrs)
	}
	// Node 1 gets: the 1 MB message is lost (its connection broke); after
	// the heal, the small message arrives. Node 2 gets both small ones.
	n1, n2 := 0, 0
	for _, e := range r.Events {
		if e.Label == "deliver Blob" && e.Node == 1 {
			n1++
		}
		if e.Label == "deliver Blob" && e.Node == 2 {
			n2++
		}
	}
	if n1 != 1 || n2 != 2 {
		t.Fatalf("deliveries: n1 %d (want 1), n2 %d (want 2)", n1, n2)
	}
	if r.Counts["error broken"] != 2 || r.Counts["error unreachable"] != 1 {
		t.Fatalf("counts %v: want both ends told of the broken connection and one unreachable send", r.Counts)
	}
}

// Phase 1a's ingredients: handler times measured over executions train an
// EDD set that covers every label seen; simulating with it draws durations
// from the measured range.
func TestMeasuredTimesTrainEDD(t *testing.T) {
	sc := gossipScenario(6)
	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{MeasureRealTime: true}, Jobs: 2}
	samples := map[string][]time.Duration{}
	_, _, err := ex.Run(context.Background(), timedsim.Work{N: 10, Path: timedsim.Seeded(1),
		Each: func(_ int, r *timedsim.Result) bool {
			for l, ds := range r.RealTimes {
				samples[l] = append(samples[l], ds...)
			}
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	set, err := edd.Train(samples, edd.DefaultSeed(), 0)
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"init", "timer tick", "deliver Rumor"}
	cov := set.Coverage(labels)
	if len(cov.Trained) != 3 || len(cov.Seed) != 0 {
		t.Fatalf("coverage %+v", cov)
	}
	r := newSim(t, sc, timedsim.Options{EDD: set, Record: true}).Run(timedsim.SeedPath(2))
	var maxMeasured time.Duration
	for _, ds := range samples {
		for _, d := range ds {
			maxMeasured = max(maxMeasured, d)
		}
	}
	for _, e := range r.Events {
		if e.Duration > maxMeasured || e.Duration < 0 {
			t.Fatalf("step %d drew %v, outside the measured range (max %v)", e.Step, e.Duration, maxMeasured)
		}
	}
}

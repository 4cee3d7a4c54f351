package liveness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// sendFrom makes node from send msg to node to on transport tr, as its
// handler would.
func (w *world) sendFrom(from int32, tr int, to timedsim.NodeID, m timedsim.Message) error {
	w.ctx.node = from
	return w.send(tr, to, m)
}

// TestCrash: with Crashes, stopping each node that is up for good is a
// choice, listed last; a crashed node runs nothing again: its application
// events, timers and messages in flight are gone, the other end of its
// reliable connection is told, a later reliable send to it fails as one
// across a partition (ErrUnreachable, with an upcall) and a datagram to it
// is lost. The count left is part of the state, and so is who crashed.
func TestCrash(t *testing.T) {
	w := chattyWith(t, Config{Crashes: 1}, false)
	base := []string{
		"n0 app first",
		"n1 app hello",
		"n1 deliver msg from n0 on tcp msg{Name:\"r0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d0\"}",
		"n1 deliver msg from n0 on udp msg{Name:\"d1\"}",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
	}
	want := append(slices.Clone(base), "n0 crash", "n1 crash")
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("enabled:\n%q\nwant\n%q", got, want)
	}
	if got := chattyWith(t, Config{}, false).enabledLabels(); !slices.Equal(got, base) {
		t.Fatalf("without Crashes: %q", got)
	}
	before := w.hash()
	w.exec(w.enabled()[8]) // n1 crash
	if !w.Crashed(1) || !timedsim.Crashed(w, 1) || timedsim.Crashed(w, 0) || w.crashesLeft != 0 {
		t.Fatalf("crashed: n0 %v, n1 %v; %d left", w.Crashed(0), w.Crashed(1), w.crashesLeft)
	}
	want = []string{
		"n0 app first",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
		"n0 error broken peer n1",
	}
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("after n1's crash:\n%q\nwant\n%q", got, want)
	}
	if w.hash() == before {
		t.Fatal("a crash did not change the state hash")
	}
	err := w.sendFrom(0, 0, 1, msg{"late"})
	if te := (*timedsim.TransportError)(nil); !errors.As(err, &te) || !errors.Is(err, timedsim.ErrUnreachable) || te.Peer != 1 {
		t.Fatalf("a reliable send to a crashed node returned %v", err)
	}
	if err := w.sendFrom(0, 1, 1, msg{"lost"}); err != nil {
		t.Fatalf("a datagram to a crashed node: %v", err)
	}
	want = append(want, "n0 error unreachable peer n1")
	if got := w.enabledLabels(); !slices.Equal(got, want) {
		t.Fatalf("after sends to the crashed node:\n%q\nwant\n%q", got, want)
	}
	if text := strings.Join(w.nodeText(1), "\n"); !strings.Contains(text, "crashed for good") || strings.Contains(text, "next app") {
		t.Fatalf("n1's state:\n%s", text)
	}
}

// TestCrashStateHash: the state hash tells crashed nodes apart from live
// ones and from each other, and counts the crash-stops and partitions
// left; without them (and without the driver's faults) it is what it was
// before they existed.
func TestCrashStateHash(t *testing.T) {
	crashOf := func(cfg Config, node int32) uint64 {
		w := chattyWith(t, cfg, false)
		w.exec(event{kind: kindCrash, node: node})
		return w.hash()
	}
	one, two := chattyWith(t, Config{Crashes: 1}, false), chattyWith(t, Config{Crashes: 2}, false)
	if one.hash() == two.hash() {
		t.Fatal("the crash-stops left are not part of the state")
	}
	if chattyWith(t, Config{Partitions: 1}, false).hash() == chattyWith(t, Config{Partitions: 2}, false).hash() {
		t.Fatal("the partitions left are not part of the state")
	}
	c0, c1 := crashOf(Config{Crashes: 2}, 0), crashOf(Config{Crashes: 2}, 1)
	if c0 == c1 || c0 == two.hash() || c1 == two.hash() {
		t.Fatal("crashing n0, crashing n1 and no crash hash alike")
	}
	// Two crashes: the state with both crashed and one crash left over is
	// not the state with one crash and none left (the same services).
	w := chattyWith(t, Config{Crashes: 2}, false)
	w.exec(event{kind: kindCrash, node: 1})
	x := chattyWith(t, Config{Crashes: 1}, false)
	x.exec(event{kind: kindCrash, node: 1})
	if w.hash() == x.hash() {
		t.Fatal("one crash-stop left and none hash alike")
	}
	// The crashed flag itself: crashing n1 and crashing nobody but
	// spending the count are different states.
	y := chattyWith(t, Config{Crashes: 1}, false)
	y.crashesLeft = 0
	if y.hash() == x.hash() {
		t.Fatal("a crashed node is not part of the state")
	}
	// Without crash-stops, partitions or the driver's faults, the hash is
	// the one of before: the fingerprint of the same bytes without the
	// fault state.
	plain := chattyWith(t, Config{Faults: 1}, false)
	h := plain.hash()
	plain.set.crashes = 1
	if plain.hash() == h {
		t.Fatal("the fault state is hashed with no crash-stops")
	}
}

// TestPartition: with Partitions, cutting each node off from the others
// for good is a choice, listed after the crash-stops; the connections
// across the cut break (reliable: lost and both ends told; datagrams:
// lost), later sends across it fail (reliable) or are lost (datagrams),
// and the nodes on each side still talk among themselves. Cutting off
// either of two nodes is the same state.
func TestPartition(t *testing.T) {
	w := chattyWith(t, Config{Partitions: 2, Crashes: 1}, false)
	en := w.enabledLabels()
	if tail := en[len(en)-4:]; !slices.Equal(tail, []string{"n0 crash", "n1 crash", "n0 partition: cut off for good", "n1 partition: cut off for good"}) {
		t.Fatalf("enabled: %q", en)
	}
	other := chattyWith(t, Config{Partitions: 2, Crashes: 1}, false)
	w.exec(w.enabled()[len(en)-1])         // cut n1 off
	other.exec(other.enabled()[len(en)-2]) // cut n0 off
	if w.hash() != other.hash() {
		t.Fatal("cutting off n0 or n1 of two nodes hash differently")
	}
	want := []string{
		"n0 app first",
		"n1 app hello",
		"n0 timer t \"data\"",
		"n0 error queue-full peer n1",
		"n0 error broken peer n1",
		"n1 error broken peer n0",
		"n0 crash",
		"n1 crash",
	}
	if got := w.enabledLabels(); !slices.Equal(got, want) || w.partsLeft != 1 {
		t.Fatalf("after the partition (%d left; none enabled: no node has a peer on its side):\n%q\nwant\n%q", w.partsLeft, got, want)
	}
	if err := w.sendFrom(1, 0, 0, msg{"x"}); !errors.Is(err, timedsim.ErrUnreachable) {
		t.Fatalf("a reliable send across the partition: %v", err)
	}
	if err := w.sendFrom(0, 1, 1, msg{"y"}); err != nil {
		t.Fatalf("a datagram across the partition: %v", err)
	}
	if err := w.sendFrom(0, 0, 0, msg{"self"}); err != nil {
		t.Fatalf("a send to itself: %v", err)
	}
	got := w.enabledLabels()
	if !slices.Contains(got, "n1 error unreachable peer n0") || !slices.Contains(got, "n0 deliver msg from n0 on tcp msg{Name:\"self\"}") ||
		slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, `"y"`) }) {
		t.Fatalf("after sends across the partition: %q", got)
	}
	if text := strings.Join(w.nodeText(1), "\n"); !strings.Contains(text, "cut off from n0") {
		t.Fatalf("n1's state:\n%s", text)
	}
	// Three nodes: the cut-off node's peers are still together.
	r, err := Config{Scenario: trapSystem(3, 1), Partitions: 2}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	w3 := newWorld(r.set, schedule{})
	w3.start(startPath(1))
	w3.exec(event{kind: kindPartition, node: 0})
	cuts := slices.DeleteFunc(w3.enabledLabels(), func(s string) bool { return !strings.Contains(s, "partition") })
	if w3.reachable(0, 1) || !w3.reachable(1, 2) || !slices.Equal(cuts, []string{"n1 partition: cut off for good", "n2 partition: cut off for good"}) {
		t.Fatalf("three nodes, n0 cut off: reachable %v %v, partitions enabled %q", w3.reachable(0, 1), w3.reachable(1, 2), cuts)
	}
}

// scripted is chatty's scenario with a driver that scripts faults.
func scripted(t *testing.T, drv func(d *timedsim.Driver)) *world {
	t.Helper()
	sc := &timedsim.Scenario{Nodes: 3, New: func(timedsim.NodeID) timedsim.Service { return &chatty{} }, Driver: drv, Liveness: []timedsim.Property{always},
		Network: netmodel.Config{Transports: []netmodel.TransportConfig{
			{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 2},
			{Name: "udp", Kind: netmodel.Datagram},
		}}}
	return startedWorld(t, Config{Scenario: sc})
}

// run executes the enabled event described as desc, failing if none is.
func (w *world) run(t *testing.T, desc string) {
	t.Helper()
	i := slices.Index(w.enabledLabels(), desc)
	if i < 0 {
		t.Fatalf("%q is not enabled: %q", desc, w.enabledLabels())
	}
	w.seedStep()
	if !w.exec(w.enabled()[i]) {
		t.Fatalf("%s: %s", desc, w.panicked)
	}
}

// TestDriverFaults: the driver's scripted faults are steps of the
// script: a fault waits for the application events before it, and those
// after it wait for it. A reset keeps the node's place in its script; a
// partition replaces the driver's previous one, cuts the connections
// across it and makes sends across it fail; a heal ends it.
func TestDriverFaults(t *testing.T) {
	w := scripted(t, func(d *timedsim.Driver) {
		d.App(0, 1, "a", nil)
		d.Reset(time.Second, 0)
		d.App(2*time.Second, 2, "b", nil)
		d.App(2*time.Second, 0, "c", nil)
		d.Partition(3*time.Second, []timedsim.NodeID{1})
		d.Break(4*time.Second, 0, 2)
		d.Heal(5 * time.Second)
	})
	// Only n1's first event may run: the reset waits for it, b and c for
	// the reset.
	if got := w.enabledLabels(); !slices.Equal(got[:1], []string{"n1 app a"}) || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "driver") || strings.Contains(s, "app b") }) {
		t.Fatalf("at the start: %q", got)
	}
	w.run(t, "n1 app a")
	old := w.nodes[0].svc
	w.run(t, "n0 driver reset")
	if w.nodes[0].svc == old || w.nodes[0].app != 0 || w.script != 1 {
		t.Fatalf("the driver's reset: same service %v, app %d, script %d", w.nodes[0].svc == old, w.nodes[0].app, w.script)
	}
	if got := w.enabledLabels(); !slices.Contains(got, "n2 app b") || !slices.Contains(got, "n0 app c") || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "driver") }) {
		t.Fatalf("after the reset: %q", got)
	}
	w.run(t, "n2 app b")
	w.run(t, "n0 app c")
	// n0's Init sent r0, r1 to n1 (r2 over the queue bound) and d0, d1.
	w.run(t, "driver partition {n1} {n0 n2}")
	got := w.enabledLabels()
	if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "deliver") }) || !slices.Contains(got, "n0 error broken peer n1") || !slices.Contains(got, "n1 error broken peer n0") {
		t.Fatalf("after the partition: %q", got)
	}
	if err := w.sendFrom(2, 0, 1, msg{"x"}); !errors.Is(err, timedsim.ErrUnreachable) {
		t.Fatalf("a send across the driver's partition: %v", err)
	}
	if err := w.sendFrom(2, 0, 0, msg{"y"}); err != nil {
		t.Fatalf("a send within a side: %v", err)
	}
	w.run(t, "n0 driver break n2")
	if slices.ContainsFunc(w.enabledLabels(), func(s string) bool { return strings.Contains(s, `"y"`) }) || !slices.Contains(w.enabledLabels(), "n2 error broken peer n0") {
		t.Fatalf("after the break: %q", w.enabledLabels())
	}
	w.run(t, "driver heal")
	if !w.reachable(1, 2) || w.script != len(w.drv.faults) {
		t.Fatalf("after the heal: reachable %v, script %d", w.reachable(1, 2), w.script)
	}
	if err := w.sendFrom(2, 0, 1, msg{"z"}); err != nil {
		t.Fatalf("a send after the heal: %v", err)
	}
}

// TestDriverChosenFaults: ResetChosen and Outage choose from the world of
// their step; an outage's heal is then a pending event of its own, at any
// later step; a chosen reset of a crashed node does nothing.
func TestDriverChosenFaults(t *testing.T) {
	var seen []int
	w := scripted(t, func(d *timedsim.Driver) {
		d.ResetChosen(time.Second, func(w timedsim.World) timedsim.NodeID {
			seen = append(seen, w.Steps())
			return 2
		})
		d.Outage(2*time.Second, func(w timedsim.World, r *rand.Rand) ([][]timedsim.NodeID, time.Duration) {
			return [][]timedsim.NodeID{{2}}, time.Second
		})
		d.ResetChosen(3*time.Second, func(timedsim.World) timedsim.NodeID { return 2 })
	})
	w.set.crashes, w.crashesLeft = 1, 1
	var log []string
	w.log = &log
	w.run(t, "n1 deliver msg from n0 on tcp msg{Name:\"r0\"}")
	w.run(t, "driver reset (chosen by the driver)")
	if !slices.Equal(seen, []int{1}) || w.stepNode != 2 || !slices.Contains(log, "    driver: reset chooses n2") {
		t.Fatalf("ResetChosen saw steps %v, reset %d; log %q", seen, w.stepNode, log)
	}
	w.run(t, "driver partition (an outage chosen by the driver)")
	if w.heals != 1 || w.reachable(0, 2) || !w.reachable(0, 1) {
		t.Fatalf("after the outage: %d heals pending, reachable %v %v", w.heals, w.reachable(0, 2), w.reachable(0, 1))
	}
	if got := w.enabledLabels(); !slices.Equal(got[:2], []string{"driver reset (chosen by the driver)", "driver heal (an outage's end)"}) {
		t.Fatalf("after the outage: %q", got)
	}
	w.run(t, "n2 crash")
	w.run(t, "driver reset (chosen by the driver)")
	if !w.Crashed(2) || !slices.Contains(log, "    driver: n2 has crashed for good: no reset") {
		t.Fatalf("a crashed node was reset: crashed %v, log %q", w.Crashed(2), log)
	}
	w.run(t, "driver heal (an outage's end)")
	if w.heals != 0 || !w.reachable(0, 2) {
		t.Fatalf("after the outage's heal: %d pending, reachable %v", w.heals, w.reachable(0, 2))
	}
}

// ackNode is a protocol that waits forever for a crashed peer: node 0
// pings every other node at Init and is done when each has acked, with no
// timeout and no retry.
type ackNode struct {
	Acked []bool
	Done  bool
}

type ping struct{}
type ack struct{}

func (ping) Size() int { return 1 }
func (ack) Size() int  { return 1 }

func (n *ackNode) Init(ctx timedsim.Context) {
	if ctx.Self() != 0 {
		return
	}
	n.Acked = make([]bool, ctx.Nodes())
	n.Acked[0] = true
	for i := 1; i < ctx.Nodes(); i++ {
		ctx.Send(timedsim.NodeID(i), ping{})
	}
}

func (n *ackNode) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	switch m.(type) {
	case ping:
		ctx.Send(from, ack{})
	case ack:
		n.Acked[from] = true
		n.Done = !slices.Contains(n.Acked, false)
	}
}

func (n *ackNode) Timer(timedsim.Context, string, any) {}

// ackSystem: three ackNodes, live when node 0 is done, unless it crashed
// (a property over the nodes that are up: a crashed node 0 has nothing
// left to do).
func ackSystem() *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: 3,
		New:   func(timedsim.NodeID) timedsim.Service { return &ackNode{} },
		Liveness: []timedsim.Property{{Name: "done", Check: func(w timedsim.World) bool {
			return timedsim.Crashed(w, 0) || w.Node(0).(*ackNode).Done
		}}},
	}
}

// TestCrashCriticalTransition: a protocol that waits forever for a
// crashed peer is live without faults, and with one crash-stop the search
// finds a dead path whose critical transition (C1) is the crash itself,
// with the crashed node in the state diff.
func TestCrashCriticalTransition(t *testing.T) {
	cfg := Config{Scenario: ackSystem(), Depth: 3, MaxDepth: 3, DMax: 60, Seed: 1, Jobs: 2}
	rep, err := Run(context.Background(), cfg)
	if err != nil || rep.Violation != nil {
		t.Fatalf("without crash-stops: %v, violation %+v", err, rep.Violation)
	}
	cfg.Crashes = 1
	rep, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, c := rep.Violation, rep.Critical
	if v == nil || v.Kind != KindLiveness || v.Property != "done" {
		t.Fatalf("violation %+v", v)
	}
	if c == nil || c.Class != C1 || (c.DeadEvent != "n1 crash" && c.DeadEvent != "n2 crash") {
		t.Fatalf("critical %+v", c)
	}
	lines, err := Replay(cfg, c.Dead)
	if err != nil {
		t.Fatal(err)
	}
	crashAt := -1
	for _, l := range lines {
		var step int
		if _, err := fmt.Sscan(l, &step); err == nil && strings.Contains(l, " crash [choice ") {
			crashAt = step
		}
	}
	if crashAt != c.Step {
		t.Fatalf("the crash is at step %d, the critical transition at %d:\n%s", crashAt, c.Step, strings.Join(lines, "\n"))
	}
	crashed := int(c.DeadEvent[1] - '0')
	i := slices.IndexFunc(c.Diff, func(d NodeDiff) bool { return d.Node == crashed })
	if i < 0 || !slices.Contains(c.Diff[i].Lines, "-crashed for good") {
		t.Fatalf("the diff does not show %s crashed: %+v", c.DeadEvent, c.Diff)
	}
}

// explicitPath is the path that takes the events described by descs (by
// their Replay description) one step each from the initial state of path
// start, then draws steps more at random.
func explicitPath(t *testing.T, cfg Config, start Path, steps int, descs ...string) Path {
	t.Helper()
	w, err := pathWorld(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	w.start(start)
	p := start
	p.Choices = nil
	for _, d := range descs {
		i := slices.Index(w.enabledLabels(), d)
		if i < 0 {
			t.Fatalf("%q is not enabled after %v: %q", d, p.Choices, w.enabledLabels())
		}
		p.Choices = append(p.Choices, i)
		w.seedStep()
		w.exec(w.enabled()[i])
	}
	p.Steps = len(descs) + steps
	return p
}

// TestFaultReplay: a path with a lasting partition and a crash-stop
// replays to the same event log, byte for byte, every time and as
// TracePath sees it; under other fault settings the same choices are
// another execution.
func TestFaultReplay(t *testing.T) {
	cfg := randtreeConfig(t, randtree.VariantFixed, 4)
	cfg.Crashes, cfg.Partitions = 1, 1
	p := explicitPath(t, cfg, startPath(cfg.Seed), 200, "n1 app join [n1]", "n2 partition: cut off for good", "n0 app start Start{Peers:[n1] Within:500ms}", "n0 crash")
	a, err := Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("two replays of the path differ")
	}
	text := strings.Join(a, "\n")
	for _, want := range []string{"\n1 n2 partition: cut off for good [choice ", "\n3 n0 crash [choice ", "crashed for good", "cut off from n0 n1"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the replay lacks %q:\n%s", want, text)
		}
	}
	if len(a) < 50 {
		t.Fatalf("the replay is short:\n%s", text)
	}
	tr, err := TracePath(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range tr.Steps {
		if l := fmt.Sprintf("%d %s [choice %d of %d]", i, st.Desc, st.Choice, st.Enabled); !slices.Contains(a, l) {
			t.Fatalf("trace step %q is not in the replay", l)
		}
	}
	if k := tr.Steps[3]; k.Kind != "crash" || k.Node != 0 {
		t.Fatalf("trace step 3: %+v", k)
	}
	other := cfg
	other.Crashes = 0
	if c, err := Replay(other, p); err == nil && strings.Join(c, "\n") == text {
		t.Fatal("the path replays alike without crash-stops")
	}
}

// TestFaultSearchWorkers: a search with crash-stops and partitions reports
// the same whatever the number of workers, with the sequential division
// and the level-synchronous one: through many prefix tasks without a
// violation (ticking nodes, live when every node that is up has ticked
// twice), and to RandTree's violation (all-joined needs every node).
func TestFaultSearchWorkers(t *testing.T) {
	ticks := trapSystem(3, 2)
	ticks.Liveness = []timedsim.Property{{Name: "two-ticks", Check: func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if id := timedsim.NodeID(i); !timedsim.Crashed(w, id) && w.Node(id).(*trapNode).Count < 2 {
				return false
			}
		}
		return true
	}}}
	rt := randtreeConfig(t, randtree.VariantFixed, 2)
	rt.Depth, rt.MaxDepth, rt.DMax, rt.Walks = 4, 4, 200, 5
	rt.Weights = map[string]int{"crash": 0, "partition": 0} // faults in the DFS only
	for _, base := range []Config{
		{Scenario: ticks, Depth: 5, MaxDepth: 5, DMax: 60, Seed: 3, Weights: trapWeights()},
		rt,
	} {
		for _, levels := range []bool{false, true} {
			var reps []*Report
			for _, jobs := range []int{1, 3} {
				cfg := base
				cfg.Crashes, cfg.Partitions, cfg.SplitDepth, cfg.LevelDivision, cfg.Jobs = 1, 1, 2, levels, jobs
				rep, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				reps = append(reps, rep)
			}
			if !reflect.DeepEqual(reps[0], reps[1]) {
				t.Fatalf("level division %v: 1 vs 3 workers:\n%+v\n%+v", levels, reps[0], reps[1])
			}
			if v := reps[0].Violation; (v != nil) != (base.Scenario != ticks) || v == nil && reps[0].Stats.Prefixes < 8 {
				t.Fatalf("level division %v: violation %+v, stats %+v", levels, v, reps[0].Stats)
			}
		}
	}
}

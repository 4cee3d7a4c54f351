package timedsim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// chat exercises what a snapshot must carry: both transports (a bounded
// reliable queue, lossy datagrams), timers set, replaced and cancelled,
// handler randomness, notes, error upcalls, a busy node 0 that everyone
// writes to (its wait list), application events, and state that grows.
type chat struct {
	id   timedsim.NodeID
	n    int
	sent int
	got  []int
	errs int
}

type Chat struct{ Seq, Bytes int }

func (m Chat) Size() int { return m.Bytes }

func (c *chat) Clone() timedsim.Service {
	d := *c
	d.got = slices.Clone(c.got)
	return &d
}

func (c *chat) Describe() string { return fmt.Sprintf("sent=%d got=%v errs=%d", c.sent, c.got, c.errs) }

func (c *chat) Init(ctx timedsim.Context) {
	ctx.SetTimer("tick", time.Duration(ctx.Rand().IntN(20))*time.Millisecond, nil)
	ctx.SetTimer("idle", time.Second, nil)
}

func (c *chat) say(ctx timedsim.Context, to timedsim.NodeID) {
	c.sent++
	m := Chat{Seq: int(c.id)*1000 + c.sent, Bytes: 50 + ctx.Rand().IntN(3000)}
	if ctx.Rand().IntN(3) == 0 {
		_ = ctx.SendOn("udp", to, m)
	} else if err := ctx.Send(to, m); err != nil {
		ctx.Note("send failed")
	}
}

func (c *chat) Timer(ctx timedsim.Context, name string, _ any) {
	switch name {
	case "tick":
		to := timedsim.NodeID(ctx.Rand().IntN(c.n))
		if ctx.Rand().IntN(2) == 0 {
			to = 0 // keep node 0 busy
		}
		c.say(ctx, to)
		if c.sent < 25 {
			ctx.SetTimer("tick", time.Duration(1+ctx.Rand().IntN(15))*time.Millisecond, nil)
		}
		if ctx.TimerPending("idle") && ctx.Rand().IntN(4) == 0 {
			ctx.CancelTimer("idle")
		}
	case "idle":
		ctx.Note("idle")
	}
}

func (c *chat) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	c.got = append(c.got, msg.(Chat).Seq)
	if ctx.Rand().IntN(4) == 0 && from != c.id {
		c.say(ctx, from)
	}
}

func (c *chat) App(ctx timedsim.Context, name string, data any) {
	for range data.(int) {
		c.say(ctx, 0)
	}
}

func (c *chat) Error(ctx timedsim.Context, err *timedsim.TransportError) { c.errs++ }

func chatScenario(nodes int) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: nodes,
		New:   func(id timedsim.NodeID) timedsim.Service { return &chat{id: id, n: nodes} },
		Driver: func(d *timedsim.Driver) {
			d.App(5*time.Millisecond, 1, "burst", 6+d.Rand().IntN(4))
			d.Break(40*time.Millisecond, 0, 2)
			d.Reset(60*time.Millisecond, 3)
			d.ResetChosen(90*time.Millisecond, func(w timedsim.World) timedsim.NodeID {
				return timedsim.NodeID(w.Steps() % w.Nodes())
			})
			d.Outage(120*time.Millisecond, func(w timedsim.World, r *rand.Rand) ([][]timedsim.NodeID, time.Duration) {
				return [][]timedsim.NodeID{{0, 1}, {2, 3, 4}}, time.Duration(10+r.IntN(40)) * time.Millisecond
			})
		},
		Stop: func(w timedsim.World) bool {
			for i := range w.Nodes() {
				if w.Node(timedsim.NodeID(i)).(*chat).sent < 25 {
					return false
				}
			}
			return true
		},
		Timeout: 10 * time.Second,
		Network: netmodel.Config{Transports: []netmodel.TransportConfig{
			{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 3},
			{Name: "udp", Kind: netmodel.Datagram, DropProb: 0.1, ReorderWindow: time.Millisecond}}},
	}
}

// TestSnapshotForkEqualsReplay: an execution forked from a snapshot at
// any step equals its replay from step 0 — result, event log, drawn
// numbers and final states — under both busy-node semantics, a sparse
// stopping check, a deadline, a count window, safety checks, the average
// clock and the handler watchdog; forks from one snapshot do not disturb
// each other, on the simulator that took it or another.
func TestSnapshotForkEqualsReplay(t *testing.T) {
	sc := chatScenario(5)
	sparse := *sc
	sparse.CheckEvery = 7
	sparse.Safety = []timedsim.Property{{Name: "few errors", Check: func(w timedsim.World) bool {
		return w.Node(0).(*chat).errs < 40
	}}}
	cases := []struct {
		name string
		sc   *timedsim.Scenario
		opts timedsim.Options
	}{
		{"requeue", sc, timedsim.Options{}},
		{"paper", sc, timedsim.Options{Semantics: timedsim.Paper}},
		{"sparse-check+safety", &sparse, timedsim.Options{CheckSafety: true, ExecTime: timedsim.AvgClock}},
		{"deadline+window", sc, timedsim.Options{Deadline: 80 * time.Millisecond, CountWindow: 50 * time.Millisecond}},
		{"paper+deadline", sc, timedsim.Options{Semantics: timedsim.Paper, Deadline: 100 * time.Millisecond}},
		{"watchdog", sc, timedsim.Options{HandlerTimeout: time.Minute}},
		{"max-steps", sc, timedsim.Options{MaxSteps: 150}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.Record, opts.RecordStates = true, true
			replay, forker, other := newSim(t, c.sc, opts), newSim(t, c.sc, opts), newSim(t, c.sc, opts)
			forks, ended := 0, 0
			for seed := uint64(1); seed <= 4; seed++ {
				base := timedsim.SeedPath(seed)
				steps := replay.Run(base).Steps
				for _, p := range []int{1, 2, steps / 5, steps / 2, steps - 1, steps, steps + 3} {
					if p < 1 {
						continue
					}
					snap, err := forker.SnapshotAt(ctx, base, p)
					if err != nil {
						t.Fatalf("seed %d, snapshot at %d: %v", seed, p, err)
					}
					if snap.Ended() {
						ended++
					}
					for b := range uint64(3) {
						path := base.Branch(p, seed*100+b)
						want := replay.Run(path)
						for i, sim := range []*timedsim.Simulator{forker, other, forker} {
							got := sim.RunFrom(ctx, snap, path)
							if d := timedsim.DiffResults(want, got); d != "" {
								t.Fatalf("seed %d, fork %d of branch %d at step %d: %s", seed, i, b, p, d)
							}
							forks++
						}
					}
				}
			}
			if ended == 0 || forks < 100 {
				t.Fatalf("%d forks, %d from an ended execution: the cases are not covered", forks, ended)
			}
		})
	}
}

// TestSnapshotCoversTheCases: the scenario of TestSnapshotForkEqualsReplay
// does what it is there for — full queues, lost datagrams, broken
// connections, busy waits, resets — or its comparisons prove little.
func TestSnapshotCoversTheCases(t *testing.T) {
	sim := newSim(t, chatScenario(5), timedsim.Options{Record: true})
	seen := map[string]int{}
	for seed := uint64(1); seed <= 4; seed++ {
		r := sim.Run(timedsim.SeedPath(seed))
		for _, e := range r.Events {
			for _, s := range e.Sends {
				seen["send "+s.Status]++
			}
			if e.Start > e.Ready {
				seen["waited"]++
			}
			seen[e.Label]++
		}
	}
	for _, k := range []string{"send sent", "send dropped", "send queue-full", "send unreachable", "waited", "reset", "break", "partition", "heal", "error broken", "app burst"} {
		if seen[k] == 0 {
			t.Errorf("no %q in 4 executions (seen: %v)", k, seen)
		}
	}
}

// plain is a service that is not a Cloner.
type plain struct{}

func (plain) Init(timedsim.Context)                                       {}
func (plain) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (plain) Timer(timedsim.Context, string, any)                         {}

func TestSnapshotRefusals(t *testing.T) {
	ctx := context.Background()
	sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return plain{} },
		Stop: func(timedsim.World) bool { return true }, Timeout: time.Second}
	if timedsim.Forkable(sc) {
		t.Error("Forkable: a scenario of plain services")
	}
	if _, err := newSim(t, sc, timedsim.Options{}).SnapshotAt(ctx, timedsim.SeedPath(1), 3); !errors.Is(err, timedsim.ErrNotForkable) {
		t.Errorf("SnapshotAt of plain services: %v, want ErrNotForkable", err)
	}
	stack := &timedsim.Scenario{Nodes: 2, New: func(id timedsim.NodeID) timedsim.Service {
		return timedsim.NewStack(timedsim.Layer{Name: "a", Service: &chat{id: id, n: 2}}, timedsim.Layer{Name: "b", Service: plain{}})
	}, Stop: func(timedsim.World) bool { return true }, Timeout: time.Second}
	if timedsim.Forkable(stack) {
		t.Error("Forkable: a stack with a layer that is not a Cloner")
	}

	chatSc := chatScenario(5)
	sim := newSim(t, chatSc, timedsim.Options{})
	if _, err := sim.SnapshotAt(ctx, timedsim.SeedPath(1), 0); err == nil {
		t.Error("SnapshotAt step 0: no error (a branch at 0 changes the driver's draws)")
	}
	snap, err := sim.SnapshotAt(ctx, timedsim.SeedPath(1), 20)
	if err != nil {
		t.Fatal(err)
	}
	mustPanic := func(what, want string, f func()) {
		t.Helper()
		defer func() {
			v := recover()
			if v == nil || !strings.Contains(fmt.Sprint(v), want) {
				t.Errorf("%s: panic %v, want one saying %q", what, v, want)
			}
		}()
		f()
	}
	mustPanic("another path", "does not follow", func() { sim.RunFrom(ctx, snap, timedsim.SeedPath(2).Branch(20, 5)) })
	mustPanic("a branch before the snapshot", "does not follow", func() { sim.RunFrom(ctx, snap, timedsim.SeedPath(1).Branch(10, 5)) })
	mustPanic("other options", "other options", func() {
		newSim(t, chatSc, timedsim.Options{Semantics: timedsim.Paper}).RunFrom(ctx, snap, timedsim.SeedPath(1).Branch(20, 5))
	})
	mustPanic("another scenario", "another scenario", func() {
		newSim(t, chatScenario(5), timedsim.Options{}).RunFrom(ctx, snap, timedsim.SeedPath(1).Branch(20, 5))
	})
	if r := sim.RunFrom(ctx, snap, timedsim.SeedPath(1).Branch(25, 5)); r.Steps <= 20 {
		t.Errorf("a branch after the snapshot's step ran %d steps: %v %+v", r.Steps, r.Outcome, r.Panic)
	}
}

func TestSamePrefix(t *testing.T) {
	a := timedsim.Path{Segments: []timedsim.Segment{{From: 0, Seed: 1}, {From: 10, Seed: 2}}}
	for _, c := range []struct {
		b     timedsim.Path
		steps int
		want  bool
	}{
		{a.Branch(10, 9), 10, true},
		{a.Branch(11, 9), 11, true},
		{a.Branch(11, 9), 12, false},
		{a.Branch(5, 9), 10, false},
		{a, 0, false},
		{timedsim.SeedPath(1), 10, true},
		{timedsim.SeedPath(1), 11, false},
		{timedsim.SeedPath(3), 5, false},
	} {
		if got := timedsim.SamePrefix(a, c.b, c.steps); got != c.want {
			t.Errorf("SamePrefix(%v, %v, %d) = %v, want %v", a, c.b, c.steps, got, c.want)
		}
	}
}

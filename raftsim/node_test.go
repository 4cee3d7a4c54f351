package raftsim

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// counter sums the committed payloads.
type counter struct{ Entries int }

func (c *counter) Apply(uint64, []byte) { c.Entries++ }

func applied(w timedsim.World, id timedsim.NodeID) int {
	if c, _ := NodeOf(w, id).StateMachine().(*counter); c != nil {
		return c.Entries
	}
	return 0
}

// testScenario: n nodes, proposals from t=0 to random nodes, a boot
// jitter, stop when every node applied them all; driver adds faults.
func testScenario(n, proposals int, wrap func(*Node) timedsim.Service, faults func(d *timedsim.Driver)) *timedsim.Scenario {
	cfg := &Config{NewStateMachine: func(timedsim.NodeID) StateMachine { return &counter{} }, BootJitter: time.Second}
	if wrap == nil {
		wrap = func(n *Node) timedsim.Service { return n }
	}
	return &timedsim.Scenario{
		Nodes: n,
		New:   func(id timedsim.NodeID) timedsim.Service { return wrap(New(id, cfg)) },
		Driver: func(d *timedsim.Driver) {
			for i := range proposals {
				Propose(d, time.Duration(i)*20*time.Millisecond, timedsim.NodeID(d.Rand().IntN(n)), fmt.Appendf(nil, "p%d", i))
			}
			if faults != nil {
				faults(d)
			}
		},
		Stop: func(w timedsim.World) bool {
			for i := range w.Nodes() {
				if applied(w, timedsim.NodeID(i)) < proposals {
					return false
				}
			}
			return true
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
		Safety:  Safety(),
	}
}

func eventLog(t *testing.T, sim *timedsim.Simulator, p timedsim.Path) string {
	t.Helper()
	res := sim.Run(p)
	if !res.Finished {
		t.Fatalf("outcome %v (panic %v, violation %q)", res.Outcome, res.Panic, res.Violation)
	}
	var b bytes.Buffer
	if err := timedsim.WriteEventLog(&b, timedsim.LogHeader{System: "raft", Path: p}, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The same path gives the same event log, byte for byte — on a fresh
// simulator or after other executions — so raft's election timeouts
// (crypto/rand draws) come from the path; another path gives another
// execution.
func TestSamePathSameLog(t *testing.T) {
	sc := testScenario(3, 10, nil, nil)
	opts := timedsim.Options{Record: true, CheckSafety: true}
	a, _ := timedsim.NewSimulator(sc, opts)
	b, _ := timedsim.NewSimulator(sc, opts)
	p := timedsim.SeedPath(7)
	first := eventLog(t, a, p)
	eventLog(t, b, timedsim.SeedPath(8))
	eventLog(t, b, timedsim.SeedPath(9))
	if second := eventLog(t, b, p); second != first {
		t.Fatalf("the same path gave two event logs:\n%s", firstDiff(first, second))
	}
	if !strings.Contains(first, "became leader") || !strings.Contains(first, "timer persist") {
		t.Fatalf("the log shows no election or persist:\n%.2000s", first)
	}
	if other := eventLog(t, a, p.Branch(40, 1)); other == first {
		t.Fatal("a branched path gave the same execution")
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return "one log is a prefix of the other"
}

// Results do not depend on the number of workers, though raft's code runs
// under one process-wide lock: every execution is the same with 1 and 4.
func TestJobsIndependent(t *testing.T) {
	sc := testScenario(3, 10, nil, nil)
	run := func(jobs int) []*timedsim.Result {
		ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{Record: true}, Jobs: jobs}
		res, done, err := ex.Run(context.Background(), timedsim.Work{N: 12, Path: timedsim.Seeded(3), Keep: true})
		if err != nil || done != 12 {
			t.Fatalf("jobs=%d: %d done, %v", jobs, done, err)
		}
		return res
	}
	one, four := run(1), run(4)
	for i := range one {
		var a, b bytes.Buffer
		timedsim.WriteEventLog(&a, timedsim.LogHeader{}, one[i])
		timedsim.WriteEventLog(&b, timedsim.LogHeader{}, four[i])
		if a.String() != b.String() {
			t.Fatalf("execution %d differs between 1 and 4 workers:\n%s", i, firstDiff(a.String(), b.String()))
		}
	}
}

// checked wraps a Node and checks every message it sends against what its
// disk holds at that moment: raft's Ready contract (persist before send).
type checked struct {
	*Node
	t      *testing.T
	checks *int
}

type checkCtx struct {
	timedsim.Context
	c *checked
}

func (c checkCtx) Send(to timedsim.NodeID, msg timedsim.Message) error {
	m, err := msg.(Message).Decode()
	if err != nil {
		c.c.t.Fatal(err)
	}
	d := c.c.Node.disk
	hs, _, _ := d.Storage.InitialState()
	switch {
	case m.GetType() == raftpb.MessageType_MsgVoteResp && !m.GetReject():
		// A granted vote is durable before it is sent.
		*c.c.checks++
		if hs.GetVote() != m.GetTo() || hs.GetTerm() < m.GetTerm() {
			c.c.t.Errorf("%v granted its vote to %d in term %d with vote %d, term %d on disk", c.c.id, m.GetTo(), m.GetTerm(), hs.GetVote(), hs.GetTerm())
		}
	case m.GetType() == raftpb.MessageType_MsgAppResp && !m.GetReject():
		// An acknowledged entry is durable before it is acknowledged.
		*c.c.checks++
		if last, _ := d.Storage.LastIndex(); last < m.GetIndex() {
			c.c.t.Errorf("%v acknowledged index %d with %d on disk", c.c.id, m.GetIndex(), last)
		}
	}
	return c.Context.Send(to, msg)
}

func (c *checked) Init(ctx timedsim.Context) { c.Node.Init(checkCtx{ctx, c}) }
func (c *checked) Deliver(ctx timedsim.Context, from timedsim.NodeID, m timedsim.Message) {
	c.Node.Deliver(checkCtx{ctx, c}, from, m)
}
func (c *checked) Timer(ctx timedsim.Context, name string, data any) {
	c.Node.Timer(checkCtx{ctx, c}, name, data)
}
func (c *checked) App(ctx timedsim.Context, name string, data any) {
	c.Node.App(checkCtx{ctx, c}, name, data)
}
func (c *checked) Error(ctx timedsim.Context, te *timedsim.TransportError) {
	c.Node.Error(checkCtx{ctx, c}, te)
}

// Votes and acknowledgements leave a node only once they are on its disk,
// in every execution of a sample, with a leader crash among them.
func TestPersistBeforeSend(t *testing.T) {
	checks := 0
	sc := testScenario(3, 20, func(n *Node) timedsim.Service { return &checked{Node: n, t: t, checks: &checks} },
		func(d *timedsim.Driver) { d.ResetChosen(2*time.Second, leaderOf) })
	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
	for i := range 20 {
		if res := sim.Run(timedsim.SeedPath(uint64(i))); !res.Finished {
			t.Fatalf("execution %d: %v %v %s", i, res.Outcome, res.Panic, res.Violation)
		}
	}
	if checks < 100 {
		t.Fatalf("only %d votes and acknowledgements checked", checks)
	}
}

func leaderOf(w timedsim.World) timedsim.NodeID {
	for i := range w.Nodes() {
		if st := NodeOf(w, timedsim.NodeID(i)).Status(); st.Role == raft.StateLeader {
			return timedsim.NodeID(i)
		}
	}
	return timedsim.None
}

// A reset leader restarts from its disk: its term, vote and log are those
// it had made durable, it never leads a term twice, and the group
// finishes with the safety properties checked after every event.
func TestResetRestartsFromDisk(t *testing.T) {
	var before, after Status
	var crashed timedsim.NodeID
	sc := testScenario(3, 20, nil, func(d *timedsim.Driver) {
		d.ResetChosen(2*time.Second, func(w timedsim.World) timedsim.NodeID {
			crashed = leaderOf(w)
			if crashed != timedsim.None {
				n := NodeOf(w, crashed)
				before = n.Status()
				before.LastDurable = n.disk.lastIndex()
				hs, _, _ := n.disk.Storage.InitialState()
				before.Vote, before.Term = hs.GetVote(), hs.GetTerm()
			}
			return crashed
		})
	})
	stop := sc.Stop
	sc.Stop = func(w timedsim.World) bool {
		if crashed != timedsim.None && w.Now() > 2*time.Second && after.Term == 0 {
			after = NodeOf(w, crashed).Status()
		}
		return stop(w)
	}
	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
	res := sim.Run(timedsim.SeedPath(5))
	if !res.Finished || crashed == timedsim.None {
		t.Fatalf("outcome %v, crashed %v", res.Outcome, crashed)
	}
	if res.Counts["reset"] != 1 {
		t.Fatalf("%d resets", res.Counts["reset"])
	}
	// Right after the restart: the durable term and vote, the durable log.
	if after.Term < before.Term || after.Vote == 0 && before.Vote != 0 && after.Term == before.Term || after.LastDurable < before.LastDurable {
		t.Fatalf("restarted with term %d vote %d last %d, had %d %d %d on disk", after.Term, after.Vote, after.LastDurable, before.Term, before.Vote, before.LastDurable)
	}
}

// fakeWorld is a World over given nodes.
type fakeWorld []*Node

func (w fakeWorld) Nodes() int                                { return len(w) }
func (w fakeWorld) Node(id timedsim.NodeID) timedsim.Service  { return w[id] }
func (w fakeWorld) Now() time.Duration                        { return 0 }
func (w fakeWorld) Steps() int                                { return 0 }
func (w fakeWorld) TimerPending(timedsim.NodeID, string) bool { return false }

func entries(first uint64, terms ...uint64) []*raftpb.Entry {
	out := make([]*raftpb.Entry, len(terms))
	for i, t := range terms {
		out[i] = &raftpb.Entry{Index: new(first + uint64(i)), Term: new(t), Data: fmt.Appendf(nil, "e%d", first+uint64(i))}
	}
	return out
}

func nodeWith(led []uint64, commit uint64, ents []*raftpb.Entry) *Node {
	d := newDisk(3)
	d.led = led
	d.write(&raft.Ready{Entries: ents, HardState: &raftpb.HardState{Term: new(uint64(5)), Commit: new(commit)}})
	return &Node{disk: d}
}

// The safety properties see two leaders of one term, and committed logs
// that differ (but not uncommitted suffixes that differ).
func TestSafetyProperties(t *testing.T) {
	one, logs := Safety()[0].Check, Safety()[1].Check
	ok := fakeWorld{nodeWith([]uint64{2, 4}, 3, entries(2, 1, 2)), nodeWith([]uint64{3}, 3, entries(2, 1, 2)), {}}
	if !one(ok) || !logs(ok) {
		t.Fatalf("a consistent world violates: one-leader %v, logs %v", one(ok), logs(ok))
	}
	twice := fakeWorld{nodeWith([]uint64{2, 4}, 1, nil), nodeWith([]uint64{3, 4}, 1, nil)}
	if one(twice) {
		t.Error("two leaders of term 4 went unseen")
	}
	// Entry 3 differs (term 2 against 3): committed on both at 3, not at 2.
	a, b := entries(2, 1, 2), entries(2, 1, 3)
	if logs(fakeWorld{nodeWith(nil, 3, a), nodeWith(nil, 3, b)}) {
		t.Error("committed logs that differ at index 3 went unseen")
	}
	if !logs(fakeWorld{nodeWith(nil, 2, a), nodeWith(nil, 3, b)}) {
		t.Error("an uncommitted difference was reported")
	}
	// An overwritten suffix is rehashed.
	n := nodeWith(nil, 2, b)
	n.disk.write(&raft.Ready{Entries: entries(3, 2), HardState: &raftpb.HardState{Commit: new(uint64(3))}})
	if !logs(fakeWorld{nodeWith(nil, 3, a), n}) {
		t.Error("a log whose conflicting suffix was overwritten still differs")
	}
}

// A Message is raft's protobuf encoding: sized by it, labelled by raft's
// type, described on one line.
func TestMessage(t *testing.T) {
	pm := &raftpb.Message{Type: raftpb.MessageType_MsgApp.Enum(), From: new(uint64(1)), To: new(uint64(2)), Term: new(uint64(3)),
		Entries: []*raftpb.Entry{{Index: new(uint64(5)), Term: new(uint64(3)), Data: []byte("k=v")}, {Index: new(uint64(6)), Term: new(uint64(3))}}}
	m := encode(pm)
	if m.Size() != proto.Size(pm) || m.MessageLabel() != "MsgApp" {
		t.Errorf("size %d (proto %d), label %q", m.Size(), proto.Size(pm), m.MessageLabel())
	}
	d := m.Describe()
	if strings.Contains(d, "\n") || !strings.Contains(d, "1->2 MsgApp Term:3") || !strings.Contains(d, `"k=v"`) {
		t.Errorf("describe %q", d)
	}
	back, err := m.Decode()
	if err != nil || !proto.Equal(back, pm) {
		t.Errorf("decode: %v %v", back, err)
	}
}

func TestConfigValidate(t *testing.T) {
	sm := func(timedsim.NodeID) StateMachine { return &counter{} }
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "NewStateMachine is nil"},
		{Config{NewStateMachine: sm, Raft: raft.Config{ElectionTick: 3, HeartbeatTick: 3}}, "ElectionTick (3) must be greater"},
		{Config{NewStateMachine: sm, Raft: raft.Config{AsyncStorageWrites: true}}, "AsyncStorageWrites"},
		{Config{NewStateMachine: sm, Tick: -1}, "Tick"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "raftsim: ") {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := (&Config{NewStateMachine: sm}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// The hidden state is read from the pinned raft's fields: none is missing,
// and a tick changes it.
func TestHiddenFieldsFound(t *testing.T) {
	sc := testScenario(3, 2, nil, nil)
	var states []string
	stop := sc.Stop
	sc.Stop = func(w timedsim.World) bool {
		for i := range w.Nodes() {
			if n := NodeOf(w, timedsim.NodeID(i)); n.rn != nil {
				states = append(states, hidden(n.rn))
			}
		}
		return stop(w)
	}
	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{})
	if res := sim.Run(timedsim.SeedPath(1)); !res.Finished {
		t.Fatal(res.Outcome)
	}
	all := strings.Join(states, "\n")
	if strings.Contains(all, "?") || !strings.Contains(all, "votes=") || !strings.Contains(all, "unstable=") {
		t.Fatalf("hidden state incomplete:\n%s", all)
	}
	if !strings.Contains(all, "raft{elapsed=1/") || !strings.Contains(all, "raft{elapsed=2/") {
		t.Fatalf("ticks do not show:\n%.1500s", all)
	}
}

// Campaign elects the chosen node at once, with and without PreVote,
// before anybody's first tick; a node asked before it booted campaigns
// when it boots (then the others may not be up yet: it wins later).
func TestCampaign(t *testing.T) {
	for _, c := range []struct {
		prevote bool
		jitter  time.Duration
	}{{false, 0}, {true, 0}, {false, time.Second}, {true, time.Second}} {
		cfg := &Config{NewStateMachine: func(timedsim.NodeID) StateMachine { return &counter{} }, BootJitter: c.jitter}
		cfg.Raft.PreVote, cfg.Raft.CheckQuorum = c.prevote, c.prevote
		sc := &timedsim.Scenario{
			Nodes:  3,
			New:    func(id timedsim.NodeID) timedsim.Service { return New(id, cfg) },
			Driver: func(d *timedsim.Driver) { Campaign(d, 0, 1) },
			Stop: func(w timedsim.World) bool {
				for i := range w.Nodes() {
					if NodeOf(w, timedsim.NodeID(i)).Status().Role == raft.StateLeader {
						return true
					}
				}
				return false
			},
			Timeout: time.Minute,
			Network: netmodel.DefaultConfig(),
			Safety:  Safety(),
		}
		sim, _ := timedsim.NewSimulator(sc, timedsim.Options{Record: true, CheckSafety: true})
		for seed := uint64(1); seed <= 3; seed++ {
			res := sim.Run(timedsim.SeedPath(seed))
			if !res.Finished {
				t.Fatalf("%+v seed %d: %v %s", c, seed, res.Outcome, res.Violation)
			}
			first := -1 // the step where node 1 first campaigned
			for _, e := range res.Events {
				for _, l := range e.Logs {
					if first < 0 && e.Node == 1 && (strings.Contains(l, "became candidate") || strings.Contains(l, "became pre-candidate")) {
						first = e.Step
						if want := map[bool]string{false: "app campaign", true: "timer boot"}[c.jitter > 0]; e.Label != want {
							t.Errorf("%+v seed %d: n1 campaigned in %q, want %q", c, seed, e.Label, want)
						}
					}
				}
			}
			if first < 0 {
				t.Errorf("%+v seed %d: n1 never campaigned", c, seed)
			}
			// Without jitter: elected before anybody's first tick.
			if c.jitter == 0 && (!strings.Contains(res.FinalStates[1], "role=leader") || res.Counts["timer tick"] > 0 || res.ExecTime >= 100*time.Millisecond) {
				t.Errorf("%+v seed %d: a leader at %v after %d ticks: %s", c, seed, res.ExecTime, res.Counts["timer tick"], res.FinalStates[1])
			}
		}
	}
}

package bullet

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// fakeCtx runs a handler without the simulator: it records sends, timers
// and notes, and answers SendQueue from queued, the number of messages
// the test says each data connection holds. A send on a data connection
// holding cap messages fails with ErrQueueFull, as the simulator's does.
type fakeCtx struct {
	self   NodeID
	rng    *rand.Rand
	queued map[NodeID]int
	cap    int
	sent   []sent
	timers map[string]time.Duration
	notes  []string
}

type sent struct {
	transport string
	to        NodeID
	msg       timedsim.Message
}

func newCtx(self NodeID) *fakeCtx {
	return &fakeCtx{self: self, rng: rand.New(rand.NewPCG(1, 2)), queued: map[NodeID]int{}, cap: 2, timers: map[string]time.Duration{}}
}

func (c *fakeCtx) Self() NodeID                               { return c.self }
func (c *fakeCtx) Nodes() int                                 { return 100 }
func (c *fakeCtx) Now() time.Duration                         { return time.Second }
func (c *fakeCtx) Send(to NodeID, msg timedsim.Message) error { return c.SendOn(Control, to, msg) }
func (c *fakeCtx) SendOn(tr string, to NodeID, msg timedsim.Message) error {
	if tr == Data {
		if c.queued[to] >= c.cap {
			return &timedsim.TransportError{Transport: tr, Peer: to, Err: timedsim.ErrQueueFull, Msg: msg}
		}
		c.queued[to]++
	}
	c.sent = append(c.sent, sent{tr, to, msg})
	return nil
}
func (c *fakeCtx) SetTimer(name string, after time.Duration, _ any) { c.timers[name] = after }
func (c *fakeCtx) CancelTimer(name string)                          { delete(c.timers, name) }
func (c *fakeCtx) TimerPending(name string) bool                    { _, ok := c.timers[name]; return ok }
func (c *fakeCtx) Rand() *rand.Rand                                 { return c.rng }
func (c *fakeCtx) Logf(string, ...any)                              {}
func (c *fakeCtx) Note(text string)                                 { c.notes = append(c.notes, text) }
func (c *fakeCtx) QueueLen(tr string, to NodeID) int {
	if tr == Data {
		return c.queued[to]
	}
	return 0
}
func (c *fakeCtx) QueueCap(tr string) int {
	if tr == Data {
		return c.cap
	}
	return -1
}

// take returns and forgets the messages sent so far.
func (c *fakeCtx) take() []sent {
	s := c.sent
	c.sent = nil
	return s
}

func testConfig() Config {
	return Config{Blocks: 10, BlockSize: 1000, MaxPeers: 2, Target: 2, Candidates: 3, MaxOutstanding: 2,
		DiffInterval: 100 * time.Millisecond, RetryInterval: 20 * time.Millisecond}
}

// peered returns receiver id started, with the given peers.
func peered(t *testing.T, id NodeID, cfg Config, peers ...NodeID) (*Node, *fakeCtx) {
	t.Helper()
	n := NewNode(id, cfg)
	c := newCtx(id)
	n.App(c, AppStart, time.Duration(0))
	for _, p := range peers {
		n.Deliver(c, p, Join{})
	}
	c.take()
	return n, c
}

// A node with MaxPeers peers rejects a Join: the buggy JoinReject is
// empty, the fixed one lists its peers, and the rejected node joins one of
// them in the fixed protocol but has nobody left to try in the buggy one,
// and says so.
func TestJoinReject(t *testing.T) {
	for _, bug := range []bool{true, false} {
		cfg := testConfig()
		cfg.RejectWithoutPeers = bug
		full, fc := peered(t, 5, cfg, 6, 7)
		full.Deliver(fc, 9, Join{})
		out := fc.take()
		if len(out) != 1 || out[0].to != 9 || out[0].transport != Control {
			t.Fatalf("bug=%v: full node sent %+v, want one JoinReject to n9 on control", bug, out)
		}
		rej, ok := out[0].msg.(JoinReject)
		if !ok {
			t.Fatalf("bug=%v: full node sent %T", bug, out[0].msg)
		}
		if want := []NodeID{6, 7}; bug && len(rej.Peers) != 0 || !bug && !slices.Equal(rej.Peers, want) {
			t.Errorf("bug=%v: JoinReject lists %v", bug, rej.Peers)
		}
		if !slices.Contains(fc.notes, NoteFull) {
			t.Errorf("bug=%v: notes %q lack %q", bug, fc.notes, NoteFull)
		}

		// n9 asked n5 (its only candidate) and is rejected.
		n9, c9 := peered(t, 9, cfg)
		n9.Deliver(c9, Source, Candidates{Peers: []NodeID{5}})
		if got := c9.take(); len(got) != 1 || got[0].msg != (Join{}) || got[0].to != 5 {
			t.Fatalf("bug=%v: n9 sent %+v, want Join to n5", bug, got)
		}
		n9.Deliver(c9, 5, rej)
		got := c9.take()
		var joined []NodeID
		for _, s := range got {
			if s.msg == (Join{}) {
				joined = append(joined, s.to)
			}
		}
		if bug {
			if len(joined) != 0 || !slices.Contains(c9.notes, NoteRejectEmpty) || !slices.Contains(c9.notes, NoteNoCandidates) {
				t.Errorf("buggy: n9 joined %v with notes %q, want no join, %q and %q", joined, c9.notes, NoteRejectEmpty, NoteNoCandidates)
			}
		} else if !slices.Equal(joined, []NodeID{6, 7}) || !slices.Contains(c9.notes, NoteRejectPeers) {
			t.Errorf("fixed: n9 joined %v with notes %q, want n6 and n7 and %q", joined, c9.notes, NoteRejectPeers)
		}
	}
}

// A block goes out only onto an empty data connection; otherwise the send
// timer retries it, and it leaves when the connection has drained.
func TestBlockFits(t *testing.T) {
	cfg := testConfig()
	src := NewNode(Source, cfg)
	c := newCtx(Source)
	src.App(c, AppStart, time.Duration(0))
	src.Deliver(c, 3, Join{})
	c.take()
	c.queued[3] = 1 // a Diff is still on its way
	src.Deliver(c, 3, Request{Blocks: []int32{4, 5}})
	if got := c.take(); len(got) != 0 {
		t.Fatalf("sent %+v onto a busy data connection", got)
	}
	if d, ok := c.timers[TimerSend]; !ok || d != cfg.RetryInterval {
		t.Fatalf("send timer %v (set %v), want %v", d, ok, cfg.RetryInterval)
	}
	c.queued[3] = 0
	delete(c.timers, TimerSend)
	src.Timer(c, TimerSend, nil)
	got := c.take()
	if len(got) != 1 || got[0].transport != Data || !reflect.DeepEqual(got[0].msg, Block{Index: 4, Bytes: 1000}) {
		t.Fatalf("after draining sent %+v, want block 4 on data", got)
	}
	if _, ok := c.timers[TimerSend]; !ok {
		t.Error("block 5 still queued but no send timer")
	}
}

// A node tells its peers of new blocks in its next Diff. In the diff-drop
// protocol the Diff goes on the data transport and is lost when the
// connection is full (the handler notes it, and the blocks are not told
// again); in the fixed one it goes on control.
func TestDiffTransport(t *testing.T) {
	for _, bug := range []bool{true, false} {
		cfg := testConfig()
		cfg.DiffsOverData = bug
		n, c := peered(t, 4, cfg, 6, 7)
		n.Deliver(c, 6, Diff{Blocks: []int32{1, 2}, Bitmap: 10})
		c.take()
		c.queued[6], c.queued[7] = 0, 2 // n7's data connection is full
		n.Deliver(c, 6, Block{Index: 1, Bytes: 1000})
		if _, ok := c.timers[TimerDiff]; !ok {
			t.Fatalf("bug=%v: no Diff timer after a new block", bug)
		}
		c.take()
		n.Timer(c, TimerDiff, nil)
		var diffs []sent
		for _, s := range c.take() {
			if _, ok := s.msg.(Diff); ok {
				diffs = append(diffs, s)
			}
		}
		lost := slices.Contains(c.notes, NoteDiffLost)
		switch {
		case bug && (len(diffs) != 0 || !lost):
			t.Errorf("buggy: Diffs %+v, lost-note %v; want n7's Diff lost", diffs, lost)
		case !bug && (len(diffs) != 1 || diffs[0].to != 7 || diffs[0].transport != Control || lost):
			t.Errorf("fixed: Diffs %+v, lost-note %v; want one Diff to n7 on control", diffs, lost)
		}
		// The block came from n6, which needs no Diff of it; the next
		// timer has nothing to tell n7 either way.
		n.Timer(c, TimerDiff, nil)
		if got := c.take(); len(got) != 0 {
			t.Errorf("bug=%v: second Diff timer sent %+v", bug, got)
		}
	}
}

// A stalled node (no peer holds what it lacks) leaves a peer for RanSub's
// candidates when a new subset arrives; a node with work to do keeps its
// peers.
func TestSubsetStalled(t *testing.T) {
	cfg := testConfig()
	n, c := peered(t, 4, cfg, 6, 7)
	n.Deliver(c, 6, Diff{Blocks: []int32{1}, Bitmap: 10})
	c.take()
	n.Subset(c, 1, []NodeID{8, 9})
	if got := c.take(); len(got) != 0 || len(n.Peers()) != 2 {
		t.Fatalf("busy node sent %+v and has peers %v", got, n.Peers())
	}
	n.Deliver(c, 6, Block{Index: 1, Bytes: 1000})
	c.take()
	n.Subset(c, 2, []NodeID{8, 9})
	got := c.take()
	var leave, join []NodeID
	for _, s := range got {
		switch s.msg.(type) {
		case Leave:
			leave = append(leave, s.to)
		case Join:
			join = append(join, s.to)
		}
	}
	if len(leave) != 1 || len(n.Peers()) != 1 || len(join) != 1 || !slices.Contains(c.notes, NoteStalled) {
		t.Errorf("stalled node: left %v, joined %v, peers %v, notes %q", leave, join, n.Peers(), c.notes)
	}
}

// A receiver that gets its last block notes NoteDone and records when.
func TestDone(t *testing.T) {
	cfg := testConfig()
	cfg.Blocks = 2
	n, c := peered(t, 4, cfg, Source)
	n.Deliver(c, Source, Diff{Blocks: []int32{0, 1}, Bitmap: 2})
	n.Deliver(c, Source, Block{Index: 0, Bytes: 1000})
	if n.Complete() || slices.Contains(c.notes, NoteDone) {
		t.Fatal("complete after one block of two")
	}
	n.Deliver(c, Source, Block{Index: 1, Bytes: 1000})
	if !n.Complete() || n.DoneAt() != time.Second || !slices.Contains(c.notes, NoteDone) {
		t.Errorf("after both blocks: complete %v at %v, notes %q", n.Complete(), n.DoneAt(), c.notes)
	}
}

package realnet

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// A timer name the simulators refuse makes a real run's handler panic
// too, with the same text, whichever method names it
// (timedsim.TimerLabel); a good name does not.
func TestTimerNamesAsInTheSimulators(t *testing.T) {
	for _, name := range []string{"retry", "re\ntry"} {
		want := ""
		if err := timedsim.CheckTimerName(name); err != nil {
			want = err.Error()
		}
		for op, f := range map[string]func(c *ctx){
			"set":     func(c *ctx) { c.SetTimer(name, time.Second, nil) },
			"cancel":  func(c *ctx) { c.CancelTimer(name) },
			"pending": func(c *ctx) { c.TimerPending(name) },
		} {
			got := ""
			func() {
				defer func() {
					if v := recover(); v != nil {
						got = fmt.Sprint(v)
					}
				}()
				f(&ctx{n: &node{timers: map[string]timerState{}}})
			}()
			if got != want {
				t.Errorf("%s %q: panicked %q, want %q", op, name, got, want)
			}
		}
	}
}

// A handler that breaks the service contract (a bad timer name, a send
// to a node or on a transport the scenario does not have) panics with
// the same text in a real run (ctx) and in its replay (rctx): both check
// it by the simulators' rules.
func TestReplayKeepsTheContractOfARealRun(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 2}
	trs := timedsim.NewTransports(sc.Network)
	real := func() timedsim.Context {
		rt := &runtime{sc: sc, ncfg: sc.Network.WithDefaults(), trs: trs}
		return &ctx{n: &node{rt: rt, timers: map[string]timerState{}, pending: map[outKey]int{}, out: map[outKey]*outConn{}}}
	}
	replay := func() timedsim.Context {
		r := &replayer{sc: sc, ncfg: sc.Network.WithDefaults(), trs: trs, nodes: make([]*rnode, 2), res: &ReplayResult{Sends: make([][]Send, 2)},
			inflight: map[msgKey]timedsim.Message{}, failed: map[msgKey]*timedsim.TransportError{}}
		return &rctx{r: r, n: &rnode{timers: map[string]any{}}, e: &Event{}}
	}
	panicOf := func(f func()) (got string) {
		defer func() {
			if v := recover(); v != nil {
				got = fmt.Sprint(v)
			}
		}()
		f()
		return ""
	}
	for name, f := range map[string]func(c timedsim.Context){
		"set a bad timer":         func(c timedsim.Context) { c.SetTimer("re\ntry", time.Second, nil) },
		"cancel a bad timer":      func(c timedsim.Context) { c.CancelTimer("re\ntry") },
		"ask for a bad timer":     func(c timedsim.Context) { c.TimerPending("re\ntry") },
		"send to no node":         func(c timedsim.Context) { c.Send(2, refusedMsg{}) },
		"send on no transport":    func(c timedsim.Context) { c.SendOn("carrier-pigeon", 1, refusedMsg{}) },
		"send to a negative node": func(c timedsim.Context) { c.Send(-1, refusedMsg{}) },
	} {
		want, got := panicOf(func() { f(real()) }), panicOf(func() { f(replay()) })
		if want == "" || got != want {
			t.Errorf("%s: the replay panics %q, the real run %q", name, got, want)
		}
	}
}

// errNode sends once at Init and records the error its send returned and
// the one its Error upcall got.
type errNode struct {
	returned error
	upcall   *timedsim.TransportError
}

func (n *errNode) Init(ctx timedsim.Context) {
	if ctx.Self() == 0 {
		n.returned = ctx.Send(1, refusedMsg{})
	}
}
func (n *errNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *errNode) Timer(timedsim.Context, string, any)                         {}
func (n *errNode) Error(_ timedsim.Context, te *timedsim.TransportError)       { n.upcall = te }

// A send the real run's full queue refused is refused in the replay by
// the contract's rule (timedsim.Transports.Refused): the send returns
// ErrQueueFull, and the Error upcall the trace records carries that same
// error, with the message.
func TestReplayRefusesAsTheRunDid(t *testing.T) {
	nodes := []*errNode{{}, {}}
	sc := &timedsim.Scenario{Nodes: 2, New: func(id timedsim.NodeID) timedsim.Service { return nodes[id] }, Stop: func(timedsim.World) bool { return true }}
	h := Header{Format: "macepc-realnet-trace", Version: 1, Nodes: 2, TimeScale: 1}
	rt := &RunTrace{Dir: "test", Nodes: []*Trace{
		{File: "node-000.jsonl", Header: h, Lines: []int{2, 3}, Events: []Event{
			{Seq: 0, Lamport: 1, Kind: KindInit, Peer: -1, Sends: []Send{{To: 1, Transport: "tcp", ID: 1, Label: "refusedMsg", Err: ErrKindQueueFull}}},
			{Seq: 1, Lamport: 2, Kind: KindError, Peer: 1, Transport: "tcp", Msg: 1, Err: ErrKindQueueFull},
		}},
		{File: "node-001.jsonl", Header: h, Lines: []int{2}, Events: []Event{{Seq: 0, Lamport: 1, Kind: KindInit, Peer: -1}}},
	}}
	res, err := Replay(sc, rt, ReplayOptions{})
	if err != nil || res.Nondeterminism != nil || res.Steps != 3 {
		t.Fatalf("replay: %v, %+v", err, res)
	}
	n := nodes[0]
	var te *timedsim.TransportError
	if !errors.As(n.returned, &te) || te.Err != timedsim.ErrQueueFull || te.Peer != 1 || te.Transport != "tcp" || te.Msg != (refusedMsg{}) {
		t.Fatalf("the send returned %v", n.returned)
	}
	if n.upcall != te {
		t.Errorf("the upcall got %+v, not the error the send returned %+v", n.upcall, te)
	}
}

type refusedMsg struct{}

func (refusedMsg) Size() int { return 64 }

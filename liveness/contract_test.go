package liveness

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// contractNode records what the service contract told it: what its sends
// returned, the Error upcalls it got, and the durable state a reset
// handed its new incarnation. Its durable state is the number of
// messages it received.
type contractNode struct {
	Log       []string
	Got       int
	Recovered string
}

func (n *contractNode) Init(ctx timedsim.Context) {}
func (n *contractNode) Deliver(_ timedsim.Context, _ timedsim.NodeID, _ timedsim.Message) {
	n.Got++
}
func (n *contractNode) Timer(timedsim.Context, string, any) {}
func (n *contractNode) App(ctx timedsim.Context, _ string, _ any) {
	for i := range 3 {
		err := ctx.Send(1, msg{fmt.Sprint("m", i)})
		n.Log = append(n.Log, "send "+describeErr(err))
	}
}
func (n *contractNode) Disk() any          { return n.Got }
func (n *contractNode) Recover(disk any)   { n.Recovered = fmt.Sprint("got ", disk) }
func (n *contractNode) record(line string) { n.Log = append(n.Log, line) }

// handlerNode is contractNode with Error upcalls.
type handlerNode struct{ contractNode }

func (n *handlerNode) Error(_ timedsim.Context, te *timedsim.TransportError) {
	n.record("upcall " + te.Label() + " " + describeErr(te))
}

func describeErr(err error) string {
	te, ok := err.(*timedsim.TransportError)
	if !ok {
		return fmt.Sprint(err)
	}
	return fmt.Sprintf("%v transport=%s peer=%v msg=%v", te.Err, te.Transport, te.Peer, te.Msg)
}

// TestContractRulesAgree: the timed simulator and the liveness mode apply
// the service contract's rules alike (timedsim.Transports, RecoverDisk):
// a send over the queue bound returns the same ErrQueueFull and, to a
// service that handles errors, makes the same upcall; a reset tells the
// other end of the connection with the same ErrConnectionBroken upcall,
// and hands the same durable state to the new incarnation; messages are
// labelled alike (timedsim.MessageLabel). A service
// without an Error method gets no upcall in either.
func TestContractRulesAgree(t *testing.T) {
	for _, handles := range []bool{true, false} {
		t.Run(fmt.Sprintf("errorhandler=%t", handles), func(t *testing.T) {
			var nodes []*contractNode
			sc := &timedsim.Scenario{
				Nodes: 2,
				New: func(timedsim.NodeID) timedsim.Service {
					if handles {
						n := &handlerNode{}
						nodes = append(nodes, &n.contractNode)
						return n
					}
					n := &contractNode{}
					nodes = append(nodes, n)
					return n
				},
				Driver: func(d *timedsim.Driver) {
					d.App(0, 0, "burst", nil)
					d.Reset(time.Second, 1)
				},
				Stop:    func(timedsim.World) bool { return false },
				Timeout: time.Minute,
				Network: netmodel.Config{Transports: []netmodel.TransportConfig{{Name: "tcp", Kind: netmodel.Reliable, QueueCap: 2}}},
			}
			// The timed simulator: the burst at 0, its deliveries, the
			// upcall, then the reset at 1 s.
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{Record: true})
			if err != nil {
				t.Fatal(err)
			}
			res := sim.Run(timedsim.SeedPath(1))
			if res.Panic != nil {
				t.Fatal(res.Panic.Value)
			}
			var timedErrs []string
			for _, e := range res.Events {
				if strings.HasPrefix(e.Label, "error ") || strings.HasPrefix(e.Label, "deliver ") {
					timedErrs = append(timedErrs, e.Node.String()+" "+e.Label)
				}
			}
			timed := contractOutcome(nodes)

			// The liveness mode, in the same order: upcalls, then
			// deliveries, then the driver's reset.
			nodes = nil
			sc.Liveness = []timedsim.Property{always}
			w := startedWorld(t, Config{Scenario: sc})
			var liveErrs []string
			for range 20 {
				en := w.enabled()
				if len(en) == 0 {
					break
				}
				i := slices.IndexFunc(en, func(e event) bool { return e.kind == kindError })
				if i < 0 {
					i = slices.IndexFunc(en, func(e event) bool { return e.kind == kindDeliver })
				}
				if i < 0 {
					i = 0
				}
				if en[i].kind == kindError || en[i].kind == kindDeliver {
					liveErrs = append(liveErrs, timedsim.NodeID(en[i].node).String()+" "+w.label(en[i]))
				}
				w.seedStep()
				if !w.execEvent(en[i]) {
					t.Fatal(w.panicked)
				}
			}
			live := contractOutcome(nodes)

			if timed != live || !slices.Equal(timedErrs, liveErrs) {
				t.Fatalf("the engines disagree:\ntimed:    %s, upcalls %q\nliveness: %s, upcalls %q", timed, timedErrs, live, liveErrs)
			}
			wantErrs := []string{"n0 error queue-full", "n1 deliver msg", "n1 deliver msg", "n0 error broken"}
			if !handles {
				wantErrs = wantErrs[1:3]
			}
			if !slices.Equal(timedErrs, wantErrs) || !strings.Contains(timed, "send timedsim: send queue full transport=tcp peer=n1 msg={m2}") ||
				!strings.Contains(timed, "recovered \"got 2\"") {
				t.Fatalf("both engines: %s, upcalls %q; want a refused third send, upcalls %q and n1's durable count recovered", timed, timedErrs, wantErrs)
			}
		})
	}
}

// contractOutcome renders what the contract told each incarnation, in
// the order they were made.
func contractOutcome(nodes []*contractNode) string {
	var b strings.Builder
	for i, n := range nodes {
		fmt.Fprintf(&b, "[incarnation %d: %q recovered %q]", i, n.Log, n.Recovered)
	}
	return b.String()
}

// timerNode names a timer in its application event with SetTimer,
// CancelTimer or TimerPending.
type timerNode struct{ op, name string }

func (n *timerNode) Init(timedsim.Context)                                       {}
func (n *timerNode) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *timerNode) Timer(timedsim.Context, string, any)                         {}
func (n *timerNode) App(ctx timedsim.Context, _ string, _ any) {
	switch n.op {
	case "set":
		ctx.SetTimer(n.name, time.Second, nil)
	case "cancel":
		ctx.CancelTimer(n.name)
	case "pending":
		ctx.TimerPending(n.name)
	}
}

// TestContractTimerNames: a timer name CheckTimerName refuses makes the
// handler that names it panic, with the same text, in the timed
// simulator and in the liveness mode, whichever method names it
// (timedsim.TimerLabel); a good name does not.
func TestContractTimerNames(t *testing.T) {
	for _, op := range []string{"set", "cancel", "pending"} {
		for _, name := range []string{"retry", "re\ntry"} {
			sc := &timedsim.Scenario{
				Nodes:    1,
				New:      func(timedsim.NodeID) timedsim.Service { return &timerNode{op: op, name: name} },
				Driver:   func(d *timedsim.Driver) { d.App(0, 0, "go", nil) },
				Stop:     func(timedsim.World) bool { return false },
				Timeout:  time.Minute,
				Liveness: []timedsim.Property{always},
			}
			sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			timed := ""
			if res := sim.Run(timedsim.SeedPath(1)); res.Panic != nil {
				timed = res.Panic.Value
			}
			w := startedWorld(t, Config{Scenario: sc})
			w.seedStep()
			live := ""
			if !w.execEvent(w.enabled()[0]) {
				live = strings.TrimPrefix(w.panicked, "n0: ")
			}
			want := ""
			if err := timedsim.CheckTimerName(name); err != nil {
				want = err.Error()
			}
			if timed != want || live != want {
				t.Errorf("%s %q: the simulator panicked %q, the liveness mode %q; want %q", op, name, timed, live, want)
			}
		}
	}
}

package raftsim_test

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/raftsim"
	"github.com/macepc/macepc/timedsim"
)

// counter is the application: it sums the committed payloads' lengths.
type counter struct{ Entries, Bytes int }

func (c *counter) Apply(_ uint64, data []byte) { c.Entries++; c.Bytes += len(data) }

// Wrapping your own RawNode application: a state machine, a raftsim.Config
// with the raft knobs, a driver that proposes, and a stopping condition.
func Example() {
	cfg := &raftsim.Config{
		NewStateMachine: func(timedsim.NodeID) raftsim.StateMachine { return &counter{} },
		BootJitter:      time.Second,
	}
	cfg.Raft.PreVote, cfg.Raft.CheckQuorum = true, true
	const proposals = 20
	sc := &timedsim.Scenario{
		Nodes: 3,
		New:   func(id timedsim.NodeID) timedsim.Service { return raftsim.New(id, cfg) },
		Driver: func(d *timedsim.Driver) {
			for i := range proposals {
				raftsim.Propose(d, 3*time.Second+time.Duration(i)*10*time.Millisecond, timedsim.NodeID(i%3), fmt.Appendf(nil, "p%d", i))
			}
		},
		Stop: func(w timedsim.World) bool {
			for i := range w.Nodes() {
				if c, _ := w.Node(timedsim.NodeID(i)).(*raftsim.Node).StateMachine().(*counter); c == nil || c.Entries < proposals {
					return false
				}
			}
			return true
		},
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
		Safety:  raftsim.Safety(),
	}
	sim, err := timedsim.NewSimulator(sc, timedsim.Options{CheckSafety: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := sim.Run(timedsim.SeedPath(1))
	fmt.Println(res.Outcome, res.Counts["deliver MsgVote"] > 0, res.Counts["timer persist"] > 0)
	// Output:
	// finished true true
}

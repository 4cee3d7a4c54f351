package liveness

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// appEvent is one application event of the scenario's driver.
type appEvent struct {
	name  string
	data  any
	label string // "app <name>"
}

// schedule is the driver's application events of each node, in the order
// the timed simulator would run them.
type schedule [][]appEvent

// driverSchedule runs the scenario's driver with seed and returns its
// application events per node, in time order (events of one node at the
// same instant in the order they were scheduled).
//
// timedsim keeps a Driver's events to itself, so the driver is run where
// it is meant to run: in a timed simulation of the scenario whose nodes
// are recorders that do nothing but note the application events they
// receive. The simulator hands the driver the random source of the path
// timedsim.SeedPath(seed), so the schedule is a pure function of seed.
// The driver's faults (Reset, Break, Partition, Heal and the chosen ones)
// are not application events and are not run (Options.AppsOnly): the
// liveness mode has its own faults (Config.Faults).
func driverSchedule(sc *timedsim.Scenario, seed uint64) (schedule, error) {
	out := make(schedule, sc.Nodes)
	if sc.Driver == nil {
		return out, nil
	}
	rec := *sc
	rec.New = func(id timedsim.NodeID) timedsim.Service { return &recorder{id: id, out: out} }
	rec.Stop = func(timedsim.World) bool { return false }
	rec.NewStop = nil
	rec.Safety, rec.Liveness = nil, nil
	rec.CheckEvery = 0
	rec.Timeout = time.Duration(1 << 62)
	sim, err := timedsim.NewSimulator(&rec, timedsim.Options{AppsOnly: true})
	if err != nil {
		return nil, fmt.Errorf("liveness: scenario: %w", err)
	}
	res := sim.Run(timedsim.SeedPath(seed))
	if res.Panic != nil {
		return nil, fmt.Errorf("liveness: scenario driver panicked: %s", res.Panic.Value)
	}
	return out, nil
}

// recorder is the service of driverSchedule's simulation.
type recorder struct {
	id  timedsim.NodeID
	out schedule
}

func (r *recorder) Init(timedsim.Context)                                       {}
func (r *recorder) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (r *recorder) Timer(timedsim.Context, string, any)                         {}

func (r *recorder) App(_ timedsim.Context, name string, data any) {
	r.out[r.id] = append(r.out[r.id], appEvent{name: name, data: data, label: "app " + name})
}

package timedsim

import "time"

// AppEvent is one application event a scenario's driver scheduled: event
// Name with Data on Node at time At.
type AppEvent struct {
	At   time.Duration
	Node NodeID
	Name string
	Data any
}

// DriverPlan runs the scenario's driver as the simulator does for a path
// whose first segment has seed seed (the driver draws from the same
// stream), and returns its application events in the order it scheduled
// them, and how many faults (resets, broken connections, partitions,
// heals) it scheduled besides. It is the hook through which a runtime
// other than the simulator (package realnet's real sockets) delivers the
// scenario's application events; the same seed gives the same events.
func DriverPlan(sc *Scenario, seed uint64) (apps []AppEvent, faults int) {
	if sc.Driver == nil {
		return nil, 0
	}
	r := newStepRand()
	r.reset(SeedPath(seed))
	r.driver()
	d := Driver{nodes: sc.Nodes, rng: r.R}
	sc.Driver(&d)
	for _, e := range d.events {
		if e.kind != drvApp {
			faults++
			continue
		}
		apps = append(apps, AppEvent{At: e.at, Node: e.node, Name: e.name, Data: e.data})
	}
	return apps, faults
}

package liveness

import (
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// appEvent is one application event of the scenario's driver.
type appEvent struct {
	name  string
	data  any
	label string // "app <name>"
	// faults is the number of the driver's faults before it in the script:
	// it waits until they have run.
	faults int
}

// scriptFault is one of the driver's faults (timedsim.Driver's Reset,
// ResetChosen, Break, Partition, PartitionChosen, Outage, Heal).
type scriptFault struct {
	ev    timedsim.ScriptEvent
	label string // "driver reset", "driver break", "driver partition", "driver heal"
	// apps[i] is the number of node i's application events before it in
	// the script: it waits until they have run.
	apps []int
}

// schedule is the driver's script: the application events of each node
// and the faults, each in the order the timed simulator would run them.
type schedule struct {
	apps   [][]appEvent
	faults []scriptFault
}

// driverSchedule runs the scenario's driver as a timed execution of path
// timedsim.SeedPath(seed) would (timedsim.Scenario.Script), so the
// schedule is a pure function of seed, and returns its application events
// per node and its faults, in time order (events at the same instant in
// the order they were scheduled). Each event remembers how many events of
// the other sequences come before it, so that the script keeps its order
// across nodes wherever a fault stands between two events (see the
// package doc, "The driver's faults").
func driverSchedule(sc *timedsim.Scenario, seed uint64) (schedule, error) {
	out := schedule{apps: make([][]appEvent, sc.Nodes)}
	evs, err := sc.Script(timedsim.SeedPath(seed))
	if err != nil {
		return schedule{}, fmt.Errorf("liveness: %w", err)
	}
	for _, e := range evs {
		if e.Kind == timedsim.ScriptApp {
			out.apps[e.Node] = append(out.apps[e.Node], appEvent{name: e.Name, data: e.Data, label: "app " + e.Name, faults: len(out.faults)})
			continue
		}
		f := scriptFault{ev: e, label: "driver " + e.Kind.String(), apps: make([]int, sc.Nodes)}
		for i := range out.apps {
			f.apps[i] = len(out.apps[i])
		}
		out.faults = append(out.faults, f)
	}
	return out, nil
}

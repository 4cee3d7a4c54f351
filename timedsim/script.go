package timedsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// ScriptKind is the kind of an event a scenario's driver scheduled.
type ScriptKind uint8

// Script event kinds.
const (
	ScriptApp       ScriptKind = iota // Driver.App
	ScriptReset                       // Driver.Reset, Driver.ResetChosen
	ScriptBreak                       // Driver.Break
	ScriptPartition                   // Driver.Partition, Driver.PartitionChosen, Driver.Outage
	ScriptHeal                        // Driver.Heal
)

// String is the kind's name as the simulator labels its event: "app",
// "reset", "break", "partition" or "heal".
func (k ScriptKind) String() string {
	switch k {
	case ScriptApp:
		return "app"
	case ScriptReset:
		return "reset"
	case ScriptBreak:
		return "break"
	case ScriptPartition:
		return "partition"
	case ScriptHeal:
		return "heal"
	}
	return fmt.Sprintf("ScriptKind(%d)", uint8(k))
}

// ScriptEvent is one event a scenario's driver scheduled: an application
// event or a fault (Scenario.Script).
type ScriptEvent struct {
	At   time.Duration
	Kind ScriptKind
	// Node is an App's or a Reset's node, or a Break's first end; None for
	// a ResetChosen, a partition and a heal.
	Node NodeID
	// Peer is a Break's other end, None otherwise.
	Peer NodeID
	// Name and Data are an App's.
	Name string
	Data any
	// Groups are a Partition's groups (the nodes not listed form one more
	// group together).
	Groups [][]NodeID
	// ChooseNode is a ResetChosen's choice, ChooseGroups a
	// PartitionChosen's, ChooseOutage an Outage's (see Driver).
	ChooseNode   func(World) NodeID
	ChooseGroups func(World) [][]NodeID
	ChooseOutage func(World, *rand.Rand) ([][]NodeID, time.Duration)
}

// Script runs the scenario's driver as the simulator does at the start of
// an execution of path p, with the same random source (the driver's
// draws, from p's first segment), and returns the events it scheduled in
// the order the simulator runs them: by time, the events of one instant in
// the order they were scheduled. A driver that panics, or that schedules
// an event for a node out of range or at a negative time, is an error.
//
// It is for runtimes that run a scenario their own way: the liveness mode
// (package liveness) takes the application events in this order and makes
// the faults steps of its own.
func (sc *Scenario) Script(p Path) (evs []ScriptEvent, err error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if sc.Driver == nil {
		return nil, nil
	}
	r := newStepRand()
	r.reset(p)
	r.driver()
	d := Driver{nodes: sc.Nodes, rng: r.R}
	defer func() {
		if v := recover(); v != nil {
			evs, err = nil, fmt.Errorf("timedsim: scenario driver panicked: %v", v)
		}
	}()
	sc.Driver(&d)
	evs = make([]ScriptEvent, 0, len(d.events))
	for _, de := range d.events {
		e := ScriptEvent{At: de.at, Node: de.node, Peer: None}
		switch de.kind {
		case drvApp:
			e.Kind, e.Name, e.Data = ScriptApp, de.name, de.data
		case drvReset:
			e.Kind, e.ChooseNode = ScriptReset, de.pickNode
			if de.pickNode != nil {
				e.Node = None
			}
		case drvBreak:
			e.Kind, e.Peer = ScriptBreak, de.peer
		case drvPartition:
			e.Kind, e.Node, e.ChooseGroups, e.ChooseOutage = ScriptPartition, None, de.pickGroups, de.pickOutage
			for _, g := range de.groups {
				ids := make([]NodeID, len(g))
				for i, n := range g {
					ids[i] = NodeID(n)
				}
				e.Groups = append(e.Groups, ids)
			}
		case drvHeal:
			e.Kind, e.Node = ScriptHeal, None
		}
		ends := []NodeID{e.Node}
		switch {
		case e.Kind == ScriptBreak:
			ends = append(ends, e.Peer)
		case e.Node == None && (e.Kind != ScriptApp && e.Kind != ScriptReset || e.ChooseNode != nil):
			ends = nil // the fault names no node
		}
		for _, n := range ends {
			if n < 0 || int(n) >= sc.Nodes {
				return nil, fmt.Errorf("timedsim: driver scheduled an event (%v) for node %d of %d", e.Kind, n, sc.Nodes)
			}
		}
		if e.At < 0 {
			return nil, fmt.Errorf("timedsim: driver scheduled an event (%v) at negative time %v", e.Kind, e.At)
		}
		evs = append(evs, e)
	}
	slices.SortStableFunc(evs, func(a, b ScriptEvent) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
	return evs, nil
}

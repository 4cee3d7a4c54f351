package timedsim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/macepc/macepc/netmodel"
)

// Scenario is the paper's test harness: how many nodes, how to build one,
// what the driver application does, and when the task is done.
type Scenario struct {
	// Nodes is the number of nodes (at least 1).
	Nodes int
	// New builds the service of node id; it is called at the start of every
	// execution and again when a node is reset.
	New func(id NodeID) Service
	// Driver schedules the application events and faults of one execution.
	// It may draw from d.Rand(), which is part of the execution's path.
	Driver func(d *Driver)
	// Stop is the stopping condition: a predicate over all node states that
	// holds once the end-to-end task is accomplished.
	Stop func(w World) bool
	// NewStop, if set, returns a stopping condition equivalent to Stop that
	// may keep state between calls, such as where it last failed, to stay
	// cheap on large systems: a pure condition over n nodes costs O(n) per
	// event. Each Simulator calls NewStop once and uses the result for all
	// its executions (one goroutine at a time). The state may only serve as
	// a hint: the answer must be exactly Stop's for the same World. When
	// set it takes precedence: a caller replacing Stop must clear it.
	NewStop func() func(w World) bool
	// Timeout ends an execution whose stopping condition has not held by
	// this simulated time (it then counts as timed out).
	Timeout time.Duration
	// Network configures delays, bandwidth and transports.
	Network netmodel.Config
	// Safety properties must hold after every event; Liveness properties
	// must eventually hold (checked by the liveness mode).
	Safety, Liveness []Property
	// CheckEvery evaluates Stop only after every k-th event, for stopping
	// conditions too expensive to run after each one (Pastry's is
	// O(n² log n)); 0 or 1 checks after every event. The execution time is
	// then the end time of the event after which a check first succeeded,
	// which can be up to k-1 events later than the exact one.
	CheckEvery int
	// Revision names the protocol code's version; it enters the config
	// hash so that path files of an older revision are refused. Bump it
	// when a change to the protocol makes old paths replay differently.
	Revision string
	// Params are the system parameters the scenario was built with, every
	// declared one resolved (System.ScenarioParams sets them; empty for a
	// system without parameters). They enter the config hash and path
	// files.
	Params Params
}

// Validate reports what is wrong with a scenario.
func (s *Scenario) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("timedsim: nil scenario")
	case s.Nodes < 1:
		return fmt.Errorf("timedsim: scenario has %d nodes, need at least 1", s.Nodes)
	case s.New == nil:
		return fmt.Errorf("timedsim: scenario has no constructor (New)")
	case s.Stop == nil:
		return fmt.Errorf("timedsim: scenario has no stopping condition (Stop)")
	case s.Timeout <= 0:
		return fmt.Errorf("timedsim: scenario timeout must be positive, got %v", s.Timeout)
	}
	return s.Network.WithDefaults().Validate(s.Nodes)
}

// Driver is handed to Scenario.Driver to schedule an execution's
// application events and faults. Events scheduled for the same instant run
// in the order they were scheduled.
type Driver struct {
	nodes  int
	rng    *rand.Rand
	events []driverEvent
}

type driverKind uint8

const (
	drvApp driverKind = iota
	drvReset
	drvBreak
	drvPartition
	drvHeal
)

type driverEvent struct {
	at     time.Duration
	kind   driverKind
	node   NodeID
	peer   NodeID
	name   string
	data   any
	groups [][]int
	// state-dependent faults: the node or groups are chosen when the
	// fault happens
	pickNode   func(World) NodeID
	pickGroups func(World) [][]NodeID
	pickOutage func(World, *rand.Rand) ([][]NodeID, time.Duration)
}

// Nodes is the number of nodes of the scenario.
func (d *Driver) Nodes() int { return d.nodes }

// Rand is the driver's random source (part of the execution's path).
func (d *Driver) Rand() *rand.Rand { return d.rng }

// App schedules application event `name` with data on node at time at.
func (d *Driver) App(at time.Duration, node NodeID, name string, data any) {
	d.events = append(d.events, driverEvent{at: at, kind: drvApp, node: node, name: name, data: data})
}

// Reset schedules a reset of node at time at: its state is lost (a fresh
// service from the constructor runs Init), its timers are cancelled, its
// connections break, and peers that had a connection with it get an
// ErrConnectionBroken upcall.
func (d *Driver) Reset(at time.Duration, node NodeID) {
	d.events = append(d.events, driverEvent{at: at, kind: drvReset, node: node})
}

// Break schedules breaking the reliable connections between a and b: if
// one was open, both get an ErrConnectionBroken upcall and the messages in
// flight on it are lost (datagrams are connectionless and unaffected).
func (d *Driver) Break(at time.Duration, a, b NodeID) {
	d.events = append(d.events, driverEvent{at: at, kind: drvBreak, node: a, peer: b})
}

// Partition schedules a network partition into groups (nodes not listed
// form one more group together). Reliable connections that cross groups
// break (both ends get an ErrConnectionBroken upcall, their messages in
// flight are lost); datagrams in flight across groups are lost. A node out
// of range or listed twice is a driver bug (it panics).
func (d *Driver) Partition(at time.Duration, groups ...[]NodeID) {
	d.events = append(d.events, driverEvent{at: at, kind: drvPartition, groups: partitionGroups(d.nodes, groups)})
}

// partitionGroups checks and converts a partition's groups (a node out of
// range or listed twice is a driver bug: it panics).
func partitionGroups(nodes int, groups [][]NodeID) [][]int {
	gs := make([][]int, len(groups))
	seen := map[NodeID]bool{}
	for i, g := range groups {
		for _, n := range g {
			if n < 0 || int(n) >= nodes || seen[n] {
				panic(fmt.Sprintf("timedsim: Driver.Partition: node %d out of range [0,%d) or listed twice", n, nodes))
			}
			seen[n] = true
			gs[i] = append(gs[i], int(n))
		}
	}
	return gs
}

// ResetChosen schedules a reset at time at of the node that choose picks
// then, from the world's state (the leader of a consensus group, the root
// of a tree); choose returning None resets nothing. choose must be a pure
// function of the world; a node out of range is a driver bug (the
// execution panics).
func (d *Driver) ResetChosen(at time.Duration, choose func(w World) NodeID) {
	d.events = append(d.events, driverEvent{at: at, kind: drvReset, pickNode: choose})
}

// PartitionChosen schedules at time at the partition into the groups that
// choose returns then, from the world's state (cut off a follower, say);
// no groups means no partition. Groups are checked as Partition checks
// them, when the partition happens.
func (d *Driver) PartitionChosen(at time.Duration, choose func(w World) [][]NodeID) {
	d.events = append(d.events, driverEvent{at: at, kind: drvPartition, pickGroups: choose})
}

// Outage schedules at time at a partition into the groups that choose
// returns then, healed after the length it returns (0 or less: no heal of
// its own; a later Heal or partition ends it); no groups means no outage.
// choose reads the world's state and draws from r, the randomness of the
// outage's step — an outage whose length is drawn from a distribution,
// say. Unlike the driver's Rand, whose draws the path's first segment fixes
// for every branch of it, r belongs to the step: a walk that branches off
// an execution before the outage draws it afresh, so that the divergence
// search can tell whether the outage decided the execution or what came
// after it did. choose must be a pure function of the world and r.
func (d *Driver) Outage(at time.Duration, choose func(w World, r *rand.Rand) (groups [][]NodeID, length time.Duration)) {
	d.events = append(d.events, driverEvent{at: at, kind: drvPartition, pickOutage: choose})
}

// Heal schedules the end of any partition.
func (d *Driver) Heal(at time.Duration) {
	d.events = append(d.events, driverEvent{at: at, kind: drvHeal})
}

// Variant is one version of a system (e.g. "buggy", "fixed").
type Variant struct {
	Name string
	Doc  string
}

// System is a bundled or user-provided protocol with its scenarios, as the
// CLI lists and runs them.
type System struct {
	Name string
	// Doc is one line describing the system.
	Doc      string
	Variants []Variant
	// DefaultVariant is used when no variant is given (the first variant
	// if empty).
	DefaultVariant string
	// DefaultNodes is used when no node count is given.
	DefaultNodes int
	// Build returns the scenario of a variant with n nodes (a system
	// without Params).
	Build func(variant string, nodes int) (*Scenario, error)
	// Params declares the system's parameters, set with --param
	// name=value: scenarios, protocol knobs. A system with Params builds
	// its scenarios with BuildParams instead of Build.
	Params []Param
	// BuildParams returns the scenario of a variant with n nodes and the
	// given parameter values (every declared parameter is present).
	BuildParams func(variant string, nodes int, p Params) (*Scenario, error)
}

// Scenario builds and validates a variant's scenario with the default
// parameter values, with errors that name the choices.
func (s System) Scenario(variant string, nodes int) (*Scenario, error) {
	return s.ScenarioParams(variant, nodes, nil)
}

// ScenarioParams is Scenario with parameter values (see ResolveParams):
// the scenario's Params are set to every declared parameter's value.
func (s System) ScenarioParams(variant string, nodes int, set Params) (*Scenario, error) {
	if variant == "" {
		variant = s.defaultVariant()
	}
	if nodes == 0 {
		nodes = s.DefaultNodes
	}
	found := false
	for _, v := range s.Variants {
		found = found || v.Name == variant
	}
	if !found {
		return nil, fmt.Errorf("timedsim: system %q has no variant %q (variants: %s)", s.Name, variant, strings.Join(s.VariantNames(), ", "))
	}
	params, err := s.ResolveParams(set)
	if err != nil {
		return nil, err
	}
	var sc *Scenario
	switch {
	case len(s.Params) > 0 && s.BuildParams != nil:
		sc, err = s.BuildParams(variant, nodes, params)
	case len(s.Params) == 0 && s.Build != nil:
		sc, err = s.Build(variant, nodes)
	default:
		return nil, fmt.Errorf("timedsim: system %q needs Build without Params, or BuildParams with them", s.Name)
	}
	if err != nil {
		return nil, err
	}
	if sc == nil {
		return nil, fmt.Errorf("timedsim: system %q built no scenario", s.Name)
	}
	sc.Params = params
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

func (s System) defaultVariant() string {
	if s.DefaultVariant != "" || len(s.Variants) == 0 {
		return s.DefaultVariant
	}
	return s.Variants[0].Name
}

// ResolveVariant returns the variant name to use for v ("" = default).
func (s System) ResolveVariant(v string) string {
	if v == "" {
		return s.defaultVariant()
	}
	return v
}

// VariantNames lists the variants' names in declaration order.
func (s System) VariantNames() []string {
	out := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		out[i] = v.Name
	}
	return out
}

// Registry is a set of systems looked up by name.
type Registry []System

// Lookup finds a system by name.
func (r Registry) Lookup(name string) (System, error) {
	for _, s := range r {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(r))
	for i, s := range r {
		names[i] = s.Name
	}
	sort.Strings(names)
	return System{}, fmt.Errorf("timedsim: unknown system %q (known: %s)", name, strings.Join(names, ", "))
}

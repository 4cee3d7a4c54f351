package randtree

import (
	"slices"
	"strings"

	"github.com/macepc/macepc/timedsim"
)

// Race is where the join race of the MacePC Figure 1 bug happened in a
// recorded execution (timedsim.Options.Record): the steps that decide it.
// Tests and benchmarks use it to check that a divergence point is a step
// of the race.
type Race struct {
	// Open is the step at which the bootstrap (node 1) handles the more
	// fit node 0's Join and starts to join under it; -1 if it never does.
	Open int
	// Accepts are the steps at which the bootstrap, while joining, accepts
	// another node's Join (answering it, and telling its children
	// NewRoot): the race itself.
	Accepts []int
	// RacerBoots are the boot steps of those Joins' senders: the draw of
	// the boot delay ("app start") and the boot that sends the Join
	// ("timer start").
	RacerBoots []int
	// OpenerBoots are node 0's boot steps, which decide when the window
	// opens.
	OpenerBoots []int
	// Handshake are node 0's steps handling the bootstrap's messages
	// while the window is open (its ForceRoot JoinReply and its Join):
	// when node 0 answers decides when the window closes.
	Handshake []int
}

// Core is the race's steps as the issue tracker states them: the boot or
// send of a Join that the bootstrap accepts while joining, its delivery
// (the acceptance, with its NewRoot), and the bootstrap's handling of
// node 0's Join that opens the window. Sorted; empty without a race.
func (r Race) Core() []int {
	if len(r.Accepts) == 0 {
		return nil
	}
	out := append([]int{r.Open}, r.Accepts...)
	out = append(out, r.RacerBoots...)
	slices.Sort(out)
	return slices.Compact(out)
}

// All is Core with node 0's boot steps and its handshake with the
// bootstrap: when node 0's Join overtakes an earlier one, the delay of
// node 0's send is what puts the other Join in the window, and the delay
// of node 0's answer decides when the window closes.
func (r Race) All() []int {
	if len(r.Accepts) == 0 {
		return nil
	}
	out := append(r.Core(), r.OpenerBoots...)
	out = append(out, r.Handshake...)
	slices.Sort(out)
	return slices.Compact(out)
}

// FindRace locates the join race in a recorded execution's events, with
// node 0 the more fit joiner and node 1 the bootstrap, as in the bundled
// scenario.
func FindRace(events []timedsim.TimedEvent) Race {
	const opener, bootstrap = timedsim.NodeID(0), timedsim.NodeID(1)
	r := Race{Open: -1}
	end := len(events)
	for i, e := range events {
		if e.Node != bootstrap || e.From != opener {
			continue
		}
		if r.Open < 0 && e.Label == "deliver Join" {
			r.Open = e.Step
		} else if r.Open >= 0 && e.Label == "deliver JoinReply" {
			end = i // the window closes when node 0's acceptance arrives
			break
		}
	}
	if r.Open < 0 {
		return r
	}
	boots := func(n timedsim.NodeID) []int {
		var out []int
		for _, e := range events {
			if e.Node == n && (e.Label == "app start" || e.Label == "timer start") {
				out = append(out, e.Step)
			}
		}
		return out
	}
	for _, e := range events[:end] {
		if e.Step > r.Open && e.Node == opener && e.From == bootstrap {
			r.Handshake = append(r.Handshake, e.Step)
		}
		if e.Step <= r.Open || e.Node != bootstrap || e.Label != "deliver Join" || e.From == opener || !answers(e, e.From) {
			continue
		}
		r.Accepts = append(r.Accepts, e.Step)
		r.RacerBoots = append(r.RacerBoots, boots(e.From)...)
	}
	r.OpenerBoots = boots(opener)
	slices.Sort(r.RacerBoots)
	return r
}

// answers says whether event e sent a JoinReply to node to.
func answers(e timedsim.TimedEvent, to timedsim.NodeID) bool {
	for _, s := range e.Sends {
		if s.To == to && strings.HasSuffix(s.Type, "JoinReply") {
			return true
		}
	}
	return false
}

package liveness

import (
	"slices"

	"github.com/macepc/macepc/timedsim"
)

// cloner is a service whose state a world snapshot can copy: Clone
// returns a deep copy that shares no mutable state with the receiver. It
// is timedsim.Cloner's method set, matched structurally, so a service that
// implements that interface forks here too.
type cloner interface {
	Clone() timedsim.Service
}

// worldSnap is the state of a world's execution at a step (what start
// resets): the level division expands a state by replaying its sequence
// once and forking each successor from the snapshot, instead of
// replaying the sequence once per successor. The services are copies
// that no execution changes: a world restored from a snapshot shares them
// until a handler runs on a node, which then gets a copy of its own
// (wnode.own).
type worldSnap struct {
	nodes                                                     []wnode
	conns                                                     []conn
	errs                                                      []errRec
	resetsLeft, breaksLeft, dropsLeft, crashesLeft, partsLeft int
	script, heals, step, seg                                  int
	stepNode                                                  int32
	primed                                                    bool // made with describe
}

// cloners reports whether every node's service can be copied (after
// start: a node's service exists once the execution has started).
func (w *world) cloners() bool {
	for i := range w.nodes {
		if _, ok := w.nodes[i].svc.(cloner); !ok && w.nodes[i].svc != nil {
			return false
		}
	}
	return true
}

// snapshot is the world's state, or nil if a node's service cannot be
// copied (it does not implement cloner) or the execution has panicked.
// With describe, the nodes are described first, so that the executions
// forked from the snapshot describe again only the nodes their steps
// change (a Describe that panics: nil). Without it, no node is described:
// the forked executions then describe exactly what replays of the same
// executions would (nothing, for executions that do not describe), and
// the sampled check of Describe's determinism (checkDescribe) sees the
// same descriptions in both.
func (w *world) snapshot(describe bool) *worldSnap {
	if w.panicked != "" {
		return nil
	}
	sn := &worldSnap{
		resetsLeft: w.resetsLeft, breaksLeft: w.breaksLeft, dropsLeft: w.dropsLeft, crashesLeft: w.crashesLeft, partsLeft: w.partsLeft,
		script: w.script, heals: w.heals, step: w.step, seg: w.seg, stepNode: w.stepNode, primed: describe,
	}
	for i := range w.nodes {
		if _, ok := w.nodes[i].svc.(cloner); !ok && w.nodes[i].svc != nil {
			return nil
		}
	}
	for i := range w.nodes {
		if !describe {
			break
		}
		w.primeState(i)
		if w.panicked != "" {
			return nil
		}
	}
	sn.nodes = make([]wnode, len(w.nodes))
	for i := range w.nodes {
		wn := &w.nodes[i]
		if wn.svc != nil && !wn.shared {
			// The world goes on with the snapshot's copy, shared, until a
			// handler runs on the node (own): an unchanged node is copied
			// once, not at every snapshot and restore.
			wn.svc, wn.shared = wn.svc.(cloner).Clone(), true
		}
		n := *wn
		n.timers = slices.Clone(n.timers)
		sn.nodes[i] = n
	}
	sn.conns = make([]conn, len(w.conns))
	for i, c := range w.conns {
		sn.conns[i] = *c
		sn.conns[i].q = slices.Clone(c.q)
	}
	sn.errs = slices.Clone(w.errs)
	return sn
}

// own gives the node a service of its own, a copy of the snapshot's it
// shares (if it does), before a handler changes it.
func (n *wnode) own() {
	if n.shared {
		n.svc, n.shared = n.svc.(cloner).Clone(), false
	}
}

// restore sets the world to snapshot sn's state, sharing its services
// until a handler runs on them (wnode.own). The path (segments) is the one the snapshot's execution ran.
func (w *world) restore(sn *worldSnap) {
	w.resetsLeft, w.breaksLeft, w.dropsLeft, w.crashesLeft, w.partsLeft = sn.resetsLeft, sn.breaksLeft, sn.dropsLeft, sn.crashesLeft, sn.partsLeft
	w.script, w.heals, w.step, w.seg, w.stepNode = sn.script, sn.heals, sn.step, sn.seg, sn.stepNode
	w.panicked = ""
	for i := range w.nodes {
		n := sn.nodes[i]
		n.shared = n.svc != nil // copied when a handler first runs on it (own)
		n.timers = append(w.nodes[i].timers[:0], n.timers...)
		w.nodes[i] = n
	}
	for _, c := range w.conns {
		w.free(c)
	}
	w.conns = w.conns[:0]
	for i := range sn.conns {
		var c *conn
		if k := len(w.spare); k > 0 {
			c, w.spare = w.spare[k-1], w.spare[:k-1]
		} else {
			c = &conn{}
		}
		q := append(c.q[:0], sn.conns[i].q...)
		*c = sn.conns[i]
		c.q = q
		w.conns = append(w.conns, c)
	}
	w.errs = append(w.errs[:0], sn.errs...)
}

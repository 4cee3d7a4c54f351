// Package raftsim runs unmodified etcd raft (go.etcd.io/raft/v3) under
// macepc: Node is a timedsim.Service that wraps a raft.RawNode over a
// raft.MemoryStorage, so that a raft application runs in the timed
// simulator (performance anomalies, divergence, correlations) and in the
// liveness mode, with raft's own code deciding everything.
//
// RawNode is already a state machine in macepc's model — Tick, Step,
// Ready/Advance, no goroutines, no clock — and the adapter only drives it:
//
//   - A "tick" timer calls RawNode.Tick every Config.Tick (100 ms by
//     default; raft's ElectionTick 10 and HeartbeatTick 1 by default). The
//     period is counted from the end of the tick handler, so it drifts by
//     the handler's duration.
//   - Delivered messages (Message: the protobuf encoding, labelled by raft's
//     type, "deliver MsgApp", sized by the encoding) are decoded and
//     stepped; proposals come from the driver (Propose, an AppPropose
//     event) and are kept by a client model until applied on their node,
//     proposed again after Config.RetryTicks ticks or at the next tick when
//     raft dropped them (no leader known). Campaign (an AppCampaign event)
//     makes a node campaign at once, to pick the first leader without
//     waiting a randomized election timeout.
//   - Every handler ends by draining Ready.
//
// # The Ready contract
//
// raft's Ready documentation (node.go) requires that Entries, HardState
// and Snapshot be saved to stable storage before Messages are sent
// ("If async storage writes are not enabled, these messages must be sent
// AFTER Entries are appended to stable storage"), then CommittedEntries be
// applied, then Advance be called. The adapter keeps that order and makes
// the write an event of its own:
//
//  1. A handler calls Ready. If the Ready must be synced (Ready.MustSync:
//     new entries, term or vote) or carries a snapshot, it is kept and a
//     zero-delay "persist" timer is set: nothing is sent yet.
//  2. The persist event ("timer persist", its duration drawn from the EDD
//     like any event, so --scale 'timer persist=20' models a disk twenty
//     times slower) writes the snapshot, the entries and the HardState to
//     the MemoryStorage, then sends the Messages, applies the
//     CommittedEntries and calls Advance, and drains again.
//  3. A Ready without anything to sync (heartbeats, a commit-index-only
//     HardState, committed entries to apply) is handled in the handler
//     itself: the commit index is written, messages sent, entries applied,
//     Advance called.
//
// While a persist is pending the node keeps stepping messages and ticks
// (raft allows Step and Tick between Ready and Advance, as its Node does)
// but does not ask for another Ready until Advance. Sending every message
// of a synced Ready after the write is the conservative reading of the
// contract: raft's thesis (§10.2.1) and etcd's server let a leader send
// its MsgApps while it writes its own entries, which this adapter does not
// model (a leader's append latency here includes its own write).
//
// # Durability
//
// The MemoryStorage is the node's disk: only the persist step (and the
// commit index of an unsynced Ready) writes to it, so it holds exactly
// what raft has been told is durable. A node reset (Driver.Reset, or a
// fault of the liveness mode) keeps its Disk (timedsim.Durable) and loses
// everything else: the restarted node builds a new RawNode from the
// storage's HardState, ConfState and log, and a fresh state machine is
// rebuilt by applying the committed log again (raft's Config.Applied is
// left 0). raft assumes durable storage: a node that forgot its vote could
// vote twice in a term, which would be our bug, not raft's. A reset that
// falls while a persist handler is still running keeps its write but
// undoes its sends (a crash before fsync returned may or may not have
// written the data; the model takes "written"). The Disk also keeps the
// clients' unapplied proposals (a client outlives its server's crash) and
// two ghost records for the safety properties, never read by raft: the
// terms each node led and a hash chain of its persisted log. Log
// compaction is not done: a follower never needs a snapshot, and the
// bootstrap snapshot at index 1 holds the initial configuration.
//
// # Properties
//
// Safety returns Election Safety (no two nodes ever leaders of one term,
// over the whole history) and Log Matching on committed entries (any two
// persisted logs agree up to the smaller persisted commit index); OneLeader
// is a liveness property (exactly one leader in the highest term).
//
// # Usage
//
// A raft application is a StateMachine and a Config; the scenario's
// constructor is New, its driver proposes with Propose, its stopping
// condition reads the nodes (NodeOf, Node.Status, Node.StateMachine):
//
//	cfg := &raftsim.Config{
//		NewStateMachine: func(timedsim.NodeID) raftsim.StateMachine { return &counter{} },
//		BootJitter:      time.Second,
//	}
//	cfg.Raft.PreVote, cfg.Raft.CheckQuorum = true, true
//	sc := &timedsim.Scenario{
//		Nodes:  3,
//		New:    func(id timedsim.NodeID) timedsim.Service { return raftsim.New(id, cfg) },
//		Driver: func(d *timedsim.Driver) { raftsim.Propose(d, 3*time.Second, 0, []byte("x=1")) },
//		Stop:   allApplied,
//		Timeout: time.Minute, Network: netmodel.DefaultConfig(), Safety: raftsim.Safety(),
//	}
//
// The package Example is this, complete and runnable; systems/etcdraft is
// a full user with scenarios and variants.
//
// # Determinism
//
// raft takes each randomized election timeout from crypto/rand.Int with
// the process-wide crypto/rand.Reader (lockedRand in raft.go) and offers no
// hook. Every call into raft therefore runs with crypto/rand.Reader
// pointing at the running handler's Context.Rand — the path's randomness
// for that step — under a process-wide mutex, so that the simulator's
// workers never run raft code at the same time. The same path gives the
// same execution byte for byte, and results do not depend on --jobs; the
// price is that raft's own work is serialized across workers (measured in
// bench/RESULTS.md). While a raft handler runs, every other goroutine of
// the process that reads crypto/rand (crypto/rand.Read, crypto/tls, key
// generation) gets the path's predictable bytes: do not simulate raft in
// a process that uses crypto/rand for anything else meanwhile, such as a
// server with TLS. Nothing else in raft is random, reads a clock or
// starts a goroutine. Messages are encoded on send and decoded on
// delivery, so nodes never share raft's objects. The boot jitter is drawn
// from the path too.
package raftsim

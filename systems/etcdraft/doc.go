// Package etcdraft is unmodified etcd raft (go.etcd.io/raft/v3) under
// macepc: raftsim nodes with a key-value state machine, in scenarios that
// are hazards raft deployments meet.
//
// # Scenarios
//
// The "scenario" parameter (--param scenario=NAME) picks one; every
// scenario stops when every node has applied all the client proposals
// ("proposals", 200 by default), which clients send to nodes drawn at
// random, one every "interval".
//
//   - election: the nodes boot with a jitter drawn from [0, boot-jitter),
//     elect a leader and commit the proposals, which arrive from t=0 (one
//     every 5 ms). Split votes cost a whole randomized election timeout
//     (1–2 s with the defaults) and make the distribution's tail.
//   - rejoin: proposals flow (one every 20 ms) once a leader has had time to
//     be elected; a quarter into the stream a follower (drawn per
//     execution; the node is chosen among the non-leaders when the
//     partition happens, timedsim.Driver.PartitionChosen) is cut off for
//     "partition" (3 s), then healed. Without PreVote its election timer
//     fires while it is alone, it campaigns in ever higher terms, and when
//     it returns its term makes the leader step down: the disruption that
//     led etcd to adopt PreVote. With PreVote and CheckQuorum its
//     pre-votes fail while it is cut off and are refused when it returns
//     (the others hear from their leader), and it rejoins quietly.
//   - leader-crash: the same stream; nine tenths into it, whichever node
//     is leader then is reset (timedsim.Driver.ResetChosen). It restarts at
//     once from its disk (raftsim.Disk); the others notice the silence
//     after an election timeout and elect a new leader, and the clients
//     retry what the old leader had not committed. The stream ends soon
//     after the crash, so the execution time is the crash time plus the
//     recovery: its distribution is that of the re-election times.
//
// # Variants
//
// "prevote" (the default) runs raft with PreVote and CheckQuorum, etcd's
// configuration; "no-prevote" with both off. The raft knobs are
// parameters too: tick (100ms), election-tick (10), heartbeat-tick (1).
//
// # Labels and state
//
// Messages are labelled by raft's type ("deliver MsgApp", "deliver
// MsgVote", "deliver MsgHeartbeat", …), the persist step is "timer
// persist" (--scale 'timer persist=20' models a disk twenty times slower),
// ticks are "timer tick", proposals "app propose". A node's Describe shows
// its term, vote, role, leader, commit, applied and last durable index,
// the pending client proposals, the terms it led and the store.
//
// # Properties
//
// Safety (--check-safety, and every step of the liveness mode): raftsim's
// one-leader-per-term and committed-logs-agree. Liveness: one-leader
// (exactly one leader in the highest term) and all-applied (every
// proposal applied on every node).
//
// # Usage
//
//	go run ./cmd/macepc run --system etcdraft --variant no-prevote --param scenario=rejoin --seed 1
//	go run ./cmd/macepc run --liveness --system etcdraft --nodes 3 --param proposals=2 --faults 1
//
// # Determinism
//
// Everything random — boot delays, election timeouts (raft's crypto/rand
// draws, see raftsim), proposal targets, the follower that is cut off —
// comes from the execution's path.
package etcdraft

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
//   - rejoin: the disruption that led etcd to adopt PreVote, as
//     deployments meet it: latent, behind an outage that is usually too
//     short to matter. See "The rejoin hazard" below.
//   - leader-crash: proposals flow (one every 20 ms) once a leader has had
//     time to be elected (boot-jitter and two election timeouts); nine
//     tenths into the stream, whichever node is leader then is reset (timedsim.Driver.ResetChosen). It restarts at
//     once from its disk (raftsim.Disk); the others notice the silence
//     after an election timeout and elect a new leader, and the clients
//     retry what the old leader had not committed. The stream ends soon
//     after the crash, so the execution time is the crash time plus the
//     recovery: its distribution is that of the re-election times.
//
// # The rejoin hazard
//
// The cluster is up at the start (boot-jitter is 0 for rejoin) and node 0
// campaigns at once (raftsim.Campaign), so that it leads term 1 within a
// few milliseconds and no election's variance enters the execution time.
// One tick later the proposals start and the last node is cut off; clients
// send to the other nodes (the cut-off node's clients are cut off with
// it). The outage's length is drawn when it begins
// (timedsim.Driver.Outage, from that step's randomness): with probability
// "partition-rate" it is a long outage of "partition", otherwise a blip
// uniform up to "blip". The defaults follow from raft's election clock:
//
//   - A follower campaigns when its election clock, which every MsgApp or
//     MsgHeartbeat from its leader resets, reaches its randomized timeout,
//     drawn from [election-tick, 2*election-tick-1] ticks. At the cut it
//     heard from its leader at most heartbeat-tick ticks earlier, and its
//     next tick may come at once, so it cannot campaign sooner than
//     election-tick-heartbeat-tick-1 ticks after the cut: "blip" (auto:
//     that, 800 ms with the defaults) is the longest outage that surely
//     passes unnoticed. No term moves; the returning follower catches up at
//     the leader's next heartbeat.
//   - "partition" (auto: 2*election-tick ticks, 2 s) outlasts the largest
//     randomized timeout by a tick of slack for the tick timer's drift: the
//     follower surely campaigns alone, at least once, and its term rises.
//   - The proposals are spread over the longest outage, heartbeat-tick
//     ticks for the returning follower to hear from its leader and catch
//     up, and one tick of slack: "interval" auto is that (2.2 s) divided by
//     "proposals" (11 ms for 200). With PreVote no outage, long or short,
//     delays the end, so the normal execution time is the stream's end,
//     2.3 s, short enough that a disruption's cost shows.
//   - "partition-rate" (0.02) is the network's, not raft's: how often an
//     outage outlasts the election timeout. It sets how latent the hazard
//     is. One outage in 50 is as rare as one execution of the profile's 50
//     (too rare to move its quartiles, which are then the quiet rejoins')
//     and meets the search's default budget of 1,000 executions about 20
//     times, so that a search that misses it altogether has failed rather
//     than been unlucky (0.98^1000 is about 2e-9).
//
// Without PreVote, a long outage leaves the returning node in a higher term
// than the leader's. It ignores the leader's lower-term messages (without
// PreVote and CheckQuorum raft does not answer them), so its next
// campaign, up to 2*election-tick ticks after the heal, sends MsgVote in a
// yet higher term: every node, the leader too, becomes a follower of that
// term and refuses the vote (the node's log is behind). Nobody leads until
// a fresh randomized timeout fires (at least election-tick-1 ticks), and the
// clients' proposals wait for the new leader. On the committed durations,
// with every outage long (--param partition-rate=1, 1,000 executions of
// macepc simulate --edd testdata/rejoin-no-prevote.edd.json) the execution
// time is 3.12–10.61 s, median 4.11 s against 2.30 s: the disruption costs
// 1.8 s, 79% of a normal execution, at the median, and 917 of the 1,000 are
// above the default anomaly threshold of 1.5 times the median. With PreVote
// and CheckQuorum the cut-off node's pre-votes fail while it is away and
// are refused when it returns (the others hear from their leader): with
// every outage long the execution time is 2.29–2.31 s.
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
// proposal applied on every node), both over the nodes that are up: a
// node that the liveness mode's crash-stop (--crashes) stopped for good
// does not count. A proposal that reached a node before it stopped is
// lost with it, so with --crashes all-applied can fail for that reason
// alone: check one-leader (--property one-leader), as
// TestLivenessCrashStop does. The liveness mode runs the leader-crash
// and rejoin scenarios' scripted faults as steps of the script (package
// liveness, "The driver's faults").
//
// # Usage
//
//	go run ./cmd/macepc run --system etcdraft --variant no-prevote --param scenario=rejoin --seed 1 \
//	    --edd systems/etcdraft/testdata/rejoin-no-prevote.edd.json  # exit 1: the disruption
//	go run ./cmd/macepc run --system etcdraft --variant prevote --param scenario=rejoin --seed 1 --max-runs 500 \
//	    --edd systems/etcdraft/testdata/rejoin-prevote.edd.json     # exit 0
//	go run ./cmd/macepc run --liveness --system etcdraft --nodes 3 --param proposals=2 --faults 1
//	go run ./cmd/macepc run --liveness --system etcdraft --nodes 3 --param proposals=2 --crashes 1 --property one-leader
//
// Over seeds 1 to 10, with the committed durations and with a fresh
// training (no --edd), the first exits 1 and the second 0 for every seed;
// the first's divergence point is the outage, whose length decides, and
// its correlations name the lone campaign (timer persist → MsgVote).
// FINDINGS.md has what they find, with the numbers.
//
// # Determinism
//
// Everything random — boot delays, election timeouts (raft's crypto/rand
// draws, see raftsim), proposal targets, rejoin's outage length — comes
// from the execution's path.
package etcdraft

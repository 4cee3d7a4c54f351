// Package bullet is Bullet′, the mesh file-distribution protocol of the
// MacePC paper (§5.1), over RanSub (package ransub), with the paper's two
// latent performance bugs as variants. Each node runs a timedsim.Stack of
// two layers: "ransub" below, "bullet" above; RanSub's subsets reach
// Bullet′ through Node.Subset.
//
// # The protocol
//
// Node 0 is the source; it holds the file, Config.Blocks blocks of
// Config.BlockSize bytes. The other nodes are receivers.
//
//   - Start (the application event "bullet.start"): a receiver, after a
//     boot delay drawn from the scenario's spread, asks the source for
//     candidates (Hello); the source answers Candidates with up to
//     Config.Candidates nodes that asked before, and itself while it has
//     room for a peer.
//   - Joining: a receiver sends Join to candidates until it has
//     Config.Target peers or joins in progress. A node with
//     Config.MaxPeers peers answers JoinReject; otherwise JoinAccept, and
//     the two are peers (symmetric).
//   - Diffs: a new peer gets a Diff of every block held; afterwards each
//     node sends each peer, every Config.DiffInterval, a Diff of the blocks
//     it received since (not to the peer that sent the block). The source
//     instead tells each peer a share of the file at a time, round robin,
//     so that its peers fetch different blocks from it.
//   - Requests: a node asks a peer for blocks the peer told it of and it
//     neither holds nor asked for, at most Config.MaxOutstanding at a time,
//     preferring blocks no other peer is known to hold.
//   - Blocks travel on the data transport, which buffers little: a block
//     is sent only onto an empty data connection ("fits"), checked with
//     timedsim.SendQueue; otherwise the send timer retries it after
//     Config.RetryInterval, as the paper's Bullet′ schedules a timer.
//     Joins, requests and (fixed) Diffs travel on the unbounded control
//     transport.
//   - RanSub: each epoch's subset replaces the candidates. A receiver short
//     of peers joins some; a stalled one — no peer is known to hold a block
//     it lacks, and no request is outstanding — leaves a peer and joins
//     candidates up to MaxPeers.
//
// # The bugs and the variants
//
//   - diff-drop: Diffs go over the data transport, whose queue holds two
//     messages. A Diff sent while a block and another Diff are still on
//     their way fails with a queue-full error; the sender notes it ("error
//     queue-full → lost Diff: data queue full") and never tells those
//     blocks again. If every peer's Diff of a block a node lacks was lost,
//     the node stalls with no peer to ask until RanSub's next epoch brings
//     new peers: one slow node, as in the paper's 20 MB experiment.
//   - join-reject: JoinReject carries no peers. A late receiver whose
//     candidates are all full is left with nobody to try ("deliver
//     JoinReject → idle: no candidate left, waiting for RanSub") and
//     acquires no peer until RanSub's first subsets at 5 s: a few slow
//     nodes, as in the paper's 2 MB experiment.
//   - buggy: both bugs.
//   - fixed: Diffs over the control transport; JoinReject lists the
//     rejecting node's peers, which the rejected node tries next.
//
// # Scenarios and parameters
//
// 100 nodes (DefaultNodes); the stopping condition is that every receiver
// holds the whole file (AllComplete). The parameter scenario chooses the
// experiment: 20mb (all receivers start at time 0), 2mb (receivers start
// within 1 s), or auto, the variant's own (2mb for join-reject, 20mb
// otherwise). Other parameters: block (bytes, default 128 KB: 160 blocks
// for 20 MB, 16 for 2 MB, which keeps a 20 MB execution near 75 K events),
// bandwidth (every node's uplink, 45 Mbit/s), data-queue (2), retry
// (20 ms), diff-interval (100 ms), epoch (RanSub's, 5 s). These values
// put normal executions near the paper's (20 MB: 5.5–7 s; 2 MB: 1.7–2.1 s),
// with the bugs' anomalies at RanSub's epochs (10 s; 5.2 s).
//
// A receiver notes timedsim.NoteDone when it gets its last block, so the
// report's per-node completion plot shows when each node had the file,
// not when it last served a peer.
//
// # Usage
//
//	macepc run --system bullet --variant diff-drop     # 20 MB
//	macepc run --system bullet --variant join-reject   # 2 MB
//	macepc run --system bullet --variant fixed --max-runs 500
//
// In Go: System() for the CLI, or NewWorkload and NewScenario to change
// the workload, and Of to read a node's state from a timedsim.World.
//
// # Determinism
//
// Handlers draw only from their Context's Rand (boot delays, request
// starting points, the source's candidates, the peer a stalled node
// leaves), and node state is kept in slices in a deterministic order, so
// the same path replays the same execution.
package bullet

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
// # What the fixed variant still shows
//
// With the committed durations and MacePC's verdict (--fence-only),
// `--variant fixed --max-runs 500` finds 2 of 269 search executions above
// the 9.31 s threshold (9.70 s and 10.55 s; median 6.21 s). With the
// significance test (the default) the search goes on to 500 executions,
// finds 4 above the threshold, and calls them the normal tail (exit 0):
// the tail of the faster executions makes one at 10.55 s or more in 500
// likely (p = 0.0078 each). Neither is a stalled node nor either bug: in both the
// whole mesh is slow from its first milliseconds, because of the peer
// graph the start-up builds. The mesh is static after that (a node only
// replaces a peer when it is stalled, at RanSub's epochs), so the shape
// lasts the whole execution. Both are triggered by a long handler run at
// the source (a draw from the tail of its EDD) while all 99 receivers
// join at once:
//
//   - 9.70 s (search execution 68): the source's handling of one Hello
//     takes 5.4 ms, during which its first eight askers, which got each
//     other as candidates, join the source and each other. Its eight
//     peers hold 21 of the 28 possible links among themselves and only 14
//     to the other 91 receivers (1 and 48 in the search's first
//     execution, 6.16 s). The source's blocks circulate inside that
//     clique: its eight members are done at 4.55–5.31 s, the other
//     receivers at 7.2–9.64 s, most after 9.3 s; 6,727 blocks are
//     sent by 4.5 s against 12,339 in the normal execution. The
//     divergence point is the source accepting the Join of the clique's
//     last member at 6.5 ms.
//   - 10.55 s (search execution 120): the source's handling of one Join takes 8.9 ms; it then
//     accepts eight Joins, but its JoinAccepts arrive after six of the
//     eight joiners have filled their MaxPeers slots with incoming Joins,
//     and they answer with Leave. The source keeps two peers until
//     RanSub's epoch at 5 s (nobody asks it again before), so every block
//     enters the mesh through two uplinks.
//
// To see them: the run above with --edd testdata/edd.json (seed 1), then
// `macepc replay --path DIR/anomaly.path.json` (execution 68); execution
// 120 is replayed from the same file with its seed, from
// DIR/search-executions.jsonl, as the segment's seed.
//
// These are traits of our reconstruction's peering (initial candidates
// from the earliest askers, a JoinAccept that a node filled up meanwhile
// refuses, no periodic replacement of poor peers), which the paper does
// not describe; they are left as they are, and the analysis is not tuned
// to hide them. One repair was tried and dropped: counting Joins in
// progress against MaxPeers when answering a Join, so that an accepted
// Join is never refused, makes the mesh slower (`macepc simulate
// --variant fixed --runs 300` with testdata/edd.json, seed 1: median
// 6.63 s against 6.20 s, 4 executions above 9.31 s against 1).
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

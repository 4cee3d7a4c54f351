// Package randtree is Mace's RandTree overlay tree as a timedsim service,
// with the latent performance bug of MacePC's motivating example (the MacePC
// paper, Figure 1 and §5.4) as its "buggy" variant, the repair as its
// "fixed" variant, and MaceMC's liveness bug RT3 on top of the buggy
// protocol as its "liveness-bug" variant.
//
// # The protocol
//
// RandTree builds a random spanning tree whose root is elected: node IDs
// double as addresses, and a lower ID is "more fit" to be the root. A node
// is in state init, joining or joined; it has a parent (itself if it is a
// root, None while it is not in a tree), at most MaxChildren children (4),
// the root it believes its tree has, and a peer set.
//
//   - joinOverlay (the application event "join", data: the peer set). A
//     node whose peer set names no other node is the bootstrap: it becomes
//     a root. Any other node sends Join{Who: self} to the first peer and
//     sets its join timer (5 s); when that fires while still joining it
//     tries the next peer, round robin.
//   - Join at a joined root: a joiner more fit than the root gets
//     JoinReply{ForceRoot} and the root joins under it, keeping its
//     children (its whole subtree moves). Otherwise the root accepts the
//     joiner if it has room (JoinReply{Accepted, Root}), or pushes it down:
//     it forwards Join{Who, Down: true} to a child chosen at random. A joined
//     non-root accepts or pushes down a Down join, and forwards any other
//     Join to its root: joins are decided at the root.
//   - JoinReply at a joining node: ForceRoot makes it a root; Accepted makes
//     the sender its parent, and it tells its children NewRoot{Root}. A
//     JoinReply at a node that is not joining is rejected with Remove, and
//     the sender drops the node from its children.
//   - NewRoot from the parent updates the root and travels down the tree.
//   - Recovery: every 10 s, in every state, the recovery timer re-arms
//     itself and a joined node sends Probe{Root} to a random peer; a joined
//     peer answers ProbeReply{Root}. Different roots mean different trees:
//     the prober sends RootJoin{Target: the lower root} to the higher root,
//     which, if it still is a root, joins under Target. This is the "fail
//     safe" of the MacePC paper's introduction: it is meant for partitions,
//     but it also silently repairs protocol bugs, ten seconds later.
//     The same timer checks the tree's links: a joined node asks its
//     parent whether it lists it (ParentCheck, answered Dropped if not: the
//     node rejoins) and tells each child its root (NewRoot, answered
//     Remove by a joined node whose parent is another: the parent drops
//     it).
//   - Transport errors: a broken connection to the parent sends the node
//     back to its peer set to rejoin with its subtree, and tells the parent
//     (Remove); one to a child drops the child and tells it (Dropped); a
//     lost JoinReply that accepted a child drops the child. A joining node
//     whose connection to the more fit node it was joining under breaks
//     forgets that node as its root.
//
// What a handler ignores, drops or defers, it notes (timedsim.Context.Note;
// the Note* constants): a Join at a node in init is "deliver Join →
// ignored: not started", not a Join handled without a reply.
//
// Lessons of MaceMC's RandTree bugs (MaceMC paper §7.3) are built in: the
// recovery timer never stops (RT3) and is armed from joinOverlay on, so a
// node not in init always has it pending (RT11, RT14; the safety property
// RecoveryTimerArmed); a node in init ignores Probe and Join (RT11); a root
// that joins under another node adds it to its peer set (RT1); NewRoot is
// only taken from the parent (RT4); Remove is handled in every state
// (RT10); a node whose parent fails forgets its root (RT16). Each can be
// switched back on (Config.MaceMC, the variants below).
//
// # The bug (MacePC Figure 1)
//
// Take A more fit than B, and B the bootstrap:
//
//  1. A and C join at B: both send Join to B.
//  2. B handles A's Join first. A is more fit, so B sends A a ForceRoot
//     JoinReply and a Join of its own, and B is now joining under A.
//  3. C's Join reaches B while B is joining. The buggy RandTree accepts C
//     as a child, and because it now has a child it considers itself joined
//     and a root again (parent = root = B), and answers C with Accepted.
//  4. A handles ForceRoot: A is a root.
//  5. A handles B's Join, accepts B as its child and replies Accepted.
//  6. B, already joined, rejects A's JoinReply with a Remove (the event
//     "deliver JoinReply → Remove" that MacePC's Figure 4 correlates with
//     slow executions), and A drops B.
//
// Two trees remain, A's and B's (with C and every later joiner), until the
// recovery protocol notices it, ten seconds on. If either join completed
// before the other began, the bug would not occur: it lives in the window
// of step 2, between B leaving the root position and B's JoinReply.
//
// In the fixed variant a joining node forwards a Join to the node it
// believes is the root, which for a root that stepped down is the node it
// is joining. In step 3 B forwards C's Join to A, A accepts both, and one
// tree forms. Forwarding cannot loop: a node's root pointer names a node
// with a lower ID than itself, or itself only when it is a root, which
// never forwards. A root points to itself; a root that steps down points to
// the more fit node it joins (a lower ID); Accepted hands a joiner the root
// that judged it less fit, or a more fit root that replaced that root since
// (roots are only ever replaced by lower IDs, and NewRoot, sent down before
// any later Down join on the same FIFO connection, carries the change); and
// a node that lost its parent forgets its root, holds the Joins it
// receives from less fit nodes and handles them once it has rejoined. So
// each forward strictly lowers the ID, and a Join reaches a root in fewer
// than n hops.
//
// A node that knows no root and gets a Join from a more fit node does what
// a root does: it makes the joiner a root (ForceRoot) and joins under it,
// its root pointer again a lower ID. Without this tie-break a reset of the
// root deadlocked the fixed variant: every node lost its tree, joined
// through a peer that was joining too, and held the others' Joins, so no
// node ever became a root again (TestSystemRootReset: 50 of 50
// executions timed out). With it, the most fit joining node is never held,
// and the tree forms again within a second. Pushing
// down follows child pointers, which without faults form a forest, so it
// ends too. The buggy variant breaks the invariant: a joining node that
// accepts a joiner makes itself a root again.
//
// # Scenario
//
// System's scenario is the one of MacePC §5.4, many nodes joining at once:
// the bootstrap (node 1) joins at time 0 with the peer set {1}, and every
// other node joins with the peer set {1} at a time drawn uniformly from
// [0, 500 ms] (DefaultWorkload; NewScenario takes any Workload). Node 0 is
// the only joiner more fit than the bootstrap, so each execution opens the
// race window of step 2 exactly once, and the bug shows only when another
// Join reaches node 1 in those few milliseconds. With the simulator's
// defaults (uniform 1–10 ms event durations; 1 ms Pareto latency, 8 Mbit/s)
// about 9% of the buggy executions take just over 10 s, and all others,
// like all fixed executions, finish in about 0.5 s.
//
// The stopping condition, SpanningTree, is one spanning tree: every node
// joined, exactly one root (a node whose parent is itself: MaceMC's RT2),
// parent and child pointers agreeing, and every node reachable from the
// root (no loops). It takes O(n) time. It does not require every node to
// know the root: NewRoot may still be on its way.
//
// Faults are the driver's (none in the bundled scenario). A node rejoining
// after its parent's failure is in the joining state too, so the buggy
// variant shows the same bug there, while the fixed variant repairs a
// broken parent connection, or a reset node (the root included) that
// rejoins, within a second (TestSystemFaults, TestSystemRootReset).
//
// # Liveness mode
//
// The scenario carries MaceMC's RandTree properties (MaceMC paper §6): the
// liveness properties SpanningTree ("spanning-tree"), AllJoined
// ("all-joined"), OneRoot ("one-root") and KidsMatch ("kids-match"), and
// the safety properties RecoveryTimerArmed ("recovery-timer") and NoLoops
// ("no-loops"). The timed simulator ignores the liveness properties and
// checks the safety ones only when asked; package liveness checks both.
//
// The variant "liveness-bug" is the buggy protocol with MaceMC's bug RT3
// (Config.RecoveryOnlyJoined): the recovery timer is re-armed only when it
// fires in the joined state. Under the liveness mode's scheduler, where a
// pending timer may fire at any step, a recovery timer can fire while its
// node is joining, and then the two trees of Figure 1's race never merge:
// a one-root violation whose critical transition is the race or the
// firing of the last recovery timer that could have merged the trees. Its
// scenario leaves "recovery-timer" out of the safety properties
// (RecoveryTimerProperty adds it back), since that property, written after
// RT3, catches the bug a few steps after joinOverlay.
//
// The same scheduler found a liveness bug in every variant, invisible to
// the timed simulator with its 5 s join timeout: a join timer that fires
// before the JoinReply arrives sends a second Join, the parent accepts the
// joiner twice, the joiner rejected the second JoinReply with Remove, and
// the parent dropped a child that still named it as its parent, for good
// (KidsMatch never held again). A node now ignores a second acceptance
// from its own parent (Revision 3).
//
// With one reset (`macepc run --liveness --faults 1`) the search found
// two more, in every variant: all-joined violated right at the
// root's reset in the fixed variant (the deadlock the tie-break above
// removes; a node whose step-down target reset also kept it as its root
// and forwarded every Join to it, the target's own included), and
// kids-match. The liveness mode delivers a broken-connection upcall at
// any later step, so it can come after the reset node's new incarnation
// has rejoined under the same parent: the parent dropped its new child,
// or the child left its new parent, and neither told the other. Told now
// (Dropped, Remove), that still left stale messages of a join before the
// reset arriving after the Remove of the join after it; what repairs any
// one-sided link is the recovery round's check of the links above. With
// every node's peer set holding all nodes (Workload.AllPeers) it found one
// more: a stale Join of a node that had reset made the root step down for
// it, the new incarnation rejected the ForceRoot with Remove, and the root
// kept it as its root and forwarded every Join to it; a joining node now
// forgets a root that sends it Remove (these changes are Revision 4, so
// path files of Revision 3 are refused). The search with one reset now finds
// no violation in the fixed and buggy variants (3 nodes, depth 10;
// TestLivenessFaults), nor with full peer sets (TestLivenessFullPeerSets),
// nor from a whole tree in which the root may reset at any step
// (TestLivenessRootReset).
//
// # MaceMC's bugs as variants
//
// The variants "rt1", "rt2", "rt4", "rt10", "rt11", "rt14" and "rt16" are
// the fixed protocol with one of MaceMC's RandTree bugs switched back on
// (Config.MaceMC; each field's doc says what the bug does here), and the
// liveness mode finds each on 3 nodes with seed 1 (TestMaceMCBugs; the
// critical transitions beside MaceMC's descriptions are in
// bench/PAPER.md):
//
//	macepc run --liveness --system randtree --variant rt10 --seed 1 --out lv
//	macepc run --liveness --system randtree --variant rt1 --faults 1 --seed 1 --out lv
//
// rt2 (no root ever reports itself as its parent) and rt10 need no fault;
// rt1, rt4, rt11, rt14 and rt16 need one reset (--faults 1): with the
// bundled peer sets ({bootstrap}) nothing but a reset puts a node back in
// init after others know it, makes a join fail or takes a parent away.
// rt10 also turns off macepc's check of a node's children
// (Config.MaceMC.NoChildCheck), which would repair its stale child within
// a recovery round; rt14 gives every node the peer set of all nodes
// (Workload.AllPeers): a RootJoin that reaches a node in init must be sent
// after that node reset, on a ProbeReply from another node, and with the
// bundled peer sets every ProbeReply that names a root comes from that
// root, whose reset loses it.
//
// One bug shows differently: Mace's handler for RT1 looped for ever (a
// divergence); ours gives up and leaves the node joining, a liveness
// violation.
//
// # Usage
//
//	sc, err := randtree.System().Scenario("buggy", 32)
//	if err != nil { … }
//	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
//	if err != nil { … }
//	res := sim.Run(timedsim.SeedPath(1))
//	fmt.Println(res.Outcome, res.ExecTime, res.Composite["deliver JoinReply → Remove"])
//
// Stopping conditions, properties and tests read node state through
// World.Node(id).(*randtree.Node) and its accessors (State, Parent, Root,
// Children), or with the helpers Roots, NumJoined and SpanningTree.
//
// # Determinism
//
// A Node is a plain value driven only by its handlers: it starts no
// goroutines, reads no clock and draws randomness only from Context.Rand
// (the child a full node pushes a joiner to, the peer it probes, its boot
// delay). The scenario's driver starts every node at time 0; each draws
// its own boot delay, so a replayed prefix fixes only the delays already
// drawn (see Workload). An execution is
// therefore a function of its timedsim.Path. The tests drive nodes without
// the simulator through a fake Context and a FIFO message queue whose
// delivery order the test chooses (harness_test.go).
package randtree

// Package bamboo is the Bamboo DHT as a timedsim service: Pastry with a
// shorter join and lighter maintenance, with the two performance bugs the
// MacePC paper §5.3 describes as its "buggy" variant, their fixes as its
// "fixed" variant, and MaceMC's Pastry bug 4, which MaceMC suspects in
// Bamboo, as "join-loop" (the paper's third Bamboo bug is not described:
// see below). It shares identifiers, routing table, routing and the
// stopping condition with package pastry (systems/internal/dht).
//
// # The protocol
//
// A node keeps H = 4 predecessors and H = 4 successors. A learned node goes
// to the side of the ring it lies on (the clockwise half: successors),
// nearest first; if it is not among the nearest there it is offered to the
// other side (with unevenly spread identifiers, a node in the clockwise
// half can be one of the nearest predecessors). A side that overflows
// pushes its farthest member out.
//
//   - Join: JoinRequest is routed from the bootstrap to the numerically
//     closest node, which answers JoinReply with its leaf set only (no
//     rows: Bamboo's shorter join). The joiner then sends Inform to every
//     member of its leaf set; only then do they add it ("each peer first
//     gathers information, then announces its liveness").
//   - A node informs every node that enters its leaf set.
//   - A joiner resends its JoinRequest every 5 s until a JoinReply comes,
//     as Pastry's does.
//   - Maintenance every 20 s: leaf sets are exchanged with one random
//     member (LeafSetExchange/LeafSetReply), and a random table entry is
//     asked for its row.
//
// # The bugs and fixes
//
//  1. Boundary (Config.FixBoundary): a member pushed out of one side may
//     belong on the other. The buggy code moves the side's boundary to its
//     new farthest member first and then checks the boundary, not the
//     pushed-out node, against the other side; the pushed-out node is
//     forgotten. While a node knows fewer than 2H nodes this loses real
//     neighbours, so even joins one at a time can leave a node without its
//     neighbours until maintenance (TestBoundaryBug). The fix checks the
//     pushed-out node.
//  2. Adjacency (Config.FixAdjacency): two nodes that join concurrently
//     next to each other both get the leaf set of the same node, neither
//     lists the other, and neither is informed of the other. The fix adds
//     the field Adjacent to Inform: whether the informant believes it is
//     the receiver's immediate neighbour. A receiver that disagrees (it
//     knows a node in between, or the informant is its neighbour and does
//     not know it) runs maintenance with the informant at once; one that
//     agrees remembers the claim, and when a node comes between them later
//     it sends the claimant its leaf set then.
//
// The handlers note (timedsim.Context.Note) what they drop or ignore, and
// every member a leaf set loses, "evicted: leaf set full" (NoteEvicted):
// the boundary bug's forgotten member among them. A member that the
// fixed boundary check moves to the other side is not lost and not noted.
//
// # Scenario and stopping condition
//
// The Pastry workload (dht.Workload): 40 nodes, node 0 first, the others
// joining within 8 s (DefaultSpread; Pastry's 2 s makes about 40% of the
// buggy executions slow, which puts the profile's Q3 at 20 s). The
// stopping condition is Pastry's (dht.Ring.Stable) with a routing bound of
// ⌈log16 n⌉ + 4 hops (6 for 40 nodes) instead of Pastry's + 1: Bamboo's
// join transfers no table rows, so with 20 s table maintenance even the
// fixed protocol needs minutes to reach 3-hop routes, while 6-hop routes
// need only correct leaf sets and the table entries the leaf sets teach.
//
// With the event durations of testdata/edd.json (trained from the
// handlers' real times), 20% of 300 buggy executions wait for maintenance
// (20 s to 2 min), 9% with only the boundary fix, none (0.3% at a 2 s
// spread) with only the adjacency fix, and no fixed execution took longer
// than the last join: the paper's "no execution over 1 s" after the fixes,
// measured here from time 0, so that the join spread is included.
//
// The liveness mode (`macepc run --liveness --system bamboo`, 3 or 6
// nodes, depth 10) finds no violation of "stable" in the buggy or fixed
// variant, nor with one reset (--faults 1, 3 nodes).
//
// # The third bug
//
// MacePC §5.3 says of Bamboo: "We used MacePC on our Bamboo implementation
// and found three interesting performance bugs. We describe two below."
// The third is not described there or in any of the other papers, so no
// variant can claim to be it. The one other Bamboo bug the papers point
// at is in MaceMC's long version, after its Pastry bug 4 (a node that
// reset cannot rejoin, because the bootstrap, which still has it in its
// state, routes its join back to it): "It is also possible that Bamboo
// suffers a similar fate." The "join-loop" variant is that bug in Bamboo
// (Config.JoinLoop): the fixed protocol, but a JoinRequest is routed to
// the joiner itself like any message, where otherwise the node that would
// do so answers the joiner (MaceMC's fix: "when routing a join message, we
// avoid routing it via the routing table to the destination node"). It is
// a liveness bug under faults, not a performance bug: with one reset the
// liveness mode finds "stable" violated, the critical transition being the
// reset of a node that had joined, and the joiner dropping its own request
// ("dropped: own request") over and over (TestJoinLoop):
//
//	macepc run --liveness --system bamboo --variant join-loop --faults 1 --seed 1 --out lv
//
// The timed scenario has no faults, so its executions are those of the
// fixed variant.
//
// # Usage
//
//	go run ./cmd/macepc run --system bamboo --variant buggy --seed 1
//	go run ./cmd/macepc run --system bamboo --variant fixed --seed 1 --max-runs 500
//
// # Determinism
//
// A Node is a plain value driven only by its handlers, drawing randomness
// only from Context.Rand; an execution is a function of its timedsim.Path.
package bamboo

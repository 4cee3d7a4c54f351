// Package elect is a millisecond-scale leader election on the network
// model's Pareto links: a protocol whose executions take a few
// milliseconds, where one message drawn from the delay distribution's tail
// doubles an execution's time without anything being wrong. It was
// written as a test bed for the precision of the anomaly verdict (issue
// 26) before the mechanism that judges it, and is not tuned to it.
//
// Every node starts at time 0 and announces itself to every other node.
// A node that has heard every other node's Announce knows the highest
// node, the leader, and sends it a Vote (the leader votes for itself).
// The leader, once it has heard every Announce and the Votes of a
// majority (its own included), tells every node with Elected. The execution ends when every node knows the
// leader. A node that still has no leader re-announces itself every
// Tick (200 ms), and a node that knows the leader answers an Announce
// with Elected: the anti-entropy that repairs whatever the first round
// missed.
//
// Variants:
//
//   - correct: a node that receives Elected before it has heard every
//     Announce takes the leader at once (the leader has heard from
//     everyone, so the node's own count does not matter).
//   - early-elected: a node ignores an Elected that arrives while it is
//     still collecting Announces ("ignored: still collecting"), and learns
//     the leader only from the next round of anti-entropy, 200 ms later: a
//     latent performance bug, triggered when the Announce of one node to
//     another is slower than the Announces, Votes and Elected that reach
//     the other through a majority.
//
// # Usage
//
//	sc, _ := elect.System().Scenario("correct", 5)
//	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{})
//	res := sim.Run(timedsim.SeedPath(1)) // res.ExecTime: a few ms
//
// # Determinism
//
// The handlers draw no randomness and iterate over nodes in ID order; all
// variation comes from the simulator's durations and network delays.
package elect

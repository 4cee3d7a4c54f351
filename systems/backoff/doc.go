// Package backoff is single-decree Paxos whose proposers retry after a
// randomized backoff: a correct protocol whose executions vary because
// two proposers that start close together duel (each preempts the
// other's ballot) for as many rounds as their random backoffs keep them
// in step. It was written as a test bed for the precision of the anomaly
// verdict before the mechanism that judges it, and is not
// tuned to it.
//
// Every node is an acceptor and proposes its own value (--param
// proposers=k: only the first k); each starts after a delay drawn uniformly from
// [0, spread) (5 ms by default; --param spread=0 starts them together).
// A proposer sends Prepare with a ballot higher than any it has seen to
// every acceptor (itself included, over the network), and on promises
// from a majority sends Accept with the value of the highest-ballot
// acceptance it was told of, or its own. An acceptor promises a ballot
// higher than any it promised, and accepts a ballot at least as high; it
// answers anything lower with Nack and the ballot it promised. A proposer
// told of a higher ballot gives up its own and retries after a backoff;
// on acceptances from a majority it sends Decide to every node. The
// execution ends when every node knows the decided value.
//
// Its one variant, random, draws the backoff uniformly from [0,
// base·2^k) after the k-th failed attempt (k at most 5, base 4 ms):
// duelling proposers fall out of step after a round or two, and the
// slowest executions are the ones whose draws kept them in step longest.
// It has no bug: every slow execution is the protocol's own variance.
//
// # Usage
//
//	sc, _ := backoff.System().Scenario("random", 3)
//	sim, _ := timedsim.NewSimulator(sc, timedsim.Options{})
//	res := sim.Run(timedsim.SeedPath(1))
//
// # Determinism
//
// The backoffs are drawn from Context.Rand, the start times from the
// driver's Rand: both are part of the execution's path.
package backoff

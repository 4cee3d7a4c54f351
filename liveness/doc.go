// Package liveness is macepc's liveness mode: MaceMC's search for safety
// and liveness violations and its critical-transition analysis (MaceMC
// paper §2–4, papers/000; the RandTree bugs in papers/001), on the
// scenarios and services of package timedsim.
//
// # The choice scheduler
//
// The liveness mode runs a scenario's services without time, in MaceMC's
// model: at each step any enabled event may run next, and an execution is
// the sequence of choices among them. The enabled events are
//
//   - the next application event of each node: the scenario's driver is
//     run once (seeded with Path.Driver) to collect its App events, which
//     each node then takes in their time order;
//   - the oldest undelivered message of each reliable connection (per
//     connection, i.e. per transport, sender and destination, FIFO), and
//     every undelivered datagram (datagrams may be reordered);
//   - every pending timer: a timer set by SetTimer may fire at any step
//     until it fires or is cancelled, whatever its delay (MaceMC treats
//     timers as firing nondeterministically);
//   - pending transport error upcalls (a full send queue — the bound of the
//     scenario's transport applies to the messages not yet delivered — or a
//     connection broken by a reset or a break);
//   - with Config.Faults, a reset of every node, as long as resets are
//     left: the node gets a fresh service from the constructor, which
//     recovers the old one's durable state if it is timedsim.Durable and
//     runs Init; its timers and the messages to and from it in flight are lost;
//     the other end of each of its reliable connections gets an
//     ErrConnectionBroken upcall; and its application restarts from its
//     first driver event;
//   - with Config.Breaks, a break of the reliable connections between
//     every pair of nodes that has one, as long as breaks are left: the
//     messages in flight between them are lost and both ends get an
//     ErrConnectionBroken upcall;
//   - with Config.Drops, the loss of every datagram in flight, as long as
//     drops are left.
//
// Each reset, break and drop uses one from its own count (per
// execution); the counts left are part of the state.
//
// They are listed in a canonical order — application events by node,
// messages by destination, sender and transport, timers by node and name,
// error upcalls by node, resets by node, breaks by pair, drops like
// messages — and a choice is an index into
// that list. Inits run before step 0, in node order (they touch only their
// own node and its outgoing connections, so their order does not matter).
// The driver's own faults (Reset, Break, Partition, Heal) are ignored;
// datagrams are lost only by chosen drops; Context.Now is logical: the step number, in
// milliseconds. A handler that compares times through timedsim.Elapsed
// makes a choice point: the DFS explores both answers (a step's choice c
// among n enabled events is event c mod n, and bit k of c div n answers
// its k-th comparison, up to 8 a step; a choice with answers to
// comparisons its step did not make is skipped), and a random walk tosses
// a fair coin.
//
// Toss, MaceMC's choice function, takes the path's explicit choice while
// there is one (the exhaustive prefix) and afterwards draws by weight:
// Mace's defaults are application 40, message 8, timer 1 (and here
// transport error 8, reset 1), overridable per kind or per event label
// (Config.Weights), or uniform (Config.Unbiased).
//
// # The search
//
// Run is MaceMC_Search (Algorithms 1 and 2): a bounded depth-first search
// over choice sequences with iterative deepening (Depth, Depth+DepthStep,
// … up to MaxDepth), stateless (every sequence is re-executed from the
// initial state, as MaceMC does), with the safety properties checked after
// every step. State hashing prunes duplicates: the global state — the
// canonical timedsim.Describe of every node, its pending timers and next
// application event, the pending messages of every connection in order,
// the pending error upcalls and the resets left — is hashed with xxhash,
// (Context.Note's notes are not state: they only reach the event log of
// Replay), and a sequence stops at a state already reached at no greater depth in
// the same prefix task of the iteration (see below; keeping the smallest depth keeps the bounded search
// complete). From the end of every sequence that was not cut short a
// random walk runs up to DMax steps; the liveness properties are checked
// on every state past the DFS bound, and a walk that never reaches a live
// state (one where every liveness property holds) — or reaches a state
// with no enabled event that is not live — is a dead path, a suspected
// liveness violation. A Prefix path makes the search start from its end
// state (MaceMC's prefix-based search, for bugs in steady state).
//
// State hashing is only as exact as the services' Describe: a service
// whose String method (which Describe prefers to a field walk) summarises
// its state makes states that differ elsewhere look alike, which can prune
// sequences that were not duplicates (never produce false violations).
// Give such a service a Describe method with its whole state, as
// RandTree's Node has. Messages are hashed with their type. When the
// search exhausts the state space and no state it reached was live, that
// is a liveness violation even if no walk ran (a space that only cycles
// ends every sequence in a duplicate). A known limit: a step's handler
// randomness depends on the step number, which the hash leaves out.
//
// # The critical transition
//
// FindCritical is Algorithm 3 (FindCriticalTransition) on divergence's
// generic exponential-then-binary prefix search: the oracle for prefix p
// runs k random walks (Config.Walks) from the state after the dead path's
// first p steps and says whether one reaches a live state. The longest
// such prefix D gives the critical transition: step D of the dead path,
// after which no walk becomes live. Unlike MaceMC, whose walks run to the
// absolute depth dmax (and which therefore gives up past dmax/2), every
// walk here gets DMax steps past its prefix; the result is C1 with step D,
// or C2 ("raise dmax") when no walk becomes live even from the initial
// state or when walks from the very end of the dead path do (it was slow,
// not dead). With C1 come the live path with the longest common prefix
// (the first live walk of probe D), the events both paths take at step D,
// and a diff of every node whose canonical state (Describe text, pending
// timers, waiting messages) differs right after step D, in the style of
// MaceMC Mdb's filediff ("-" dead path, "+" live path). As the paper
// warns, k random walks can miss a rare way out, so D can come a step or
// two early ("near dead"); raise Walks to refine it.
//
// # Usage
//
//	sc, err := randtree.System().Scenario(randtree.VariantLivenessBug, 3)
//	if err != nil { … }
//	live, err := liveness.Select(sc.Liveness, randtree.PropAllJoined, randtree.PropOneRoot)
//	if err != nil { … }
//	cfg := liveness.Config{Scenario: sc, Liveness: live, Seed: 1} // depth 5, 10; dmax 1000; k 20
//	rep, err := liveness.Run(ctx, cfg)
//	if err != nil { … } // rep is partial on cancellation
//	if v := rep.Violation; v != nil {
//		fmt.Println(v.Kind, v.Property, "after", v.Step, "steps")
//		if c := rep.Critical; c != nil && c.Class == liveness.C1 {
//			fmt.Println("critical step", c.Step, c.DeadEvent, "instead of", c.LiveEvent)
//			for _, d := range c.Diff { fmt.Println(strings.Join(d.Lines, "\n")) }
//		}
//		lines, err := liveness.Replay(cfg, v.Path) // the event log
//	}
//
// Report, Path and everything in them marshal to JSON; a path replays
// with the same scenario and the same Weights, Unbiased, Faults, Breaks and Drops
// (recorded in Report.Settings).
//
// # Parallel and sharded search
//
// Every iteration of the DFS is divided into prefix tasks: a DFS with
// state hashing to the split depth (Config.SplitDepth, or the bound minus
// SplitGap, which is 0) lists the sequences that reach it (or end earlier
// with no event enabled) in DFS order; a sequence that reaches a state
// already reached at no greater depth is cut there, in the division, once
// for all tasks. The workers take the tasks in index order, each idle
// worker the next one (dynamic load balancing over prefixes; no worker
// takes a task beyond the first one found violating). A task searches the
// sequences extending its prefix with its own visited set, and runs the
// periphery walks of its sequences itself. The results are folded in task
// order: the reported violation is the first one in DFS order (the
// lowest-indexed violating task's first, a task's walks coming after its
// DFS sequences and before the next task's), and the statistics are those
// of the tasks before it plus its own up to it, whatever the number of
// workers.
//
// Split at the bound (the default), the division is the sequential DFS
// with one visited set, the tasks are its sequences, and what runs in
// parallel is their replays and random walks, whose seeds are those of
// the sequential search (timedsim.ExecutionSeed(Seed, i) for the i-th
// sequence not cut). Split above it, the DFS's last levels run in parallel
// too, walk j of task i of the iteration with bound d seeded from (Seed,
// d, i, j); a state reached by several tasks is then explored by each:
// States counts it once per task (the division counts each prefix's own
// states), and Distinct, from a concurrent striped set of fingerprints
// that keeps each state's smallest search position, counts it once.
// Collision is TLC's estimate of the probability that some visited set
// (the division's and each task's) took a new state for a visited one.
//
// RunShard runs the tasks whose global index (over all iterations) is
// ≡ i (mod n), paper 002's division of the search by prefix across
// machines; MergeShards folds the shards' results exactly as Run folds its
// tasks, so a merged search reports what the unsharded one does (without
// Distinct, which needs every fingerprint).
//
// # Determinism
//
// Everything random derives from Config.Seed through the path: the driver,
// the handlers' Context.Rand (re-seeded at every step from the step's
// segment seed and number), the walks' choices. Critical-transition walk j
// of probe p has the seed WalkSeed(Seed, p, j). The prefix division
// depends on the configuration alone, a task's outcome on its prefix
// alone, and results are taken in index order; so a Report is the same for
// any number of workers and shards, and the same on every run. There is
// no package state.
//
// # Limits
//
// timedsim does not export a scenario driver's events, so the driver is
// run inside a timed simulation of recorder services (driverSchedule); the
// application events' data values are shared by every execution and must
// not be modified by handlers.
package liveness

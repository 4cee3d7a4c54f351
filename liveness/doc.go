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
//   - the next application event of each node that is up: the scenario's
//     driver is run once (seeded with Path.Driver, timedsim's
//     Scenario.Script) to collect its App events, which each node then
//     takes in their time order;
//   - the driver's next fault, and the heal of a driver's outage (see
//     "The driver's faults" below);
//   - the oldest undelivered message of each reliable connection (per
//     connection, i.e. per transport, sender and destination, FIFO), and
//     every undelivered datagram (datagrams may be reordered);
//   - every pending timer: a timer set by SetTimer may fire at any step
//     until it fires or is cancelled, whatever its delay (MaceMC treats
//     timers as firing nondeterministically);
//   - pending transport error upcalls (a full send queue — the bound of the
//     scenario's transport applies to the messages not yet delivered —, a
//     connection broken by a fault, or a send to a crashed node or across a
//     partition);
//   - with Config.Faults, a reset of every node that is up, as long as
//     resets are left: the node gets a fresh service from the constructor, which
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
//     drops are left;
//   - with Config.Crashes, a crash-stop of every node that is up, as long
//     as crash-stops are left;
//   - with Config.Partitions, a lasting partition that cuts each node off
//     from the others, as long as partitions are left (see "Crash-stops
//     and lasting partitions" below).
//
// Each reset, break, drop, crash-stop and partition uses one from its own
// count (per execution); the counts left are part of the state.
//
// They are listed in a canonical order — application events by node, the
// driver's next fault, an outage's pending heal, messages by destination,
// sender and transport, timers by node and name, error upcalls by node,
// resets by node, breaks by pair, drops like messages, crash-stops by
// node, partitions by node — and a choice is an index into that list.
// Inits run before step 0, in node order (they touch only their own node
// and its outgoing connections, so their order does not matter).
// Datagrams are lost only by drops, crash-stops and partitions (chosen or
// the driver's); Context.Now is logical: the step number, in
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
// transport error 8, and 1 for each chosen fault: reset, break, drop,
// crash, partition; the driver's faults weigh as application events),
// overridable per kind or per event label (Config.Weights: "crash",
// "driver partition"), or uniform (Config.Unbiased).
//
// # Crash-stops and lasting partitions
//
// A crash-stop (Config.Crashes) stops a node for good, where a reset
// restarts it at once. No handler of it runs again: its timers, its
// pending error upcalls and its remaining application events are gone,
// the messages in flight to and from it are lost, and the other end of
// each of its reliable connections gets an ErrConnectionBroken upcall, as
// for a reset. A message sent to it later is lost: on a reliable
// transport the send fails as a send across a timedsim partition does (it
// returns a *timedsim.TransportError wrapping ErrUnreachable, and a
// sender that handles errors gets an "error unreachable" upcall), a
// datagram is lost silently. A crashed node is not reset again, by a
// chosen or a driver's reset.
//
// A lasting partition (Config.Partitions) cuts one node off from all the
// others until the end of the execution: one enabled event per node that
// is up and still shares its side with another node that is up, as resets
// are one per node. Isolating one node is the smallest canonical split (n
// events, where the splits into two sides would be 2^(n-1)-1); a second
// partition cuts off another node, and so on. The reliable connections
// across the cut break (their messages in flight are lost and both ends
// get an ErrConnectionBroken upcall), the datagrams in flight across it
// are lost, and later sends across it are lost as sends to a crashed node
// are. Lasting partitions are not healed; the driver's heals end the
// driver's partitions only.
//
// Properties read the world through timedsim.World, where a crashed
// node's service keeps the state it had when it stopped; timedsim.Crashed
// tells whether a node has crashed. A liveness property that needs every
// node to do something (every node joined, every node applied every
// proposal) can never hold after a crash-stop, and the search then reports
// every crash-stop as a liveness violation: write liveness properties over
// the nodes that are up, as raftsim.OneLeader and etcdraft's all-applied
// are. A
// lasting partition can make a property that needs every node to hear
// from the others just as unreachable; that is the fault's point.
//
// # The driver's faults
//
// The faults the scenario's driver scripts (timedsim.Driver's Reset,
// ResetChosen, Break, Partition, PartitionChosen, Outage, Heal) are steps
// of its script, not choices with a budget: the script keeps its time
// order wherever a fault stands between two events. The driver's next
// fault is enabled once every node that is up has run its application
// events before it in the script, and a node's application event once
// the driver's faults before it have run; events of one instant keep the
// order they were scheduled in. Otherwise, as before, the nodes' events
// interleave freely, and nothing waits for time: messages and timers
// interleave with the script at will. A fault runs as in the timed
// simulator: a reset keeps the node's place in its application events
// (unlike a chosen reset, which restarts them); a partition replaces the
// driver's previous one, breaking the connections across it, and sends
// across it fail as above; a heal ends it; a break breaks a pair's
// reliable connections. ResetChosen, PartitionChosen and Outage choose
// from the world of their step (an outage drawing from the step's handler
// randomness, as in the timed simulator), and an outage's own heal, whose
// time the untimed world cannot wait for, is then a pending event of its
// own that any later step may take (like a timer). Their labels are
// "driver reset", "driver break", "driver partition" and "driver heal";
// the event log says what a choice chose ("driver: reset chooses n2").
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
// the pending error upcalls and the faults left; with crash-stops,
// partitions or a driver that scripts faults, also the crashed nodes, the
// partitions' sides (which nodes can reach which), the driver's next
// fault and its outages' pending heals — is hashed with xxhash,
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
// A service that implements Fingerprinter (AppendFingerprint: its state as
// bytes, exactly as fine as its Describe text) is hashed by it instead,
// without formatting: RandTree's, Chord's and elect's nodes are. Its
// Describe still gives the state diffs and the event logs, and
// AppendFingerprint is checked and treated as Describe is below (a panic
// is a finding, a sample of calls is made twice).
//
// Where every service implements Clone (timedsim.Cloner), the sequences
// are not re-executed from the initial state: the DFS restores a snapshot
// taken before the first step a sequence does not share with the one
// before, a walk goes on from its sequence's state, and the level
// division's workers restore the snapshot at the longest prefix their
// next frontier entry or task shares with the last one (prefix.go). The
// steps are counted as if replayed; Config.Replay replays everything.
//
// Describe is thus part of the search. One that panics is a panic
// (KindPanic, "n1: Describe panicked: …") at the step whose state it
// describes, as a panicking handler is, not one text for every state
// (which would make every state a duplicate of the first, a false
// liveness violation): the DFS describes every state it hashes, and the
// path of a reported violation is executed again with every state
// described, so that it replays to the first such panic on it (the
// random walks describe no state: it doubled their cost). One whose text
// is not a pure function of the state (a map ranged over in Go's random
// order) makes one state count as several: every world describes a node
// twice, on its first 1024 descriptions and then on one in 64, and a
// difference is the search's warning (Report.Warnings), which names the
// node and both texts.
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
// with the same scenario and the same Weights, Unbiased, Faults, Breaks,
// Drops, Crashes and Partitions (recorded in Report.Settings).
//
// Replay's event log, TracePath's trace and the violations show the
// protocol's text (Logf lines, panics, event and property names) with its
// hidden characters made visible (package internal/visible): a line break
// cannot forge a line of the log, nor a right-to-left override reverse
// the text after it. A message label or timer name that
// timedsim.CheckMessageLabel or CheckTimerName refuses makes its handler
// panic, a finding, as in the timed simulator.
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
// With Config.LevelDivision the division itself runs on all the workers:
// a level-synchronous search with one shared, pruning visited set (a
// concurrent fpSet, 64 stripes of xxhash fingerprints). At each level the
// workers take the frontier's entries one at a time and compute their
// successors (re-executing each from the initial state), each recording
// its state's fingerprint with its key — level, frontier index, choice —
// the set keeping the smallest. After the level the successors are taken
// in DFS order: one whose state was reached at a lower level, or at this
// level by a smaller key, is cut as a duplicate; every other is a new
// state, explored once, from its first sequence in DFS order at its lowest
// level. The terminal sequences (leaves at the split depth, quiescent
// ones, duplicates) sorted in DFS order make the tasks as above, each new
// state (and its expansion's steps) counted with the first terminal
// through it. A safety violation or panic at a level stops the descent of
// every sequence after it in DFS order; the tasks end at the smallest such
// sequence. The tree searched is thus a function of the configuration
// alone, not of the workers or shards, but it is not the sequential DFS's:
// that one can reach a state first deep in an early branch and again,
// shallower, in a later one, exploring it twice, while here every state
// within the bound is explored once (States = Distinct for one iteration),
// so there are fewer paths and walks, and a walk only from the states
// whose lowest level is the bound. Walks are seeded as at the bound above,
// by the leaf's number. The levels up to a bound are the same for every
// deeper bound, so each iteration goes on from the last one's levels and
// set (Steps counts the steps it executed; the other statistics are those
// of a division started afresh, TestLevelDivisionGoesOn). Without state
// hashing LevelDivision is ignored.
//
// The level division's tree keeps no sequences: a state is its parent,
// the choice from it, its fingerprint and the edges to its successors, in
// flat arrays (about 30 bytes and 4 an edge), and a sequence is rebuilt
// from the parent pointers when a worker expands the state or a task is
// made. The tasks come from a walk of the tree in DFS order (the order of
// the terminal sequences), made and run chunkTasks at a time, so the
// search holds one chunk of tasks and results at once. A worker expands a
// state by replaying its sequence once and forking each successor from a
// snapshot of the world (fork.go) when every node's service has a
// Clone() timedsim.Service method (timedsim.Cloner's), else by replaying
// the sequence for each successor; the reports are the same either way
// (Steps counts the executions' steps, replayed or forked). So do the
// walks of each critical-transition probe: the dead path's first p steps
// run once, the probe's walks fork from a snapshot of their state
// (Critical.WalksFrom says whether they did; Config.Replay makes every
// walk replay them, with the same result).
//
// Visited sets (the sequential division's and each task's, the level
// division's shared one and the search's set for Distinct) are flat
// open-addressing tables of fingerprints (fpTable: 16 bytes a slot, at
// most 3/4 full; the shared ones in 64 lock stripes). Config.MaxMemory
// caps their memory and the level division's tree: the level division
// stops before a level whose estimate (the frontier growing as it last
// did, each new state costing the average so far) would pass the cap, the
// sequential division when its set passes it, and the search between
// chunks of tasks; the report then ends with EndMemory, and
// Stats.DepthDone is the last depth searched to its end. These points are
// functions of the configuration, so the report does not depend on the
// workers. The cap does not spill to disk: the search stops.
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
// # Cost
//
// MeasureCost, before a search, bounds its first iteration's time from
// below: every event enabled in the initial state starts at least one
// DFS sequence, and each starts again from the initial state (new
// services, Inits, the prefix). `macepc run --liveness` warns when that
// bound alone is past its limit; it says nothing of the deeper
// iterations, whose size the state space decides.
//
// # Limits
//
// The driver runs once per search (timedsim's Scenario.Script), so the
// application events' data values are shared by every execution and must
// not be modified by handlers.
package liveness

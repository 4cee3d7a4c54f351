// Package chord is Mace's Chord ring as a timedsim service, with two
// latent performance bugs as variants: "buggy", the kind the MacePC paper
// reports for Chord (§5.4: "similar in flavor to the Pastry bugs, with
// similar solutions": state lost silently and repaired by maintenance),
// and "join-race", a RandTree-style join race of ours masked by a slow
// recovery protocol; "fixed" has neither.
//
// # The protocol
//
// Nodes sit on a ring of 2^32 keys; node id's key is a fixed bijective mix
// of its address (Key), as Mace hashes the address. A node keeps its
// predecessor, a successor list of the DefaultSuccessors (4) nearest nodes
// after it, and 32 fingers (finger i is the first node it knows at or
// after key+2^i). Whatever it hears of a node enters the successor list
// and every finger the node is a better match for (Mace's
// register_knowledge; the revised Chord protocol's "all routing state is
// updated on learning of a new node"). Routing is Chord's: a message for
// key k stops at the node n with k in (n, successor(n)], and is otherwise
// sent to the known node closest before k.
//
//   - joinOverlay (application event "join", data: the contact). The
//     bootstrap (its own contact) is a one-node ring: its own predecessor
//     and successor (MaceMC's invariant). Any other node sends Join{Who}
//     to its contact and sets its join timer (500 ms), which sends it
//     again while the node is joining. The Join is routed to the joiner's
//     predecessor P, which answers JoinReply{P's successor list}. The
//     joiner takes P as predecessor, the list as its successors, sends
//     Notify to its successor and is joined: it arms stabilize (100 ms),
//     fix-fingers (200 ms) and recovery (60 s), Mace's timer periods.
//   - Stabilize: a joined node asks its successor for its predecessor
//     (GetPred); a predecessor between them becomes its successor (from
//     GetPredReply), and unless the successor already names it, it sends
//     Notify.
//   - Notify at S from n: n becomes S's predecessor if S has none, is a
//     one-node ring, or n lies between its predecessor and itself (and n
//     enters its routing state, so a one-node ring gains a successor:
//     MaceMC's Chord bug was a one-node ring that did not). S tells the
//     old predecessor its new successor at once (an unasked GetPredReply,
//     as Mace's update_pred does: the Pastry fix of MacePC §5.2 in
//     Chord's clothes), and answers a notifier that is not its
//     predecessor with the predecessor it has, so a node that joined with
//     a stale successor walks to its place in round trips rather than one
//     stabilize period (100 ms) per node passed. The buggy variant does
//     neither (below).
//   - Fix-fingers: a Lookup for key+2^i, i at random, routed as above; the
//     LookupReply's sender and successor list are learned.
//   - Recovery: every 60 s a joined node other than the bootstrap looks its
//     own key up through its contact; the node that answers learns it and
//     it learns the answer. Like RandTree's recovery it is meant for
//     partitions: two rings exchange nodes and stabilize merges them.
//   - A node not on a ring holds the Joins it receives and routes them
//     once joined (Mace's findQueue).
//
// Fault handling (failed successors, the successor list's purpose) is not
// modelled: the scenario has no faults.
//
// # The bugs
//
// The paper gives no more of its Chord bugs than "similar in flavor to the
// Pastry bugs, with similar solutions", and Pastry's (§5.2) is state that a
// node drops without telling the node that needs it, which then keeps a
// wrong view until periodic maintenance repairs it, one round at a time:
// "each time the periodic protocol executes, a node will move k neighbors
// nearer to their correct position in the ring". The "buggy" variant
// (Config.SilentPred) is that bug in Chord, in the two places where a node
// learns something another node needs:
//
//  1. A node S that takes a new predecessor n drops the old one, P,
//     without telling it ("deliver Notify → lost: old predecessor not
//     told", NoteDropped). P keeps S as its successor until its next
//     stabilize round asks S for its predecessor.
//  2. A node S notified by a node farther than its predecessor ignores it
//     ("deliver Notify → ignored: predecessor nearer", NoteNotNearer). The
//     notifier, which joined with a stale successor, learns of the nearer
//     node only at its next stabilize round, and walks to its place one
//     round (100 ms) per node it passes.
//
// The solution is Pastry's: tell the node what it now needs at once (the
// fixed variant's unasked GetPredReply, above). Stabilize repairs
// everything, so the buggy variant always forms the ring, but later: with
// the committed event durations the median 32-node execution takes 0.86 s
// instead of 0.48 s, and 150 of 2,000 (7.5%) take 1.6–2.0 s, where a node
// with a stale successor walked past a dozen nodes (TestSilentPredScenario;
// bench/PAPER.md has the distribution). Phase 3b ranks the notes of the
// two bugs first (TestPipelineSilentPred).
//
// The "join-race" variant (Config.JoinRace) is our own, a RandTree-style
// race rather than the paper's kind: a node that is joining (its Join
// sent, no JoinReply yet) and receives a Join — a later node chose it as
// contact — treats the Join as the bootstrap would: having no successor,
// it takes itself for a one-node ring, becomes joined and answers. The
// joiner J2 takes it (J) as predecessor and successor and notifies it; J,
// a one-node ring, takes J2 as predecessor and successor. J's own
// JoinReply then finds J joined and is dropped, as a duplicate answer to a
// retried Join is. Now there are two rings, each consistent: stabilize,
// notify and fix-fingers only ever talk along a ring, so nothing repairs
// it — MaceMC's self-loop symptom (a node whose successor is itself, which
// its predecessor's stabilize finds nothing wrong with) grown into a
// second ring. Every later node that picks J or J2 as contact joins the
// small ring. J's recovery timer, 60 s later, looks J's key up in the main
// ring: the answering node learns J, J learns its true neighbours, and
// stabilize merges the rings within a few hundred milliseconds. The
// execution takes 60 s instead of 0.5 s.
//
// Phase 3b sees the race as "deliver JoinReply → dropped: not joining"
// (the handler's note, NoteNotJoining): the joining node's own JoinReply,
// dropped because it has made itself a ring, and it ranks first (in each
// of seeds 1–10, r 0.75–0.97, within the normal time too: bench/PAPER.md),
// with "deliver JoinReply → Notify" (one fewer) and "deliver Join → Join"
// (the Join answered instead of routed) negatively correlated. The
// handlers note every message they drop, hold or ignore (the Note*
// constants), so that a dropped message does not look like one handled
// without a reply.
//
// The race needs a Join to reach a node in the few milliseconds between
// its Join and its JoinReply. If J had joined before J2 started, or J2
// chose an older contact, nothing happens. The fixed variant holds a Join
// received while joining and routes it once joined, as Mace's findQueue
// does: a node that is not on a ring has no routing state to answer from.
// The joiner waits a few milliseconds more, and one ring forms. FindRace
// locates the race in a recorded join-race execution.
//
// # Scenario and stopping condition
//
// The bootstrap, node 0, forms a ring at time 0. Node i ≥ 1 starts after
// i·Gap plus a jitter in [0, Jitter] (DefaultGap = DefaultJitter = 15 ms:
// 32 nodes start within 0.5 s, in index order; MacePC §5.2 mentions a 30 s
// stagger-start only as a workaround used in live deployments) and joins
// through a contact drawn from the nodes 0 … i−1, which has therefore
// started (DefaultWorkload). A contact that started less than a join's few
// milliseconds earlier is still joining: that is the join race's window.
// All joins through node 0 would never open it; contacts drawn among
// all nodes would often be in init and hold Joins for long. With this
// choice and event durations trained from the handlers' real times (phase
// 1a), about one 32-node join-race execution in eleven opens the window (45
// of 500 in TestTune) and takes 60.1–60.6 s; all others take 0.47–0.50 s, and
// so does every fixed execution (500 of 500; the slowest of 5,000 took
// 0.53 s), so the anomaly threshold max(Q3+1.5·IQR, 1.5·median) ≈ 0.73 s
// flags the race and nothing else. Fewer nodes open the window less
// often: 7% of 16-node and 4% of 8-node executions.
// With the untrained seed durations (uniform 1–10 ms per event) joins take
// tens of milliseconds and most join-race executions hit the race.
//
// The stopping condition (RingOrder.Ring) is the correct ring: every node
// joined, its successor the next node in key order and its predecessor the
// previous one — a single ring through successor pointers with correct
// predecessors. It is O(n); RingOrder.NewRing re-checks the node that
// failed last first, so it costs O(1) per event while that node is wrong.
//
// # Liveness mode
//
// The scenario carries Mace's Chord properties (Chord.mac): the liveness
// properties AllJoined ("all-joined", nodesJoined), AllNodes
// ("all-nodes", allNodes: MaceMC Table 1), PredNonNull
// ("pred-non-null"), SuccReflexive ("succ-reflexive") and Ring ("ring"),
// and the safety property SelfPred ("self-pred", successorAndPredecessor:
// a node that is its own predecessor is its own successor). The join-race
// variant's split rings violate all-nodes until recovery merges them, and
// the buggy variant's wrong successors until stabilize repairs them; the
// liveness mode's scheduler fires those timers eventually, so both are
// performance bugs, not liveness bugs, and the liveness mode finds no
// violation in the buggy, join-race or fixed variant (3 nodes, depth 10).
//
// The variant "no-recovery" is the join-race protocol without the recovery
// timer (Config.NoRecovery), what the race would be without Mace's fail
// safe: two rings for good. The liveness mode finds it on 3 nodes in a few
// milliseconds, with the critical transition at the bug itself — the
// joining node n1 delivering n2's Join — and, as the live path with the
// longest common prefix, n1 delivering its own JoinReply first:
//
//	macepc run --liveness --system chord --variant no-recovery --seed 1 --out lv
//
// The variant "self-loop" is MaceMC's Chord bug switched back on in the
// fixed protocol (Config.SelfLoop): a Notify sets the predecessor but
// does not enter the notifier into the routing state, so the bootstrap's
// first Notify leaves it a one-node ring with a predecessor — a self-loop
// that its predecessor's stabilize finds nothing wrong with. It has no
// recovery timer (Config.NoRecovery): our recovery, a fail safe for
// partitions, would repair it within 60 s (the node that answers a
// recovery lookup learns the looked-up node), which MaceMC's Chord did not.
// The liveness mode reports it as MaceMC did: all-nodes violated on the
// first path it walks, and no critical transition (C2), every execution
// being dead from the start (TestLiveness, TestSelfLoop):
//
//	macepc run --liveness --system chord --variant self-loop --seed 1 --out lv
//
// # Usage
//
//	sc, err := chord.System().Scenario("buggy", 32)
//	if err != nil { … }
//	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
//	if err != nil { … }
//	res := sim.Run(timedsim.SeedPath(1))
//	fmt.Println(res.Outcome, res.ExecTime)
//
// Stopping conditions, properties and tests read node state through
// World.Node(id).(*chord.Node) and its accessors (State, Pred, Succ, Succs,
// Finger), or with the helpers AllNodes, Rings and RingOrder.
//
// # Determinism
//
// A Node is a plain value driven only by its handlers: it starts no
// goroutines, reads no clock and draws randomness only from Context.Rand
// (its boot jitter and contact, the finger it refreshes). The driver
// starts every node at time 0 and each draws its own jitter when it boots
// and its contact when it joins, so a replayed prefix fixes only the draws
// already made (see Workload). An execution is therefore a function of its timedsim.Path.
// The protocol tests drive nodes without the simulator through a fake
// Context and a FIFO message queue whose delivery order the test chooses
// (harness_test.go).
package chord

// Package timedsim is the simulated world of macepc: the service API a
// protocol author writes against, the timed discrete-event simulator of the
// MacePC paper (Algorithm 1), the explorer that runs many executions across
// workers (Algorithm 2), and paths that replay any execution exactly.
//
// A protocol is a plain Go value implementing Service (Init, Deliver,
// Timer; optionally AppHandler and ErrorHandler). Handlers run atomically
// and record their effects — messages, timers, log lines — through a
// Context; the simulator performs them at the handler's simulated end time,
// as etcd-io/raft's RawNode hands its messages to a driver. (It performs
// each as the handler makes it, dated at the end time, which is known
// before the handler runs: the same as draining a list afterwards, and a
// Send can answer ErrQueueFull at once.)
//
// # Usage
//
//	sc := &timedsim.Scenario{
//		Nodes:   32,
//		New:     func(id timedsim.NodeID) timedsim.Service { return newNode(id) },
//		Driver:  func(d *timedsim.Driver) { d.App(0, 0, "join", nil) },
//		Stop:    func(w timedsim.World) bool { return allJoined(w) },
//		Timeout: 300 * time.Second,
//		Network: netmodel.DefaultConfig(),
//	}
//	sim, err := timedsim.NewSimulator(sc, timedsim.Options{})
//	res := sim.Run(timedsim.SeedPath(1))
//	fmt.Println(res.Outcome, res.ExecTime, res.Steps)
//
// A System bundles a protocol's variants, parameters and scenario builder
// for the pipeline library (package pipeline) and the command line on top
// of it (package cli).
//
// # Layers and send queues
//
// Services stack on one node as Mace stacks them (Bullet′ over RanSub):
// NewStack composes layers, listed bottom up, into one Service that routes
// each message to the layer that owns it, each timer to the layer whose
// namespace prefixes it ("timer ransub.epoch"), and lets a lower layer
// call the one above through Stack.Context. A handler asks how full a
// reliable connection's bounded send queue is with SendQueue, or whether
// one more message fits with Fits, to defer a send instead of having it
// fail with ErrQueueFull.
//
// # One contract, several runtimes
//
// Three runtimes run services: the Simulator here, the liveness mode's
// untimed explorer (package liveness) and real sockets (package realnet).
// The rules behind the Context are written once, for all three:
// Transports (the transports a handler names, their send-queue bounds
// from netmodel.TransportConfig.Admits, what a refused send returns and
// whom it upcalls, who is told of a broken connection), RecoverDisk (the
// durable state a reset hands over), MessageLabel, TimerLabel and
// TransportError.Label (the labels of messages, timers and upcalls, and
// the names a handler may not give them). Each runtime
// keeps only its mechanism: how it counts a queue, when an upcall runs,
// how it orders what happens at once.
//
// # Parameters
//
// A system may declare parameters (System.Params): scenarios and protocol
// knobs that a user sets with --param name=value, each with a default, a
// one-line doc and validation (an enumeration in Param.Values, or Check:
// CheckInt, CheckDuration, CheckBool). Such a system builds its scenarios
// with BuildParams, which gets every declared parameter's value; the
// resolved values are kept in Scenario.Params, enter ConfigHash, and are
// written into path files (format version 2, "params"), so a path replays
// with the values it was made with and a path whose values differ from the
// configuration is refused as stale. A system without parameters keeps the
// hash it had before parameters existed, and its path files are still
// written as version 1.
//
//	sys := timedsim.System{Name: "kv", Variants: …, DefaultNodes: 5,
//		Params: []timedsim.Param{
//			{Name: "scenario", Default: "election", Doc: "which hazard", Values: []string{"election", "rejoin"}},
//			{Name: "tick", Default: "100ms", Doc: "tick interval", Check: timedsim.CheckDuration(time.Millisecond)},
//		},
//		BuildParams: func(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
//			return build(p.Get("scenario"), p.Duration("tick"), nodes)
//		},
//	}
//	sc, err := sys.ScenarioParams("", 0, timedsim.Params{"scenario": "rejoin"})
//
// # Time
//
// Each event is the paper's tuple <node, event, start, duration>. The
// queue is ordered by (start, insertion counter). Executing an event sets
// node.time = max(node.time, start), samples the duration from the event
// label's EDD (package edd), runs the handler and advances node.time by the
// duration; messages the handler sent depart, and timers it set start
// counting, at that end time. Message delays come from package
// netmodel (bandwidth sharing, Pareto queueing, bounded FIFO transports).
//
// Semantics Requeue (default) differs from the paper in one respect: an
// event popped for a node that is still busy (node.time > start) is put
// back at node.time instead of running at once, so events execute in
// global time order and a node never acts "in the past" relative to events
// of other nodes still waiting in the queue. A busy node's waiting events
// keep their arrival order and go before events that arrive exactly when
// it becomes free, so per-connection FIFO holds end to end and a zero-delay
// timer cannot starve a waiting message. Semantics Paper keeps Algorithm 1
// exactly. Driver faults (reset, break, partition, heal; ResetChosen and
// PartitionChosen pick their node or groups from the state at that time,
// e.g. the current leader; Outage also draws its length from that step's
// randomness and heals after it) take no time and
// happen at their scheduled time whatever node is busy; a reset node's new
// incarnation starts at the reset time, with nothing of the old one but
// what a Durable service made durable (its Disk, handed to Recover).
//
// The execution time is the end time of the event after which the stopping
// condition first held (StopTime), or the paper's average node clock
// (AvgClock). Handler durations are drawn before the handler runs, so its
// end time is known and its sends and timers take effect as it makes them,
// at that end time; a broken connection's peers learn of it one default
// link latency later.
//
// Labels: "init", "app <name>", "deliver <MessageType>", "timer <name>",
// "error queue-full|unreachable|broken", and the driver's faults "reset",
// "break", "partition", "heal". A message's label is its Go type's name
// without the package (two packages' Join types share a label and an
// EDD), or its MessageLabel if it is a Labeler (one Go type carrying many
// kinds, as raft's messages do: "deliver MsgApp"). Composite labels count what a handler sent: "deliver JoinReply →
// Remove" (paper Figure 4, CompositeLabel), once per message type; what
// it noted: "deliver Announce → ignored: not started" (Context.Note),
// once per distinct note; the timers it set or cancelled: "deliver
// Elected → (cancel tick)" (TimerComposite), once per timer and kind; or
// "deliver JoinReply → (nothing)" when it did none of these (SentNothing;
// failed sends count as sent). Labels and notes are
// interned to small integers per simulator, so the hot loop never
// formats a string.
//
// # Notes
//
// A dropped message and a processed one look alike when neither handler
// sends anything, and so do a handler that silently loses state (evicts
// a member, forgets a peer) and one that merely updates it. Context.Note
// lets the protocol's author say what the handler did:
//
//	if n.state != joined {
//		ctx.Note("ignored: not joined")
//		return
//	}
//
// so that phase 3b can correlate "deliver Announce → ignored: not joined"
// with execution time apart from the Announces that were handled. A note
// names a kind of situation, in terms of what the code does — the same
// text in every variant of a protocol — not an instance: details such as
// node IDs go to Logf, since each distinct text is a label of its own.
// CheckNote gives the rules for the text. Notes are counted in the plain
// and the windowed composite counts and written to the event log
// ("note: …" under the event); they change nothing else, so an execution
// with notes is the same execution without them.
//
// # Determinism
//
// All randomness flows from the execution's Path: step i draws from PCG
// generators seeded with (segment seed, hash(i)) — one stream for the
// framework (durations, network delays) and one for the handler's
// Context.Rand — so the same path gives the same execution, byte for byte,
// in any worker, after any number of earlier executions. Replaying a prefix
// and branching is Path.Branch. The driver draws from the first segment.
// Real handler times (for EDD training) are measured but never influence
// the simulation. Explorer results are in execution-index order and do not
// depend on the number of workers. Path files (PathFile) carry a format
// version, the system, variant, node count and a ConfigHash, and refuse to
// replay on a changed configuration.
//
// A panicking handler does not crash the simulator: the execution ends with
// Outcome Panicked and Result.Panic names the step, node and event, so the
// path can be replayed. A handler that does not return is caught by the
// watchdog, Options.HandlerTimeout (wall clock, so it must be far beyond
// any handler's time for results to stay deterministic; the pipeline uses
// DefaultHandlerTimeout): Outcome Hung, located the same way. Under the
// watchdog, a Context used after its handler returned (by a goroutine the
// handler started, or kept for a later handler) does nothing, and the
// execution ends as Panicked with Result.Panic.AfterReturn, naming that
// handler (late.go).
// An Explorer with CheckDeterminism runs every execution twice and fails
// with ErrNondeterministic on any difference.
//
// Simulated times saturate instead of wrapping around: event durations and
// link latencies are at most edd.MaxDuration (100 years), and a time
// beyond the end of int64 nanoseconds (a timer math.MaxInt64 ahead) stays
// at math.MaxInt64, which is past any timeout: never.
package timedsim

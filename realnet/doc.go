// Package realnet runs a timedsim.Service on real sockets, records what
// each node saw, and replays the recording with global predicates: the
// WiDS Checker's loop (Liu, Lin, Chen, Zhou, Wang, Zheng and Zhang, "WiDS
// Checker: Combating Bugs in Distributed Systems", NSDI 2007) for the
// protocols macepc simulates, with no change to their code.
//
// # Runtime
//
// Run starts every node of a scenario in this process. Each node is one
// goroutine draining its inbox, so its handlers run one at a time, as in
// the simulator; handlers of different nodes run in parallel. Reliable
// transports are TCP connections (one per sender, receiver and
// transport), datagram transports UDP sockets, all on Config.Host
// (loopback by default). A handler's effects take place when it returns,
// as in the simulator: its messages leave, its timers start. Timers are
// real timers, application events of the scenario's driver
// (timedsim.DriverPlan) fire at their real times, and a handler takes the
// time it takes. Config.TimeScale stretches or shrinks scenario time: a
// timer of d fires after d·TimeScale of real time, and ctx.Now is the real
// time since the start divided by TimeScale.
//
// A reliable send fails with timedsim.ErrQueueFull (returned and raised as
// an Error upcall) when the transport's QueueCap messages to that peer
// have not yet been written to the socket; a TCP connection that breaks
// while the run goes on raises an ErrConnectionBroken upcall. Contexts do
// not implement timedsim.SendQueues (timedsim.Fits answers true): a queue
// length read by a handler would be an input the trace does not record.
//
// Messages are Go values with unexported fields and no codec, so in this
// in-process mode a frame carries the sender, the message ID and the
// sender's Lamport clock, padded to the message's Size; the value itself
// passes through a table in the process. The bytes on the wire, their
// timing and their order are real; the serialisation is not.
//
// In one process the stopping condition is observed by a coordinator:
// after a handler returns, the node signals it (signals coalesce), and it evaluates the
// condition over every node's state while holding the state lock
// exclusively, so that no handler runs meanwhile (handlers hold it shared).
// The run ends at the first check that sees the condition hold; the
// replay finds the exact step, which can be a few events earlier.
//
// # One node per process
//
// With Config.Peers (macepc live --node I --peers host:port,…) a process
// runs one node; node i's transport t listens on its peer address's
// port+t. Its frames carry the message itself, encoded by a Codec: a type
// number and the value's encoding/gob bytes. The types come from the
// service: it implements MessageTyper (MessageTypes() []timedsim.Message,
// one method beside the protocol, which pingpong and randtree have); a
// service without it is refused, naming the method, and so is a type with
// an unexported field, which gob would drop without a word. Every process
// must run the same binary and system (the type number is a position in
// the list). Dials are retried every 20 ms until the peer listens.
//
// No process sees the other nodes' states, so across processes the
// stopping condition is not evaluated while the run goes on: each process
// runs until Config.Timeout (or until ctx is cancelled, an interrupt) and
// writes its trace with stopped false; gathered into one run directory,
// the traces replay as any other, and Replay finds the step where the
// stopping condition first held. A process that ends before another
// closes its connections, which the other would record as
// broken-connection upcalls (they replay, but a protocol reacts to them
// and the end state is then the teardown's): Config.Deadline ends every
// process at the same instant, and Config.Linger keeps a process's sockets
// open a while after its end, handling nothing, for peers that end a
// little later. Each process counts start_ns and
// the other times from its own start: send-to-arrival delays between
// processes mix two clocks, and FitNetwork's fit of them is only as good
// as the processes' simultaneous start (it is not corrected).
//
// # Trace format, version 1
//
// One JSONL file per node and run, DIR/run-NNN/node-NNN.jsonl. The first
// line is the Header (format "macepc-realnet-trace", version, system,
// variant, params, nodes, node, run, seed, time_scale). Every other line
// but the last is an Event, one per handler run, in the order the node ran
// them: seq (0, 1, …), lamport, kind (init, deliver, timer, app, error),
// start_ns and dur_ns (the handler's real start since the run's start and
// its real duration), now_ns (what ctx.Now returned), peer (sender of a
// delivery, peer of an error, else -1), and by kind: transport, msg (the
// sender's message ID), sender_lamport, sent_ns (when the message left),
// arrived_ns (when it was read from the socket),
// name (message label, timer or application event), app (the event's
// index in the driver's plan), err ("broken" or "queue-full"); then what
// the handler did: draws (every value ctx.Rand's source produced, in
// order), sends (to, transport, id, label, err for a refused send) and
// timers (set with after_ns, or cancel). The last line is
// {"end":{"events":N,"stopped":B}}; a trace without it is truncated and
// refused. DecodeTrace validates all of it and names the file and line of
// the first problem.
//
// Lamport clocks: an event's clock is one more than the node's previous
// one, and for a delivery one more than the larger of that and the
// sender's clock at the send. Merge sorts all events by (clock, node),
// which keeps each node's order and puts every delivery after its send:
// an order consistent with happens-before.
//
// # Replay
//
// Replay builds fresh nodes from the scenario and runs the merged events
// one by one through a thin driver over the same Service contract: a
// delivery gets the message value its sender's replayed handler sent, a
// timer the data its replayed SetTimer gave, an application event the
// driver's data, and ctx.Rand hands out the recorded draws. Every send
// and timer operation is compared with the trace; the first one that
// differs (or is missing, or a draw too many or too few) is a
// Nondeterminism finding naming the step, node and event, and the replay
// stops there. After every event the scenario's safety properties are
// checked over all nodes' states; at the end its liveness properties. A
// violation names its step in the merged order, the nodes of that event
// and its real time.
//
// A replay is not a timedsim path: a path fixes the order of events
// through the simulator's network model and its draws, while a real run's
// order came from the real network; the trace directory itself is the
// replayable artefact (replay --trace DIR --steps K stops after step K).
// For the browser, Execution turns a recording replay
// (ReplayOptions.Record: every node's state after every step, and the
// handlers' notes) into a package explore execution: the merged steps at
// their real start times and durations, sends linked to deliveries,
// timers at the real time they were due, each violation and a departure
// from the trace marked; WriteExplore writes its explore.html.
//
// # Training and fidelity
//
// HandlerTimes gives the real handler durations by event label (what
// edd.Train takes), FitNetwork fits the network model's latency to the
// recorded send-to-arrival delays, and CompareFidelity simulates the
// scenario with both and sets the real execution times beside the
// simulated ones: median, p90 and p99, the Kolmogorov–Smirnov distance,
// and QQ's points, which WriteQQPlot draws as a PNG (simulated on x, real
// on y, the diagonal where they agree).
//
// # Usage
//
//	res, err := realnet.Run(ctx, realnet.Config{System: "pingpong", Variant: "default", Scenario: sc, Seed: 1, Dir: "out/run-000"})
//	rt, err := realnet.ReadRun("out/run-000")
//	rep, err := realnet.Replay(sc, rt, realnet.ReplayOptions{})
//
// # Determinism
//
// A real run is not deterministic: the network and the scheduler decide
// its order. What is deterministic is its replay: the same traces give
// the same merged order, the same states and the same findings. Tests
// therefore assert properties that hold for every run (the replay's sends
// equal the recorded ones; the planted violation is found), never timings.
package realnet

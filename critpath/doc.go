// Package critpath computes the critical path of a recorded execution
// through its happens-before graph, and attributes the excess of a slow
// execution over a normal one to the parts of the path: handler
// durations, network delays, transport-queue waits, busy-node waits and
// timer waits, each with the step that caused it. It is the answer to "what
// did the slow execution wait for?", after The Mystery Machine (Chow et
// al., "The Mystery Machine: End-to-end performance analysis of
// large-scale Internet services", OSDI 2014), which builds critical paths
// from causal graphs of traces, applied to a simulator whose trace already
// holds every causal edge.
//
// # The graph
//
// Every event of a timedsim execution has at most two predecessors: the
// step that made it (the handler that sent the message, set the timer,
// or made the failed send; the fault that reset the node;
// timedsim.TimedEvent.Cause) and the previous event on its node. It
// starts when both allow: at its Ready time (the message's arrival, the
// timer's firing) unless its node was still busy, in which case it starts
// when the node's previous handler ends. The critical path walks back
// from the execution's last event along the predecessor that was binding
// — the node, when the event waited for it; its cause otherwise — to an
// event without a cause (an Init at time 0, or a driver event at its
// scheduled time). Its segments tile [0, End] exactly:
//
//   - Handler: an event's handler duration (an EDD draw), when what came
//     after it was caused by it;
//   - Busy: a handler that the next event on its node had to wait for;
//   - Queue, Transmission, Propagation, FIFO: a message's delay as the
//     network model made it (timedsim.NetDelay): waiting for the flow's
//     earlier transmissions, its own transmission at the bandwidth share
//     of the sender's busy flows, the Pareto propagation draw (with its
//     quantile), and the reliable connection's FIFO order holding it
//     behind a slower message;
//   - Timer: the wait between a SetTimer and the firing, with the step
//     that armed it;
//   - Schedule: the driver's scheduled time of the path's first event (a
//     node that joins at 1.2 s);
//   - Notice: the delay of an error upcall (a broken connection's news).
//
// # Attribution
//
// Attribute compares the path of a slow execution with the path of a
// normal one (a median execution of the same search): the excess is the
// difference of their ends, and each part — a kind and a label, such as
// the Timer waits on "timer recovery" or the Propagation of "deliver
// Announce" — gets the difference of its total time on the two paths.
// Parts rank by their share of the excess; the largest segment of the
// slow path's top part says what it waited for ("n3 waiting on timer
// recovery, armed at step 86 by deliver Nack"). The Handler, Busy,
// Propagation and FIFO parts are the models' own draws (the EDD's
// durations, the network's delays): an excess made mostly of them is the
// normal variance of the models, not the protocol's doing
// (Attribution.DrawShare).
//
// # The stranded node
//
// When the longest wait is a timer on another node than the last to
// finish, the wait is usually the repair: a periodic timer (RanSub's epoch
// on Bullet′'s root) whose news reaches the late node at last. The cause
// is where that node was left. FindStranded follows the last node back
// from its first event on the path after the wait (the last firing of the
// same timer, if it was waited out more than once) to the last message it
// received before, passing over the late ones it did nothing with (no
// send, no timer: Bullet′'s periodic Diffs of blocks it has): if that came
// before the execution became anomalous (the profile's threshold), the
// node heard nothing it could act on from then to the news, and that
// delivery is where it was stranded ("deliver JoinReject", with nobody
// left to try). The messages to it that did not arrive are
// listed with their error upcalls; those a full transport queue lost are
// the protocol's own doing (Bullet′'s lost Diffs), those lost to an
// unreachable node or a broken connection the scenario's faults.
//
// # Unanswered requests
//
// When the longest wait is a node's own timer and no other node was
// stranded, the node polled: each firing of a stabilize or retry timer
// began a round of requests, and the next firing ended its wait. It
// waited its period because the news it needed did not come sooner.
// FindUnanswered looks at each round of that timer on the path: the
// messages the node sent in it (from the firing that armed it, through
// the replies it got, until the next firing), but for its replies to
// others. A request whose handler sent nothing at all was dropped in
// silence; in two rounds or more (MinSilentRounds), the node polled in
// vain, and one such round alone is no evidence that an answer was owed
// (a broadcast). That is where a node that knew better kept it to itself:
// Chord's successor that takes a nearer predecessor, or ignores a farther
// one, without telling the notifier ("deliver Notify").
//
// # Usage
//
//	res := sim.Run(path) // with timedsim.Options{Record: true}
//	slow, err := critpath.Compute(res.Events)
//	fast, err := critpath.Compute(median.Events)
//	a := critpath.Attribute(slow, fast)
//	fmt.Println(a.Headline()) // "9.5 s of the 9.5 s excess: n3 waiting on timer recovery, …"
//
// # Determinism
//
// Compute and Attribute are pure functions of the recorded events; ties
// between parts break by kind, then label.
package critpath

package timedsim

import (
	"fmt"
	"time"

	"github.com/macepc/macepc/edd"
)

// Semantics selects how an event for a busy node is executed.
type Semantics int

const (
	// Requeue (the default, an improvement over the paper): an event popped
	// for a node whose clock is past the event's start is put back into the
	// queue at the node's clock, so events execute in global time order and
	// a node never reacts to a message "before" an event it is still busy
	// with has let other nodes act.
	Requeue Semantics = iota
	// Paper is Algorithm 1 of the MacePC paper exactly: the popped event
	// runs at once with node.time = max(node.time, start), even if other
	// nodes' events with an earlier start are still queued behind it.
	Paper
)

func (s Semantics) String() string {
	if s == Paper {
		return "paper"
	}
	return "requeue"
}

// ExecTimeDef selects the definition of an execution's time.
type ExecTimeDef int

const (
	// StopTime (default): the simulated time at which the stopping
	// condition first holds: the end time of the event after which it
	// held (a long handler still running on another node does not count).
	StopTime ExecTimeDef = iota
	// AvgClock is the paper's definition: the average of all node clocks
	// when the stopping condition first holds, minus the start time (0).
	AvgClock
)

func (d ExecTimeDef) String() string {
	if d == AvgClock {
		return "avg-clock"
	}
	return "stop-time"
}

// Options configure a Simulator beyond its scenario.
type Options struct {
	// EDD gives each event label's duration distribution; nil means the
	// seed distribution (uniform 1–10 ms) for every label.
	EDD *edd.Set
	// Semantics: Requeue (default) or Paper.
	Semantics Semantics
	// ExecTime: StopTime (default) or AvgClock.
	ExecTime ExecTimeDef
	// Record keeps the timed event log (Result.Events). Costs allocation
	// per event: use it for replays, not for exploration.
	Record bool
	// RecordStates, with Record, also describes the event's node after
	// each event (TimedEvent.State): a handler changes only its own
	// node's state, so the states after every step follow from these
	// (package explore's state at any step).
	RecordStates bool
	// MeasureRealTime measures each handler's real duration (monotonic
	// clock) into Result.RealTimes, for EDD training (phase 1a).
	MeasureRealTime bool
	// CheckSafety evaluates the scenario's safety properties after every
	// event; a violation ends the execution.
	CheckSafety bool
	// MaxSteps ends an execution after this many events (0: no limit).
	MaxSteps int
	// IgnoreNotes leaves the handlers' notes (Context.Note) out of the
	// labels, the counts and the event log, as if the protocol had been
	// written without them: a handler that only noted something counts
	// as SentNothing (unless it set or cancelled a timer). Notes never change an execution, so its times and
	// steps are the same either way; phase 3b's ranking is then measured
	// on labels a protocol written elsewhere would have.
	IgnoreNotes bool
	// CountWindow, if positive, also counts the events that start before
	// this simulated time (Result.WindowCounts, WindowComposite). Phase 3b
	// sets it to the profile's first quartile (anomaly.Profile.CountWindow),
	// a time that most normal executions and every slow one outlast: an event
	// whose correlation with execution time disappears when only this
	// window is counted merely scales with the execution's length.
	CountWindow time.Duration
	// Deadline, if positive and before the scenario's timeout, ends an
	// execution whose next event would start after it, with outcome Cut
	// and ExecTime Deadline (a lower bound). It is for searches that only
	// need to know whether an execution finishes by a time (phase 3a's
	// confirmation walks) and would waste time simulating a slow one to
	// its end; the events before the deadline are those of the full
	// execution.
	Deadline time.Duration
	// AppsOnly runs only the driver's application events, not its faults
	// (Reset, ResetChosen, Break, Partition, PartitionChosen, Outage, Heal),
	// for services that are not the scenario's own and only record the
	// application events. Runtimes read a driver's events with
	// Scenario.Script, which lists them without running a simulation;
	// a simulation with AppsOnly is the independent reference the tests
	// of Script compare it with.
	AppsOnly bool
	// HandlerTimeout, if positive, is the handler watchdog: a handler call
	// that has not returned after this long (wall clock; it is noticed
	// within twice that) ends the execution with Outcome Hung, which
	// Result.Panic locates for a replay, instead of hanging the run. It
	// leaves the results of executions whose handlers return in time
	// exactly as they are; DefaultHandlerTimeout is far beyond any
	// handler's time. The watchdog also catches a Context used after its
	// handler returned (PanicInfo.AfterReturn). 0: no watchdog, and
	// neither check.
	HandlerTimeout time.Duration
}

// Outcome says how an execution ended.
type Outcome int

const (
	// Finished: the stopping condition held.
	Finished Outcome = iota
	// TimedOut: the next event would start after the scenario's timeout.
	TimedOut
	// Stalled: no event was pending and the stopping condition did not
	// hold.
	Stalled
	// StepLimit: Options.MaxSteps events ran.
	StepLimit
	// Panicked: user code panicked — a handler, the constructor, the
	// driver, the stopping condition or a property (Result.Panic says
	// where).
	Panicked
	// SafetyViolated: a safety property failed (Result.Violation).
	SafetyViolated
	// Interrupted: the context was cancelled (Ctrl-C); the result is not
	// an execution of the path and the explorer discards it.
	Interrupted
	// Cut: the next event would start after Options.Deadline.
	Cut
	// Hung: a handler did not return within Options.HandlerTimeout
	// (Result.Panic locates it, with Where "handler").
	Hung
)

var outcomeNames = [...]string{"finished", "timed-out", "stalled", "step-limit", "panicked", "safety-violated", "interrupted", "cut", "hung"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Result records one execution.
type Result struct {
	Path    Path
	Outcome Outcome
	// Finished is Outcome == Finished.
	Finished bool
	// ExecTime is the execution time (see ExecTimeDef); an execution that
	// did not finish gets the scenario's timeout.
	ExecTime time.Duration
	// EndTime is the simulated time when the execution stopped.
	EndTime time.Duration
	// Steps is the number of events executed.
	Steps int
	// Counts is the number of events per label ("deliver JoinReply").
	Counts map[string]int
	// Composite counts events per label and message type the handler sent
	// ("deliver JoinReply → Remove"), note it made ("deliver JoinReply →
	// dropped: already joined"), timer it set or cancelled ("deliver
	// Elected → (cancel tick)", TimerComposite) or SentNothing; each type,
	// note and timer counts once per event.
	Composite map[string]int
	// WindowCounts and WindowComposite are Counts and Composite restricted
	// to events that started before Options.CountWindow (nil without a
	// window).
	WindowCounts, WindowComposite map[string]int
	// NodeClocks is each node's clock at the end.
	NodeClocks []time.Duration
	// RealTimes holds measured handler times per label (MeasureRealTime).
	RealTimes map[string][]time.Duration
	// Events is the timed event log (Record).
	Events []TimedEvent
	// FinalStates describes each node's state at the end (Record; see
	// Describe).
	FinalStates []string
	// InitialStates describes each node's state as its constructor made
	// it, before any event (Record and RecordStates).
	InitialStates []string
	// Panic describes a handler panic (Outcome Panicked), or the handler
	// that hung (Outcome Hung).
	Panic *PanicInfo
	// DescribePanic locates the first panic of a service's Describe (or
	// String) method while the states were recorded (FinalStates with
	// Record, InitialStates and TimedEvent.State with RecordStates), with
	// Where "Describe", Node the node and Step the step after which its
	// state was described (-1: its initial state). The state's text says
	// "<Describe panicked: …>". It is not the execution's Outcome, which
	// is the same whether states are recorded or not, but it is a bug of
	// the protocol's code, a finding (pipeline.Finding).
	DescribePanic *PanicInfo
	// Violation names the safety property that failed.
	Violation string
}

// PanicInfo locates a panic in user code.
type PanicInfo struct {
	// Where: "handler" (then Node and Label name the event), "constructor",
	// "driver", "stopping condition", "safety property" or, for
	// Result.DescribePanic, "Describe".
	Where string
	Step  int
	Node  NodeID
	Label string
	Value string
	Stack string
	// AfterReturn: nothing panicked, but the Context of the handler at
	// Step (on Node, in Label) was used after that handler returned, by a
	// goroutine it started or from a later handler that kept it; the call
	// did nothing (ErrAfterReturn) and the execution ran to its end.
	AfterReturn bool
}

// DescribeText says where a Describe panicked (Result.DescribePanic), in
// one line: "n1's Describe panicked on its state after step 5: boom", or
// "… on its initial state: …".
func (p *PanicInfo) DescribeText() string {
	state := "its initial state"
	if p.Step >= 0 {
		state = fmt.Sprintf("its state after step %d", p.Step)
	}
	return fmt.Sprintf("%v's Describe panicked on %s: %s", p.Node, state, p.Value)
}

// TimedEvent is one executed event: the paper's <node, event, start,
// duration> plus what the handler did.
type TimedEvent struct {
	Step int
	Node NodeID
	From NodeID // sender of a delivered message, None otherwise
	// Depart is when a delivered message left its sender: the end of the
	// sending event (Start+Duration of the event on From that sent it).
	Depart   time.Duration
	Label    string
	Start    time.Duration
	Duration time.Duration
	// Cause is the step whose handler or fault made this event: the send
	// of a delivered message, the SetTimer of a timer, the failed send or
	// the fault of an error upcall, the reset of an Init, the outage of
	// its heal; -1 for the initial Inits and the driver's events.
	// CauseSend is a delivered message's index in the cause's Sends (-1
	// otherwise). Ready is when the event could first run: the message's
	// arrival, the timer's firing time, the driver's scheduled time; Start
	// − Ready is how long it waited for its busy node. Together they are
	// the execution's happens-before graph (package critpath).
	Cause, CauseSend int
	Ready            time.Duration
	Sends            []SentMessage
	Timers           []TimerChange
	// Notes are the handler's distinct notes (Context.Note), in the order
	// it first made them.
	Notes []string
	// Draws are the 64-bit values the handler drew from Context.Rand, in
	// order (a gossip target, a randomized timeout, a backoff): the
	// protocol's own random choices, beside the duration and the network
	// delays the simulator drew.
	Draws []uint64
	Logs  []string
	// State is Describe of Node's service right after the event
	// (Options.RecordStates; "" for an event without a node).
	State string
}

// SentMessage is a message a handler sent and its fate.
type SentMessage struct {
	To        NodeID
	Transport string
	Type      string
	Size      int
	Arrive    time.Duration // valid when Status is "sent"
	Status    string        // sent, queue-full, dropped, unreachable
	// Net is how the network model made the delay of a sent message
	// (zero otherwise).
	Net NetDelay
}

// NetDelay is the network model's account of one message's delay from
// its departure (the sending handler's end) to its arrival: it waits for
// the flow's earlier transmissions until TxStart, is transmitted until
// TxEnd at the bandwidth share HeavyFlows allows, and propagates for
// Propagation (the Pareto draw, capped) plus a datagram's Reorder delay;
// the rest, up to the arrival, is the reliable connection's FIFO order
// holding it behind an earlier, slower message.
type NetDelay struct {
	TxStart, TxEnd       time.Duration
	Propagation, Reorder time.Duration
	// Quantile is the Pareto draw's place in its distribution: the share
	// of the link's delays shorter than Propagation (0.999: the network
	// model's 99.9th percentile).
	Quantile   float64
	HeavyFlows int
}

// TimerChange is a timer set or cancelled by a handler.
type TimerChange struct {
	Name   string
	Cancel bool
	At     time.Duration // firing time when set
}

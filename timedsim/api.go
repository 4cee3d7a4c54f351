package timedsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// NodeID names a simulated node. IDs are 0..n-1 and double as addresses:
// protocols that elect "the lowest address" compare NodeIDs.
type NodeID int32

// None is the NodeID that names no node (an unset parent, say).
const None NodeID = -1

// String renders a node as "n7".
func (id NodeID) String() string {
	if id < 0 {
		return "none"
	}
	return "n" + itoa(int(id))
}

// Message is any value a service sends. Its wire size feeds the network
// model's transmission delay; its Go type name is its event label
// ("deliver JoinReply"), unless it implements Labeler.
type Message interface {
	Size() int
}

// Labeler is implemented by messages whose event label is not their Go
// type's name: a protocol with one message type that carries its kind in a
// field, such as raft's raftpb.Message (MsgApp, MsgVote, …), which a
// wrapper can label "deliver MsgApp". MessageLabel must be a pure function
// of the message and return one of a few names (each distinct name is a
// label of its own, with its own EDD and counts); an empty name falls back
// to the type's name. A name CheckMessageLabel refuses (a line break, a
// right-to-left override) makes the handler that sends the message panic.
type Labeler interface {
	MessageLabel() string
}

// Context is what a handler sees of the world. Handlers run atomically and
// act on the world only through it: messages and timers take effect at the
// handler's simulated end time (known before the handler runs, since its
// duration is drawn first), never earlier, whatever the handler does next.
//
// A Context is only valid during the handler call it was passed to. Used
// later, by a goroutine the handler started or from a later handler that
// kept it, under the handler watchdog (Options.HandlerTimeout, which the
// pipeline sets), its methods do nothing (Send returns ErrAfterReturn) and
// the simulator's execution ends as Panicked with PanicInfo.AfterReturn.
type Context interface {
	// Self is the node running the handler.
	Self() NodeID
	// Nodes is the number of nodes in the system.
	Nodes() int
	// Now is the node's simulated clock at the start of the handler.
	Now() time.Duration
	// Send sends msg to a node on the default (reliable) transport. The
	// message departs at the handler's end time. It returns a
	// *TransportError wrapping ErrQueueFull when the connection's bounded
	// send queue is full, or ErrUnreachable across a partition, and the
	// message is not sent. The failure is reported twice on purpose, as
	// Mace's transports do: the return value lets a handler react at once,
	// and an Error upcall (if the service implements ErrorHandler) reaches
	// services that ignore return values — the situation of MaceMC's
	// RandTree bug RT12. A datagram lost in the network is not reported.
	Send(to NodeID, msg Message) error
	// SendOn is Send on a named transport from the scenario's network
	// configuration.
	SendOn(transport string, to NodeID, msg Message) error
	// SetTimer schedules the node's timer `name` to fire `after` the
	// handler's end (a negative after counts as 0), replacing a pending
	// timer of the same name (Mace timers: at most one pending per name).
	SetTimer(name string, after time.Duration, data any)
	// CancelTimer cancels the pending timer `name`, if any.
	CancelTimer(name string)
	// TimerPending reports whether timer `name` is scheduled.
	TimerPending(name string) bool
	// Rand is the handler's deterministic random source, derived from the
	// execution's path and the step number.
	Rand() *rand.Rand
	// Logf records a line in the event log (only when recording).
	Logf(format string, args ...any)
	// Note annotates the running event with what its handler did that no
	// message shows: it dropped or ignored the event, deferred it, or lost
	// state ("ignored: not joined", "evicted a leaf-set member"). The note
	// enters the event's composite labels as "<event label> → <text>"
	// (CompositeLabel), counted once per distinct note per event, and the
	// recorded event log. A handler that notes something does not count as
	// SentNothing. Note is not state: it changes no execution. It panics
	// on a text CheckNote rejects (a caller bug).
	Note(text string)
}

// Service is a protocol instance on one node: a plain Go value whose
// handlers run atomically. It must not start goroutines, read the wall
// clock, or use global randomness.
type Service interface {
	// Init runs once when the node starts (and again after a reset, on a
	// fresh value from the scenario's constructor, which gets its durable
	// state first if it is Durable).
	Init(ctx Context)
	// Deliver handles a message from another node.
	Deliver(ctx Context, from NodeID, msg Message)
	// Timer handles the firing of the node's timer `name`.
	Timer(ctx Context, name string, data any)
}

// AppHandler is implemented by services that take application events from
// the scenario's driver (Mace's downcalls such as joinOverlay).
type AppHandler interface {
	App(ctx Context, name string, data any)
}

// Durable is implemented by services with state that survives a reset:
// what the node has written to stable storage, such as raft's log and
// HardState. When a node is reset, the simulator calls Disk on the old
// incarnation and hands the result to the new one's Recover, before its
// Init; everything else the old incarnation held is lost. Disk must return
// only what the service has made durable (not what it holds in memory
// only), and the new incarnation owns it.
//
// A handler's state changes take effect when it runs, so a reset that
// falls while a handler is still running (between its start and its
// simulated end) keeps what that handler wrote, while its sends are
// undone: like a crash before fsync returned, after which the data may or
// may not be on disk; the model takes the "may".
type Durable interface {
	Disk() any
	Recover(disk any)
}

// ErrorHandler is implemented by services that want transport error
// upcalls: a send that failed because the queue was full or the peer is
// unreachable, and connections broken by a peer's reset or a partition.
type ErrorHandler interface {
	Error(ctx Context, err *TransportError)
}

// Sentinel errors carried by TransportError.
var (
	// ErrQueueFull: the reliable connection's bounded send queue is full.
	ErrQueueFull = errors.New("timedsim: send queue full")
	// ErrUnreachable: the peer is on the other side of a partition.
	ErrUnreachable = errors.New("timedsim: peer unreachable")
	// ErrConnectionBroken: the peer reset or the connection was broken;
	// messages in flight on it are lost.
	ErrConnectionBroken = errors.New("timedsim: connection broken")
)

// TransportError describes a failed send or a broken connection.
type TransportError struct {
	Transport string
	Peer      NodeID
	Err       error   // ErrQueueFull, ErrUnreachable or ErrConnectionBroken
	Msg       Message // the message that failed, nil for a broken connection
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("%v (transport %s, peer %v)", e.Err, e.Transport, e.Peer)
}

// Unwrap returns the sentinel.
func (e *TransportError) Unwrap() error { return e.Err }

// World is a read-only view of all node states, given to stopping
// conditions and properties.
type World interface {
	// Nodes is the number of nodes.
	Nodes() int
	// Node is node id's current service value (type-assert it to your
	// service type to read its state).
	Node(id NodeID) Service
	// Now is the latest end time of any event executed so far (a long
	// handler still running on another node counts; Result.ExecTime
	// instead uses the end of the event after which Stop held).
	Now() time.Duration
	// Steps is the number of events executed so far.
	Steps() int
	// TimerPending reports whether node id has timer `name` scheduled.
	TimerPending(id NodeID, name string) bool
}

// CrashView is implemented by worlds in which a node can stop for good:
// the liveness mode's crash-stops (liveness.Config.Crashes). CrashView
// wraps the Crashed method, which reports whether node id has.
type CrashView interface {
	Crashed(id NodeID) bool
}

// Crashed reports whether node id of w has stopped for good; it is false
// in a world without crash-stops, such as the timed simulator's (a reset
// node restarts at once). A crashed node's service keeps the state it had
// when it stopped, and no handler of it runs again: a property that needs
// every node to do something can never hold after a crash-stop, so
// liveness properties should skip the crashed nodes, as
// raftsim.OneLeader does.
func Crashed(w World, id NodeID) bool {
	c, ok := w.(CrashView)
	return ok && c.Crashed(id)
}

// Property is a named predicate over the world (safety: must always hold;
// liveness: must eventually hold).
type Property struct {
	Name  string
	Check func(w World) bool
	// Optional properties are checked only when selected by name (the
	// liveness mode's --safety): for example one written after the bug it
	// catches, to show that it would have caught it.
	Optional bool
}

// Required returns the properties of ps that are not Optional.
func Required(ps []Property) []Property {
	out := make([]Property, 0, len(ps))
	for _, p := range ps {
		if !p.Optional {
			out = append(out, p)
		}
	}
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}

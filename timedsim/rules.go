package timedsim

import (
	"reflect"
	"slices"

	"github.com/macepc/macepc/netmodel"
)

// The service contract's shared rules. Three runtimes run services: the
// timed Simulator here, the liveness mode's untimed explorer (package
// liveness) and real sockets (package realnet). What a handler may expect
// of its Context is the same in all three, so the rules behind it are
// written once, here and in netmodel's TransportConfig, and each runtime
// keeps only its mechanism: how it counts a send queue, when an upcall
// runs, how it orders what happens at once.

// Transports is a scenario's transports as the service contract sees
// them: the names a handler gives SendOn, their send-queue bounds
// (SendQueues, netmodel.TransportConfig.Admits), and what a refused send
// and a broken connection tell the node (Refused, Broken). It is
// read-only once made, and safe for concurrent use.
type Transports struct {
	cfg   []netmodel.TransportConfig
	names []string
}

// NewTransports returns the transports of a network configuration, with
// its defaults (an empty list is the one reliable transport "tcp").
func NewTransports(cfg netmodel.Config) *Transports {
	cfg = cfg.WithDefaults()
	t := &Transports{cfg: cfg.Transports, names: make([]string, len(cfg.Transports))}
	for i, tc := range cfg.Transports {
		t.names[i] = tc.Name
	}
	return t
}

// Len is the number of transports; Send uses transport 0.
func (t *Transports) Len() int { return len(t.cfg) }

// Name is transport i's name.
func (t *Transports) Name(i int) string { return t.names[i] }

// Names lists the transports' names in order; the caller must not change
// it.
func (t *Transports) Names() []string { return t.names }

// Index is the transport called name, as SendOn looks it up; ok is false
// if there is none (SendOn then panics: a caller bug).
func (t *Transports) Index(name string) (i int, ok bool) {
	for i, n := range t.names {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Datagram reports whether transport i is a datagram transport (no
// connection: nothing to break, no queue to bound, losses unreported).
func (t *Transports) Datagram(i int) bool { return t.cfg[i].Kind == netmodel.Datagram }

// QueueCap is the capacity of transport i's send queues in messages,
// negative for unbounded: SendQueues.QueueCap.
func (t *Transports) QueueCap(i int) int { return t.cfg[i].SendQueueCap() }

// Admits reports whether a send queue of transport i holding queued
// messages takes one more; a send it does not admit is Refused with
// ErrQueueFull.
func (t *Transports) Admits(i, queued int) bool { return t.cfg[i].Admits(queued) }

// Refused is the rule for a send on transport i to `to` that the
// transport refused: err is ErrQueueFull (the bounded send queue is
// full, Admits) or ErrUnreachable (a reliable transport across a
// partition, or to a node that stopped for good). The send returns te at
// once, and the message is not sent; the sending node also gets te as an
// Error upcall, later, if its service handles errors (upcall: the
// service is an ErrorHandler), as Mace's transports report a failure
// twice. A datagram that is lost is not refused: the sender cannot know.
func (t *Transports) Refused(sender Service, i int, to NodeID, err error, msg Message) (te *TransportError, upcall bool) {
	_, upcall = sender.(ErrorHandler)
	return &TransportError{Transport: t.names[i], Peer: to, Err: err, Msg: msg}, upcall
}

// Broken is the rule for reliable connections that broke (a reset, a
// break, a partition, a crash-stop; their messages in flight are lost):
// each end of each connection in conns is told that it lost its peer, by
// an ErrConnectionBroken upcall, if its service handles errors, and once
// per peer and transport however often conns lists the pair (both
// directions, say) — except the node skip (a reset or crashed node,
// which keeps no connection to be told about; -1 for none) and a node
// about itself. conns comes in the runtime's order, and tell gets the
// upcalls in that order, of each connection A's then B's (the order of
// the upcalls is the runtime's scheduling); svc is a node's service now.
func (t *Transports) Broken(conns []netmodel.Conn, skip int, svc func(node int) Service, tell func(node int, te *TransportError)) {
	told := make([]netmodel.Conn, 0, 16) // (node, peer, transport) told so far
	for _, c := range conns {
		for _, end := range [2][2]int{{c.A, c.B}, {c.B, c.A}} {
			node, peer := end[0], end[1]
			if node == skip || node == peer {
				continue
			}
			k := netmodel.Conn{Transport: c.Transport, A: node, B: peer}
			if slices.Contains(told, k) {
				continue
			}
			told = append(told, k)
			if _, ok := svc(node).(ErrorHandler); !ok {
				continue
			}
			tell(node, &TransportError{Transport: t.names[c.Transport], Peer: NodeID(peer), Err: ErrConnectionBroken})
		}
	}
}

// RecoverDisk is the rule of durable state across a reset: the new
// incarnation fresh of a node gets what the old one made durable
// (Durable.Disk) before its Init, if both are Durable; the rest of old's
// state is lost.
func RecoverDisk(old, fresh Service) {
	if d, ok := old.(Durable); ok {
		if f, ok := fresh.(Durable); ok {
			f.Recover(d.Disk())
		}
	}
}

// Label is the event label of the Error upcall that carries e: "error
// queue-full", "error unreachable" or "error broken".
func (e *TransportError) Label() string {
	switch e.Err {
	case ErrQueueFull:
		return "error queue-full"
	case ErrUnreachable:
		return "error unreachable"
	default:
		return "error broken"
	}
}

// MessageLabel is the name that labels msg's events ("deliver <name>")
// in every runtime: its MessageLabel if it is a Labeler that gives one,
// else its Go type's name (pointers dereferenced; an unnamed type's
// literal). Sending a message whose Labeler name CheckMessageLabel
// refuses, or a nil message, is a caller bug: MessageLabel panics, in the
// sending handler.
func MessageLabel(msg Message) string {
	if msg == nil {
		panic("timedsim: nil message: a Message is a value with a Size")
	}
	if l, ok := msg.(Labeler); ok {
		if name := l.MessageLabel(); name != "" {
			if err := CheckMessageLabel(name); err != nil {
				panic(err.Error())
			}
			return name
		}
	}
	return typeName(reflect.TypeOf(msg))
}

// TimerLabel is the label of the firings of a timer called name ("timer
// <name>"). A name CheckTimerName refuses is a caller bug in every
// runtime, whichever of SetTimer, CancelTimer and TimerPending names it:
// TimerLabel panics, in that handler.
func TimerLabel(name string) string {
	if err := CheckTimerName(name); err != nil {
		panic(err.Error())
	}
	return "timer " + name
}

package netmodel

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/macepc/macepc/internal/simtime"
)

// Defaults of the model, from the Mace source (see the package doc).
const (
	DefaultBandwidthKbps  = 8000             // kbit/s between two peers
	DefaultLatency        = time.Millisecond // Pareto scale xm
	DefaultParetoShape    = 3.0              // Pareto shape α
	DefaultHeavyFlowBytes = 300              // a flow is heavy above this many queued bytes
	DefaultQueueCap       = 20               // messages per reliable connection
	DefaultTransport      = "tcp"            // name of the transport of an empty Config
)

// Limits of a Network.
const (
	MaxNodes      = 1 << 24 // node ids are packed into 24 bits
	MaxTransports = 1 << 16 // transport indexes are packed into 16 bits
	// MaxDelay bounds a configured latency or reorder window, and every
	// delay the model computes (a huge message on a thin link, a Pareto
	// draw at the far tail) saturates at it: 100 years, the longest
	// duration macepc simulates (as edd.MaxDuration), so that an arrival
	// time never wraps around to a negative one.
	MaxDelay = simtime.MaxDuration
)

// Kind is the kind of a transport.
type Kind int

const (
	// Reliable is TCP-like: per-connection FIFO, bounded send queue,
	// connections that break.
	Reliable Kind = iota
	// Datagram is UDP-like: no ordering, optional loss and reordering,
	// never a full queue, no connections.
	Datagram
)

// String returns "reliable" or "datagram".
func (k Kind) String() string {
	switch k {
	case Reliable:
		return "reliable"
	case Datagram:
		return "datagram"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText encodes k as its String, so configurations read well in JSON.
func (k Kind) MarshalText() ([]byte, error) {
	if k != Reliable && k != Datagram {
		return nil, fmt.Errorf("netmodel: unknown transport kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes "reliable" or "datagram".
func (k *Kind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "reliable":
		*k = Reliable
	case "datagram":
		*k = Datagram
	default:
		return fmt.Errorf("netmodel: unknown transport kind %q (want reliable or datagram)", b)
	}
	return nil
}

// TransportConfig describes one named transport.
type TransportConfig struct {
	// Name is how services name the transport (unique, not empty).
	Name string
	// Kind is Reliable or Datagram.
	Kind Kind
	// QueueCap bounds a reliable connection's send queue: the number of
	// messages sent on one direction of a connection and not yet
	// delivered. 0 means DefaultQueueCap, a negative value means
	// unbounded. Must be 0 for a datagram transport.
	QueueCap int `json:",omitempty"`
	// DropProb is the probability that a datagram is lost, in [0, 1].
	// Must be 0 for a reliable transport.
	DropProb float64 `json:",omitempty"`
	// ReorderWindow adds a uniform random delay in [0, ReorderWindow) to
	// every datagram, so that later datagrams may overtake earlier ones.
	// Must be 0 for a reliable transport.
	ReorderWindow time.Duration `json:",omitempty"`
}

// SendQueueCap is the bound on the send queue of one direction of a
// connection of transport t, in messages not yet delivered: QueueCap, or
// DefaultQueueCap for 0, for a reliable transport; negative (unbounded)
// for a negative QueueCap and for a datagram transport, which has no
// queue to bound.
//
// It and Admits are the send-queue rule of every runtime that runs
// services (the timed Network here, the liveness mode's connections,
// realnet's sockets); each counts its queues its own way.
func (t TransportConfig) SendQueueCap() int {
	switch {
	case t.Kind != Reliable || t.QueueCap < 0:
		return -1
	case t.QueueCap == 0:
		return DefaultQueueCap
	}
	return t.QueueCap
}

// Admits reports whether a send queue of transport t that holds queued
// messages takes one more; a send it does not admit fails with
// QueueFull (timedsim.ErrQueueFull).
func (t TransportConfig) Admits(queued int) bool { return admits(t.SendQueueCap(), queued) }

// admits is Admits for a capacity already resolved (SendQueueCap).
func admits[N int | int32](capacity, queued N) bool { return capacity < 0 || queued < capacity }

// LinkOverride changes the latency and bandwidth of the directed link
// From→To. A zero field keeps the value that applies otherwise (the
// sender's NodeOverride, then the Config default). When several overrides
// name the same link, later non-zero fields win.
type LinkOverride struct {
	From, To      int
	Latency       time.Duration `json:",omitempty"`
	BandwidthKbps float64       `json:",omitempty"`
}

// Symmetric returns the two LinkOverrides that set a→b and b→a alike.
func Symmetric(a, b int, latency time.Duration, bandwidthKbps float64) []LinkOverride {
	return []LinkOverride{
		{From: a, To: b, Latency: latency, BandwidthKbps: bandwidthKbps},
		{From: b, To: a, Latency: latency, BandwidthKbps: bandwidthKbps},
	}
}

// NodeOverride changes the defaults of every link leaving Node: its uplink
// bandwidth and its latency. A zero field keeps the Config default; a
// LinkOverride of the same link takes precedence field by field. When
// several overrides name the same node, later non-zero fields win.
type NodeOverride struct {
	Node          int
	Latency       time.Duration `json:",omitempty"`
	BandwidthKbps float64       `json:",omitempty"`
}

// Config configures a Network. The zero value is valid and means
// DefaultConfig(): zero fields take their defaults (WithDefaults).
type Config struct {
	// BandwidthKbps is the default bandwidth of a link in kbit/s
	// (default 8000).
	BandwidthKbps float64 `json:",omitempty"`
	// Latency is the default Pareto scale xm of a link: the minimum
	// propagation+queueing delay (default 1ms).
	Latency time.Duration `json:",omitempty"`
	// ParetoShape is the Pareto shape α (default 3). The mean delay is
	// α·xm/(α−1) for α > 1.
	ParetoShape float64 `json:",omitempty"`
	// HeavyFlowBytes is the threshold above which a flow's queued bytes
	// make it count towards the sender's bandwidth divisor (default 300).
	HeavyFlowBytes int `json:",omitempty"`
	// Transports lists the transports; index 0 is the default transport.
	// Empty means one reliable transport "tcp" with the default queue.
	Transports []TransportConfig `json:",omitempty"`
	// Overrides change single directed links.
	Overrides []LinkOverride `json:",omitempty"`
	// NodeOverrides change all links leaving a node.
	NodeOverrides []NodeOverride `json:",omitempty"`
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns a copy of c whose zero fields hold their defaults.
// It does not modify c or the slices c refers to.
func (c Config) WithDefaults() Config {
	if c.BandwidthKbps == 0 {
		c.BandwidthKbps = DefaultBandwidthKbps
	}
	if c.Latency == 0 {
		c.Latency = DefaultLatency
	}
	if c.ParetoShape == 0 {
		c.ParetoShape = DefaultParetoShape
	}
	if c.HeavyFlowBytes == 0 {
		c.HeavyFlowBytes = DefaultHeavyFlowBytes
	}
	if len(c.Transports) == 0 {
		c.Transports = []TransportConfig{{Name: DefaultTransport, Kind: Reliable, QueueCap: DefaultQueueCap}}
	} else {
		ts := make([]TransportConfig, len(c.Transports))
		copy(ts, c.Transports)
		for i := range ts {
			if ts[i].Kind == Reliable && ts[i].QueueCap == 0 {
				ts[i].QueueCap = DefaultQueueCap
			}
		}
		c.Transports = ts
	}
	c.Overrides = append([]LinkOverride(nil), c.Overrides...)
	c.NodeOverrides = append([]NodeOverride(nil), c.NodeOverrides...)
	return c
}

// TransportIndex returns the index of the transport called name, taking
// defaults into account (an empty Transports list has "tcp" at 0).
func (c Config) TransportIndex(name string) (int, bool) {
	if len(c.Transports) == 0 {
		return 0, name == DefaultTransport
	}
	for i, t := range c.Transports {
		if t.Name == name {
			return i, true
		}
	}
	return 0, false
}

// Validate reports the first problem of c for a network of nodes nodes.
// It accepts zero fields (they mean defaults), so it may be called before
// or after WithDefaults.
func (c Config) Validate(nodes int) error {
	if nodes < 1 || nodes > MaxNodes {
		return fmt.Errorf("netmodel: %d nodes, want 1 to %d", nodes, MaxNodes)
	}
	if err := checkBandwidth("bandwidth", c.BandwidthKbps); err != nil {
		return err
	}
	if err := checkDelay("", "latency", c.Latency); err != nil {
		return err
	}
	if !(c.ParetoShape >= 0) || math.IsInf(c.ParetoShape, 1) {
		return fmt.Errorf("netmodel: Pareto shape %v, want a positive number", c.ParetoShape)
	}
	if c.HeavyFlowBytes < 0 {
		return fmt.Errorf("netmodel: negative heavy-flow threshold %d", c.HeavyFlowBytes)
	}
	if len(c.Transports) > MaxTransports {
		return fmt.Errorf("netmodel: %d transports, at most %d", len(c.Transports), MaxTransports)
	}
	for i, t := range c.Transports {
		if t.Name == "" {
			return fmt.Errorf("netmodel: transport %d has no name", i)
		}
		for _, u := range c.Transports[:i] {
			if u.Name == t.Name {
				return fmt.Errorf("netmodel: duplicate transport name %q", t.Name)
			}
		}
		switch t.Kind {
		case Reliable:
			if t.DropProb != 0 {
				return fmt.Errorf("netmodel: transport %q: drop probability applies only to datagram transports", t.Name)
			}
			if t.ReorderWindow != 0 {
				return fmt.Errorf("netmodel: transport %q: reorder window applies only to datagram transports", t.Name)
			}
			if t.QueueCap > math.MaxInt32 {
				return fmt.Errorf("netmodel: transport %q: queue capacity %d too large (negative means unbounded)", t.Name, t.QueueCap)
			}
		case Datagram:
			if t.QueueCap != 0 {
				return fmt.Errorf("netmodel: transport %q: queue capacity applies only to reliable transports", t.Name)
			}
			if !(t.DropProb >= 0 && t.DropProb <= 1) {
				return fmt.Errorf("netmodel: transport %q: drop probability %v outside [0,1]", t.Name, t.DropProb)
			}
			if err := checkDelay(fmt.Sprintf("transport %q: ", t.Name), "reorder window", t.ReorderWindow); err != nil {
				return err
			}
		default:
			return fmt.Errorf("netmodel: transport %q: unknown kind %d", t.Name, int(t.Kind))
		}
	}
	for _, o := range c.Overrides {
		if o.From < 0 || o.From >= nodes || o.To < 0 || o.To >= nodes {
			return fmt.Errorf("netmodel: override %d→%d: node out of range [0,%d)", o.From, o.To, nodes)
		}
		if err := checkDelay(fmt.Sprintf("override %d→%d: ", o.From, o.To), "latency", o.Latency); err != nil {
			return err
		}
		if err := checkBandwidth("override bandwidth", o.BandwidthKbps); err != nil {
			return err
		}
	}
	for _, o := range c.NodeOverrides {
		if o.Node < 0 || o.Node >= nodes {
			return fmt.Errorf("netmodel: node override %d: node out of range [0,%d)", o.Node, nodes)
		}
		if err := checkDelay(fmt.Sprintf("node override %d: ", o.Node), "latency", o.Latency); err != nil {
			return err
		}
		if err := checkBandwidth("node override bandwidth", o.BandwidthKbps); err != nil {
			return err
		}
	}
	return nil
}

// checkDelay refuses a configured delay (what, of where) that is negative
// or beyond MaxDelay.
func checkDelay(where, what string, d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("netmodel: %snegative %s %v", where, what, d)
	case d > MaxDelay:
		return fmt.Errorf("netmodel: %s%s %d ns exceeds netmodel.MaxDelay, %d ns (100 years)", where, what, int64(d), int64(MaxDelay))
	}
	return nil
}

func checkBandwidth(what string, kbps float64) error {
	if !(kbps >= 0) || math.IsInf(kbps, 1) {
		return fmt.Errorf("netmodel: %s %v kbit/s, want a positive number", what, kbps)
	}
	return nil
}

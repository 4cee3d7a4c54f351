package timedsim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Layer is one service of a Stack.
type Layer struct {
	// Name is the layer's namespace (letters, digits, '-' and '_'): its
	// timers are named "<Name>.<timer>" in the simulator, so they read as
	// "timer ransub.epoch" in event labels and must be named so in
	// World.TimerPending, while the layer's own handlers see and set the
	// short name.
	Name string
	// Service is the layer's protocol.
	Service Service
	// Owns reports whether a delivered message is this layer's. A message
	// goes to the lowest layer that owns it; a nil Owns takes every
	// message that no lower layer owns.
	Owns func(Message) bool
}

// Stack composes services on one node, as Mace stacks services (Bullet′
// over RanSub over a tree): it is itself a Service whose layers, listed
// bottom up, run as one node. It dispatches
//
//   - Init to every layer, bottom up;
//   - a delivered message to the lowest layer that owns it (Layer.Owns);
//   - a timer to the layer whose name prefixes it ("ransub.epoch" to the
//     layer "ransub", as timer "epoch");
//   - an application event "<layer>.<name>" to that layer as "<name>",
//     any other to every layer that is an AppHandler, bottom up;
//   - a transport error to the layer that owns its message, or for a
//     broken connection (no message) to every layer that is an
//     ErrorHandler, bottom up.
//
// Each layer's handlers get a Context of their own that namespaces its
// timers and otherwise passes everything through (SendQueue sees through
// it). A layer that calls another one directly, as a lower layer's upcall
// to the layer above, hands it Stack.Context(ctx, name), so that the
// called layer's timers land in its own namespace. Layers learn of each
// other when the scenario's constructor builds them (a field holding the
// upper layer, say); the Stack adds no message or event of its own, so a
// stacked protocol's labels and event counts are the layers' own.
//
// A Stack is not Durable: a reset node loses every layer's state.
type Stack struct {
	layers []Layer
	ctxs   []layerCtx
	// relink re-links a clone's layers (OnClone).
	relink func(clone *Stack)
}

// OnClone sets the function that Clone calls on each clone, after it has
// cloned the layers: layers that know of each other (an upper layer held
// by a lower one's upcall, say) must be linked to each other's clones, as
// the scenario's constructor linked the originals.
func (s *Stack) OnClone(relink func(clone *Stack)) { s.relink = relink }

// Clone implements Cloner: a stack of the layers' clones (each layer must
// be a Cloner), re-linked by the function given to OnClone. Without
// OnClone, layers must not hold each other. It panics if a layer is not a
// Cloner; Forkable and SnapshotAt check the layers first.
func (s *Stack) Clone() Service {
	c := &Stack{layers: slices.Clone(s.layers), ctxs: make([]layerCtx, len(s.ctxs)), relink: s.relink}
	for i, l := range s.layers {
		cl, ok := l.Service.(Cloner)
		if !ok {
			panic(fmt.Sprintf("timedsim: Stack.Clone: layer %q (%T) is not a Cloner", l.Name, l.Service))
		}
		c.layers[i].Service = cl.Clone()
		c.ctxs[i] = layerCtx{prefix: s.ctxs[i].prefix, names: maps.Clone(s.ctxs[i].names)}
	}
	if c.relink != nil {
		c.relink(c)
	}
	return c
}

// forkable reports whether every layer is a Cloner.
func (s *Stack) forkable() bool {
	for _, l := range s.layers {
		if _, ok := l.Service.(Cloner); !ok {
			return false
		}
	}
	return true
}

// NewStack returns the stack of layers, listed bottom up. Names must be
// valid and distinct, and every layer needs a Service; anything else is a
// caller bug (it panics).
func NewStack(layers ...Layer) *Stack {
	if len(layers) == 0 {
		panic("timedsim: NewStack: no layers")
	}
	s := &Stack{layers: layers, ctxs: make([]layerCtx, len(layers))}
	for i, l := range layers {
		if !validLayerName(l.Name) {
			panic(fmt.Sprintf("timedsim: NewStack: invalid layer name %q (letters, digits, '-', '_')", l.Name))
		}
		if l.Service == nil {
			panic(fmt.Sprintf("timedsim: NewStack: layer %q has no service", l.Name))
		}
		for _, o := range layers[:i] {
			if o.Name == l.Name {
				panic(fmt.Sprintf("timedsim: NewStack: layer %q listed twice", l.Name))
			}
		}
		s.ctxs[i] = layerCtx{prefix: l.Name + ".", names: map[string]string{}}
	}
	return s
}

func validLayerName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}

// Layer returns the service of the layer called name, or nil.
func (s *Stack) Layer(name string) Service {
	if i := s.index(name); i >= 0 {
		return s.layers[i].Service
	}
	return nil
}

func (s *Stack) index(name string) int {
	for i := range s.layers {
		if s.layers[i].Name == name {
			return i
		}
	}
	return -1
}

// Context returns the context that layer name's handlers see, built on
// ctx (which may be another layer's context): for a layer calling another
// directly. Like ctx, it is only valid during the current handler call.
// An unknown layer is a caller bug (it panics).
func (s *Stack) Context(ctx Context, name string) Context {
	i := s.index(name)
	if i < 0 {
		panic(fmt.Sprintf("timedsim: Stack.Context: no layer %q", name))
	}
	return s.aim(i, ctx)
}

func (s *Stack) aim(i int, ctx Context) *layerCtx {
	c := &s.ctxs[i]
	c.Context = unwrapLayer(ctx)
	return c
}

// unwrapLayer returns the context a layer context wraps.
func unwrapLayer(ctx Context) Context {
	if lc, ok := ctx.(*layerCtx); ok {
		return lc.Context
	}
	return ctx
}

// Init implements Service.
func (s *Stack) Init(ctx Context) {
	for i := range s.layers {
		s.layers[i].Service.Init(s.aim(i, ctx))
	}
}

// owner is the layer that owns msg, or -1.
func (s *Stack) owner(msg Message) int {
	for i := range s.layers {
		if o := s.layers[i].Owns; o == nil || o(msg) {
			return i
		}
	}
	return -1
}

// Deliver implements Service. A message that no layer owns is noted
// ("ignored: no layer owns it") and dropped.
func (s *Stack) Deliver(ctx Context, from NodeID, msg Message) {
	i := s.owner(msg)
	if i < 0 {
		ctx.Note("ignored: no layer owns it")
		return
	}
	s.layers[i].Service.Deliver(s.aim(i, ctx), from, msg)
}

// Timer implements Service. A timer outside every layer's namespace cannot
// have been set through the stack: it panics.
func (s *Stack) Timer(ctx Context, name string, data any) {
	layer, short, ok := strings.Cut(name, ".")
	i := s.index(layer)
	if !ok || i < 0 {
		panic(fmt.Sprintf("timedsim: Stack: timer %q names no layer", name))
	}
	s.layers[i].Service.Timer(s.aim(i, ctx), short, data)
}

// App implements AppHandler.
func (s *Stack) App(ctx Context, name string, data any) {
	if layer, short, ok := strings.Cut(name, "."); ok {
		if i := s.index(layer); i >= 0 {
			if h, ok := s.layers[i].Service.(AppHandler); ok {
				h.App(s.aim(i, ctx), short, data)
			}
			return
		}
	}
	for i := range s.layers {
		if h, ok := s.layers[i].Service.(AppHandler); ok {
			h.App(s.aim(i, ctx), name, data)
		}
	}
}

// Error implements ErrorHandler.
func (s *Stack) Error(ctx Context, err *TransportError) {
	if err.Msg != nil {
		if i := s.owner(err.Msg); i >= 0 {
			if h, ok := s.layers[i].Service.(ErrorHandler); ok {
				h.Error(s.aim(i, ctx), err)
			}
		}
		return
	}
	for i := range s.layers {
		if h, ok := s.layers[i].Service.(ErrorHandler); ok {
			h.Error(s.aim(i, ctx), err)
		}
	}
}

// Describe renders the layers' states, bottom up:
// "ransub: … | bullet: …".
func (s *Stack) Describe() string {
	var b strings.Builder
	for i, l := range s.layers {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(l.Name + ": " + Describe(l.Service))
	}
	return b.String()
}

// layerCtx is a layer's Context: it namespaces timers.
type layerCtx struct {
	Context
	prefix string
	names  map[string]string // short timer name → namespaced (no allocation per call)
}

func (c *layerCtx) full(name string) string {
	f, ok := c.names[name]
	if !ok {
		f = c.prefix + name
		c.names[name] = f
	}
	return f
}

func (c *layerCtx) SetTimer(name string, after time.Duration, data any) {
	c.Context.SetTimer(c.full(name), after, data)
}
func (c *layerCtx) CancelTimer(name string)       { c.Context.CancelTimer(c.full(name)) }
func (c *layerCtx) TimerPending(name string) bool { return c.Context.TimerPending(c.full(name)) }

package dhttest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// Ctx is a timedsim.Context for protocol tests that call a node's
// handlers directly: it records what the handlers send and note, keeps
// the timers set (they never fire), and draws from a fixed PCG.
type Ctx struct {
	T      testing.TB
	Me     timedsim.NodeID
	N      int // nodes in the system
	Sent   []Sent
	Notes  []string // every note made, in order
	timers map[string]bool
	rng    *rand.Rand
}

// Sent is a message a handler sent.
type Sent struct {
	To  timedsim.NodeID
	Msg timedsim.Message
}

// NewCtx returns the context of node me among n nodes.
func NewCtx(t testing.TB, me timedsim.NodeID, n int) *Ctx {
	return &Ctx{T: t, Me: me, N: n, timers: map[string]bool{}, rng: rand.New(rand.NewPCG(uint64(me), 1))}
}

var _ timedsim.Context = (*Ctx)(nil)

func (c *Ctx) Self() timedsim.NodeID { return c.Me }
func (c *Ctx) Nodes() int            { return c.N }
func (c *Ctx) Now() time.Duration    { return 0 }
func (c *Ctx) Rand() *rand.Rand      { return c.rng }

func (c *Ctx) Send(to timedsim.NodeID, msg timedsim.Message) error {
	if to < 0 || int(to) >= c.N || to == c.Me {
		c.T.Fatalf("%v sends %T to %v", c.Me, msg, to)
	}
	c.Sent = append(c.Sent, Sent{to, msg})
	return nil
}

func (c *Ctx) SendOn(tr string, to timedsim.NodeID, msg timedsim.Message) error {
	c.T.Fatalf("unexpected SendOn(%q)", tr)
	return nil
}

func (c *Ctx) SetTimer(name string, _ time.Duration, _ any) { c.timers[name] = true }
func (c *Ctx) CancelTimer(name string)                      { delete(c.timers, name) }
func (c *Ctx) TimerPending(name string) bool                { return c.timers[name] }

func (c *Ctx) Note(text string) {
	if err := timedsim.CheckNote(text); err != nil {
		c.T.Fatalf("%v: %v", c.Me, err)
	}
	c.Notes = append(c.Notes, text)
}

func (c *Ctx) Logf(format string, args ...any) {
	c.T.Logf("%v: %s", c.Me, fmt.Sprintf(format, args...))
}

// Noted reports whether text was noted since the last Reset.
func (c *Ctx) Noted(text string) bool { return slices.Contains(c.Notes, text) }

// Reset forgets the messages sent and the notes made.
func (c *Ctx) Reset() { c.Sent, c.Notes = nil, nil }

// SentTo lists the messages of type T sent to node to since the last
// Reset.
func SentTo[T timedsim.Message](c *Ctx, to timedsim.NodeID) []T {
	var out []T
	for _, s := range c.Sent {
		if m, ok := s.Msg.(T); ok && s.To == to {
			out = append(out, m)
		}
	}
	return out
}

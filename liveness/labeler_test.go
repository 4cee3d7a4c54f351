package liveness

import (
	"strings"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// kinded is one Go type carrying several message kinds (timedsim.Labeler).
type kinded struct{ Kind string }

func (kinded) Size() int              { return 1 }
func (k kinded) MessageLabel() string { return k.Kind }

type kindSender struct{ Got []string }

func (n *kindSender) Init(ctx timedsim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, kinded{"MsgApp"})
		ctx.Send(1, kinded{"MsgVote"})
	}
}
func (n *kindSender) Deliver(_ timedsim.Context, _ timedsim.NodeID, m timedsim.Message) {
	n.Got = append(n.Got, m.(kinded).Kind)
}
func (n *kindSender) Timer(timedsim.Context, string, any) {}

// The liveness mode labels a Labeler message by its kind, as timedsim
// does (per-label weights and logs see the kinds).
func TestLabelerMessages(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 2, New: func(timedsim.NodeID) timedsim.Service { return &kindSender{} }, Liveness: []timedsim.Property{always}}
	cfg := Config{Scenario: sc, Seed: 1}
	lines, err := Replay(cfg, Path{Driver: 1, Segments: []timedsim.Segment{{From: 0, Seed: 1}}, Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"n1 deliver MsgApp from n0", "n1 deliver MsgVote from n0"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q:\n%s", want, text)
		}
	}
	r, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(r.set, schedule{})
	if w.deliverLabel(kinded{"MsgVote"}) != "deliver MsgVote" || w.deliverLabel(kinded{}) != "deliver kinded" {
		t.Errorf("labels %q %q", w.deliverLabel(kinded{"MsgVote"}), w.deliverLabel(kinded{}))
	}
}

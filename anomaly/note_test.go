package anomaly

import (
	"context"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Announce is the announcer protocol's only message.
type Announce struct{}

func (Announce) Size() int { return 16 }

// announcer is a protocol that drops an early Announce: node 1
// announces itself to node 0 when it starts, and again every second until
// node 0 knows it; node 0 ignores an Announce that comes before it has
// started itself. Both start at random within 20 ms, so an Announce is
// ignored in about half the executions, which then take a second. With
// notes, node 0 says so.
type announcer struct {
	id             timedsim.NodeID
	note           bool
	started, knows bool
}

func (a *announcer) Init(timedsim.Context) {}

func (a *announcer) App(ctx timedsim.Context, _ string, _ any) {
	a.started = true
	if a.id == 1 {
		ctx.Send(0, Announce{})
		ctx.SetTimer("announce", time.Second, nil)
	}
}

func (a *announcer) Deliver(ctx timedsim.Context, _ timedsim.NodeID, _ timedsim.Message) {
	if !a.started {
		if a.note {
			ctx.Note("ignored: not started")
		}
		return
	}
	a.knows = true
}

func (a *announcer) Timer(ctx timedsim.Context, _ string, _ any) {
	ctx.Send(0, Announce{})
	ctx.SetTimer("announce", time.Second, nil)
}

func announcerScenario(note bool) *timedsim.Scenario {
	return &timedsim.Scenario{
		Nodes: 2,
		New:   func(id timedsim.NodeID) timedsim.Service { return &announcer{id: id, note: note} },
		Driver: func(d *timedsim.Driver) {
			for id := range timedsim.NodeID(2) {
				d.App(time.Duration(d.Rand().IntN(20))*time.Millisecond, id, "start", nil)
			}
		},
		Stop:    func(w timedsim.World) bool { return w.Node(0).(*announcer).knows },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
}

// TestCorrelateIgnoredMessage: without notes the ignored
// Announce and the handled one are both "deliver Announce → (nothing)",
// and only the Announces resent after the second, which are length-only,
// tell the slow executions apart; the label that ranks first is not the
// bug's. With the note, "deliver Announce → ignored: not started" ranks
// first, with r = 1 within the count window: it happens early, in
// exactly the slow executions.
func TestCorrelateIgnoredMessage(t *testing.T) {
	ignored := timedsim.CompositeLabel("deliver Announce", "ignored: not started")
	for _, note := range []bool{false, true} {
		sc := announcerScenario(note)
		prof := trainProfile(t, &timedsim.Explorer{Scenario: sc}, 50, 1)
		ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{CountWindow: prof.CountWindow()}}
		var samples []Sample
		slow := 0
		if _, done, err := ex.Run(context.Background(), timedsim.Work{N: 100, Path: timedsim.Seeded(2), Each: func(_ int, r *timedsim.Result) bool {
			samples = append(samples, NewSample(r))
			if r.ExecTime > time.Second {
				slow++
			}
			return true
		}}); err != nil || done != 100 {
			t.Fatalf("%d executions, err %v", done, err)
		}
		if slow < 10 || slow > 90 {
			t.Fatalf("%d of 100 executions slow", slow)
		}
		ranking := Correlate(samples, prof.CountWindow())
		top := ranking[0]
		t.Logf("note=%v: window %v, %d slow; ranking:\n%s", note, prof.CountWindow(), slow, table(ranking))
		if !note {
			if top.Label == ignored || top.WindowR != nil && *top.WindowR > 0.9 {
				t.Errorf("without notes: top %+v", top)
			}
			continue
		}
		if top.Label != ignored || top.LengthOnly || top.WindowR == nil || *top.WindowR < 0.99 {
			t.Errorf("with the note: top %+v, want %q with r within the window ≈ 1", top, ignored)
		}
	}
}

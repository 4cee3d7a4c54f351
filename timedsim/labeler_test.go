package timedsim_test

import (
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Kinded is one Go type carrying several message kinds, as raft's
// raftpb.Message does.
type Kinded struct{ Kind string }

func (Kinded) Size() int              { return 10 }
func (k Kinded) MessageLabel() string { return k.Kind }

// A Labeler message is labelled by its MessageLabel, not its type: counts,
// composites, sent-message records and EDD lookups (a what-if scale of one
// kind slows that kind only) all see the kinds.
func TestLabelerMessagesAreLabelledByKind(t *testing.T) {
	sc := &timedsim.Scenario{
		Nodes: 2,
		New: appScript(func(s *scripted, ctx timedsim.Context, name string, _ any) {
			ctx.Send(1, Kinded{Kind: "MsgApp"})
			ctx.Send(1, Kinded{Kind: "MsgApp"})
			ctx.Send(1, Kinded{Kind: "MsgVote"})
			ctx.Send(1, Kinded{}) // no kind: the type's name
		}),
		Driver:  func(d *timedsim.Driver) { d.App(0, 0, "go", nil) },
		Stop:    func(w timedsim.World) bool { return w.Steps() >= 7 },
		Timeout: time.Minute,
		Network: netmodel.DefaultConfig(),
	}
	set := edd.NewSet(edd.Uniform{Min: time.Millisecond, Max: time.Millisecond})
	if err := set.Scale("deliver MsgVote", 50); err != nil {
		t.Fatal(err)
	}
	r := newSim(t, sc, timedsim.Options{Record: true, EDD: set}).Run(timedsim.SeedPath(1))
	if !r.Finished {
		t.Fatalf("outcome %v", r.Outcome)
	}
	for label, n := range map[string]int{"deliver MsgApp": 2, "deliver MsgVote": 1, "deliver Kinded": 1} {
		if r.Counts[label] != n {
			t.Errorf("%s counted %d times, want %d (counts %v)", label, r.Counts[label], n, r.Counts)
		}
	}
	for _, c := range []string{"app go → MsgApp", "app go → MsgVote", "app go → Kinded"} {
		if r.Composite[c] != 1 {
			t.Errorf("composite %s = %d, want 1 (%v)", c, r.Composite[c], r.Composite)
		}
	}
	var types []string
	for _, e := range r.Events {
		for _, m := range e.Sends {
			types = append(types, m.Type)
		}
		want := time.Millisecond
		if e.Label == "deliver MsgVote" {
			want = 50 * time.Millisecond
		}
		if e.Label != "init" && e.Label != "app go" && e.Duration != want {
			t.Errorf("%s took %v, want %v", e.Label, e.Duration, want)
		}
	}
	if len(types) != 4 || types[0] != "MsgApp" || types[2] != "MsgVote" || types[3] != "Kinded" {
		t.Errorf("sent types %v", types)
	}
}

package timedsim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// appRecorder keeps the data of the application events it receives.
type appRecorder struct{ got []any }

func (n *appRecorder) Init(timedsim.Context)                                       {}
func (n *appRecorder) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (n *appRecorder) Timer(timedsim.Context, string, any)                         {}
func (n *appRecorder) App(_ timedsim.Context, _ string, data any)                  { n.got = append(n.got, data) }

// Script lists what the driver scheduled in the order the simulator runs
// it (by time, then in scheduling order), the faults with their nodes,
// groups and choices, and draws the driver's randomness as the simulator
// does: the application events' data drawn from Driver.Rand are those the
// simulation's nodes receive.
func TestScript(t *testing.T) {
	pick := func(timedsim.World) timedsim.NodeID { return 1 }
	sc := &timedsim.Scenario{
		Nodes:   3,
		Timeout: time.Minute,
		Stop:    func(timedsim.World) bool { return false },
		Driver: func(d *timedsim.Driver) {
			d.App(2*time.Second, 1, "b", d.Rand().Uint64())
			d.Reset(time.Second, 0)
			d.Break(time.Second, 0, 2)
			d.Partition(time.Second, []timedsim.NodeID{2})
			d.ResetChosen(3*time.Second, pick)
			d.Outage(3*time.Second, func(timedsim.World, *rand.Rand) ([][]timedsim.NodeID, time.Duration) { return nil, 0 })
			d.Heal(4 * time.Second)
			d.App(0, 0, "a", d.Rand().Uint64())
		},
	}
	evs, err := sc.Script(timedsim.SeedPath(5))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		s := fmt.Sprintf("%v %v %v %v %s", e.At, e.Kind, e.Node, e.Peer, e.Name)
		if e.Groups != nil {
			s += fmt.Sprint(" ", e.Groups)
		}
		if e.ChooseNode != nil || e.ChooseOutage != nil {
			s += " chosen"
		}
		got = append(got, s)
	}
	want := []string{
		"0s app n0 none a",
		"1s reset n0 none ",
		"1s break n0 n2 ",
		"1s partition none none  [[n2]]",
		"2s app n1 none b",
		"3s reset none none  chosen",
		"3s partition none none  chosen",
		"4s heal none none ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("script:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	nodes := make([]*appRecorder, 3)
	sc.New = func(id timedsim.NodeID) timedsim.Service {
		nodes[id] = &appRecorder{}
		return nodes[id]
	}
	newSim(t, sc, timedsim.Options{AppsOnly: true}).Run(timedsim.SeedPath(5))
	if len(nodes[0].got) != 1 || nodes[0].got[0] != evs[0].Data || len(nodes[1].got) != 1 || nodes[1].got[0] != evs[4].Data {
		t.Fatalf("the simulation's nodes got %v and %v, the script has %v and %v", nodes[0].got, nodes[1].got, evs[0].Data, evs[4].Data)
	}
}

// A driver that panics, or schedules an event for a node out of range or
// at a negative time, makes Script fail with an error saying so.
func TestScriptErrors(t *testing.T) {
	for _, c := range []struct {
		drv  func(d *timedsim.Driver)
		want string
	}{
		{func(d *timedsim.Driver) { panic("boom") }, "timedsim: scenario driver panicked: boom"},
		{func(d *timedsim.Driver) { d.App(0, 3, "x", nil) }, "timedsim: driver scheduled an event (app) for node 3 of 3"},
		{func(d *timedsim.Driver) { d.Break(0, 0, -1) }, "timedsim: driver scheduled an event (break) for node -1 of 3"},
		{func(d *timedsim.Driver) { d.Reset(0, timedsim.None) }, "timedsim: driver scheduled an event (reset) for node -1 of 3"},
		{func(d *timedsim.Driver) { d.Heal(-time.Second) }, "timedsim: driver scheduled an event (heal) at negative time -1s"},
		{func(d *timedsim.Driver) { d.Partition(0, []timedsim.NodeID{1, 1}) }, "listed twice"},
	} {
		sc := &timedsim.Scenario{Nodes: 3, Driver: c.drv}
		if _, err := sc.Script(timedsim.SeedPath(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

package liveness

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/elect"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// recordedApps is the reference for driverSchedule's application events:
// how the liveness mode collected them before timedsim exported the
// driver's script, by running the driver in a timed simulation whose
// nodes only record the application events they receive (faults not run).
func recordedApps(t *testing.T, sc *timedsim.Scenario, seed uint64) [][]appEvent {
	t.Helper()
	out := make([][]appEvent, sc.Nodes)
	if sc.Driver == nil {
		return out
	}
	rec := *sc
	rec.New = func(id timedsim.NodeID) timedsim.Service { return &recorder{id: id, out: out} }
	rec.Stop = func(timedsim.World) bool { return false }
	rec.NewStop = nil
	rec.Safety, rec.Liveness = nil, nil
	rec.CheckEvery = 0
	rec.Timeout = time.Duration(1 << 62)
	sim, err := timedsim.NewSimulator(&rec, timedsim.Options{AppsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(timedsim.SeedPath(seed)); res.Panic != nil {
		t.Fatalf("the driver panicked: %s", res.Panic.Value)
	}
	return out
}

type recorder struct {
	id  timedsim.NodeID
	out [][]appEvent
}

func (r *recorder) Init(timedsim.Context)                                       {}
func (r *recorder) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (r *recorder) Timer(timedsim.Context, string, any)                         {}
func (r *recorder) App(_ timedsim.Context, name string, data any) {
	r.out[r.id] = append(r.out[r.id], appEvent{name: name, data: data, label: "app " + name})
}

// TestScheduleMatchesRecorder: the driver's script (timedsim's
// Scenario.Script) gives every bundled system's scenarios, each variant
// and every value of a parameter with a list of values, the application
// events the recording simulation gave, in the same order with the same
// data: searches without the driver's faults are what they were.
func TestScheduleMatchesRecorder(t *testing.T) {
	systems := []timedsim.System{randtree.System(), pastry.System(), bamboo.System(), chord.System(), etcdraft.System(),
		pingpong.System(), bullet.System(), elect.System(), backoff.System()}
	// And a driver that schedules out of time order, with ties, from its
	// random source.
	shuffled := timedsim.System{Name: "shuffled", Variants: []timedsim.Variant{{Name: "v"}}, DefaultNodes: 3,
		Build: func(_ string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{Nodes: nodes, New: func(timedsim.NodeID) timedsim.Service { return &logNode{} },
				Stop: func(timedsim.World) bool { return false }, Timeout: time.Hour,
				Driver: func(d *timedsim.Driver) {
					for i := range 30 {
						d.App(time.Duration(d.Rand().IntN(5))*time.Second, timedsim.NodeID(d.Rand().IntN(nodes)), "e", i)
					}
				}}, nil
		}}
	systems = append(systems, shuffled)
	checked := 0
	for _, sys := range systems {
		sets := []timedsim.Params{nil}
		for _, p := range sys.Params {
			for _, v := range p.Values {
				if v != p.Default {
					sets = append(sets, timedsim.Params{p.Name: v})
				}
			}
		}
		for _, v := range sys.Variants {
			for _, ps := range sets {
				sc, err := sys.ScenarioParams(v.Name, sys.DefaultNodes, ps)
				if err != nil {
					t.Fatalf("%s/%s %v: %v", sys.Name, v.Name, ps, err)
				}
				for seed := uint64(1); seed <= 2; seed++ {
					got, err := driverSchedule(sc, seed)
					if err != nil {
						t.Fatal(err)
					}
					want := recordedApps(t, sc, seed)
					for i := range want {
						for k := range want[i] {
							want[i][k].faults = got.apps[i][k].faults // not the recorder's to know
						}
					}
					if !reflect.DeepEqual(got.apps, want) {
						t.Errorf("%s/%s %v seed %d: the script's application events differ from the recorded ones", sys.Name, v.Name, ps, seed)
					}
					checked++
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d scenarios checked", checked)
	}
}

// TestScheduleFaults: the driver's faults keep their place in the script:
// each application event counts the faults before it, each fault the
// application events of every node before it; events at one instant keep
// the order they were scheduled in.
func TestScheduleFaults(t *testing.T) {
	sc := &timedsim.Scenario{Nodes: 3, New: func(timedsim.NodeID) timedsim.Service { return &logNode{} },
		Driver: func(d *timedsim.Driver) {
			d.App(3*time.Second, 0, "late", nil)
			d.Partition(2*time.Second, []timedsim.NodeID{2})
			d.App(0, 0, "early", nil)
			d.App(2*time.Second, 1, "with", nil) // after the partition: scheduled after it
			d.Reset(time.Second, 2)
			d.Heal(4 * time.Second)
		}}
	s, err := driverSchedule(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	var apps []string
	for i, evs := range s.apps {
		for _, e := range evs {
			apps = append(apps, fmt.Sprintf("n%d %s after %d", i, e.name, e.faults))
		}
	}
	var faults []string
	for _, f := range s.faults {
		faults = append(faults, fmt.Sprintf("%s %v after %v", f.label, f.ev.Node, f.apps))
	}
	wantApps := []string{"n0 early after 0", "n0 late after 2", "n1 with after 2"}
	wantFaults := []string{"driver reset n2 after [1 0 0]", "driver partition none after [1 0 0]", "driver heal none after [2 1 0]"}
	if !reflect.DeepEqual(apps, wantApps) || !reflect.DeepEqual(faults, wantFaults) {
		t.Fatalf("apps %q\nfaults %q\nwant %q\n%q", apps, faults, wantApps, wantFaults)
	}
}

package timedsim_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// appLog records the application events a node receives.
type appLog struct{ got *[]timedsim.AppEvent }

func (a appLog) Init(timedsim.Context)                                       {}
func (a appLog) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (a appLog) Timer(timedsim.Context, string, any)                         {}
func (a appLog) App(ctx timedsim.Context, name string, data any) {
	*a.got = append(*a.got, timedsim.AppEvent{At: ctx.Now(), Node: ctx.Self(), Name: name, Data: data})
}

// DriverPlan gives a runtime other than the simulator the application
// events the simulator delivers for the same seed: same names, nodes,
// times and data (drawn from the driver's stream), in the same order.
func TestDriverPlanMatchesSimulator(t *testing.T) {
	var got []timedsim.AppEvent
	sc := &timedsim.Scenario{
		Nodes: 3,
		New:   func(timedsim.NodeID) timedsim.Service { return appLog{&got} },
		Driver: func(d *timedsim.Driver) {
			for i := range 3 {
				d.App(time.Duration(i)*time.Second, timedsim.NodeID(i), "start", d.Rand().IntN(1000))
			}
			d.Reset(10*time.Second, 1)
		},
		Stop:    func(w timedsim.World) bool { return false },
		Timeout: 5 * time.Second,
		Network: netmodel.DefaultConfig(),
	}
	apps, faults := timedsim.DriverPlan(sc, 42)
	if faults != 1 || len(apps) != 3 {
		t.Fatalf("plan: %d apps, %d faults; want 3 and 1", len(apps), faults)
	}
	newSim(t, sc, timedsim.Options{}).Run(timedsim.SeedPath(42))
	if len(got) != 3 {
		t.Fatalf("the simulator delivered %d app events", len(got))
	}
	for i := range got {
		if got[i].Node != apps[i].Node || got[i].Name != apps[i].Name || !reflect.DeepEqual(got[i].Data, apps[i].Data) || got[i].At < apps[i].At {
			t.Errorf("event %d: simulator %+v, plan %+v", i, got[i], apps[i])
		}
	}
	other, _ := timedsim.DriverPlan(sc, 43)
	if reflect.DeepEqual(other, apps) {
		t.Error("seeds 42 and 43 give the same driver draws")
	}
}

package randtree

import (
	"testing"
	"time"

	"github.com/macepc/macepc/systems/internal/forktest"
	"github.com/macepc/macepc/timedsim"
)

// TestForkEqualsReplay: executions forked from a snapshot (Node.Clone)
// equal their replays from step 0, event log and final states included,
// on both variants and with resets, breaks and a partition.
func TestForkEqualsReplay(t *testing.T) {
	for _, v := range []string{VariantFixed, VariantBuggy, "faults"} {
		t.Run(v, func(t *testing.T) {
			variant := v
			if v == "faults" {
				variant = VariantBuggy
			}
			sc, err := Build(variant, 16)
			if err != nil {
				t.Fatal(err)
			}
			if v == "faults" {
				drive := sc.Driver
				sc.Driver = func(d *timedsim.Driver) {
					drive(d)
					d.Break(300*time.Millisecond, 0, 1)
					d.Reset(400*time.Millisecond, 5)
					d.Partition(500*time.Millisecond, []NodeID{0, 1, 2, 3}, []NodeID{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
					d.Heal(900 * time.Millisecond)
				}
			}
			t.Log(forktest.Describe(forktest.Check(t, sc, forktest.Config{})))
		})
	}
}

package bullet_test

import (
	"testing"

	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/systems/internal/forktest"
	"github.com/macepc/macepc/timedsim"
)

// TestForkEqualsReplay: executions of the RanSub and Bullet′ stack forked
// from a snapshot (timedsim.Stack.Clone of both layers' Clone, re-linked)
// equal their replays from step 0, event log and final states included.
// A step limit keeps the replays short (a whole execution is some 70,000
// steps).
func TestForkEqualsReplay(t *testing.T) {
	forktest.CheckSystem(t, bullet.System(), forktest.Config{Options: timedsim.Options{MaxSteps: 1500}, Seeds: []uint64{1}}, bullet.VariantDiffDrop, bullet.VariantFixed)
}

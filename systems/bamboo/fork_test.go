package bamboo_test

import (
	"testing"

	"github.com/macepc/macepc/timedsim"

	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/internal/forktest"
)

// TestForkEqualsReplay: executions forked from a snapshot (Node.Clone)
// equal their replays from step 0, event log and final states included,
// on every variant, within a step limit that keeps the replays short.
func TestForkEqualsReplay(t *testing.T) {
	forktest.CheckSystem(t, bamboo.System(), forktest.Config{Options: timedsim.Options{MaxSteps: 1000}, Seeds: []uint64{1, 2}})
}

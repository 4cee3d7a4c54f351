package pingpong_test

import (
	"testing"

	"github.com/macepc/macepc/timedsim"

	"github.com/macepc/macepc/systems/internal/forktest"
	"github.com/macepc/macepc/systems/pingpong"
)

// TestForkEqualsReplay: executions forked from a snapshot (Node.Clone)
// equal their replays from step 0, event log and final states included,
// on every variant (the endless one bounded by a step limit).
func TestForkEqualsReplay(t *testing.T) {
	forktest.CheckSystem(t, pingpong.System(), forktest.Config{Options: timedsim.Options{MaxSteps: 2000}})
}

package backoff_test

import (
	"testing"

	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/systems/internal/forktest"
)

// TestForkEqualsReplay: executions forked from a snapshot (Node.Clone)
// equal their replays from step 0, event log and final states included,
// on every variant.
func TestForkEqualsReplay(t *testing.T) {
	forktest.CheckSystem(t, backoff.System(), forktest.Config{})
}

package timedsim

import (
	"testing"
	"time"
)

type fixedNow struct {
	Context
	now time.Duration
}

func (c fixedNow) Now() time.Duration { return c.now }

type chooser struct {
	fixedNow
	asked int
}

func (c *chooser) ChooseElapsed(since, d time.Duration) bool { c.asked++; return true }

// TestElapsed: the comparison on the simulator's clock, or the context's
// choice where it has one.
func TestElapsed(t *testing.T) {
	c := fixedNow{now: 5 * time.Second}
	if !Elapsed(c, 2*time.Second, 3*time.Second) || Elapsed(c, 2*time.Second, 3*time.Second+1) {
		t.Fatal("Elapsed does not compare Now()-since with d")
	}
	ch := &chooser{fixedNow: fixedNow{now: 0}}
	if !Elapsed(ch, 0, time.Hour) || ch.asked != 1 {
		t.Fatal("Elapsed does not ask a ClockChooser")
	}
}

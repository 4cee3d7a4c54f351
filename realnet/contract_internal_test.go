package realnet

import (
	"fmt"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// A timer name the simulators refuse makes a real run's handler panic
// too, with the same text, whichever method names it
// (timedsim.TimerLabel); a good name does not.
func TestTimerNamesAsInTheSimulators(t *testing.T) {
	for _, name := range []string{"retry", "re\ntry"} {
		want := ""
		if err := timedsim.CheckTimerName(name); err != nil {
			want = err.Error()
		}
		for op, f := range map[string]func(c *ctx){
			"set":     func(c *ctx) { c.SetTimer(name, time.Second, nil) },
			"cancel":  func(c *ctx) { c.CancelTimer(name) },
			"pending": func(c *ctx) { c.TimerPending(name) },
		} {
			got := ""
			func() {
				defer func() {
					if v := recover(); v != nil {
						got = fmt.Sprint(v)
					}
				}()
				f(&ctx{n: &node{timers: map[string]timerState{}}})
			}()
			if got != want {
				t.Errorf("%s %q: panicked %q, want %q", op, name, got, want)
			}
		}
	}
}

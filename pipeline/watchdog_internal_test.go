package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// A replay that the handler watchdog stopped where the search's execution
// ran on, or the other way round, is the watchdog's doing; replays that agree, or that the watchdog stopped at the same step,
// are not.
func TestWatchdogMismatch(t *testing.T) {
	env := Env{HandlerTimeout: time.Nanosecond}
	hung, finished := timedsim.Hung, timedsim.Finished
	for _, c := range []struct {
		outcome timedsim.Outcome
		steps   int
		replay  timedsim.Result
		want    string // "" for no error
	}{
		{finished, 207, timedsim.Result{Outcome: timedsim.Hung, Steps: 1}, "the search's was finished in 207 steps, the replay's stopped by the watchdog at step 1"},
		{hung, 76, timedsim.Result{Outcome: timedsim.Hung, Steps: 13}, "the search's was stopped by the watchdog at step 76, the replay's stopped by the watchdog at step 13"},
		{hung, 64, timedsim.Result{Outcome: timedsim.Finished, Steps: 196}, "the search's was stopped by the watchdog at step 64, the replay's finished in 196 steps"},
		{hung, 5, timedsim.Result{Outcome: timedsim.Hung, Steps: 5}, ""},
		{finished, 207, timedsim.Result{Outcome: timedsim.Finished, Steps: 209}, ""},
	} {
		err := watchdogMismatch(env, "anomaly.path.json", c.outcome, c.steps, &c.replay)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s/%d against %v/%d: %v", c.outcome, c.steps, c.replay.Outcome, c.replay.Steps, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Env.HandlerTimeout 1 ns")):
			t.Errorf("%s/%d against %v/%d: %v, want %q", c.outcome, c.steps, c.replay.Outcome, c.replay.Steps, err, c.want)
		}
	}
}

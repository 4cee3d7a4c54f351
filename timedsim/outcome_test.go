package timedsim_test

import (
	"encoding/json"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

// An outcome is written as its name and read back from it; a name it
// does not have, or a number, is refused.
func TestOutcomeText(t *testing.T) {
	for o := timedsim.Finished; o <= timedsim.Hung; o++ {
		b, err := json.Marshal(o)
		if err != nil || string(b) != `"`+o.String()+`"` {
			t.Errorf("Marshal(%v) = %s, %v", o, b, err)
		}
		var got timedsim.Outcome
		if err := json.Unmarshal(b, &got); err != nil || got != o {
			t.Errorf("Unmarshal(%s) = %v, %v", b, got, err)
		}
	}
	var o timedsim.Outcome
	for _, bad := range []string{`"done"`, `""`, `1`} {
		if err := json.Unmarshal([]byte(bad), &o); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, o)
		}
	}
	if _, err := json.Marshal(timedsim.Outcome(99)); err == nil {
		t.Error("an outcome without a name marshals")
	}
}

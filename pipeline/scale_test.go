package pipeline_test

import (
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/pipeline"
)

func TestApplyScaleRefusesLabelsThatNeverOccur(t *testing.T) {
	ms := []time.Duration{time.Millisecond, 2 * time.Millisecond}
	set, err := edd.Train(map[string][]time.Duration{"deliver Join": ms, "deliver JoinReply": ms, "timer probe": ms}, edd.DefaultSeed(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"deliver Join=2", "deliver *=2", "*=0.5", "timer probe=3"} {
		if err := pipeline.ApplyScale(set, []string{ok}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for spec, closest := range map[string]string{"deliver Joinn=2": `closest labels: "deliver Join", "deliver JoinReply"`, "no such label=2": "closest labels:", "app *=2": "closest labels:"} {
		err := pipeline.ApplyScale(set, []string{spec})
		if err == nil || !strings.Contains(err.Error(), closest) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error with %q", spec, err, closest)
		}
	}
	// The seed distributions have no labels to check against.
	if err := pipeline.ApplyScale(edd.NewSet(edd.DefaultSeed()), []string{"deliver Joinn=2"}); err != nil {
		t.Errorf("seed set: %v", err)
	}
}

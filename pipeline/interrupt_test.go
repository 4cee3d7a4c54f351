package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/pipeline"
)

// An interrupted run's error is context.Canceled for
// errors.Is (and the cancel cause, if one was given), as the package doc
// promises, and still says what the interruption left.
func TestInterruptedRunIsCanceled(t *testing.T) {
	cause := errors.New("the user pressed Ctrl-C")
	for _, phase := range []pipeline.Phase{pipeline.PhaseProfile, pipeline.PhaseSearch} {
		t.Run(string(phase), func(t *testing.T) {
			cfg := pipeline.DefaultConfig(openDir(t), randtreeTarget(t, "buggy"))
			// Enough profile executions that the workers cannot have
			// finished them all when the third one cancels.
			cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns = 0, 500, 300
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			cfg.Progress = &cancelAt{phase: phase, n: 3, cancel: func() { cancel(cause) }}
			_, err := pipeline.Run(ctx, cfg)
			if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
				t.Errorf("errors.Is(%v, context.Canceled) = %v, errors.Is(…, cause) = %v", err, errors.Is(err, context.Canceled), errors.Is(err, cause))
			}
			if err == nil || !strings.HasPrefix(err.Error(), "pipeline: interrupted in phase "+string(phase)+" after ") {
				t.Errorf("message %v", err)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	cancel()
	_, err := pipeline.Simulate(ctx, pipeline.SimulateConfig{Env: pipeline.Env{Dir: openDir(t)}, Target: randtreeTarget(t, "buggy"), Runs: 5})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 0 of 5 executions") {
		t.Errorf("simulate: %v", err)
	}
}

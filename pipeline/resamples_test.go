package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// StartRegress refuses resamples beyond MaxResamples
// (before: 1e12 ran out of memory in anomaly.Compare, 1e7 took 43 s),
// and accepts the bound itself.
func TestStartRegressBoundsResamples(t *testing.T) {
	base := openDir(t)
	if _, err := pipeline.Profile(context.Background(), pipeline.ProfileConfig{Env: pipeline.Env{Dir: base}, Target: randtreeTarget(t, "fixed"), Seed: 1, Runs: 20,
		Thresholds: pipeline.DefaultThresholds()}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{pipeline.MaxResamples + 1, 1_000_000_000_000, 0, -1, pipeline.MaxResamples, 1} {
		cmp := anomaly.DefaultCompareConfig()
		cmp.Resamples = n
		_, err := pipeline.StartRegress(pipeline.RegressConfig{Env: pipeline.Env{Dir: openDir(t), Systems: timedsim.Registry{randtree.System()}},
			Baseline: base.Path(), Compare: cmp})
		refused := err != nil && strings.Contains(err.Error(), fmt.Sprintf("RegressConfig.Compare.Resamples must be between 1 and %d, got %d", pipeline.MaxResamples, n))
		if want := n < 1 || n > pipeline.MaxResamples; refused != want || !want && err != nil {
			t.Errorf("resamples %d: %v", n, err)
		}
	}
}

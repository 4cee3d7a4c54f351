package pipeline

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
)

// A liveness run writes the same files whether the critical-transition
// walks fork from snapshots of their prefixes or replay them
// (liveness.Config.Replay), on 1 and 2 workers: liveness.json differs in
// its walks_from line alone, state.diff and the paths and logs not at all.
func TestLivenessForkedEqualsReplayed(t *testing.T) {
	sys := randtree.System()
	sc, err := sys.Scenario(randtree.VariantLivenessBug, 3)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{results.FileLiveness, results.FileDeadPath, results.FileLivePath, results.FileDeadLog, results.FileLiveLog, results.FileStateDiff}
	var want map[string][]byte
	for _, replay := range []bool{false, true} {
		for _, jobs := range []int{1, 2} {
			d := NewDir(t.TempDir())
			search := liveness.Config{Scenario: sc, Seed: 3, Jobs: jobs, Replay: replay}
			if _, err := Liveness(context.Background(), LivenessConfig{Dir: d, System: sys, Variant: randtree.VariantLivenessBug, Search: search}); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			for _, f := range files {
				b, err := os.ReadFile(d.File(f))
				if err != nil {
					t.Fatal(err)
				}
				got[f] = b
			}
			mode, other := []byte(`"walks_from": "snapshot"`), []byte(`"walks_from": "replay"`)
			if replay {
				mode, other = other, mode
			}
			if bytes.Count(got[results.FileLiveness], mode) != 1 || bytes.Contains(got[results.FileLiveness], other) {
				t.Fatalf("replay %v: liveness.json does not say %s once", replay, mode)
			}
			got[results.FileLiveness] = bytes.Replace(got[results.FileLiveness], mode, []byte(`"walks_from": "snapshot"`), 1)
			if want == nil {
				want = got
				continue
			}
			for _, f := range files {
				if !bytes.Equal(got[f], want[f]) {
					t.Errorf("replay %v, %d jobs: %s differs", replay, jobs, f)
				}
			}
		}
	}
}

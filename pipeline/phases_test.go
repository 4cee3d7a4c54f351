package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
)

// The phases are paper 004's, in its order, with the shard form of
// phases 1b and 2.
func TestPhasesTable(t *testing.T) {
	var names, sharded []pipeline.Phase
	for _, p := range pipeline.Phases() {
		names = append(names, p.Phase)
		if p.Sharded() {
			sharded = append(sharded, p.Phase)
		}
		if q, ok := pipeline.PhaseOf(p.Phase); !ok || q.Step != p.Step {
			t.Errorf("PhaseOf(%s) = %+v, %v", p.Phase, q, ok)
		}
	}
	if want := []pipeline.Phase{pipeline.PhaseTrain, pipeline.PhaseProfile, pipeline.PhaseSearch, pipeline.PhaseDiverge, pipeline.PhaseCorrelate}; !slices.Equal(names, want) {
		t.Errorf("phases %v, want %v", names, want)
	}
	if !slices.Equal(sharded, []pipeline.Phase{pipeline.PhaseProfile, pipeline.PhaseSearch}) {
		t.Errorf("sharded phases %v", sharded)
	}
	if _, ok := pipeline.PhaseOf(pipeline.PhaseRegress); ok {
		t.Error("the regression test is not a phase of Run")
	}
}

// Every file a run writes is listed by the phase that writes it (or is
// the summary or the rendered report), so that ClearAfter removes it when
// an earlier phase runs again: a phase's new file that its entry does not
// list fails here.
func TestPhasesListTheirFiles(t *testing.T) {
	d := openDir(t)
	cfg := pipeline.DefaultConfig(d, randtreeTarget(t, "buggy"))
	cfg.TrainRuns, cfg.Jobs = 2, 2
	res, err := pipeline.Run(context.Background(), cfg)
	if err != nil || !res.Found() {
		t.Fatalf("run: %v, found %v", err, res.Found())
	}
	listed := func(name string) bool {
		if name == results.FileSummary {
			return true
		}
		for _, p := range pipeline.Phases() {
			for _, f := range p.Files {
				if ok, _ := filepath.Match(f, name); ok {
					return true
				}
			}
		}
		return false
	}
	entries, err := os.ReadDir(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !listed(e.Name()) {
			t.Errorf("%s is written by Run and listed by no phase (pipeline.Phases)", e.Name())
		}
	}
	if err := d.ClearAfter(""); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(d.Path()); len(left) != 0 {
		t.Errorf("ClearAfter(\"\") left %v", left)
	}
}

// The pipeline's phases in Run's order, with the files each writes (a
// '*' is a pattern) and whether `macepc merge` merges its shards.
func ExamplePhases() {
	for _, p := range pipeline.Phases() {
		sharded := ""
		if p.Sharded() {
			sharded = " (sharded)"
		}
		fmt.Printf("%-3s %-9s %s%s\n", p.Step, p.Phase, strings.Join(p.Files, " "), sharded)
	}
	fmt.Println("merge:", pipeline.ShardPhases())
	// Output:
	// 1a  train     edd.json train.json
	// 1b  profile   profile.json (sharded)
	// 2   search    search.json search-executions.jsonl anomaly.path.json anomaly-class-*.path.json tail-class-*.path.json (sharded)
	// 3a  diverge   divergence.json divergence-walks.jsonl similar.path.json anomaly.log similar.log divergence.diff divergence-events.json
	// 3b  correlate correlation.json
	// merge: [simulate profile search liveness]
}

package pipeline_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// fuzzSeedDir is a small run's results directory: the seed corpus of the
// results files' fuzz targets.
var fuzzSeedDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "macepc-fuzz-*")
	if err != nil {
		return "", err
	}
	set, err := pipeline.ReadEDD(randtreeEDD)
	if err != nil {
		return "", err
	}
	target, err := pipeline.ResolveTarget(randtree.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		return "", err
	}
	d, err := pipeline.OpenDir(dir)
	if err != nil {
		return "", err
	}
	cfg := pipeline.DefaultConfig(d, target)
	cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm = 0, 20, 300, 10, 4, 4
	_, err = pipeline.Run(context.Background(), cfg)
	return dir, err
})

func seedFile(f *testing.F, name string) []byte {
	dir, err := fuzzSeedDir()
	if err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// checkRefusal fails unless err is a one-line error of this package
// naming the file.
func checkRefusal(t *testing.T, err error, file string) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "pipeline: ") || strings.Contains(msg, "\n") || !strings.Contains(msg, file) {
		t.Fatalf("not a one-line pipeline error naming %s: %q", file, msg)
	}
}

// FuzzLoadProfile: a profile.json of any content is loaded or refused
// with a one-line error naming it; never a panic.
func FuzzLoadProfile(f *testing.F) {
	f.Add(seedFile(f, results.FileProfile))
	f.Add([]byte(`{"format":"macepc-profile","version":1}`))
	reg := timedsim.Registry{randtree.System()}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, results.FileProfile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		pf, target, err := pipeline.NewDir(dir).LoadProfile(reg)
		if err != nil {
			checkRefusal(t, err, results.FileProfile)
			return
		}
		if target.Hash != pf.ConfigHash || pf.Runs != len(pf.Executions) || pf.Q1NS > pf.Q3NS {
			t.Fatalf("loaded an inconsistent profile")
		}
	})
}

// FuzzLoadSearch: a search.json of any content beside a valid
// profile.json is loaded or refused with a one-line error naming it.
func FuzzLoadSearch(f *testing.F) {
	prof := seedFile(f, results.FileProfile)
	f.Add(seedFile(f, results.FileSearch))
	f.Add([]byte(`{"format":"macepc-search","version":1,"explored":-1}`))
	reg := timedsim.Registry{randtree.System()}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, results.FileProfile), prof, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.FileSearch), b, 0o644); err != nil {
			t.Fatal(err)
		}
		d := pipeline.NewDir(dir)
		pf, _, err := d.LoadProfile(reg)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := d.LoadSearch(pf)
		if err != nil {
			checkRefusal(t, err, results.FileSearch)
			return
		}
		if sf.Explored < 0 || sf.Explored > sf.MaxRuns || sf.FirstIndex >= sf.Explored {
			t.Fatalf("loaded an inconsistent search: explored %d of %d, first %d", sf.Explored, sf.MaxRuns, sf.FirstIndex)
		}
	})
}

// FuzzReadLivenessPath: a liveness path file (dead.path.json,
// live.path.json) of any content is read or refused with a one-line
// error naming it.
func FuzzReadLivenessPath(f *testing.F) {
	seed, err := json.Marshal(pipeline.LivenessPathFile{Header: results.Header{Format: "macepc-liveness-path", Version: 1, System: "randtree", Variant: "liveness-bug", Nodes: 3, Seed: 1},
		Weights: map[string]int{"deliver": 1}, Safety: []string{}, Liveness: []string{"one-root"},
		Path: liveness.Path{Driver: 3, Choices: []int{0, 2, 1}, Segments: []timedsim.Segment{{From: 0, Seed: 5}, {From: 3, Seed: 8}}, Steps: 9}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		name := filepath.Join(t.TempDir(), "dead.path.json")
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		pf, err := pipeline.ReadLivenessPath(name)
		if err != nil {
			checkRefusal(t, err, "dead.path.json")
			return
		}
		if err := pf.Path.Validate(); err != nil {
			t.Fatalf("read an invalid path: %v", err)
		}
	})
}

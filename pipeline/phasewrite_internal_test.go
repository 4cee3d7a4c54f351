package pipeline

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// A phase whose writing fails half-way (a full disk)
// changes no file: the files of the phase appear together or not at all,
// and those of the earlier run stay as they were.

// fullDisk writes left bytes, then fails as a full disk does.
type fullDisk struct {
	w    io.Writer
	left int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.w.Write(p[:f.left])
		f.left = 0
		return n, syscall.ENOSPC
	}
	f.left -= len(p)
	return f.w.Write(p)
}

// snapshot is every file under dir, hidden ones included, by name.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for n, b := range before {
		if a, ok := after[n]; !ok {
			t.Errorf("%s: %s was removed", what, n)
		} else if a != b {
			t.Errorf("%s: %s changed", what, n)
		}
	}
	for n := range after {
		// A failed phase writes a missing summary.json, from the files
		// that remain (salvageSummary).
		if _, ok := before[n]; !ok && n != results.FileSummary {
			t.Errorf("%s: %s appeared", what, n)
		}
	}
}

func TestFailedWriteChangesNoFile(t *testing.T) {
	set, err := ReadEDD("../systems/randtree/testdata/edd.json")
	if err != nil {
		t.Fatal(err)
	}
	target, err := ResolveTarget(randtree.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
	if err != nil {
		t.Fatal(err)
	}
	d := NewDir(t.TempDir())
	cfg := DefaultConfig(d, target)
	cfg.TrainRuns, cfg.ProfileRuns, cfg.MaxRuns, cfg.TriageRuns, cfg.Walks, cfg.Confirm, cfg.Jobs = 0, 20, 300, 20, 4, 4, 2
	res, err := Run(context.Background(), cfg)
	if err != nil || !res.Found() || res.Divergence.Similar == nil {
		t.Fatalf("the test's premise, a run with an anomaly and a similar fast execution: %v", err)
	}
	fail := func(file string) {
		d.failWrite = func(name string, w io.Writer) io.Writer {
			if name == file {
				return &fullDisk{w: w, left: 100}
			}
			return w
		}
	}
	ctx := context.Background()
	phases := []struct {
		name  string
		after Phase    // the phase before it
		files []string // the phase's files, in the order written
		run   func() error
	}{
		{"diverge", PhaseSearch, []string{results.FileAnomalyLog, results.FileSimilarPath, results.FileDiff, results.FileWalks, results.FileDivergence}, func() error {
			_, err := Diverge(ctx, DivergeConfig{Env: cfg.Env, Profile: res.Profile, Target: target, Walks: 4, Confirm: 4})
			return err
		}},
		{"search", PhaseProfile, []string{results.FileAnomalyPath, results.FileSearchExecs, results.FileSearch}, func() error {
			_, err := Search(ctx, SearchConfig{Env: cfg.Env, Profile: res.Profile, Target: target, MaxRuns: 300, TriageRuns: 20, Verdict: DefaultVerdict()})
			return err
		}},
		{"train", "", []string{results.FileEDD, results.FileTrain}, func() error {
			_, _, err := Train(ctx, TrainConfig{Env: cfg.Env, Target: target, Seed: 1, Runs: 2})
			return err
		}},
	}
	// Each phase is run with each of its files failing, over the files of
	// its earlier run (which stay as they were), then without them (none
	// appears), last to first, so that each has its input.
	for _, ph := range phases {
		for _, clear := range []bool{false, true} {
			if clear {
				if err := d.ClearAfter(ph.after); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range ph.files {
				before := snapshot(t, d.Path())
				fail(f)
				err := ph.run()
				d.failWrite = nil
				if !errors.Is(err, syscall.ENOSPC) {
					t.Errorf("%s with %s failing: err %v, want ENOSPC", ph.name, f, err)
				}
				sameSnapshot(t, ph.name+" with "+f+" failing", before, snapshot(t, d.Path()))
			}
		}
	}
}

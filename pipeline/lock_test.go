package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
)

func TestLockRefusesASecondWriterAndRemovesStaleTemporaries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := []string{filepath.Join(dir, ".summary.json.tmp-42"), filepath.Join(dir, "plots", ".search.png.tmp-7")}
	for _, p := range append(stale, filepath.Join(dir, "summary.json")) {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := pipeline.NewDir(dir).Lock()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("stale %s was not removed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Errorf("summary.json was removed: %v", err)
	}
	_, err = pipeline.NewDir(dir).Lock()
	if err == nil || !strings.Contains(err.Error(), "in use") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second lock: %v, want a one-line 'in use' error", err)
	}
	unlock()
	unlock2, err := pipeline.NewDir(dir).Lock()
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

package atomicfile_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macepc/macepc/internal/atomicfile"
)

func TestRemoveStaleRemovesOnlyOurTemporaries(t *testing.T) {
	dir := t.TempDir()
	ours := []string{".summary.json.tmp-123", ".anomaly.path.json.tmp-9876543210"}
	theirs := []string{"summary.json", ".hidden", ".x.tmp-", ".x.tmp-12a", "a.tmp-12", ".tmp-1"}
	for _, n := range append(slices.Clone(ours), theirs...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".d.tmp-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := atomicfile.RemoveStale(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	slices.Sort(ours)
	if !slices.Equal(removed, ours) {
		t.Fatalf("removed %v, want %v", removed, ours)
	}
	for _, n := range append(theirs, ".d.tmp-1") {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
	if r, err := atomicfile.RemoveStale(filepath.Join(dir, "missing")); err != nil || r != nil {
		t.Fatalf("missing dir: %v %v", r, err)
	}
}

// A temporary file of a Write that was killed is what RemoveStale finds.
func TestRemoveStaleFindsWriteTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*") // what Write creates
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	removed, err := atomicfile.RemoveStale(dir)
	if err != nil || len(removed) != 1 || removed[0] != filepath.Base(f.Name()) {
		t.Fatalf("removed %v (%v), want %s", removed, err, filepath.Base(f.Name()))
	}
}

// RemoveStaleOf removes the temporaries of one file only.
func TestRemoveStaleOf(t *testing.T) {
	dir := t.TempDir()
	mine := []string{".x.html.tmp-1", ".x.html.tmp-987654"}
	others := []string{".y.html.tmp-1", ".x.html.tmp-1a", ".x.html.tmp-", "x.html", ".x.htm.tmp-2", "..x.html.tmp-3"}
	for _, n := range append(slices.Clone(mine), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := atomicfile.RemoveStaleOf(filepath.Join(dir, "x.html"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, mine) {
		t.Fatalf("removed %v, want %v", removed, mine)
	}
	for _, n := range others {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed", n)
		}
	}
}

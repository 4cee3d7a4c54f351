package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macepc/macepc/internal/atomicfile"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestBatchCommitsAllTogether(t *testing.T) {
	dir := t.TempDir()
	var b atomicfile.Batch
	defer b.Abort()
	for _, n := range []string{"a", "b", "c"} {
		if err := b.WriteBytes(filepath.Join(dir, n), []byte(n)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Fatalf("%s appeared before Commit", n)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("files %v", got)
	}
	for _, n := range []string{"a", "b", "c"} {
		if c, _ := os.ReadFile(filepath.Join(dir, n)); string(c) != n {
			t.Fatalf("%s holds %q", n, c)
		}
	}
}

// A write that fails (a full disk) leaves none of the batch's files once
// the batch is aborted.
func TestBatchFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	var b atomicfile.Batch
	if err := b.WriteBytes(filepath.Join(dir, "a"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	enospc := errors.New("no space left on device")
	err := b.Write(filepath.Join(dir, "b"), func(w io.Writer) error {
		w.Write([]byte("half"))
		return enospc
	})
	if !errors.Is(err, enospc) {
		t.Fatalf("err %v", err)
	}
	b.Abort()
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
	if err := b.Commit(); err != nil { // an aborted batch commits nothing
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}

// A rename that fails undoes the renames before it.
func TestBatchFailedCommitLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	var b atomicfile.Batch
	for _, n := range []string{"a", "b"} {
		if err := b.WriteBytes(filepath.Join(dir, n), []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	// b turns into a non-empty directory before the commit.
	if err := os.MkdirAll(filepath.Join(dir, "b", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err == nil {
		t.Fatal("a rename over a directory succeeded")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("left %v, want only the directory b", got)
	}
}

func TestBatchRefusesDevices(t *testing.T) {
	var b atomicfile.Batch
	defer b.Abort()
	if err := b.WriteBytes("/dev/null", nil); err == nil {
		t.Fatal("a batch accepted /dev/null")
	}
}

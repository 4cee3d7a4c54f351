package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Clearing a directory removes the plots macepc
// wrote and nothing else of plots/: the user's own figures stay, and so
// does the directory that holds them; a plots that is a link goes as a
// link, what it points to stays.
func TestClearAfterLeavesForeignFiles(t *testing.T) {
	d := openDir(t)
	plots := d.File("plots")
	if err := os.MkdirAll(plots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"profile.png", "search.png", ".search.png.tmp-123", "my-figure.png", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(plots, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.ClearAfter(""); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(plots)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) != 2 || left[0] != "my-figure.png" || left[1] != "notes.txt" {
		t.Errorf("plots/ holds %q, want the user's my-figure.png and notes.txt", left)
	}
	// Without the user's files, plots/ goes.
	for _, f := range left {
		os.Remove(filepath.Join(plots, f))
	}
	if err := os.WriteFile(filepath.Join(plots, "profile.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.ClearAfter(""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plots); !os.IsNotExist(err) {
		t.Errorf("an empty plots/ stays: %v", err)
	}
	// A link named plots is removed, not followed.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "profile.png"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, plots); err != nil {
		t.Fatal(err)
	}
	if err := d.ClearAfter(""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(plots); !os.IsNotExist(err) {
		t.Errorf("the link plots stays: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "profile.png")); err != nil || string(b) != "theirs" {
		t.Errorf("a file the link pointed at was removed: %v", err)
	}
}

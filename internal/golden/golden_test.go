package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the first fatal message instead of
// stopping the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	if r.msg == "" {
		r.msg = strings.TrimSpace(fmt.Sprintf(format, args...))
	}
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%v", args...) }

// Update writes the file (and its directory); the same bytes then pass,
// other bytes fail at the line that differs, and a missing file says how
// to create it.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "golden", "x.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" || r.msg != "" {
		t.Fatalf("update wrote %q, %v (%s)", b, err, r.msg)
	}
	Check(r, path, []byte("a\nb\n"), false)
	if r.msg != "" {
		t.Fatalf("same bytes: %s", r.msg)
	}
	Check(r, path, []byte("a\nc\n"), false)
	if !strings.Contains(r.msg, "differs at line 2") || !strings.Contains(r.msg, "got: c") {
		t.Fatalf("other bytes: %q", r.msg)
	}
	r.msg = ""
	Check(r, filepath.Join(t.TempDir(), "none.txt"), nil, false)
	if !strings.Contains(r.msg, "-update to create it") {
		t.Fatalf("missing file: %q", r.msg)
	}
}

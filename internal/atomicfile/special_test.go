package atomicfile_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macepc/macepc/internal/atomicfile"
)

// A FIFO is written through, not replaced by a regular file.
func TestWriteThroughAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p) // blocks until the writer opens
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	// The reader opens the FIFO asynchronously: retry until it is there.
	var err error
	for i := 0; i < 500; i++ {
		if err = atomicfile.WriteBytes(p, []byte("event log\n")); err == nil || !strings.Contains(err.Error(), "no process reads") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", err) // (the reader is left waiting)
	}
	if s := <-got; s != "event log\n" {
		t.Fatalf("the reader got %q", s)
	}
}

// A FIFO that nobody reads is an error, not a wait.
func TestWriteAFIFOWithoutReaderFails(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	if err := atomicfile.WriteBytes(p, []byte("x")); err == nil || !strings.Contains(err.Error(), "no process reads") {
		t.Fatalf("err %v", err)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", err)
	}
}

// A link to a device is written through, a link to a file replaced
// (the file it points to is left alone): nothing is written through a
// link into a file.
func TestWriteAndLinks(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteBytes(null, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to /dev/null was replaced: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v", err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteBytes(link, []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Fatalf("written through the link: the target holds %q", b)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the link was not replaced by a file: %v", err)
	}
	if err := atomicfile.WriteBytes(dir, []byte("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory: %v", err)
	}
}

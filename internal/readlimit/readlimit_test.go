package readlimit_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/internal/readlimit"
)

func TestNewReaderReadsUpToTheCap(t *testing.T) {
	b, err := io.ReadAll(readlimit.NewReader(strings.NewReader("12345"), 5))
	if err != nil || string(b) != "12345" {
		t.Fatalf("at the cap: %q %v", b, err)
	}
	b, err = io.ReadAll(readlimit.NewReader(strings.NewReader("123456"), 5))
	if !errors.Is(err, readlimit.ErrTooLarge) || len(b) > 5 {
		t.Fatalf("past the cap: %q %v", b, err)
	}
	if !strings.Contains(err.Error(), "larger than 5 bytes") {
		t.Errorf("error %q", err)
	}
}

func TestOpenRefusesALargerRegularFileAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readlimit.Open(p, 4); !errors.Is(err, readlimit.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Open: %v", err)
	}
	if b, err := readlimit.ReadFile(p, 8); err != nil || string(b) != `{"a": 1}` {
		t.Fatalf("ReadFile at the cap: %q %v", b, err)
	}
}

// A device of endless bytes is refused at the cap, and a JSON reader
// refuses it at its first byte.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := readlimit.ReadFile("/dev/zero", 1<<20); !errors.Is(err, readlimit.ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Fatalf("ReadFile: %v", err)
	}
	if _, err := readlimit.ReadJSONFile("/dev/zero", readlimit.MaxJSONFile); err == nil || !strings.Contains(err.Error(), "/dev/zero is malformed: it starts with '\\x00'") {
		t.Fatalf("ReadJSONFile: %v", err)
	}
}

func TestReadJSONFile(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		content string
		ok      bool
	}{
		"obj.json":   {" \n{\"a\": 1}\n", true},
		"empty.json": {"", true},
		"arr.json":   {"[1]", false},
		"nul.json":   {"\x00\x00", false},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := readlimit.ReadJSONFile(p, 100)
		if (err == nil) != c.ok || (c.ok && strings.TrimSpace(string(b)) != strings.TrimSpace(c.content)) {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
}

func TestReadLine(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 10000) + "\nlast"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	l, err := readlimit.ReadLine(br, 100)
	if err != nil || string(l) != "short\n" {
		t.Fatalf("line 1: %q %v", l, err)
	}
	if _, err := readlimit.ReadLine(br, 100); !errors.Is(err, readlimit.ErrTooLarge) {
		t.Fatalf("line 2: %v", err)
	}
	br = bufio.NewReader(strings.NewReader("a\n\nend"))
	for _, want := range []string{"a\n", "\n", "end"} {
		l, err := readlimit.ReadLine(br, 3)
		if string(l) != want || (want == "end") != (err == io.EOF) {
			t.Fatalf("got %q %v, want %q", l, err, want)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{readlimit.MaxJSONFile: "1 GiB", readlimit.MaxEDDFile: "64 MiB", 2048: "2 KiB", 5: "5 bytes"} {
		if got := readlimit.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

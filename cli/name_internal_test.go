package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

// A binary built on Main names itself, not macepc, in the commands and
// hints it prints: its usage, its help's examples, the replay command of
// a finding, its header, progress and version lines. And a path file of a
// system the binary
// was not built with says which system it needs and where it comes from.
func TestOwnBinaryNamesItself(t *testing.T) {
	ctx := context.Background()
	var o, e bytes.Buffer
	runEnv(ctx, "hello", os.Getenv, []string{"replay", "--help"}, &o, &e, pingpong.System())
	if h := o.String(); !strings.HasPrefix(h, "Usage: hello replay") || !strings.Contains(h, "\n  hello replay --path") || strings.Contains(h, "macepc replay") {
		t.Errorf("help of a binary named hello:\n%s", h)
	}
	o.Reset()
	runEnv(ctx, "hello", os.Getenv, []string{"--help"}, &o, &e, pingpong.System())
	if !strings.Contains(o.String(), "Usage: hello <command>") {
		t.Errorf("usage:\n%s", o.String())
	}
	// Its diagnostics on standard error carry its name too.
	e.Reset()
	if st := runEnv(ctx, "hello", os.Getenv, []string{"replay", "--path", "/nonexistent.path.json"}, &o, &e, pingpong.System()); st != ExitError || !strings.HasPrefix(e.String(), "hello: ") {
		t.Errorf("an error of a binary named hello: status %d, %q", st, e.String())
	}
	// A path file of pingpong, replayed by a binary without it.
	dir := t.TempDir()
	o.Reset()
	if st := runEnv(ctx, "hello", os.Getenv, []string{"simulate", "--runs", "2", "--out", dir, "--progress", "never"}, &o, &e, pingpong.System()); st != ExitOK {
		t.Fatalf("simulate: %d\n%s%s", st, o.String(), e.String())
	}
	// Its header line, its progress lines and its version line too.
	if out := o.String(); !strings.HasPrefix(out, "hello simulate: system=pingpong") || strings.Contains(out, "macepc") {
		t.Errorf("simulate's output names the binary otherwise:\n%s", out)
	}
	var lines bytes.Buffer
	p := lineProgress{name: "hello", w: &lines, now: time.Now}
	(&lineTask{name: p.name, w: p.w, now: p.now, phase: "search", total: 10, start: time.Now()}).print(false)
	if !strings.HasPrefix(lines.String(), "hello: progress: search: ") {
		t.Errorf("progress line %q", lines.String())
	}
	o.Reset()
	if runEnv(ctx, "hello", os.Getenv, []string{"version"}, &o, &e, pingpong.System()); !strings.HasPrefix(o.String(), "hello ") {
		t.Errorf("version: %q", o.String())
	}
	e.Reset()
	st := runEnv(ctx, "macepc", os.Getenv, []string{"replay", "--path", filepath.Join(dir, "slowest.path.json")}, &o, &e, randtree.System())
	if msg := e.String(); st != ExitError || !strings.Contains(msg, `needs system "pingpong", which this binary was not built with`) || !strings.Contains(msg, "replay it with that binary") || !strings.HasPrefix(msg, "macepc: ") {
		t.Errorf("a path file of another binary's system: status %d, %s", st, msg)
	}
}

// The report of a binary built on Main prints its replay commands with
// that binary's name, and summary.json holds no program name at all.
func TestReportNamesTheBinary(t *testing.T) {
	dir := t.TempDir()
	var o, e bytes.Buffer
	st := runEnv(context.Background(), "hello", os.Getenv, []string{"run", "--system", "randtree", "--variant", "buggy", "--seed", "1",
		"--edd", "../systems/randtree/testdata/edd.json", "--out", dir, "--progress", "never"}, &o, &e, randtree.System())
	if st != ExitFinding {
		t.Fatalf("run: status %d\n%s%s", st, o.String(), e.String())
	}
	for _, f := range []string{"summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("hello replay --path")) || bytes.Contains(b, []byte("macepc replay")) {
			t.Errorf("%s does not name the binary hello in its replay commands", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || bytes.Contains(b, []byte("hello")) || bytes.Contains(b, []byte("macepc replay")) {
		t.Errorf("summary.json names a program (%v)", err)
	}
}

package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

// TestSystemsVariantColumn: a system's variant names share one column, so
// that a long name ("no-recovery") stays apart from its description.
func TestSystemsVariantColumn(t *testing.T) {
	out, errs, st := runSys(chord.System(), "systems")
	if st != 0 {
		t.Fatalf("systems: status %d, %s", st, errs)
	}
	line := regexp.MustCompile(`^  variant (\S+)( +)\S`)
	col := -1
	for _, l := range strings.Split(out, "\n") {
		m := line.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		if c := m[5]; col >= 0 && c != col {
			t.Errorf("description at column %d, not %d: %q", c, col, l)
		} else {
			col = c
		}
	}
	if col < 0 {
		t.Fatalf("no variant lines in:\n%s", out)
	}
}

// A binary built on Main with only its own system defaults --system to
// it (before, it defaulted to randtree and refused to run); the bundled
// binary keeps randtree.
func TestDefaultSystemIsTheOnlyOne(t *testing.T) {
	dir := t.TempDir()
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), []string{"simulate", "--runs", "2", "--out", filepath.Join(dir, "pp"), "--progress", "never"}, &o, &e, pingpong.System())
	if st != cli.ExitOK || !strings.Contains(o.String(), "pingpong") {
		t.Errorf("simulate without --system in a pingpong-only binary: status %d\n%s%s", st, o.String(), e.String())
	}
	o.Reset()
	e.Reset()
	st = cli.Run(context.Background(), []string{"simulate", "--runs", "2", "--out", filepath.Join(dir, "rt"), "--progress", "never"}, &o, &e, pingpong.System(), randtree.System())
	if st != cli.ExitOK || !strings.Contains(o.String(), "randtree") {
		t.Errorf("simulate without --system with randtree registered second: status %d\n%s%s", st, o.String(), e.String())
	}
}

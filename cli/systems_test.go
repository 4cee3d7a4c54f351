package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/chord"
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

package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The diff box's rule is no wider than the event lines, so that
// "divergence point" shows without scrolling; a rule already short
// enough, and the other lines, are kept as they are.
func TestFitRules(t *testing.T) {
	left := "   65 0.010154348s n1 deliver Join from n0"
	row := left + strings.Repeat(" ", 64-len(left)) + left
	rule := strings.Repeat("-", 127) + " divergence point"
	got := fitRules([]string{"# a header line that is longer than every other line of the diff, and must not count", row, rule, row})
	if got[1] != row || got[3] != row {
		t.Errorf("event lines changed: %q", got)
	}
	if n, w := utf8.RuneCountInString(got[2]), utf8.RuneCountInString(row); n != w || !strings.HasSuffix(got[2], "----- divergence point") {
		t.Errorf("rule %q: %d runes, want %d ending in the dashes and \" divergence point\"", got[2], n, w)
	}
	short := "------ divergence point"
	if got := fitRules([]string{row, short}); got[1] != short {
		t.Errorf("a short rule became %q", got[1])
	}
}

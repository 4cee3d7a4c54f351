package visible_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macepc/macepc/internal/visible"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"deliver Join → NewRoot", "deliver Join → NewRoot"},
		{"café ünïcödé 日本", "café ünïcödé 日本"},
		{`a\nb`, `a\nb`}, // a backslash is kept
		{"Pi\nng", `Pi\nng`},
		{"a\tb\rc", `a\tb\rc`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"\x00\x7f", `\x00\x7f`},
		{"abc\u202edef", `abc\u202edef`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"c1\u0085", `c1\u0085`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
	} {
		if got := visible.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := visible.String(c.want); got != c.want {
			t.Errorf("String is not idempotent on %q: %q", c.want, got)
		}
		if visible.Is(c.in) != (c.in == c.want) {
			t.Errorf("Is(%q) = %v", c.in, visible.Is(c.in))
		}
	}
}

// No output of String holds a character that String escapes: a line
// stays one line, and nothing reverses the text on screen.
func TestStringLeavesNothingHidden(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x30000; r++ {
		all.WriteRune(r)
	}
	out := visible.String(all.String())
	if strings.ContainsAny(out, "\n\r\u202e\u2028\u200b") || !visible.Is(out) {
		t.Fatal("String left a hidden character")
	}
}

func ExampleString() {
	fmt.Println(visible.String("Pi\nng"))
	fmt.Println(visible.String("abc\u202edef"))
	// Output:
	// Pi\nng
	// abc\u202edef
}

func BenchmarkStringASCII(b *testing.B) {
	s := "Node{ID:n7 Parent:n3 Children:[n8 n9] Joined:true}"
	for b.Loop() {
		visible.String(s)
	}
}

package shellquote_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/macepc/macepc/internal/shellquote"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"macepc-out/anomaly.path.json", "macepc-out/anomaly.path.json"},
		{"/tmp/a_b/c%1+2,3:4@5", "/tmp/a_b/c%1+2,3:4@5"},
		{"", "''"},
		{"$(touch PWNED)", "'$(touch PWNED)'"},
		{"`id`", "'`id`'"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"~/out", "'~/out'"},
		{"=ls", "'=ls'"},
		{"a;b|c&d>e<f", "'a;b|c&d>e<f'"},
		{"x\ny", "'x\ny'"},
		{"caf\u00e9", "'caf\u00e9'"},
		{"a\u202eb", "'a\u202eb'"},
		{"*?[", "'*?['"},
		{"$HOME", "'$HOME'"},
		{`a\b`, `'a\b'`},
		{"!x", "'!x'"},
		{"#x", "'#x'"},
	} {
		if got := shellquote.Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJoin(t *testing.T) {
	got := shellquote.Join("macepc", "replay", "--path", "$(touch PWNED)/anomaly.path.json")
	if want := "macepc replay --path '$(touch PWNED)/anomaly.path.json'"; got != want {
		t.Fatalf("Join = %q, want %q", got, want)
	}
}

// A shell reads each quoted word back as the word itself, and runs
// nothing it holds.
func TestShellReadsTheWordBack(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	canary := filepath.Join(dir, "PWNED")
	for _, w := range []string{
		"plain", "", "a b", "it's", "''", `'\''`, "$(touch " + canary + ")", "`touch " + canary + "`",
		"$HOME", "~", "*", "x\ny", "a\u202eb", "; touch " + canary, `\`, "!!", "\"",
	} {
		out, err := exec.Command(sh, "-c", "printf %s "+shellquote.Quote(w)).Output()
		if err != nil {
			t.Fatalf("sh -c printf %%s %s: %v", shellquote.Quote(w), err)
		}
		if string(out) != w {
			t.Errorf("the shell read %q back as %q", w, out)
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a quoted word ran a command")
	}
}

func ExampleJoin() {
	fmt.Println(shellquote.Join("macepc", "replay", "--path", "$(touch PWNED)/anomaly.path.json"))
	fmt.Println(shellquote.Join("macepc", "replay", "--path", "macepc-out/similar.path.json"))
	// Output:
	// macepc replay --path '$(touch PWNED)/anomaly.path.json'
	// macepc replay --path macepc-out/similar.path.json
}

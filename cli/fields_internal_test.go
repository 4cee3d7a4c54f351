package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/pingpong"
)

// Every field or argument that package pipeline names in a ConfigError
// has a flag: a new check in the library cannot name a Go field to a
// user of the command line.
func TestEveryPipelineFieldHasAFlag(t *testing.T) {
	files, err := filepath.Glob("../pipeline/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("pipeline's sources: %v", err)
	}
	// fieldErr("X", configErr("X", checkWalks("X", and {X} in a message.
	named := regexp.MustCompile(`(?:fieldErr|configErr|checkMemory|check[A-Z]\w*)\("([A-Z][\w.]*)"|\{([A-Z]\w*\.[\w.]+)\}`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]+m[2]] = true
		}
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d fields in pipeline's messages: %v", len(seen), seen)
	}
	for field := range seen {
		if flagOf(field) == "" {
			t.Errorf("pipeline names the field %s, which no flag sets (flagOf)", field)
		}
	}
}

// The command line's messages name its flags and its own binary, where the
// library names fields and suggests macepc commands.
func TestMessagesNameFlagsAndBinary(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--walks", "0", "--out", dir}, "hello: --walks must be at least 1, got 0\n"},
		{[]string{"train", "--train-runs", "0", "--out", dir}, "hello: --train-runs must be at least 1, got 0\n"},
		{[]string{"diverge", "--confirm-walks", "-1", "--out", dir}, "hello: --confirm-walks must be at least 0, got -1\n"},
		{[]string{"simulate", "--runs", "0", "--out", dir}, "hello: --runs must be at least 1, got 0\n"},
		{[]string{"search", "--out", filepath.Join(dir, "none")}, "hello: --out " + filepath.Join(dir, "none") + " is not a results directory (run 'hello run' or 'hello profile --out " + filepath.Join(dir, "none") + "' first)\n"},
	} {
		var o, e bytes.Buffer
		if st := runEnv(ctx, "hello", os.Getenv, c.args, &o, &e, pingpong.System()); st != ExitError || e.String() != c.want || o.Len() > 0 {
			t.Errorf("%q: status %d, stdout %q, stderr %q, want %q", c.args, st, o.String(), e.String(), c.want)
		}
	}
	// A missing phase's file: the hint names this binary.
	var o, e bytes.Buffer
	if st := runEnv(ctx, "hello", os.Getenv, []string{"search", "--out", dir, "--progress", "never"}, &o, &e, pingpong.System()); st != ExitError ||
		!strings.Contains(e.String(), "(run 'hello profile --out "+dir+"' first)") || strings.Contains(e.String(), "macepc") || strings.Contains(e.String(), "Env.Dir") {
		t.Errorf("search without a profile: status %d, %q", st, e.String())
	}
}

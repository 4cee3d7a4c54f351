package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
)

// `macepc run --liveness` writes explore.html and report.html links to
// it; `macepc explore DIR` writes the same bytes again, and `macepc
// explore --path dead --path live` the same pair; bad input is a one-line
// error with exit status 2.
func TestExploreCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out, errs, st := runRT(t, ctx, "run", "--liveness", "--system", "randtree", "--variant", "liveness-bug", "--seed", "1", "--out", dir)
	if st != cli.ExitFinding || !strings.Contains(out, "explore: "+filepath.Join(dir, "explore.html")) {
		t.Fatalf("run --liveness: exit %d\n%s%s", st, out, errs)
	}
	first, err := os.ReadFile(filepath.Join(dir, "explore.html"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Contains(rep, []byte(`href="explore.html"`)) {
		t.Fatalf("report.html does not link to explore.html (%v)", err)
	}
	if out, errs, st := runRT(t, ctx, "explore", dir); st != cli.ExitOK || errs != "" {
		t.Fatalf("explore DIR: exit %d\n%s%s", st, out, errs)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "explore.html"))
	if !bytes.Equal(first, again) {
		t.Error("explore DIR wrote other bytes than run --liveness")
	}
	pair := filepath.Join(t.TempDir(), "pair.html")
	if out, errs, st := runRT(t, ctx, "explore", "--path", filepath.Join(dir, "dead.path.json"), "--path", filepath.Join(dir, "live.path.json"), "--out", pair); st != cli.ExitOK {
		t.Fatalf("explore --path --path: exit %d\n%s%s", st, out, errs)
	}
	page, err := os.ReadFile(pair)
	if err != nil || !bytes.Contains(page, []byte(`"name":"dead.path.json vs live.path.json"`)) {
		t.Fatalf("explore --path --path: no side-by-side pair in the page (%v)", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", t.TempDir()}, "has no execution to explore"},
		{[]string{"explore", filepath.Join(dir, "nonexistent")}, "is not a results directory"},
		{[]string{"explore"}, "explore takes one results directory, got 0"},
		{[]string{"explore", "--path", "a", "--path", "b", "--path", "c"}, "at most two --path files"},
		{[]string{"explore", "--path", filepath.Join(dir, "missing.path.json")}, "missing.path.json"},
		{[]string{"explore", dir, "--out", "x.html"}, "--out goes with --path"},
	} {
		out, errs, st := runRT(t, ctx, c.args...)
		if st != cli.ExitError || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 || !strings.HasPrefix(errs, "macepc: ") {
			t.Errorf("macepc %s: exit %d, stderr %q (want a one-line error with %q), stdout %q", strings.Join(c.args, " "), st, errs, c.want, out)
		}
	}
}

package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/results"
)

// TestReportCommand: `macepc report DIR` re-renders from the files alone,
// renders what it can of a partial run (a profile-only directory), and
// exits 2 on a missing or malformed directory.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "profile", "--system", "pingpong", "--profile-runs", "10", "--seed", "1", "--out", "$DIR", "--progress", "never")
	for _, n := range []string{results.FileReport, results.FileMarkdown} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatalf("the profile command did not write %s: %v", n, err)
		}
	}
	out, e, st := run(t, dir, "report", "--out", "$DIR")
	if st != cli.ExitOK || !strings.Contains(out, results.FileReport) {
		t.Fatalf("report: exit %d: %s%s", st, out, e)
	}
	html, err := os.ReadFile(filepath.Join(dir, results.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("phase 2 did not run")) || !bytes.Contains(html, []byte("Profile only")) {
		t.Fatal("report.html of a profile-only run does not say the search did not run")
	}
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, results.FileSummary), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, want string
	}{
		{filepath.Join(t.TempDir(), "missing"), "not a results directory"},
		{garbage, "malformed"},
	} {
		_, e, st := run(t, "", "report", "--out", c.dir)
		if st != cli.ExitError || !strings.Contains(e, c.want) {
			t.Errorf("macepc report --out %s: exit %d, stderr %q; want exit 2 and %q", c.dir, st, e, c.want)
		}
	}
}

package cli_test

import (
	"strings"
	"testing"
)

// One spelling per concept: regress takes --profile-runs like
// profile and run, report takes --out like every other command; the old
// spellings still work and print a warning that names the new one.
func TestDeprecatedSpellingsWarn(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "profile", "--system", "pingpong", "--profile-runs", "24", "--out", "$DIR/base", "--progress", "never")
	newOut, newErr, st := run(t, dir, "regress", "--baseline", "$DIR/base", "--profile-runs", "20", "--out", "$DIR/new", "--progress", "never")
	if st == 2 || newErr != "" {
		t.Fatalf("--profile-runs: status %d, stderr %q", st, newErr)
	}
	oldOut, oldErr, st := run(t, dir, "regress", "--baseline", "$DIR/base", "--runs", "20", "--out", "$DIR/new", "--progress", "never")
	if st == 2 || oldErr != "Flag --runs has been deprecated, use --profile-runs\n" {
		t.Errorf("--runs: status %d, stderr %q", st, oldErr)
	}
	if oldOut != newOut || !strings.Contains(newOut, "runs=20") {
		t.Errorf("--runs and --profile-runs differ:\n%s\n---\n%s", oldOut, newOut)
	}
	if _, errs, st := run(t, dir, "regress", "--baseline", "$DIR/base", "--runs", "0", "--out", "$DIR/new"); st != 2 || !strings.Contains(errs, "--profile-runs must be at least 1, got 0") {
		t.Errorf("--runs 0: status %d, stderr %q", st, errs)
	}

	canonical, errs, st := run(t, dir, "report", "--out", "$DIR/base")
	if st != 0 || errs != "" {
		t.Fatalf("report --out: status %d, stderr %q", st, errs)
	}
	old, errs, st := run(t, dir, "report", "$DIR/base")
	if want := "macepc: warning: 'macepc report DIR' is deprecated: use 'macepc report --out $DIR/base', as every other command\n"; st != 0 || errs != want || old != canonical {
		t.Errorf("report DIR: status %d, stderr %q, stdout %q", st, errs, old)
	}
	if _, errs, st := run(t, dir, "report", "--out", "$DIR/base", "$DIR/other"); st != 2 || !strings.Contains(errs, "give the results directory once, with --out") {
		t.Errorf("report --out DIR DIR2: status %d, stderr %q", st, errs)
	}
}

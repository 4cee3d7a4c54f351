package cli_test

import (
	"testing"
)

// correlate after a search that stopped at its first anomalous execution
// says what ran and what is missing, not "run the search first".
// The threshold sits at Q3, so that execution 0 of seed 1 is anomalous.
func TestCorrelateTooFewGolden(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "profile", "--system", "pingpong", "--profile-runs", "20", "--seed", "1", "--iqr-factor", "0.001", "--min-slowdown", "0", "--min-excess", "0", "--out", "$DIR", "--progress", "never")
	if out, errs, st := run(t, dir, "search", "--triage-runs", "0", "--out", "$DIR", "--progress", "never"); st != 1 {
		t.Fatalf("search: status %d\n%s%s", st, out, errs)
	}
	stdout, stderr, status := run(t, dir, "correlate", "--out", "$DIR", "--progress", "never")
	if status != 2 {
		t.Errorf("status %d, want 2", status)
	}
	golden(t, "correlate-too-few.stdout", stdout)
	golden(t, "correlate-too-few.stderr", stderr)
}

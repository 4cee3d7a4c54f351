package cli_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/randtree"
)

// childEnv, set to a JSON list of arguments, makes the test binary run
// macepc with them instead of the tests: the subprocess that
// TestKilledRunsRerunToTheSameFiles kills.
const childEnv = "MACEPC_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if js := os.Getenv(childEnv); js != "" {
		var args []string
		if err := json.Unmarshal([]byte(js), &args); err != nil {
			panic(err)
		}
		os.Args[0] = "macepc" // the name the reports of the in-process reruns print
		os.Exit(cli.Main(args, os.Stdout, os.Stderr, randtree.System()))
	}
	os.Exit(m.Run())
}

// startChild runs macepc with args in a subprocess.
func startChild(t *testing.T, args []string) *exec.Cmd {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// temporaries lists the temporary files of atomic writes under dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// kill -9 at random moments of `macepc run`, once or twice in a row into
// one directory; a run into it again (resuming by default, with --resume,
// or afresh with --resume=false) writes exactly the files of an
// uninterrupted run and leaves no temporary file.
func TestKilledRunsRerunToTheSameFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs macepc in subprocesses")
	}
	args := []string{"run", "--edd", fixedEDD, "--profile-runs", "20", "--max-runs", "300", "--triage-runs", "15", "--walks", "4", "--confirm-walks", "4", "--progress", "never"}
	// The uninterrupted run, in a subprocess as the killed ones: how long
	// it takes (the kills fall within it) and its files.
	ref := t.TempDir()
	began := time.Now()
	if err := startChild(t, append(args, "--out", ref)).Wait(); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("reference run: %v, want exit status 1 (an anomaly)", err)
	}
	took := time.Since(began)
	t.Logf("uninterrupted run: %v", took)
	want := readDir(t, ref)
	rng := rand.New(rand.NewPCG(21, 9))
	incomplete := 0 // trials whose kills left a directory unlike the uninterrupted run's
	for trial := range 4 {
		dir := t.TempDir()
		var kills []time.Duration
		for range 1 + trial%2 {
			at := time.Duration(rng.Int64N(int64(took) * 4 / 5)) // within the run, whatever the load
			cmd := startChild(t, append(args, "--out", dir))
			time.Sleep(at)
			cmd.Process.Kill() // SIGKILL
			cmd.Wait()
			kills = append(kills, at)
		}
		before := readDir(t, dir)
		tmp := temporaries(t, dir)
		if len(before) != len(want) || len(tmp) > 0 {
			incomplete++
		}
		t.Logf("trial %d: killed after %s: %d files (%d temporary), the run writes %d", trial, fmtDurations(kills), len(before), len(tmp), len(want))
		rerun := append(args, "--out", dir) // resumes by default what a kill left
		switch trial % 3 {
		case 1:
			rerun = append(rerun, "--resume")
		case 2:
			rerun = append(rerun, "--resume=false")
		}
		if out, errs, st := runRT(t, context.Background(), rerun...); st != cli.ExitFinding {
			t.Fatalf("trial %d (killed at %v): rerun status %d\n%s%s", trial, kills, st, out, errs)
		}
		got := readDir(t, dir)
		sameFiles(t, "after kills at "+fmtDurations(kills), want, got)
		if tmp := temporaries(t, dir); len(tmp) > 0 {
			t.Errorf("trial %d: temporaries left: %v", trial, tmp)
		}
	}
	if incomplete == 0 {
		t.Errorf("no kill interrupted the run: the test checked nothing")
	}
}

func fmtDurations(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Round(time.Millisecond).String())
	}
	return strings.Join(s, " ")
}

package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// A liveness run with crash-stops and lasting partitions records both
// budgets in its path files and report, and the dead path file replays to
// its dead.log byte for byte; without them, neither the path file nor the
// report's weights mention them (the files of before).
func TestLivenessFaultPathFiles(t *testing.T) {
	sys := randtree.System()
	sc, err := sys.Scenario(randtree.VariantFixed, 3)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDir(t.TempDir())
	search := liveness.Config{Scenario: sc, Seed: 1, Jobs: 2, Depth: 3, MaxDepth: 3, DMax: 300, Crashes: 1, Partitions: 1}
	res, err := Liveness(context.Background(), LivenessConfig{Dir: d, System: sys, Variant: randtree.VariantFixed, Search: search})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Report()
	if st := rep.Settings; st.Crashes != 1 || st.Partitions != 1 || st.Weights["crash"] != 1 || st.Weights["partition"] != 1 {
		t.Fatalf("settings %+v", st)
	}
	if rep.Violation == nil {
		t.Fatal("no violation: RandTree's all-joined cannot hold after a crash-stop")
	}
	pf, err := ReadLivenessPath(d.File(results.FileDeadPath))
	if err != nil {
		t.Fatal(err)
	}
	if pf.Crashes != 1 || pf.Partitions != 1 {
		t.Fatalf("the path file records crashes %d, partitions %d", pf.Crashes, pf.Partitions)
	}
	r, err := ReplayLiveness(timedsim.Registry{sys}, d.File(results.FileDeadPath))
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(d.File(results.FileDeadLog))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Lines, "\n") + "\n"; got != string(log) || !r.Finding {
		t.Fatalf("the replay (finding %v) differs from dead.log:\n%s\n---\n%s", r.Finding, got, log)
	}

	plain := NewDir(t.TempDir())
	search.Crashes, search.Partitions = 0, 0
	search.Scenario, err = sys.Scenario(randtree.VariantLivenessBug, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Liveness(context.Background(), LivenessConfig{Dir: plain, System: sys, Variant: randtree.VariantLivenessBug, Search: search})
	if err != nil || res.Report().Violation == nil {
		t.Fatalf("RT3: %v, violation %+v", err, res.Report().Violation)
	}
	for _, f := range []string{results.FileDeadPath, results.FileLiveness} {
		b, err := os.ReadFile(plain.File(f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "crash") || strings.Contains(string(b), "partition") {
			t.Errorf("%s mentions crash-stops or partitions:\n%s", f, b)
		}
	}
}

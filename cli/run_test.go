package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// runRT invokes the CLI with the RandTree system.
func runRT(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	status = cli.Run(ctx, args, &o, &e, randtree.System())
	return o.String(), e.String(), status
}

// trainedEDD trains RandTree's EDD once into a temporary directory. Real
// handler times differ from run to run; every test that compares outputs
// then reuses the same file with --edd.
func trainedEDD(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, errs, st := runRT(t, context.Background(), "train", "--out", dir, "--train-runs", "5", "--progress", "never"); st != 0 {
		t.Fatalf("train: status %d\n%s%s", st, out, errs)
	}
	return filepath.Join(dir, "edd.json")
}

// readDir returns every file of dir by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.IsDir() { // plots/ of the report
			for n, b := range readDir(t, filepath.Join(dir, e.Name())) {
				out[e.Name()+"/"+n] = b
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameFiles(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	for name, x := range a {
		if y, ok := b[name]; !ok {
			t.Errorf("%s: %s missing", what, name)
		} else if !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs", what, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("%s: extra file %s", what, name)
		}
	}
}

type summary struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Seed    uint64 `json:"seed"`
	Profile struct {
		Runs      int     `json:"runs"`
		Q1        float64 `json:"q1"`
		Median    float64 `json:"median"`
		Q3        float64 `json:"q3"`
		Threshold float64 `json:"threshold"`
	} `json:"profile"`
	Anomaly *struct {
		Found         bool    `json:"found"`
		Index         int     `json:"index"`
		ExecutionTime float64 `json:"execution_time"`
		Steps         int     `json:"steps"`
		Path          string  `json:"path"`
		Class         int     `json:"class"`
		Anomalies     int     `json:"anomalies"`
		Classes       []struct {
			Rank       int      `json:"rank"`
			Executions int      `json:"executions"`
			Signature  []string `json:"signature"`
		} `json:"classes"`
	} `json:"anomaly"`
	Divergence *struct {
		Step                 int     `json:"step"`
		TotalSteps           int     `json:"total_steps"`
		IgnorableFraction    float64 `json:"ignorable_fraction"`
		SimilarExecutionTime float64 `json:"similar_execution_time"`
		SimilarPath          string  `json:"similar_path"`
		Limit                float64 `json:"limit"`
		Why                  string  `json:"why"`
	} `json:"divergence"`
	Correlations []struct {
		Label string   `json:"label"`
		R     *float64 `json:"r"`
	} `json:"correlations"`
}

func readSummary(t *testing.T, dir string) *summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Format != "macepc-summary" || s.Version != results.SummaryVersion {
		t.Fatalf("summary format %q version %d", s.Format, s.Version)
	}
	return &s
}

// TestRunPipelineRandTree is the MacePC pipeline (paper 004 §3.2) on
// RandTree buggy: an anomaly is found, its divergence point lies strictly
// inside the execution, the similar fast execution shares the prefix and
// is within Q3, and the correlations point at the join race (Figure 4's
// "deliver JoinReply → Remove") while the periodic recovery traffic is
// marked as length-driven. The results are the same with 1 and 2 workers,
// and running the phases one by one gives the same files as `run`.
func TestRunPipelineRandTree(t *testing.T) {
	// Committed durations: the test pins one run's answers (how stable they
	// are across fresh trainings is measured in bench/PAPER.md).
	const eddFile = "../systems/randtree/testdata/edd.json"
	ctx := context.Background()
	dirs := map[string]string{}
	outs := map[string]string{}
	for _, jobs := range []string{"1", "2"} {
		dir := t.TempDir()
		out, errs, st := runRT(t, ctx, "run", "--system", "randtree", "--variant", "buggy", "--seed", "1", "--edd", eddFile, "--jobs", jobs, "--out", dir, "--progress", "never")
		if st != cli.ExitFinding {
			t.Fatalf("run --jobs %s: status %d, want %d\n%s%s", jobs, st, cli.ExitFinding, out, errs)
		}
		dirs[jobs], outs[jobs] = dir, strings.ReplaceAll(out, dir, "$DIR")
	}
	sameFiles(t, "--jobs 1 vs 2", readDir(t, dirs["1"]), readDir(t, dirs["2"]))
	if outs["1"] != outs["2"] {
		t.Errorf("stdout differs between --jobs 1 and 2:\n%s\n---\n%s", outs["1"], outs["2"])
	}

	dir := dirs["1"]
	s := readSummary(t, dir)
	if s.Anomaly == nil || !s.Anomaly.Found || s.Anomaly.ExecutionTime <= s.Profile.Threshold {
		t.Fatalf("no anomaly above the threshold: %+v", s.Anomaly)
	}
	d := s.Divergence
	if d == nil || d.Step <= 0 || d.Step >= d.TotalSteps || d.TotalSteps != s.Anomaly.Steps {
		t.Fatalf("divergence %+v not strictly inside the %d-step execution", d, s.Anomaly.Steps)
	}
	if d.SimilarExecutionTime > d.Limit || d.Limit > s.Profile.Threshold || d.Limit < s.Profile.Q3 {
		t.Errorf("similar fast execution %v s, recovery limit %v s (Q3 %v s, threshold %v s)", d.SimilarExecutionTime, d.Limit, s.Profile.Q3, s.Profile.Threshold)
	}
	if !strings.HasPrefix(d.Why, fmt.Sprintf("step %d decides the outcome: replaying the %d steps before it, walk ", d.Step, d.Step)) || !strings.Contains(d.Why, "none of 100 walks did") {
		t.Errorf("why: %q", d.Why)
	}
	// One class of anomalies, the race's: the analysed one.
	an := s.Anomaly
	if an.Class != 1 || len(an.Classes) != 1 || an.Classes[0].Executions != an.Anomalies || !slices.Contains(an.Classes[0].Signature, "+deliver JoinReply → Remove") {
		t.Errorf("classes: %+v", an)
	}
	if want := float64(d.Step) / float64(d.TotalSteps); d.IgnorableFraction < want-1e-6 || d.IgnorableFraction > want+1e-6 {
		t.Errorf("ignorable fraction %v, want %v", d.IgnorableFraction, want)
	}
	top := map[string]bool{}
	for _, c := range s.Correlations[:min(3, len(s.Correlations))] {
		top[c.Label] = true
	}
	if !top["deliver JoinReply → Remove"] {
		t.Errorf("the join race is not among the top 3 correlations: %+v", s.Correlations)
	}
	// The periodic recovery timer and its probes are marked length-only
	// in correlation.json, while the race is not.
	var corr struct {
		Labels []struct {
			Label      string `json:"label"`
			LengthOnly bool   `json:"length_only"`
		} `json:"labels"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "correlation.json"))
	if err != nil || json.Unmarshal(b, &corr) != nil {
		t.Fatalf("correlation.json: %v", err)
	}
	flags := map[string]bool{}
	for _, c := range corr.Labels {
		flags[c.Label] = c.LengthOnly
	}
	if !flags["timer recovery"] || !flags["deliver Probe"] || flags["deliver JoinReply → Remove"] {
		t.Errorf("length-only flags: timer recovery %v, deliver Probe %v, deliver JoinReply → Remove %v",
			flags["timer recovery"], flags["deliver Probe"], flags["deliver JoinReply → Remove"])
	}

	// The similar execution replays the anomaly's first Step steps: its
	// event log agrees with the anomalous one up to there and not beyond.
	anom, sim := replayEvents(t, filepath.Join(dir, s.Anomaly.Path)), replayEvents(t, filepath.Join(dir, d.SimilarPath))
	for i := 0; i < d.Step; i++ {
		if anom[i].line != sim[i].line {
			t.Fatalf("step %d differs before the divergence point:\n%s\n%s", i, anom[i].line, sim[i].line)
		}
	}
	// The divergence point is a step of the join race.
	events := make([]timedsim.TimedEvent, len(anom))
	for i, e := range anom {
		events[i] = e.ev
	}
	if race := randtree.FindRace(events).All(); !slices.Contains(race, d.Step) {
		t.Errorf("divergence step %d (%s) is not a step of the join race %v", d.Step, anom[d.Step].line, race)
	}
	diff, err := os.ReadFile(filepath.Join(dir, "divergence.diff"))
	if err != nil || !bytes.Contains(diff, []byte("divergence point")) {
		t.Errorf("divergence.diff: %v\n%s", err, diff)
	}

	// The phases one at a time write the same files.
	step := t.TempDir()
	for _, args := range [][]string{
		{"profile", "--system", "randtree", "--variant", "buggy", "--seed", "1", "--edd", eddFile},
		{"search", "--jobs", "2"},
		{"diverge"},
		{"correlate"},
	} {
		out, errs, st := runRT(t, ctx, append(args, "--out", step, "--progress", "never")...)
		if st == cli.ExitError {
			t.Fatalf("%s: status %d\n%s%s", args[0], st, out, errs)
		}
	}
	sameFiles(t, "phase by phase vs run", readDir(t, dirs["1"]), readDir(t, step))
}

// replayedEvent is an event of a replay and its line without times (a
// prefix of steps must be the same events on the same nodes).
type replayedEvent struct {
	line string
	ev   timedsim.TimedEvent
}

// replayEvents replays a path file and returns its events.
func replayEvents(t *testing.T, path string) []replayedEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := timedsim.ReadPathFile(f)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := randtree.System().Scenario(pf.Variant, pf.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := pf.Options()
	if err != nil {
		t.Fatal(err)
	}
	opts.Record = true
	sim, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(pf.Path())
	var out []replayedEvent
	for _, e := range r.Events {
		out = append(out, replayedEvent{e.Node.String() + " " + e.Label + " " + e.From.String(), e})
	}
	return out
}

// TestRunFixedFindsNothing: the fixed RandTree has no anomaly in 500
// executions (exit 0), and no divergence or correlation is attempted.
func TestRunFixedFindsNothing(t *testing.T) {
	eddFile := trainedEDD(t)
	dir := t.TempDir()
	out, errs, st := runRT(t, context.Background(), "run", "--variant", "fixed", "--seed", "1", "--edd", eddFile, "--max-runs", "500", "--out", dir, "--progress", "never")
	if st != cli.ExitOK {
		t.Fatalf("status %d, want 0\n%s%s", st, out, errs)
	}
	s := readSummary(t, dir)
	if s.Anomaly == nil || s.Anomaly.Found || s.Divergence != nil {
		t.Fatalf("summary %+v", s)
	}
	if !strings.Contains(out, "no anomaly in 500 executions") {
		t.Errorf("stdout does not say so:\n%s", out)
	}
	for _, f := range []string{"divergence.json", "correlation.json", "anomaly.path.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written without an anomaly", f)
		}
	}
}

// TestRunTrainsEDD: without --edd, `run` trains edd.json from real handler
// times (phase 1a) and the profile uses it for every label it runs.
func TestRunTrainsEDD(t *testing.T) {
	dir := t.TempDir()
	out, errs, st := runRT(t, context.Background(), "run", "--variant", "fixed", "--train-runs", "3", "--profile-runs", "20", "--max-runs", "20", "--out", dir, "--progress", "never")
	if st != cli.ExitOK {
		t.Fatalf("status %d\n%s%s", st, out, errs)
	}
	f, err := os.Open(filepath.Join(dir, "edd.json"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := edd.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"init", "app start", "timer start", "deliver Join", "deliver JoinReply"} {
		if _, src, _ := set.Lookup(l); src != edd.Trained {
			t.Errorf("label %q is %v, not trained", l, src)
		}
	}
	var prof struct {
		Coverage edd.Coverage `json:"coverage"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "profile.json"))
	if err := json.Unmarshal(b, &prof); err != nil {
		t.Fatal(err)
	}
	if len(prof.Coverage.Trained) < 5 || len(prof.Coverage.Seed) != 0 {
		t.Errorf("coverage %+v", prof.Coverage)
	}
	if !strings.Contains(out, "phase 1a train: 3 executions") || !strings.Contains(out, "labels trained") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestRunInterrupted: Ctrl-C during the anomaly search leaves the files of
// the completed phases intact and valid, keeps the executions explored so
// far, and exits 2.
func TestRunInterrupted(t *testing.T) {
	eddFile := trainedEDD(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // cancel once the profile is written: the search is running
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(dir, "profile.json")); err == nil {
				time.Sleep(20 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	out, errs, st := runRT(t, ctx, "run", "--variant", "fixed", "--edd", eddFile, "--max-runs", "100000000", "--out", dir, "--progress", "never")
	if st != cli.ExitError || !strings.Contains(errs, "interrupted in phase search") {
		t.Fatalf("status %d\n%s%s", st, out, errs)
	}
	// profile.json is complete: a later search can start from it.
	out2, errs2, st2 := runRT(t, context.Background(), "search", "--out", dir, "--max-runs", "5", "--progress", "never")
	if st2 != cli.ExitOK {
		t.Fatalf("search after the interrupt: status %d\n%s%s", st2, out2, errs2)
	}
	var search struct {
		Complete bool `json:"complete"`
		Explored int  `json:"explored"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "search.json"))
	if err := json.Unmarshal(b, &search); err != nil || !search.Complete || search.Explored != 5 {
		t.Fatalf("search.json %s (%v)", b, err)
	}
}

// TestRunInterruptedSearchKeepsExecutions: the executions explored before
// Ctrl-C are written, and search.json says the search is incomplete.
func TestRunInterruptedSearchKeepsExecutions(t *testing.T) {
	eddFile := trainedEDD(t)
	dir := t.TempDir()
	if out, errs, st := runRT(t, context.Background(), "profile", "--variant", "fixed", "--edd", eddFile, "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("profile: %d\n%s%s", st, out, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	_, errs, st := runRT(t, ctx, "search", "--max-runs", "100000000", "--out", dir, "--progress", "never")
	if st != cli.ExitError || !strings.Contains(errs, "interrupted") {
		t.Fatalf("status %d: %s", st, errs)
	}
	var search struct {
		Complete bool `json:"complete"`
		Explored int  `json:"explored"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "search.json"))
	if err != nil || json.Unmarshal(b, &search) != nil || search.Complete || search.Explored < 1 {
		t.Fatalf("search.json %s (%v)", b, err)
	}
	lines, err := os.ReadFile(filepath.Join(dir, "search-executions.jsonl"))
	if err != nil || bytes.Count(lines, []byte("\n")) != search.Explored {
		t.Fatalf("search-executions.jsonl has %d lines, search.json says %d explored (%v)", bytes.Count(lines, []byte("\n")), search.Explored, err)
	}
	// Divergence refuses to start from an interrupted search.
	if _, errs, st := runRT(t, context.Background(), "diverge", "--out", dir); st != cli.ExitError || !strings.Contains(errs, "interrupted before finding an anomaly") {
		t.Errorf("diverge after an interrupted search: %d %s", st, errs)
	}
}

// TestRunProgress: --progress never draws nothing, always runs the same
// (to a writer that is not a terminal it prints plain lines every few
// seconds, TestLineProgress), and a bad mode is an error.
func TestRunProgress(t *testing.T) {
	eddFile := trainedEDD(t)
	for _, mode := range []string{"always", "never"} {
		dir := t.TempDir()
		_, errs, st := runRT(t, context.Background(), "profile", "--variant", "fixed", "--edd", eddFile, "--out", dir, "--progress", mode)
		if st != 0 {
			t.Fatalf("status %d: %s", st, errs)
		}
		if mode == "never" && strings.Contains(errs, "progress") {
			t.Errorf("--progress never: stderr %q", errs)
		}
	}
	_, errs, st := runRT(t, context.Background(), "profile", "--out", t.TempDir(), "--progress", "sometimes")
	if st != cli.ExitError || !strings.Contains(errs, "--progress must be auto, always or never") {
		t.Errorf("bad mode: %d %s", st, errs)
	}
}

// A phase command that cannot run leaves the directory as it was: diverge
// without an anomaly keeps summary.json; and `run --edd` with another
// file drops this directory's older training rather than mixing it in.
func TestPhaseFailuresKeepTheDirectoryConsistent(t *testing.T) {
	eddFile := trainedEDD(t)
	dir := t.TempDir()
	ctx := context.Background()
	if _, errs, st := runRT(t, ctx, "run", "--variant", "fixed", "--edd", eddFile, "--max-runs", "20", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("run: %d %s", st, errs)
	}
	before := readDir(t, dir)
	if _, errs, st := runRT(t, ctx, "diverge", "--out", dir); st != cli.ExitError || !strings.Contains(errs, "found no anomaly") {
		t.Fatalf("diverge: %d %s", st, errs)
	}
	sameFiles(t, "after a refused diverge", before, readDir(t, dir))

	if _, errs, st := runRT(t, ctx, "train", "--train-runs", "2", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("train: %d %s", st, errs)
	}
	if _, errs, st := runRT(t, ctx, "run", "--variant", "fixed", "--edd", eddFile, "--max-runs", "20", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("run: %d %s", st, errs)
	}
	for _, f := range []string{"train.json", "edd.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s of an older training left next to a profile made with --edd %s", f, eddFile)
		}
	}
	// With --edd naming the directory's own edd.json, the training stays.
	if _, errs, st := runRT(t, ctx, "train", "--train-runs", "2", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("train: %d %s", st, errs)
	}
	if _, errs, st := runRT(t, ctx, "run", "--variant", "fixed", "--edd", filepath.Join(dir, "edd.json"), "--max-runs", "20", "--out", dir, "--progress", "never"); st != 0 {
		t.Fatalf("run: %d %s", st, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "train.json")); err != nil {
		t.Errorf("the directory's own training was removed: %v", err)
	}
	// Later phases do not create a mistyped --out.
	if _, errs, st := runRT(t, ctx, "search", "--out", filepath.Join(dir, "typo")); st != cli.ExitError || !strings.Contains(errs, "is not a results directory") {
		t.Errorf("search --out typo: %d %s", st, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
		t.Errorf("search created its mistyped --out")
	}
}

// A profile that already holds executions above its threshold says so on
// stdout; it warns (in profile.json, so in the summary and the report, and
// on stderr) only when they are not rare: RandTree buggy with the
// committed durations sends about 2% of its executions to the 10 s
// recovery, as rare as an anomaly (before, the warning fired at 1 of
// 50), while a threshold at Q3 leaves a quarter above it.
func TestProfileWarnsOfSlowExecutions(t *testing.T) {
	profile := func(dir string, args ...string) (above int, warnings []string, out, errs string) {
		t.Helper()
		out, errs, st := runRT(t, context.Background(), append([]string{"profile", "--edd", "../systems/randtree/testdata/edd.json", "--profile-runs", "200", "--seed", "1", "--out", dir, "--progress", "never"}, args...)...)
		if st != 0 {
			t.Fatalf("profile: status %d\n%s%s", st, out, errs)
		}
		var pf struct {
			Threshold  int64    `json:"threshold_ns"`
			Warnings   []string `json:"warnings"`
			Executions []struct {
				ExecTimeNS int64 `json:"exec_time_ns"`
			} `json:"executions"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "profile.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &pf); err != nil {
			t.Fatal(err)
		}
		for _, e := range pf.Executions {
			if e.ExecTimeNS > pf.Threshold {
				above++
			}
		}
		return above, pf.Warnings, out, errs
	}
	above, warnings, out, errs := profile(t.TempDir())
	if above == 0 || above > 10 {
		t.Fatalf("%d of 200 profile executions above the threshold: the test needs a few (change the seed)", above)
	}
	if want := fmt.Sprintf("  %d of 200 profile executions already above the threshold (the slowest ", above); !strings.Contains(out, want) || !strings.Contains(out, "too few to say that more than 5% of executions are this slow") {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if s := strings.Join(warnings, "\n") + errs; strings.Contains(s, "above the threshold") {
		t.Errorf("a warning for %d of 200: %s", above, s)
	}

	above, warnings, out, errs = profile(t.TempDir(), "--iqr-factor", "0.001", "--min-slowdown", "0", "--min-excess", "0")
	want := fmt.Sprintf("%d of 200 profile executions (%.0f%%) are already above the threshold", above, 100*float64(above)/200)
	if above < 30 || !strings.Contains(strings.Join(warnings, "\n"), want) || !strings.Contains(errs, "macepc: warning: "+want) || !strings.Contains(out, "not rare: see the warning") {
		t.Errorf("threshold at Q3: %d above; warnings %q, stderr %q, want %q", above, warnings, errs, want)
	}
}

// A developer's --cpuprofile writes a CPU profile of the whole run (a
// gzipped protocol buffer, go tool pprof's input), and run's help does
// not list it: it is not an option of the analysis.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	out, errs, st := runRT(t, context.Background(), "run", "--system", "randtree", "--seed", "1", "--edd", "../systems/randtree/testdata/edd.json", "--out", dir, "--progress", "never", "--cpuprofile", prof)
	if st != cli.ExitFinding {
		t.Fatalf("run --cpuprofile: status %d\n%s%s", st, out, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("%s is not a gzipped profile (%d bytes)", prof, len(b))
	}
	help, _, _ := runRT(t, context.Background(), "run", "--help")
	if strings.Contains(help, "cpuprofile") {
		t.Errorf("run --help lists the hidden --cpuprofile:\n%s", help)
	}
	if _, errs, st := runRT(t, context.Background(), "run", "--out", t.TempDir(), "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.pprof")); st != cli.ExitError || !strings.Contains(errs, "--cpuprofile") {
		t.Errorf("an unwritable --cpuprofile: status %d, stderr %q", st, errs)
	}
}

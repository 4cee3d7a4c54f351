package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/systems/pingpong"
)

// The flags' defaults are the pipeline's: a flag whose default differs
// from pipeline.DefaultConfig's field fails here.
func TestFlagDefaultsAreThePipelines(t *testing.T) {
	f := newPipelineFlags("pingpong")
	fs := pflag.NewFlagSet("all", pflag.ContinueOnError)
	withSim(f, fs)
	f.registerOut(fs)
	for _, reg := range runPhaseFlags() {
		reg(f, fs)
	}
	f.registerClass(fs)
	def := pipeline.DefaultConfig(nil, nil)
	ftoa := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	minExcess := "auto"
	if !def.Thresholds.AutoMinExcess {
		minExcess = "not auto"
	}
	for flag, want := range map[string]string{
		"seed":          strconv.FormatUint(def.Seed, 10),
		"jobs":          strconv.Itoa(def.Jobs),
		"train-runs":    strconv.Itoa(def.TrainRuns),
		"profile-runs":  strconv.Itoa(def.ProfileRuns),
		"iqr-factor":    ftoa(def.Thresholds.IQRFactor),
		"min-slowdown":  ftoa(def.Thresholds.MinSlowdown),
		"min-excess":    minExcess,
		"max-runs":      strconv.Itoa(def.MaxRuns),
		"triage-runs":   strconv.Itoa(def.TriageRuns),
		"alpha":         ftoa(def.Verdict.Alpha),
		"fence-only":    strconv.FormatBool(def.Verdict.FenceOnly),
		"walks":         strconv.Itoa(def.Walks),
		"confirm-walks": strconv.Itoa(def.Confirm),
	} {
		if fl := fs.Lookup(flag); fl == nil || fl.DefValue != want {
			t.Errorf("--%s: default %v, pipeline.DefaultConfig's %s", flag, fl, want)
		}
	}
	// The defaults pass the pipeline's checks of every command.
	for _, name := range append([]string{"run"}, strings.Fields(phaseNames(" "))...) {
		if err := f.check(name); err != nil {
			t.Errorf("%s with the defaults: %v", name, err)
		}
	}
}

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
		{[]string{"run", "--alpha", "0", "--out", dir}, "hello: --alpha must be in (0, 1), got 0\n"},
		{[]string{"run", "--jobs", "-1", "--out", dir}, "hello: --jobs must be at least 0, got -1\n"},
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

// --train-runs 0 in run is pipeline.Config's "no training" (the rule is
// the library's, which the command line used to contradict): the run
// profiles with the seed distributions and says so.
func TestRunWithoutTraining(t *testing.T) {
	dir := t.TempDir()
	var o, e bytes.Buffer
	st := runEnv(context.Background(), "macepc", os.Getenv, []string{"run", "--system", "pingpong", "--train-runs", "0", "--profile-runs", "10", "--max-runs", "20", "--triage-runs", "5",
		"--out", dir, "--progress", "never"}, &o, &e, pingpong.System())
	if st == ExitError || !strings.Contains(o.String(), "phase 1a train: skipped, using "+seedEDDSource) || !strings.Contains(e.String(), "--train-runs 0 and no --edd") {
		t.Fatalf("status %d\n%s%s", st, o.String(), e.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "edd.json")); err == nil {
		t.Error("a run without training wrote edd.json")
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile.json"))
	if err != nil || !strings.Contains(string(b), `"edd_source": "`+seedEDDSource+`"`) {
		t.Errorf("profile.json's edd_source (%v):\n%.400s", err, b)
	}
}

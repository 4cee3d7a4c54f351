package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/timedsim"
)

// StabilityConfig is the repeatability workload: the
// whole pipeline, training included, run Runs times on one system with
// the same flags. Training measures real handler times, so every run gets
// other event durations; the workload shows which parts of the answer
// survive that.
type StabilityConfig struct {
	System PaperSystem
	// BugSteps, if set, returns the steps of a recorded anomalous
	// execution that belong to the bug (randtree.FindRace, say); without
	// it the table says "–" for "the divergence point is a step of the
	// bug".
	BugSteps func([]timedsim.TimedEvent) []int
	Variant  string
	Seed     int
	Runs     int
	// Jobs is passed to every command (0: all cores).
	Jobs int
	// Work is the directory the runs write into (one subdirectory per
	// run); it must exist.
	Work string
}

// StabilityRun is what one fresh run answered.
type StabilityRun struct {
	Found      bool
	FirstIndex int
	ExecTime   float64
	Classes    int
	Signature  []string // class 1's
	DivStep    int
	DivEvent   string // "label on node [from node]"
	OnBug      int    // 1: a step of the bug, 0: not, -1: unknown (no BugSteps)
	Top        []string
	BugInTop3  bool
}

// RunStability runs the workload; progress, if not nil, gets a line per
// run.
func RunStability(ctx context.Context, cfg StabilityConfig, progress io.Writer) ([]StabilityRun, error) {
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("bench: stability: runs must be positive, got %d", cfg.Runs)
	}
	if progress == nil {
		progress = io.Discard
	}
	name := cfg.System.System.Name
	c := &commands{ctx: ctx, what: "stability", work: cfg.Work, jobs: cfg.Jobs, systems: timedsim.Registry{cfg.System.System}}
	var out []StabilityRun
	for i := range cfg.Runs {
		dir := fmt.Sprintf("%s-%s-%d", name, cfg.Variant, i)
		t, err := c.target(cfg.System.System, cfg.Variant, 0, "", timedsim.StopTime)
		if err != nil {
			return out, err
		}
		res, _, err := c.run(dir, line("run", "--system", name, "--variant", cfg.Variant, "--seed", itoa(cfg.Seed)), t, "", uint64(cfg.Seed), 0)
		if err != nil {
			return out, err
		}
		r, err := readStability(res, filepath.Join(cfg.Work, dir), cfg)
		if err != nil {
			return out, err
		}
		fmt.Fprintf(progress, "%s run %d: divergence %s, on the bug %d, top %v\n", name, i+1, r.DivEvent, r.OnBug, r.Top)
		out = append(out, *r)
	}
	return out, nil
}

// readStability is what one run answered (dir: its results directory).
func readStability(res *pipeline.Result, dir string, cfg StabilityConfig) (*StabilityRun, error) {
	r := &StabilityRun{DivStep: -1, OnBug: -1}
	a := res.Summary.Anomaly
	if a == nil || !a.Found {
		return r, nil
	}
	r.Found, r.FirstIndex, r.ExecTime, r.Classes = true, a.FirstIndex, a.ExecutionTime, len(a.Classes)
	if res.Search != nil && len(res.Search.Classes) > 0 {
		r.Signature = res.Search.Classes[0].Signature
	}
	pr, err := readRun(res)
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %s: %w", dir, err)
	}
	for _, c := range pr.Top {
		r.Top = append(r.Top, c.Label)
	}
	r.BugInTop3 = bugRank(pr.Top, cfg.System.BugLabels) > 0 && bugRank(pr.Top, cfg.System.BugLabels) <= 3
	d := res.Divergence
	if d == nil || d.Step < 0 || d.Event == nil {
		return r, nil
	}
	r.DivStep = d.Step
	r.DivEvent = d.Event.Label + " on " + d.Event.Node
	if d.Event.From != "" {
		r.DivEvent += " from " + d.Event.From
	}
	if cfg.BugSteps != nil {
		events, err := replayRecorded(filepath.Join(dir, a.Path), cfg.System.System)
		if err != nil {
			return nil, err
		}
		r.OnBug = 0
		if slices.Contains(cfg.BugSteps(events), d.Step) {
			r.OnBug = 1
		}
	}
	return r, nil
}

// replayRecorded replays a path file with the event log on.
func replayRecorded(path string, sys timedsim.System) ([]timedsim.TimedEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %w", err)
	}
	defer f.Close()
	pf, err := timedsim.ReadPathFile(f)
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %s: %w", path, err)
	}
	sc, err := sys.Scenario(pf.Variant, pf.Nodes)
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %w", err)
	}
	opts, err := pf.Options()
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %w", err)
	}
	opts.Record = true
	sim, err := timedsim.NewSimulator(sc, opts)
	if err != nil {
		return nil, fmt.Errorf("bench: stability: %w", err)
	}
	return sim.Run(pf.Path()).Events, nil
}

// WriteStability writes one system's runs as a Markdown table with the
// rates under it.
func WriteStability(w io.Writer, cfg StabilityConfig, runs []StabilityRun, wall time.Duration) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	name := cfg.System.System.Name
	p("#### %s\n\n", cfg.System.Key())
	p("Command, %d times: `macepc run --system %s --variant %s --seed %d` (training included, %s in all)\n\n", cfg.Runs, name, cfg.Variant, cfg.Seed, wall.Round(time.Second))
	p("| run | first anomaly | classes | class 1 set apart by | divergence event | a step of the bug | top 3 correlations | bug label in top 3 |\n")
	p("|---:|---:|---:|---|---|:---:|---|:---:|\n")
	found, onBug, known, top3 := 0, 0, 0, 0
	for i, r := range runs {
		if !r.Found {
			p("| %d | none | | | | | | |\n", i+1)
			continue
		}
		found++
		bug := "–"
		switch r.OnBug {
		case 1:
			bug, onBug, known = "yes", onBug+1, known+1
		case 0:
			bug, known = "**no**", known+1
		}
		t3 := "**no**"
		if r.BugInTop3 {
			t3, top3 = "yes", top3+1
		}
		sig := strings.Join(r.Signature, ", ")
		if sig == "" {
			sig = "nothing"
		}
		p("| %d | %d | %d | %s | %s | %s | %s | %s |\n", i+1, r.FirstIndex, r.Classes, mdEscape(sig), mdEscape(r.DivEvent), bug,
			mdEscape(strings.Join(r.Top[:min(3, len(r.Top))], "; ")), t3)
	}
	p("\nAn anomaly in %d of %d runs", found, len(runs))
	if known > 0 {
		p("; the divergence event a step of the bug in %d of %d", onBug, known)
	}
	p("; a bug label (%s) in the top 3 in %d of %d.\n\n", mdEscape(strings.Join(cfg.System.BugLabels, ", ")), top3, found)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// PaperSystem is one bundled system as the paper comparison runs it: one
// buggy variant, and the fixed variants to compare it with.
type PaperSystem struct {
	System timedsim.System
	// Name names the rows in the tables; "" means the system's name. Two
	// entries for one system (Chord's buggy and join-race variants) need
	// two names.
	Name string
	// Variant is the variant with the bug; "" means "buggy".
	Variant string
	// Fixed are the variants compared with it: nil means {"fixed"}, an
	// empty slice none.
	Fixed []string
	// EDD is the committed event-duration file the runs use (trained from
	// the handlers' real times once), so that the figures repeat exactly.
	EDD string
	// Period is the recovery or maintenance timer that repairs the bug;
	// slow executions are expected near its multiples.
	Period time.Duration
	// Timer names that timer, for the text.
	Timer string
	// StartLabel, if set, is the label of the event with which a node
	// starts (its boot): the tables then give, for the fixed variant, the
	// time from the last node's start to the end of each execution.
	StartLabel string
	// BugLabels are the correlation labels that name the bug's events; a
	// label matches if it equals one or, ending in "*", has it as prefix,
	// or, starting with "*", has it as suffix.
	BugLabels []string
}

// PaperSystems are the bundled systems with the paper's bugs, as
// bench/PAPER.md runs them (from the repository's root). Their BugLabels
// are the one definition of "a label of the bug" that the tables use, each
// taken from the system's doc.go:
//
//   - RandTree (MacePC Figure 1): the joining node accepts a joiner and
//     makes itself a root ("deliver Join → NewRoot", its children told),
//     and rejects the JoinReply of the node it was joining ("deliver
//     JoinReply → Remove", Figure 4);
//   - Pastry: adding a node to a full leaf set evicts a member without
//     telling it: any event whose handler evicted ("… → evicted: leaf set
//     full", dht.NoteEvicted);
//   - Bamboo: the boundary bug forgets a pushed-out member (an eviction,
//     "… → evicted: leaf set full"), the adjacency bug leaves concurrent
//     neighbours uninformed of each other ("deliver Inform" and its
//     composites);
//   - Chord (the paper's kind of bug, MacePC §5.4): a Notify whose handler
//     drops the old predecessor or ignores the notifier without telling it
//     ("deliver Notify → lost: old predecessor not told", "deliver Notify
//     → ignored: predecessor nearer"), repaired by stabilize;
//   - Chord's join race (our join-race variant, not the paper's kind of
//     Chord bug): the joining node's own JoinReply, dropped because it
//     made itself a ring ("deliver JoinReply → dropped: not joining",
//     chord.NoteNotJoining).
//
// Pastry is compared with both its fixed variants, the paper's fix and
// ours on top of it (fixed-gap); Chord's join race with none, since its
// fixed variant is the buggy entry's.
func PaperSystems() []PaperSystem {
	evicted := "*" + timedsim.CompositeArrow + pastry.NoteEvicted
	return []PaperSystem{
		{System: randtree.System(), EDD: "systems/randtree/testdata/edd.json", Period: randtree.DefaultRecoveryPeriod, Timer: "recovery",
			BugLabels: []string{"deliver JoinReply → Remove", "deliver Join → NewRoot"}},
		{System: pastry.System(), EDD: "systems/pastry/testdata/edd.json", Period: pastry.DefaultLeafPeriod, Timer: "leafset", StartLabel: "timer start",
			Fixed: []string{pastry.VariantFixed, pastry.VariantFixedGap}, BugLabels: []string{evicted}},
		{System: bamboo.System(), EDD: "systems/bamboo/testdata/edd.json", Period: bamboo.DefaultLeafPeriod, Timer: "leafset", StartLabel: "timer start",
			BugLabels: []string{evicted, "deliver Inform*"}},
		{System: chord.System(), EDD: "systems/chord/testdata/edd.json", Period: chord.DefaultStabilize, Timer: "stabilize",
			BugLabels: []string{timedsim.CompositeLabel("deliver Notify", chord.NoteDropped), timedsim.CompositeLabel("deliver Notify", chord.NoteNotNearer)}},
		{System: chord.System(), Name: "chord/join-race", Variant: chord.VariantJoinRace, Fixed: []string{},
			EDD: "systems/chord/testdata/edd.json", Period: chord.DefaultRecovery, Timer: "recovery",
			BugLabels: []string{timedsim.CompositeLabel("deliver JoinReply", chord.NoteNotJoining)}},
	}
}

// Key is the entry's name in the tables (Name, or the system's name).
func (s PaperSystem) Key() string {
	if s.Name != "" {
		return s.Name
	}
	return s.System.Name
}

// BugVariant is the variant with the bug (Variant, or "buggy").
func (s PaperSystem) BugVariant() string {
	if s.Variant != "" {
		return s.Variant
	}
	return "buggy"
}

// FixedVariants are the variants compared with the buggy one.
func (s PaperSystem) FixedVariants() []string {
	if s.Fixed == nil {
		return []string{"fixed"}
	}
	return s.Fixed
}

// PaperConfig is the paper-comparison workload: for each system, the
// execution-time distribution of the buggy and fixed variants over Runs
// executions, the whole pipeline (macepc run) on the buggy variant for
// seeds 1 … Seeds, and a MaxRuns-execution search on the fixed variant for
// the same seeds.
type PaperConfig struct {
	Systems []PaperSystem
	Runs    int
	Seeds   int
	MaxRuns int
	// Jobs is passed to every command (0: all cores); it changes no figure.
	Jobs int
	// Work is the directory the commands write their results into (one
	// subdirectory per command); it must exist.
	Work string
}

// PaperResult holds what RunPaper measured.
type PaperResult struct {
	Dists []PaperDist
	// AvgClock are the same distributions with the paper's definition of
	// execution time, the average node clock (--exec-time avg-clock).
	AvgClock []PaperDist
	Runs     []PaperRun
	Fixed    []PaperRun
}

// PaperDist is the execution-time distribution of one variant.
type PaperDist struct {
	System, Variant string
	Command         string
	Times           []time.Duration // sorted
	Q1, Median, Q3  time.Duration
	Threshold       time.Duration
	Period          time.Duration
	// AfterStart (sorted) is, per execution, the time from the last
	// node's start (PaperSystem.StartLabel) to the execution's end; nil
	// without a StartLabel or for the buggy variant.
	AfterStart []time.Duration
}

// PaperRun is one macepc run (the pipeline) and what its summary says.
type PaperRun struct {
	System, Variant string
	Seed            int
	Command         string
	Wall            time.Duration
	Found           bool
	Explored        int // executions the search ran to its first anomaly (its index + 1)
	Classes         int // classes of anomalies the search found
	ExecTime        float64
	Steps           int
	DivStep         int
	IgnorableFrac   float64
	DivExecutions   int
	DivEvent        string
	SimilarTime     float64
	Q3              float64
	Limit           float64 // the walks' recovery limit
	Top             []PaperCorr
	BugRank         int // 1-based rank of the first bug label among Top; 0: not there
}

// Strong reports whether the first bug label among Top correlates at
// least anomaly.MinR: by |WindowR|, what the ranking compares first, or
// |R| when WindowR is undefined. A label can be in the top 3 of a handful
// of weak correlations by chance.
func (r *PaperRun) Strong() bool {
	if r.BugRank < 1 {
		return false
	}
	c := r.Top[r.BugRank-1]
	x := c.R
	if c.WindowR != nil {
		x = c.WindowR
	}
	return x != nil && math.Abs(*x) >= anomaly.MinR
}

// PaperCorr is one ranked correlation of a summary.
type PaperCorr struct {
	Label      string
	R, WindowR *float64
}

// RunPaper runs the workload. progress, if not nil, gets one line per
// command.
func RunPaper(ctx context.Context, cfg PaperConfig, progress io.Writer) (*PaperResult, error) {
	if cfg.Runs < 1 || cfg.Seeds < 1 || cfg.MaxRuns < 1 {
		return nil, fmt.Errorf("bench: paper: runs, seeds and max-runs must be positive (%d, %d, %d)", cfg.Runs, cfg.Seeds, cfg.MaxRuns)
	}
	if progress == nil {
		progress = io.Discard
	}
	systems := make([]timedsim.System, len(cfg.Systems))
	for i, s := range cfg.Systems {
		systems[i] = s.System
		if _, err := os.Stat(s.EDD); err != nil {
			return nil, fmt.Errorf("bench: paper: %s's event durations: %w (run from the repository's root)", s.System.Name, err)
		}
	}
	res := &PaperResult{}
	// The paper's tables use the paper's verdict (--fence-only): every
	// execution above the threshold is an anomaly.
	c := &commands{ctx: ctx, what: "paper", work: cfg.Work, jobs: cfg.Jobs, systems: systems, progress: progress, fenceOnly: true}
	for _, s := range cfg.Systems {
		name, key := s.System.Name, s.Key()
		for _, v := range append([]string{s.BugVariant()}, s.FixedVariants()...) {
			for _, et := range []timedsim.ExecTimeDef{timedsim.StopTime, timedsim.AvgClock} {
				dir := fmt.Sprintf("dist-%s-%s", name, v)
				args := []string{"profile", "--system", name, "--variant", v, "--seed", "1", "--profile-runs", itoa(cfg.Runs), "--edd", s.EDD}
				if et == timedsim.AvgClock {
					dir += "-avg-clock"
					args = append(args, "--exec-time", "avg-clock")
				}
				t, err := c.target(s.System, v, 0, s.EDD, et)
				if err != nil {
					return nil, err
				}
				pf, err := c.profile(dir, line(args...), t, s.EDD, 1, cfg.Runs)
				if err != nil {
					return nil, err
				}
				d, err := readDist(pf)
				if err != nil {
					return nil, err
				}
				d.System, d.Variant, d.Command, d.Period = key, v, line(args...), s.Period
				if et == timedsim.AvgClock {
					res.AvgClock = append(res.AvgClock, *d)
					continue
				}
				if s.StartLabel != "" && v != s.BugVariant() {
					if d.AfterStart, err = afterLastStart(ctx, s, v, cfg.Runs); err != nil {
						return nil, err
					}
				}
				res.Dists = append(res.Dists, *d)
			}
		}
	}
	for _, s := range cfg.Systems {
		name, key, bug := s.System.Name, s.Key(), s.BugVariant()
		for seed := 1; seed <= cfg.Seeds; seed++ {
			for _, v := range append([]string{bug}, s.FixedVariants()...) {
				dir := fmt.Sprintf("run-%s-%s-%d", name, v, seed)
				args := []string{"run", "--system", name, "--variant", v, "--seed", itoa(seed), "--edd", s.EDD, "--fence-only"}
				maxRuns := 0 // the default
				if v != bug {
					args, maxRuns = append(args, "--max-runs", itoa(cfg.MaxRuns)), cfg.MaxRuns
				}
				t, err := c.target(s.System, v, 0, s.EDD, timedsim.StopTime)
				if err != nil {
					return nil, err
				}
				run, wall, err := c.run(dir, line(args...), t, s.EDD, uint64(seed), maxRuns)
				if err != nil {
					return nil, err
				}
				r, err := readRun(run)
				if err != nil {
					return nil, fmt.Errorf("bench: paper: %s: %w", line(args...), err)
				}
				r.System, r.Variant, r.Seed, r.Command, r.Wall = key, v, seed, line(args...), wall
				r.BugRank = bugRank(r.Top, s.BugLabels)
				if v == bug {
					res.Runs = append(res.Runs, *r)
				} else {
					res.Fixed = append(res.Fixed, *r)
				}
			}
		}
	}
	return res, nil
}

func bugRank(top []PaperCorr, bug []string) int {
	for i, c := range top {
		for _, b := range bug {
			if MatchLabel(b, c.Label) {
				return i + 1
			}
		}
	}
	return 0
}

// MatchLabel reports whether label matches pattern (PaperSystem.BugLabels):
// equal, or with the prefix before a final "*", or the suffix after a
// leading one.
func MatchLabel(pattern, label string) bool {
	switch {
	case strings.HasSuffix(pattern, "*"):
		return strings.HasPrefix(label, pattern[:len(pattern)-1])
	case strings.HasPrefix(pattern, "*"):
		return strings.HasSuffix(label, pattern[1:])
	}
	return label == pattern
}

// afterLastStart replays the profile's executions (seed 1, as the
// profile command ran them) with the event log on and returns, sorted,
// the time from the last event labelled s.StartLabel to each execution's
// end.
func afterLastStart(ctx context.Context, s PaperSystem, variant string, runs int) ([]time.Duration, error) {
	set, err := edd.ReadFile(s.EDD)
	if err != nil {
		return nil, fmt.Errorf("bench: paper: %w", err)
	}
	sc, err := s.System.Scenario(variant, 0)
	if err != nil {
		return nil, fmt.Errorf("bench: paper: %w", err)
	}
	ex := &timedsim.Explorer{Scenario: sc, Options: timedsim.Options{EDD: set, Record: true}}
	var out []time.Duration
	_, _, err = ex.Run(ctx, timedsim.Work{N: runs, Path: timedsim.Seeded(1), Each: func(_ int, r *timedsim.Result) bool {
		var last time.Duration
		for _, e := range r.Events {
			if e.Label == s.StartLabel {
				last = max(last, e.Start)
			}
		}
		out = append(out, r.ExecTime-last)
		return true
	}})
	if err != nil {
		return nil, fmt.Errorf("bench: paper: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// readDist is a profile's distribution.
func readDist(pf *results.Profile) (*PaperDist, error) {
	d := &PaperDist{Q1: time.Duration(pf.Q1NS), Median: time.Duration(pf.MedianNS), Q3: time.Duration(pf.Q3NS), Threshold: time.Duration(pf.Threshold)}
	d.Times = slices.Sorted(slices.Values(pf.ExecTimes()))
	if len(d.Times) == 0 {
		return nil, fmt.Errorf("bench: paper: a profile without executions")
	}
	return d, nil
}

// readRun reads what a run answered: its summary and, for the full
// ranking, its correlations.
func readRun(res *pipeline.Result) (*PaperRun, error) {
	s := res.Summary
	r := &PaperRun{Q3: s.Profile.Q3}
	if a := s.Anomaly; a != nil {
		r.Found, r.Explored, r.ExecTime, r.Steps, r.Classes = a.Found, a.Explored, a.ExecutionTime, a.Steps, len(a.Classes)
		if a.Found {
			r.Explored = a.FirstIndex + 1
		}
	}
	if d := s.Divergence; d != nil {
		r.DivStep, r.IgnorableFrac, r.DivEvent, r.SimilarTime, r.DivExecutions, r.Limit = d.Step, d.IgnorableFraction, d.Event, d.SimilarExecutionTime, d.Executions, d.Limit
	}
	if !r.Found {
		return r, nil
	}
	if res.Correlation == nil {
		return nil, fmt.Errorf("an anomaly without a correlation")
	}
	for _, l := range res.Correlation.Labels { // the summary's choice: ranked, not length-only, r defined
		if !l.LengthOnly && l.SameAs == "" && l.R != nil {
			r.Top = append(r.Top, PaperCorr{Label: l.Label, R: l.R, WindowR: l.WindowR})
		}
	}
	return r, nil
}

// Slow returns the executions above the distribution's threshold.
func (d *PaperDist) Slow() []time.Duration {
	i, _ := slices.BinarySearch(d.Times, d.Threshold+1)
	return d.Times[i:]
}

// Quantile is gonum's stat.Quantile with LinInterp (the profile's
// estimator) of the execution times.
func (d *PaperDist) Quantile(p float64) time.Duration { return quantile(d.Times, p) }

// quantile is gonum's stat.Quantile with LinInterp of sorted durations.
func quantile(sorted []time.Duration, p float64) time.Duration {
	x := make([]float64, len(sorted))
	for i, t := range sorted {
		x[i] = float64(t)
	}
	return time.Duration(math.Round(stat.Quantile(p, stat.LinInterp, x, nil)))
}

// Multiples groups the slow executions by the nearest multiple k of the
// period (k ≥ 1), and returns the counts by k and the largest distance of
// a slow execution from its multiple.
func (d *PaperDist) Multiples() (map[int]int, time.Duration) {
	by := map[int]int{}
	var far time.Duration
	for _, t := range d.Slow() {
		k := max(1, int(math.Round(float64(t)/float64(d.Period))))
		by[k]++
		far = max(far, (t - time.Duration(k)*d.Period).Abs())
	}
	return by, far
}

// WritePaperTables renders the measured tables as Markdown, a function of
// the configuration alone (so that a rerun can be diffed against
// bench/PAPER.md); WriteWallClock adds the wall-clock times.
func WritePaperTables(w io.Writer, cfg PaperConfig, res *PaperResult) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	secs := func(t time.Duration) string { return strconv.FormatFloat(t.Seconds(), 'f', 3, 64) }
	pct := func(n, of int) string { return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%" }

	p("### Execution-time distributions (%d executions each)\n\n", cfg.Runs)
	p("Times in simulated seconds, from time 0 (the join spread included). *Slow* is above the variant's own anomaly threshold max(Q3 + 1.5·IQR, 1.5·median).\n\n")
	p("| system | variant | min | Q1 | median | Q3 | p99 | max | threshold | slow |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, d := range res.Dists {
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d (%s) |\n", d.System, d.Variant, secs(d.Times[0]), secs(d.Q1), secs(d.Median),
			secs(d.Q3), secs(d.Quantile(0.99)), secs(d.Times[len(d.Times)-1]), secs(d.Threshold), len(d.Slow()), pct(len(d.Slow()), len(d.Times)))
	}
	p("\nCommands (`--out DIR` omitted):\n\n```sh\n")
	for _, d := range res.Dists {
		p("%s\n", d.Command)
	}
	p("```\n\n")

	if len(res.AvgClock) > 0 {
		p("### The paper's execution time: the average node clock\n\n")
		p("MacePC defines an execution's time as the average of the node clocks when the stopping condition first holds (`--exec-time avg-clock`); macepc's default is the simulated time at which it first holds (`stop-time`, the tables above). The same executions by the paper's definition:\n\n")
		p("| system | variant | median | Q3 | p99 | max | threshold | slow | median stop-time |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for i, d := range res.AvgClock {
			p("| %s | %s | %s | %s | %s | %s | %s | %d (%s) | %s |\n", d.System, d.Variant, secs(d.Median), secs(d.Q3), secs(d.Quantile(0.99)),
				secs(d.Times[len(d.Times)-1]), secs(d.Threshold), len(d.Slow()), pct(len(d.Slow()), len(d.Times)), secs(res.Dists[i].Median))
		}
		p("\nCommands: the profile commands above with `--exec-time avg-clock`.\n\n")
	}

	after := false
	for _, d := range res.Dists {
		after = after || d.AfterStart != nil
	}
	if after {
		p("### Fixed variants: time from the last node's start to the end\n\n")
		p("Per execution, the execution time minus the start time of the last node to start (the same %d executions as above, replayed with the event log on).\n\n", cfg.Runs)
		p("| system | variant | median | p99 | max |\n|---|---|---:|---:|---:|\n")
		for _, d := range res.Dists {
			if a := d.AfterStart; a != nil {
				p("| %s | %s | %s s | %s s | %s s |\n", d.System, d.Variant, secs(quantile(a, 0.5)), secs(quantile(a, 0.99)), secs(a[len(a)-1]))
			}
		}
		p("\n")
	}

	p("### Slow executions by multiple of the repairing timer's period\n\n")
	p("Each slow execution is counted at the nearest multiple k·P (k ≥ 1) of the period P of the timer that repairs the bug; *farthest* is the largest distance of a slow execution from its multiple.\n\n")
	p("| system | variant | timer P | slow | by multiple | farthest |\n|---|---|---|---:|---|---:|\n")
	for _, d := range res.Dists {
		by, far := d.Multiples()
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(by)) {
			parts = append(parts, fmt.Sprintf("%d×%s: %d", k, fmtPeriod(d.Period), by[k]))
		}
		timer := ""
		for _, s := range cfg.Systems {
			if s.Key() == d.System {
				timer = fmt.Sprintf("%s, %s", s.Timer, fmtPeriod(s.Period))
			}
		}
		if len(parts) == 0 {
			p("| %s | %s | %s | 0 | – | – |\n", d.System, d.Variant, timer)
			continue
		}
		p("| %s | %s | %s | %d | %s | %s s |\n", d.System, d.Variant, timer, len(d.Slow()), strings.Join(parts, ", "), secs(far))
	}
	p("\n")

	for _, s := range cfg.Systems {
		name := s.Key()
		p("### %s %s: the pipeline (`macepc run`), seeds 1–%d\n\n", s.System.Name, s.BugVariant(), cfg.Seeds)
		p("*Search* is the number of executions phase 2 ran up to and including its first anomaly (after the profile's 50, macepc run's default; it then explores 200 more to class the anomalies); *classes* is how many classes it found; *anomaly* is the analysed one, the most severe class's representative; *ignorable* is the fraction of the anomaly's steps before the divergence point; *walks* is the number of executions phase 3a ran, confirmation walks cut short at the recovery limit included; *similar* is the similar fast execution's time (≤ the recovery limit). *Bug label* is the rank of the first label naming the bug's events (%s) among the ranked correlations.\n\n",
			"`"+strings.Join(s.BugLabels, "`, `")+"`")
		p("| seed | search | classes | anomaly | steps | divergence point | ignorable | walks | similar (limit) | top correlation: r (within Q1) | bug label |\n|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|\n")
		var found, strong int
		var explored, ignorable []float64
		var ranks []int
		for _, r := range res.Runs {
			if r.System != name {
				continue
			}
			if !r.Found {
				p("| %d | none in %d | | | | | | | | | |\n", r.Seed, r.Explored)
				continue
			}
			found++
			explored = append(explored, float64(r.Explored))
			ignorable = append(ignorable, r.IgnorableFrac)
			ranks = append(ranks, r.BugRank)
			if r.BugRank >= 1 && r.BugRank <= 3 && r.Strong() {
				strong++
			}
			top := "–"
			if len(r.Top) > 0 {
				top = fmt.Sprintf("`%s`: %s (%s)", r.Top[0].Label, fmtR(r.Top[0].R), fmtR(r.Top[0].WindowR))
			}
			rank := "–"
			if r.BugRank > 0 {
				rank = strconv.Itoa(r.BugRank)
			}
			p("| %d | %d | %d | %.3f s | %d | %s | %.1f%% | %d | %.3f s (%.3f) | %s | %s |\n", r.Seed, r.Explored, r.Classes, r.ExecTime, r.Steps,
				shortEvent(r.DivEvent), 100*r.IgnorableFrac, r.DivExecutions, r.SimilarTime, r.Limit, top, rank)
		}
		p("\nFound in %d of %d seeds", found, cfg.Seeds)
		if found > 0 {
			top1 := 0
			top3 := 0
			for _, k := range ranks {
				if k == 1 {
					top1++
				}
				if k >= 1 && k <= 3 {
					top3++
				}
			}
			p("; search executions median %s (%s–%s); ignorable median %.1f%% (%.1f–%.1f%%); a bug label ranks first in %d and in the top 3 in %d of %d (with |r| ≥ %g in %d)",
				fmtG(median(explored)), fmtG(slices.Min(explored)), fmtG(slices.Max(explored)),
				100*median(ignorable), 100*slices.Min(ignorable), 100*slices.Max(ignorable), top1, top3, found, anomaly.MinR, strong)
		}
		p(".\n\nCommand: `macepc run --system %s --variant %s --seed S --edd %s`\n\n", s.System.Name, s.BugVariant(), s.EDD)
	}

	writeBugLabels(w, cfg, res)

	p("### Fixed variants: %d-execution searches, seeds 1–%d\n\n", cfg.MaxRuns, cfg.Seeds)
	p("| system | variant | seeds with an anomaly | anomalies (seed: search execution, time) |\n|---|---|---:|---|\n")
	for _, s := range cfg.Systems {
		for _, v := range s.FixedVariants() {
			var hits []string
			for _, r := range res.Fixed {
				if r.System == s.Key() && r.Variant == v && r.Found {
					hits = append(hits, fmt.Sprintf("%d: %d, %.3f s", r.Seed, r.Explored, r.ExecTime))
				}
			}
			list := "–"
			if len(hits) > 0 {
				list = strings.Join(hits, "; ")
			}
			p("| %s | %s | %d of %d | %s |\n", s.Key(), v, len(hits), cfg.Seeds, list)
		}
	}
	p("\nCommand: `macepc run --system S --variant V --seed S --edd EDD --max-runs %d`\n\n", cfg.MaxRuns)

}

// writeBugLabels renders, per system, how often a label of the bug
// (PaperSystem.BugLabels) is among the top correlations of the buggy
// pipeline runs.
func writeBugLabels(w io.Writer, cfg PaperConfig, res *PaperResult) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### A label of the bug among the top correlations, seeds 1–%d\n\n", cfg.Seeds)
	p("Over the pipeline runs of the buggy variants above: the ranked labels are those the summary lists (not length-only, not the same as their event label, r defined), ranked by |r within Q1|, then |r|; *first* and *top 3* count the runs in which a label of the bug ranks there; *strong* those of the top 3 where it correlates at least %g (|r within Q1|, or |r| where that is undefined); *ranked* is the median number of ranked labels (a top 3 of few labels is easy to enter); *timers in the top 3* counts the runs with a timer's label (plain or composite) among the top 3, periodic or not, and names them.\n\n", anomaly.MinR)
	p("| system | labels of the bug | runs | first | top 3 | strong | ranked | timers in the top 3 |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, s := range cfg.Systems {
		var runs, first, top3, strong, timers int
		var ranked []float64
		timerLabels := map[string]bool{}
		for _, r := range res.Runs {
			if r.System != s.Key() || !r.Found {
				continue
			}
			runs++
			ranked = append(ranked, float64(len(r.Top)))
			hasTimer := false
			for _, c := range r.Top[:min(3, len(r.Top))] {
				if edd.Kind(c.Label) == "timer" {
					hasTimer, timerLabels[c.Label] = true, true
				}
			}
			if hasTimer {
				timers++
			}
			if r.BugRank == 1 {
				first++
			}
			if r.BugRank >= 1 && r.BugRank <= 3 {
				top3++
				if r.Strong() {
					strong++
				}
			}
		}
		med := "–"
		if runs > 0 {
			med = fmtG(median(ranked))
		}
		tl := fmt.Sprint(timers)
		if timers > 0 {
			tl += " (`" + strings.Join(slices.Sorted(maps.Keys(timerLabels)), "`, `") + "`)"
		}
		p("| %s | %s | %d | %d | %d | %d | %s | %s |\n", s.Key(), "`"+strings.Join(s.BugLabels, "`, `")+"`", runs, first, top3, strong, med, tl)
	}
	p("\nCommand: `go run ./bench/cmd/paper` (the pipeline runs of the tables above).\n\n")
}

// WriteWallClock renders the wall-clock time of the buggy pipeline runs per
// system, which varies from run to run and machine to machine.
func WriteWallClock(w io.Writer, cfg PaperConfig, res *PaperResult) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### Wall-clock time of the whole pipeline (buggy, this machine)\n\n")
	p("| system | median | min | max |\n|---|---:|---:|---:|\n")
	for _, s := range cfg.Systems {
		var w []float64
		for _, r := range res.Runs {
			if r.System == s.Key() {
				w = append(w, r.Wall.Seconds())
			}
		}
		if len(w) > 0 {
			p("| %s | %.2f s | %.2f s | %.2f s |\n", s.Key(), median(w), slices.Min(w), slices.Max(w))
		}
	}
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// shortEvent renders "step 68: deliver Join on n1 from n0 at 0.037488712s"
// as "68: deliver Join on n1 from n0".
func shortEvent(e string) string {
	e = strings.TrimPrefix(e, "step ")
	if i := strings.LastIndex(e, " at "); i > 0 {
		e = e[:i]
	}
	return e
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func fmtR(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*r, 'f', 3, 64)
}

func fmtPeriod(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + " s" }

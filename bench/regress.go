package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// RegressCase is one row of the regression gate's rates: Pairs seed
// pairs, each a baseline profiled with `macepc profile` (variant Base,
// seed k) and the gate run on it with `macepc regress` (variant Current,
// seed k+SeedOffset, what-if Scale), for k = 1 … Pairs.
type RegressCase struct {
	// Name is the row's title ("buggy vs fixed").
	Name   string
	System timedsim.System
	// Nodes is the node count (0: the system's default).
	Nodes int
	// Base and Current are the variants of the baseline and of the code
	// under test; the same variant measures false positives.
	Base, Current string
	// EDD is the event-duration file both sides use.
	EDD string
	// Scale are what-if factors (label=factor) of the current side.
	Scale []string
	// Runs is the number of executions of each side.
	Runs int
	// Pairs is the number of seed pairs.
	Pairs int
	// SeedOffset separates the current side's seed from the baseline's.
	SeedOffset uint64
}

// RegressConfig is the workload of RunRegressRates.
type RegressConfig struct {
	Cases []RegressCase
	// Jobs is passed to every command (0: all cores); it changes no figure.
	Jobs int
	// Work is the directory the commands write into; it must exist.
	// Baselines are shared by the cases that profile the same thing.
	Work string
}

// RegressRate is what one case measured.
type RegressRate struct {
	Case RegressCase
	// Regressions is the number of pairs on which the gate failed (exit 1).
	Regressions int
	// ByTest counts, per test name of regress.json, the pairs on which
	// that test was a reason (a pair may count under several).
	ByTest map[string]int
	// Slow is, per pair, the number of current executions of the first
	// batch (as many as the baseline's) above the baseline's threshold,
	// and SlowBase the baseline's.
	Slow, SlowBase []int
	// Runs is, per pair, the number of current executions the gate ran
	// to its verdict, SlowAll how many of them were above the threshold
	// and Allowed the slow rate it tested against; Undecided counts the
	// pairs that reached the run cap without a verdict.
	Runs, SlowAll []int
	Allowed       []float64
	Undecided     int
	// Commands are the first pair's commands, as a reader would type them.
	Commands []string
}

// RunRegressRates runs every case. progress, if not nil, gets one line
// per case.
func RunRegressRates(ctx context.Context, cfg RegressConfig, progress io.Writer) ([]RegressRate, error) {
	if progress == nil {
		progress = io.Discard
	}
	var systems []timedsim.System
	for _, c := range cfg.Cases {
		if c.Runs < 1 || c.Pairs < 1 {
			return nil, fmt.Errorf("bench: regress: %s: runs and pairs must be positive (%d, %d)", c.Name, c.Runs, c.Pairs)
		}
		if _, err := os.Stat(c.EDD); err != nil {
			return nil, fmt.Errorf("bench: regress: %s's event durations: %w (run from the repository's root)", c.System.Name, err)
		}
		if !slices.ContainsFunc(systems, func(s timedsim.System) bool { return s.Name == c.System.Name }) {
			systems = append(systems, c.System)
		}
	}
	c := &commands{ctx: ctx, what: "regress", work: cfg.Work, jobs: cfg.Jobs, systems: systems}
	var out []RegressRate
	for _, rc := range cfg.Cases {
		r := RegressRate{Case: rc, ByTest: map[string]int{}}
		nodes := ""
		if rc.Nodes > 0 {
			nodes = " --nodes " + strconv.Itoa(rc.Nodes)
		}
		for k := uint64(1); k <= uint64(rc.Pairs); k++ {
			base := fmt.Sprintf("base-%s-%s-n%d-%s-r%d-s%d", rc.System.Name, rc.Base, rc.Nodes, strings.NewReplacer("/", "_", ".", "_").Replace(filepath.Clean(rc.EDD)), rc.Runs, k)
			baseDir := filepath.Join(cfg.Work, base)
			profile := fmt.Sprintf("macepc profile --system %s --variant %s%s --edd %s --profile-runs %d --seed %d", rc.System.Name, rc.Base, nodes, rc.EDD, rc.Runs, k)
			if _, err := os.Stat(filepath.Join(baseDir, results.FileProfile)); err != nil {
				t, err := c.target(rc.System, rc.Base, rc.Nodes, rc.EDD, timedsim.StopTime)
				if err != nil {
					return nil, err
				}
				if _, err := c.profile(base, profile, t, rc.EDD, k, rc.Runs); err != nil {
					return nil, err
				}
			}
			seed := k + rc.SeedOffset
			cmd := "macepc regress --baseline BASE --variant " + rc.Current + " --seed " + strconv.FormatUint(seed, 10)
			for _, s := range rc.Scale {
				cmd += " --scale '" + s + "'"
			}
			current := pipeline.NewDir(filepath.Join(cfg.Work, "current"))
			reg, err := pipeline.StartRegress(pipeline.RegressConfig{Env: pipeline.Env{Dir: current, Systems: systems, Jobs: cfg.Jobs},
				Baseline: baseDir, Variant: &rc.Current, Seed: &seed, Scale: rc.Scale, Compare: anomaly.DefaultCompareConfig()})
			if err != nil {
				return nil, fmt.Errorf("bench: regress: %s pair %d: %w", rc.Name, k, err)
			}
			res, err := reg.Run(ctx)
			if err != nil {
				return nil, fmt.Errorf("bench: regress: %s pair %d: %w", rc.Name, k, err)
			}
			c.report(current)
			rf := res.Regress
			if rf.Regression {
				r.Regressions++
			}
			for _, t := range rf.Tests {
				if t.Rejected {
					r.ByTest[t.Name]++
				}
			}
			r.Slow, r.SlowBase = append(r.Slow, rf.Outliers.Current), append(r.SlowBase, rf.Outliers.Base)
			r.Runs, r.SlowAll, r.Allowed = append(r.Runs, rf.SlowRate.Runs), append(r.SlowAll, rf.SlowRate.Slow), append(r.Allowed, rf.SlowRate.Allowed)
			if rf.SlowRate.Decision == anomaly.SlowRateUndecided {
				r.Undecided++
			}
			if k == 1 {
				r.Commands = []string{profile + " --out BASE", cmd}
			}
		}
		fmt.Fprintf(progress, "%s: %d of %d pairs\n", rc.Name, r.Regressions, rc.Pairs)
		out = append(out, r)
	}
	return out, nil
}

// WriteRegressRates renders the rates as a Markdown table: per row the
// pairs the gate failed and by which test, the current executions it ran
// to its verdict (median and range), the pairs it left undecided at the
// run cap, the slow rate it allowed (median), and the share of all
// current executions above the baseline's threshold. Its last column
// counts the pairs with at least one of the first batch's executions
// above it: how often a zero-tolerance rule (fail on any anomalous
// execution of a profile as large as the baseline's) would fail.
func WriteRegressRates(w io.Writer, rates []RegressRate) {
	fmt.Fprintf(w, "| system | baseline → current | EDD | baseline runs | regressions | by test | runs to the verdict: median (range) | undecided | allowed slow rate (median) | slow, all current runs | first batch: pairs with any slow |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rates {
		c := r.Case
		what := c.Base + " → " + c.Current
		if len(c.Scale) > 0 {
			what += " scaled " + strings.Join(c.Scale, ", ")
		}
		var by []string
		for _, name := range slices.Sorted(maps.Keys(r.ByTest)) {
			by = append(by, fmt.Sprintf("%s %d", name, r.ByTest[name]))
		}
		anyAbove := 0
		for _, k := range r.Slow {
			if k > 0 {
				anyAbove++
			}
		}
		runs := slices.Sorted(slices.Values(r.Runs))
		allowed := slices.Sorted(slices.Values(r.Allowed))
		slow, all := 0, 0
		for i := range r.Runs {
			slow, all = slow+r.SlowAll[i], all+r.Runs[i]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | **%d of %d** | %s | %d (%d–%d) | %d | %.3g%% | %d of %d (%.3g%%) | %d |\n", c.System.Name, what, c.EDD, c.Runs, r.Regressions, c.Pairs,
			strings.Join(by, ", "), runs[(len(runs)-1)/2], runs[0], runs[len(runs)-1], r.Undecided, 100*allowed[(len(allowed)-1)/2], slow, all, 100*float64(slow)/float64(max(all, 1)), anyAbove)
	}
}

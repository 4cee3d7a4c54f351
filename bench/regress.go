package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/macepc/macepc/cli"
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
	// Slow is, per pair, the number of current executions above the
	// baseline's threshold, and SlowBase the baseline's.
	Slow, SlowBase []int
	// Commands are the first pair's commands, as a reader would type them.
	Commands []string
}

// regressJSON is the part of regress.json the rates read.
type regressJSON struct {
	Regression bool `json:"regression"`
	Outliers   struct {
		Base    int `json:"base"`
		Current int `json:"current"`
	} `json:"outliers"`
	Tests []struct {
		Name     string `json:"name"`
		Rejected bool   `json:"rejected"`
	} `json:"tests"`
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
	jobs := strconv.Itoa(cfg.Jobs)
	macepc := func(dir string, args ...string) (int, error) {
		args = append(args, "--jobs", jobs, "--progress", "never", "--out", filepath.Join(cfg.Work, dir))
		var stderr strings.Builder
		st := cli.Run(ctx, args, io.Discard, &stderr, systems...)
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if st == cli.ExitError {
			return st, fmt.Errorf("bench: regress: macepc %s: %s", strings.Join(args, " "), strings.TrimSpace(stderr.String()))
		}
		return st, nil
	}
	var out []RegressRate
	for _, c := range cfg.Cases {
		r := RegressRate{Case: c, ByTest: map[string]int{}}
		nodes := ""
		if c.Nodes > 0 {
			nodes = " --nodes " + strconv.Itoa(c.Nodes)
		}
		for k := uint64(1); k <= uint64(c.Pairs); k++ {
			base := fmt.Sprintf("base-%s-%s-n%d-%s-r%d-s%d", c.System.Name, c.Base, c.Nodes, strings.TrimSuffix(filepath.Base(c.EDD), ".json"), c.Runs, k)
			baseDir := filepath.Join(cfg.Work, base)
			profile := fmt.Sprintf("macepc profile --system %s --variant %s%s --edd %s --profile-runs %d --seed %d", c.System.Name, c.Base, nodes, c.EDD, c.Runs, k)
			if _, err := os.Stat(filepath.Join(baseDir, "profile.json")); err != nil {
				if _, err := macepc(base, strings.Fields(profile)[1:]...); err != nil {
					return nil, err
				}
			}
			regress := []string{"regress", "--baseline", baseDir, "--variant", c.Current, "--seed", strconv.FormatUint(k+c.SeedOffset, 10)}
			for _, s := range c.Scale {
				regress = append(regress, "--scale", s)
			}
			st, err := macepc("current", regress...)
			if err != nil {
				return nil, err
			}
			var rj regressJSON
			b, err := os.ReadFile(filepath.Join(cfg.Work, "current", "regress.json"))
			if err == nil {
				err = json.Unmarshal(b, &rj)
			}
			if err != nil {
				return nil, fmt.Errorf("bench: regress: %s pair %d: %w", c.Name, k, err)
			}
			if rj.Regression != (st == cli.ExitFinding) {
				return nil, fmt.Errorf("bench: regress: %s pair %d: exit status %d but regression %v", c.Name, k, st, rj.Regression)
			}
			if rj.Regression {
				r.Regressions++
			}
			for _, t := range rj.Tests {
				if t.Rejected {
					r.ByTest[t.Name]++
				}
			}
			r.Slow, r.SlowBase = append(r.Slow, rj.Outliers.Current), append(r.SlowBase, rj.Outliers.Base)
			if k == 1 {
				cmd := "macepc regress --baseline BASE --variant " + c.Current + " --seed " + strconv.FormatUint(k+c.SeedOffset, 10)
				for _, s := range c.Scale {
					cmd += " --scale '" + s + "'"
				}
				r.Commands = []string{profile + " --out BASE", cmd}
			}
		}
		fmt.Fprintf(progress, "%s: %d of %d pairs\n", c.Name, r.Regressions, c.Pairs)
		out = append(out, r)
	}
	return out, nil
}

// WriteRegressRates renders the rates as a Markdown table. Its last
// column counts the pairs with at least one current execution above the
// baseline's threshold: how often a zero-tolerance rule (fail on any
// anomalous execution, as package macepctest does besides the regression
// test) would fail.
func WriteRegressRates(w io.Writer, rates []RegressRate) {
	fmt.Fprintf(w, "| system | baseline → current | EDD | runs | regressions | by test | current runs above the baseline's threshold: median (range) | pairs with any |\n|---|---|---|---|---|---|---|---|\n")
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
		slow := slices.Sorted(slices.Values(r.Slow))
		anyAbove := 0
		for _, k := range slow {
			if k > 0 {
				anyAbove++
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | **%d of %d** | %s | %d (%d–%d) | %d |\n", c.System.Name, what, c.EDD, c.Runs, r.Regressions, c.Pairs,
			strings.Join(by, ", "), slow[(len(slow)-1)/2], slow[0], slow[len(slow)-1], anyAbove)
	}
}

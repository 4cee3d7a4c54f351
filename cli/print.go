package cli

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// fmtS is a number of seconds in the unit that fits it (package
// internal/units): "747.3 ms".
func fmtS(v float64) string { return units.Seconds(v) }

// fmtNS is fmtS for nanoseconds.
func fmtNS(ns int64) string { return units.Duration(time.Duration(ns)) }

// unfinishedNote says how many executions did not finish and how, for
// the line that prints their times, which count an unfinished execution at
// the scenario's timeout: " (50 of 50 executions timed out: an unfinished
// execution counts at the scenario's timeout)"; "" when all finished.
func unfinishedNote(outcomes []timedsim.Outcome) string {
	counts := map[timedsim.Outcome]int{}
	n := 0
	for _, o := range outcomes {
		if o != timedsim.Finished {
			counts[o]++
			n++
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, o := range []timedsim.Outcome{timedsim.TimedOut, timedsim.Stalled, timedsim.StepLimit, timedsim.Panicked, timedsim.SafetyViolated} {
		if k := counts[o]; k > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d execution%s %s", k, len(outcomes), plural(len(outcomes), "", "s"), outcomeVerb(o)))
			delete(counts, o)
		}
	}
	for _, o := range slices.SortedFunc(maps.Keys(counts), func(a, b timedsim.Outcome) int { return strings.Compare(a.String(), b.String()) }) {
		parts = append(parts, fmt.Sprintf("%d of %d ended %s", counts[o], len(outcomes), o))
	}
	return " (" + strings.Join(parts, ", ") + ": an unfinished execution counts at the scenario's timeout)"
}

func outcomeVerb(o timedsim.Outcome) string {
	switch o {
	case timedsim.TimedOut:
		return "timed out"
	case timedsim.StepLimit:
		return "hit --max-steps"
	}
	return o.String()
}

func fmtR(r *float64) string {
	if r == nil {
		return "   n/a"
	}
	return fmt.Sprintf("%+.3f", *r)
}

// replayCommand is the command that replays the path file path, quoted
// for a shell: a path is one word, whatever characters it holds.
func (a *app) replayCommand(path string) string { return a.cmd("replay", "--path", path) }

// replayPaths are the path files of the anomalous and the similar fast
// execution, relative to the results directory (summary.json's replay
// commands, which the summary prints with the directory's path).
func replayPaths(s *results.Summary) []string {
	var out []string
	if a := s.Anomaly; a != nil && a.Found && a.Path != "" {
		out = append(out, a.Path)
	}
	if d := s.Divergence; d != nil && d.SimilarPath != "" {
		out = append(out, d.SimilarPath)
	}
	return out
}

// printSummary is the human summary at the end of a run.
func printSummary(w io.Writer, name, dir string, s *results.Summary) {
	fmt.Fprintf(w, "\nsummary (%s, seed %d):\n", filepath.Join(dir, results.FileSummary), s.Seed)
	pr := s.Profile
	unfinished := ""
	if pr.Unfinished > 0 {
		unfinished = fmt.Sprintf(", %d of them unfinished, counted at the scenario's timeout", pr.Unfinished)
	}
	if pr.FastMode > 0 {
		fmt.Fprintf(w, "  normal execution time: median %s, Q3 %s of the fast mode (%d of %d profile executions%s; all: median %s, Q3 %s); anomalous above %s\n",
			fmtS(pr.FastMedian), fmtS(pr.FastQ3), pr.FastMode, pr.Runs, unfinished, fmtS(pr.Median), fmtS(pr.Q3), fmtS(pr.Threshold))
	} else {
		fmt.Fprintf(w, "  normal execution time: median %s, Q3 %s; anomalous above %s (%d profile executions%s)\n", fmtS(pr.Median), fmtS(pr.Q3), fmtS(pr.Threshold), pr.Runs, unfinished)
	}
	an := s.Anomaly
	switch {
	case an == nil:
		fmt.Fprintf(w, "  anomaly search: not run\n")
	case !an.Found:
		fmt.Fprintf(w, "  no anomaly in %d executions\n", an.Explored)
	default:
		fmt.Fprintf(w, "  %d anomalous of %d executions (the first at %d), in %d class%s by execution time and the events that set them apart:\n",
			an.Anomalies, an.Explored, an.FirstIndex, len(an.Classes), plural(len(an.Classes), "", "es"))
		for i, c := range an.Classes {
			if i == 3 {
				fmt.Fprintf(w, "    … %d more in %s\n", len(an.Classes)-i, filepath.Join(dir, results.FileSearch))
				break
			}
			fmt.Fprintf(w, "    class %d: %s\n", c.Rank, c.Text)
		}
		what := fmt.Sprintf("%s (%.1fx the median)", fmtS(an.ExecutionTime), an.ExecutionTime/max(pr.Median, 1e-9))
		if an.Finding != "" {
			what = an.Finding
		}
		fmt.Fprintf(w, "  ANOMALY: class %d, execution %d of the search: %s, %d steps\n", an.Class, an.Index, what, an.Steps)
		if an.Cause != "" {
			fmt.Fprintf(w, "  cause: %s\n", an.Cause)
		}
	}
	if an != nil && an.TailExecutions > 0 {
		fmt.Fprintf(w, "  normal tail: %d of %d executions above the threshold are not anomalies (%s):\n", an.TailExecutions, an.Explored, an.Verdict)
		for i, c := range an.Tail {
			if i == 3 {
				fmt.Fprintf(w, "    … %d more in %s\n", len(an.Tail)-i, filepath.Join(dir, results.FileSearch))
				break
			}
			fmt.Fprintf(w, "    tail %d: %s\n", c.Rank, c.Text)
			if c.Cause != "" {
				fmt.Fprintf(w, "      cause: %s\n", c.Cause)
			}
		}
	}
	if d := s.Divergence; d != nil {
		if d.Step < 0 {
			fmt.Fprintf(w, "  divergence: no walk recovers even from the start: the anomaly does not come from a rare choice\n")
		} else {
			fmt.Fprintf(w, "  divergence point: %s; the first %.1f%% of the %d steps can be ignored\n", d.Event, 100*d.IgnorableFraction, d.TotalSteps)
			if d.WalksFrom != "" {
				fmt.Fprintf(w, "  divergence walks: %d, %s\n", d.Executions, report.WalksFrom(d.WalksFrom))
			}
			if d.Why != "" {
				fmt.Fprintf(w, "  why: %s\n", d.Why)
			}
			fmt.Fprintf(w, "  similar fast execution: %s, same first %d steps\n", fmtS(d.SimilarExecutionTime), d.Step)
			fmt.Fprintf(w, "  side by side from the divergence point: %s\n", filepath.Join(dir, d.Diff))
		}
	}
	if len(s.Correlations) > 0 {
		legend := ""
		for _, c := range s.Correlations {
			if c.Critical {
				legend = "; * the anomaly's analysis points at it"
			}
		}
		fmt.Fprintf(w, "  events correlated with execution time (r, r within the normal time%s):\n", legend)
		for _, c := range s.Correlations {
			mark := " "
			if c.Critical {
				mark = "*"
			}
			fmt.Fprintf(w, "    %s %s %s %s\n", fmtR(c.R), fmtR(c.WindowR), mark, c.Label)
		}
		if len(s.LengthOnly) > 0 {
			var names []string
			for _, c := range s.LengthOnly {
				names = append(names, c.Label)
			}
			fmt.Fprintf(w, "  only because long executions run longer: %s\n", strings.Join(names, ", "))
		}
	}
	for _, p := range replayPaths(s) {
		fmt.Fprintf(w, "  replay: %s\n", shellquote.Join(name, "replay", "--path", filepath.Join(dir, p)))
	}
	if s.Training != "" && s.Anomaly != nil && s.Anomaly.Found {
		fmt.Fprintf(w, "  training: %s\n", s.Training)
	}
}

func (a *app) printTrain(d *pipeline.Dir, tf *pipeline.TrainFile) {
	n := 0
	for _, l := range tf.Labels {
		n += l.Samples
	}
	fmt.Fprintf(a.stdout, "phase 1a train: %d executions (seed %d), %d handler times, %d labels trained -> %s\n",
		tf.Runs, tf.PhaseSeed, n, len(tf.Labels), d.File(results.FileEDD))
}

func (a *app) printProfile(pf *results.Profile) {
	outcomes := make([]timedsim.Outcome, len(pf.Executions))
	for i, e := range pf.Executions {
		outcomes[i] = e.Outcome
	}
	fmt.Fprintf(a.stdout, "phase 1b profile: %d executions (seed %d): min %s Q1 %s median %s Q3 %s max %s%s\n",
		pf.Runs, pf.Seed, fmtNS(pf.MinNS), fmtNS(pf.Q1NS), fmtNS(pf.MedianNS), fmtNS(pf.Q3NS), fmtNS(pf.MaxNS), unfinishedNote(outcomes))
	tukey := "Q3"
	if pf.FastMode > 0 {
		tukey = fmt.Sprintf("Q3 of the fast mode's %d", pf.FastMode)
	}
	fmt.Fprintf(a.stdout, "  anomaly threshold %s = max(%s+%g*IQR = %s, %g*median, median + %s (%s))\n", fmtNS(pf.Threshold), tukey, pf.IQRFactor, fmtNS(pf.TukeyNS), pf.MinSlowdown,
		fmtNS(pf.MinExcessNS), pf.MinExcessBy)
	if above := aboveThreshold(pf); above > 0 {
		note := fmt.Sprintf("too few to say that more than %.0f%% of executions are this slow", 100*pipeline.RareRate)
		if _, notRare := pipeline.SlowNotRare(above, len(pf.Executions)); notRare {
			note = "not rare: see the warning on standard error"
		}
		fmt.Fprintf(a.stdout, "  %d of %d profile executions already above the threshold (the slowest %s): %s\n", above, len(pf.Executions), fmtNS(pf.MaxNS), note)
	}
	c := pf.Coverage
	fmt.Fprintf(a.stdout, "  EDD (%s): %d labels trained, %d fell back to their kind, %d to the seed distribution\n", pf.EDDSource, len(c.Trained), len(c.Fallback), len(c.Seed))
	for _, l := range slices.Sorted(maps.Keys(c.Fallback)) {
		fmt.Fprintf(a.stdout, "    %s uses %s\n", l, c.Fallback[l])
	}
	for _, w := range pf.Warnings {
		fmt.Fprintf(a.stderr, "%s: warning: %s\n", a.name, w)
	}
}

// aboveThreshold counts the profile's executions above its threshold.
func aboveThreshold(pf *results.Profile) int {
	n := 0
	for _, e := range pf.Executions {
		if e.ExecTimeNS > pf.Threshold {
			n++
		}
	}
	return n
}

func (a *app) printSearch(d *pipeline.Dir, sf *pipeline.SearchFile) {
	defer a.printTail(d, sf)
	if sf.Anomaly == nil {
		fmt.Fprintf(a.stdout, "phase 2 search: no anomaly in %d executions (seed %d)\n", sf.Explored, sf.Seed)
		return
	}
	fmt.Fprintf(a.stdout, "phase 2 search: first anomaly at execution %d of %d explored (seed %d): %d anomalous in %d class%s\n",
		sf.FirstIndex, sf.Explored, sf.Seed, sf.Anomalies, len(sf.Classes), plural(len(sf.Classes), "", "es"))
	for i, c := range sf.Classes {
		if i == pipeline.MaxClassPaths {
			fmt.Fprintf(a.stdout, "  … %d more classes in %s\n", len(sf.Classes)-i, d.File(results.FileSearch))
			break
		}
		fmt.Fprintf(a.stdout, "  class %d: %s\n", c.Rank, c.Describe())
		rep := c.Representative
		fmt.Fprintf(a.stdout, "    representative: execution %d, %s, %d steps -> %s\n", rep.Index, fmtNS(rep.ExecTimeNS), rep.Steps, d.File(rep.Path))
		if c.Cause != nil && c.Cause.Headline != "" {
			fmt.Fprintf(a.stdout, "    cause: %s\n", c.Cause.Headline)
		}
	}
}

// printTail prints the verdict and the normal tail of a search.
func (a *app) printTail(d *pipeline.Dir, sf *pipeline.SearchFile) {
	if sf.Candidates == 0 {
		return
	}
	fmt.Fprintf(a.stdout, "  verdict: %s\n", sf.DescribeVerdict())
	if sf.TailExecutions == 0 {
		return
	}
	fmt.Fprintf(a.stdout, "  normal tail: %d execution%s above the threshold, not anomalies\n", sf.TailExecutions, plural(sf.TailExecutions, "", "s"))
	for i, c := range sf.Tail {
		if i == pipeline.MaxTailPaths {
			fmt.Fprintf(a.stdout, "  … %d more tail classes in %s\n", len(sf.Tail)-i, d.File(results.FileSearch))
			break
		}
		fmt.Fprintf(a.stdout, "  tail %d: %s\n", c.Rank, c.DescribeTail(sf))
		rep := c.Representative
		fmt.Fprintf(a.stdout, "    representative: execution %d, %s, %d steps -> %s\n", rep.Index, fmtNS(rep.ExecTimeNS), rep.Steps, d.File(rep.Path))
		if c.Cause != nil && c.Cause.Headline != "" {
			fmt.Fprintf(a.stdout, "    cause: %s\n", c.Cause.Headline)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (a *app) printDivergence(d *pipeline.Dir, df *pipeline.DivergenceFile) {
	cut := 0
	for _, pr := range df.Probes {
		cut += pr.Cut
	}
	fmt.Fprintf(a.stdout, "phase 3a divergence of class %d, execution %d: %d probes, %d walks and %d confirmation walks cut at %s (k=%d, seed %d); a walk recovers if it %s\n",
		df.Anomaly.Class, df.Anomaly.Index, len(df.Probes), df.Executions-cut, cut, fmtNS(df.LimitNS), df.Walks, df.Seed, df.Criterion.Describe())
	if df.Step < 0 {
		fmt.Fprintf(a.stdout, "  no walk recovers even from the start\n")
		return
	}
	ev := fmt.Sprintf("step %d", df.Step)
	if df.Event != nil {
		ev = df.Event.Describe()
	}
	fmt.Fprintf(a.stdout, "  divergence at %s (of the execution's %d steps, %.1f%% ignorable)\n", ev, df.TotalSteps, 100*df.IgnorableFraction)
	if s := df.Similar; s != nil {
		fmt.Fprintf(a.stdout, "  similar fast execution: %s (walk %d from prefix %d) -> %s\n", fmtNS(s.ExecTimeNS), s.Walk, s.Prefix, d.File(s.Path))
	}
}

func (a *app) printCorrelation(cf *pipeline.CorrelationFile) {
	fmt.Fprintf(a.stdout, "phase 3b correlation: %d executions (%d search, %d walks), %d labels\n", cf.Executions, cf.SearchExecutions, cf.WalkExecutions, len(cf.Labels))
}

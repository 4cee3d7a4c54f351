package cli

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/timedsim"
)

func fmtS(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) + "s" }

func fmtR(r *float64) string {
	if r == nil {
		return "   n/a"
	}
	return fmt.Sprintf("%+.3f", *r)
}

// printSummary is the human summary at the end of a run.
func printSummary(w io.Writer, dir string, s *pipeline.SummaryFile) {
	fmt.Fprintf(w, "\nsummary (%s, seed %d):\n", filepath.Join(dir, pipeline.FileSummary), s.Seed)
	pr := s.Profile
	fmt.Fprintf(w, "  normal execution time: median %s, Q3 %s; anomalous above %s (%d profile executions)\n", fmtS(pr.Median), fmtS(pr.Q3), fmtS(pr.Threshold), pr.Runs)
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
				fmt.Fprintf(w, "    … %d more in %s\n", len(an.Classes)-i, filepath.Join(dir, pipeline.FileSearch))
				break
			}
			fmt.Fprintf(w, "    class %d: %s\n", c.Rank, c.Text)
		}
		what := fmt.Sprintf("%s (%.1fx the median)", fmtS(an.ExecutionTime), an.ExecutionTime/max(pr.Median, 1e-9))
		if an.Finding != "" {
			what = an.Finding
		}
		fmt.Fprintf(w, "  ANOMALY: class %d, execution %d of the search: %s, %d steps\n", an.Class, an.Index, what, an.Steps)
	}
	if d := s.Divergence; d != nil {
		if d.Step < 0 {
			fmt.Fprintf(w, "  divergence: no walk recovers even from the start: the anomaly does not come from a rare choice\n")
		} else {
			fmt.Fprintf(w, "  divergence point: %s; the first %.1f%% of the %d steps can be ignored\n", d.Event, 100*d.IgnorableFraction, d.TotalSteps)
			if d.Why != "" {
				fmt.Fprintf(w, "  why: %s\n", d.Why)
			}
			fmt.Fprintf(w, "  similar fast execution: %s, same first %d steps\n", fmtS(d.SimilarExecutionTime), d.Step)
			fmt.Fprintf(w, "  side by side from the divergence point: %s\n", filepath.Join(dir, d.Diff))
		}
	}
	if len(s.Correlations) > 0 {
		fmt.Fprintf(w, "  events correlated with execution time (r, r within the normal time):\n")
		for _, c := range s.Correlations {
			fmt.Fprintf(w, "    %s %s  %s\n", fmtR(c.R), fmtR(c.WindowR), c.Label)
		}
		if len(s.LengthOnly) > 0 {
			var names []string
			for _, c := range s.LengthOnly {
				names = append(names, c.Label)
			}
			fmt.Fprintf(w, "  only because long executions run longer: %s\n", strings.Join(names, ", "))
		}
	}
	for _, r := range s.Replay {
		fmt.Fprintf(w, "  replay: %s\n", strings.Replace(r, "--path ", "--path "+dir+string(filepath.Separator), 1))
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
		tf.Runs, tf.PhaseSeed, n, len(tf.Labels), d.File(pipeline.FileEDD))
}

func (a *app) printProfile(pf *pipeline.ProfileFile) {
	fmt.Fprintf(a.stdout, "phase 1b profile: %d executions (seed %d): min %s Q1 %s median %s Q3 %s max %s\n",
		pf.Runs, pf.Seed, fmtS(pipeline.Secs(pf.MinNS)), fmtS(pipeline.Secs(pf.Q1NS)), fmtS(pipeline.Secs(pf.MedianNS)), fmtS(pipeline.Secs(pf.Q3NS)), fmtS(pipeline.Secs(pf.MaxNS)))
	fmt.Fprintf(a.stdout, "  anomaly threshold %s = max(Q3+%g*IQR = %s, %g*median, median + %s (%s))\n", fmtS(pipeline.Secs(pf.Threshold)), pf.IQRFactor, fmtS(pipeline.Secs(pf.TukeyNS)), pf.MinSlowdown,
		pipeline.ShortTime(time.Duration(pf.MinExcessNS)), pf.MinExcessBy)
	c := pf.Coverage
	fmt.Fprintf(a.stdout, "  EDD (%s): %d labels trained, %d fell back to their kind, %d to the seed distribution\n", pf.EDDSource, len(c.Trained), len(c.Fallback), len(c.Seed))
	for _, l := range slices.Sorted(maps.Keys(c.Fallback)) {
		fmt.Fprintf(a.stdout, "    %s uses %s\n", l, c.Fallback[l])
	}
	for _, w := range pf.Warnings {
		fmt.Fprintf(a.stderr, "macepc: warning: %s\n", w)
	}
}

func (a *app) printSearch(d *pipeline.Dir, sf *pipeline.SearchFile) {
	if sf.Anomaly == nil {
		fmt.Fprintf(a.stdout, "phase 2 search: no anomaly in %d executions (seed %d)\n", sf.Explored, sf.Seed)
		return
	}
	fmt.Fprintf(a.stdout, "phase 2 search: first anomaly at execution %d of %d explored (seed %d, %d more to triage): %d anomalous in %d class%s\n",
		sf.FirstIndex, sf.Explored, sf.Seed, sf.Explored-sf.FirstIndex-1, sf.Anomalies, len(sf.Classes), plural(len(sf.Classes), "", "es"))
	for i, c := range sf.Classes {
		if i == pipeline.MaxClassPaths {
			fmt.Fprintf(a.stdout, "  … %d more classes in %s\n", len(sf.Classes)-i, d.File(pipeline.FileSearch))
			break
		}
		fmt.Fprintf(a.stdout, "  class %d: %s\n", c.Rank, c.Describe())
		rep := c.Representative
		fmt.Fprintf(a.stdout, "    representative: execution %d, %s, %d steps -> %s\n", rep.Index, timedsim.FormatTime(time.Duration(rep.ExecTimeNS)), rep.Steps, d.File(rep.Path))
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
		df.Anomaly.Class, df.Anomaly.Index, len(df.Probes), df.Executions-cut, cut, timedsim.FormatTime(time.Duration(df.LimitNS)), df.Walks, df.Seed, df.Criterion)
	if df.Step < 0 {
		fmt.Fprintf(a.stdout, "  no walk recovers even from the start\n")
		return
	}
	ev := fmt.Sprintf("step %d", df.Step)
	if df.Event != nil {
		ev = df.Event.Describe()
	}
	fmt.Fprintf(a.stdout, "  divergence at %s of %d (%.1f%% ignorable)\n", ev, df.TotalSteps, 100*df.IgnorableFraction)
	if s := df.Similar; s != nil {
		fmt.Fprintf(a.stdout, "  similar fast execution: %s (walk %d from prefix %d) -> %s\n", timedsim.FormatTime(time.Duration(s.ExecTimeNS)), s.Walk, s.Prefix, d.File(s.Path))
	}
}

func (a *app) printCorrelation(cf *pipeline.CorrelationFile) {
	fmt.Fprintf(a.stdout, "phase 3b correlation: %d executions (%d search, %d walks), %d labels\n", cf.Executions, cf.SearchExecutions, cf.WalkExecutions, len(cf.Labels))
}

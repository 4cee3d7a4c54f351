package pipeline

import (
	"errors"
	"fmt"

	"github.com/macepc/macepc/results"
)

// The checks of the results files beyond their schema (readJSONFile):
// the ranges of their numbers and the agreement of their parts. A reader
// refuses a file that fails them with an error naming it, rather than
// computing results from garbage.

// validate checks a profile.json's numbers.
func validateProfile(pf *results.Profile) error {
	switch {
	case pf.Template == nil:
		return errors.New("missing template")
	case pf.Runs < 1 || len(pf.Executions) != pf.Runs:
		return fmt.Errorf("runs %d with %d executions", pf.Runs, len(pf.Executions))
	case pf.Unfinished < 0 || pf.Unfinished > pf.Runs:
		return fmt.Errorf("unfinished %d of %d runs", pf.Unfinished, pf.Runs)
	case !(0 <= pf.MinNS && pf.MinNS <= pf.Q1NS && pf.Q1NS <= pf.MedianNS && pf.MedianNS <= pf.Q3NS && pf.Q3NS <= pf.MaxNS):
		return errors.New("inconsistent quartiles (want 0 <= min <= q1 <= median <= q3 <= max)")
	case pf.FastMode < 0 || pf.FastMode > pf.Runs || (pf.FastMode > 0) != (pf.FastQ3NS > 0) || pf.FastMode > 0 && !(pf.MinNS <= pf.FastMedianNS && pf.FastMedianNS <= pf.MedianNS && pf.FastMedianNS <= pf.FastQ3NS && pf.FastQ3NS <= pf.Q3NS):
		return fmt.Errorf("fast mode of %d executions with median %d and q3 %d", pf.FastMode, pf.FastMedianNS, pf.FastQ3NS)
	case pf.Threshold < pf.NormalQ3NS() || pf.TukeyNS < pf.NormalQ3NS():
		return errors.New("a threshold below q3 (of the fast mode, when the fence is its)")
	case !(pf.IQRFactor > 0) || !(pf.MinSlowdown >= 0) || pf.MinExcessNS < 0:
		return errors.New("negative threshold settings")
	}
	for i, e := range pf.Executions {
		if e.Index != i || e.ExecTimeNS < 0 || e.Steps < 0 || !results.ValidOutcome(e.Outcome) || e.Finished != (e.Outcome == "finished") {
			return fmt.Errorf("execution %d is malformed (index %d, exec_time_ns %d, steps %d, outcome %q)", i, e.Index, e.ExecTimeNS, e.Steps, e.Outcome)
		}
	}
	return nil
}

// validate checks a search.json's numbers.
func (sf *SearchFile) validate() error {
	switch {
	case sf.MaxRuns < 1 || sf.TriageRuns < 0:
		return fmt.Errorf("max_runs %d, triage_runs %d", sf.MaxRuns, sf.TriageRuns)
	case sf.Explored < 0 || sf.Explored > sf.MaxRuns:
		return fmt.Errorf("explored %d of at most %d", sf.Explored, sf.MaxRuns)
	case sf.FirstIndex < -1 || sf.FirstIndex >= sf.Explored:
		return fmt.Errorf("first_index %d of %d explored", sf.FirstIndex, sf.Explored)
	case sf.Anomalies < 0 || sf.Anomalies > sf.Explored || (sf.Anomalies == 0) != (sf.FirstIndex == -1):
		return fmt.Errorf("%d anomalies of %d explored, the first at %d", sf.Anomalies, sf.Explored, sf.FirstIndex)
	case (sf.Anomaly == nil) != (len(sf.Classes) == 0):
		return errors.New("an anomaly without classes, or classes without an anomaly")
	}
	members := 0
	for i, c := range sf.Classes {
		if c.Rank != i+1 || c.Executions != len(c.Members) || c.Executions < 1 || !(c.MinNS <= c.MedianNS && c.MedianNS <= c.MaxNS) {
			return fmt.Errorf("class %d is malformed", i+1)
		}
		for _, m := range c.Members {
			if m < 0 || m >= sf.Explored {
				return fmt.Errorf("class %d: member %d of %d explored", i+1, m, sf.Explored)
			}
		}
		if err := c.Representative.validate(sf.Explored); err != nil {
			return fmt.Errorf("class %d: %w", i+1, err)
		}
		members += c.Executions
	}
	if members != sf.Anomalies {
		return fmt.Errorf("%d class members for %d anomalies", members, sf.Anomalies)
	}
	if !sf.Verdict.FenceOnly && !(sf.Verdict.Alpha > 0 && sf.Verdict.Alpha < 1) {
		return fmt.Errorf("verdict alpha %v", sf.Verdict.Alpha)
	}
	tail := 0
	for i, c := range sf.Tail {
		if c.Rank != i+1 || c.Executions != len(c.Members) || c.Executions < 1 || !(c.MinNS <= c.MedianNS && c.MedianNS <= c.MaxNS) || c.Finding != "" {
			return fmt.Errorf("tail class %d is malformed", i+1)
		}
		for _, m := range c.Members {
			if m < 0 || m >= sf.Explored {
				return fmt.Errorf("tail class %d: member %d of %d explored", i+1, m, sf.Explored)
			}
		}
		r := c.Representative
		if r.Index < 0 || r.Index >= sf.Explored || r.Class != 0 || r.Path != "" && r.Path != results.TailPath(c.Rank) {
			return fmt.Errorf("tail class %d: representative %d is malformed", i+1, r.Index)
		}
		tail += c.Executions
	}
	if tail != sf.TailExecutions || sf.Anomalies+sf.TailExecutions != sf.Candidates {
		return fmt.Errorf("%d tail class members for %d tail executions, %d anomalies of %d candidates", tail, sf.TailExecutions, sf.Anomalies, sf.Candidates)
	}
	if sf.Anomaly != nil {
		if err := sf.Anomaly.validate(sf.Explored); err != nil {
			return err
		}
	}
	return nil
}

// validate checks an anomaly of a search of explored executions.
func (an *Anomaly) validate(explored int) error {
	if an.Index < 0 || an.Index >= explored || an.ExecTimeNS < 0 || an.Steps < 0 || !results.ValidOutcome(an.Outcome) || an.Class < 1 {
		return fmt.Errorf("anomaly %d is malformed", an.Index)
	}
	if an.Path != "" && an.Path != results.ClassPath(an.Class) {
		return fmt.Errorf("anomaly %d: path %q is not its class's %q", an.Index, an.Path, results.ClassPath(an.Class))
	}
	return nil
}

// validate checks a divergence.json's numbers.
func (df *DivergenceFile) validate() error {
	switch {
	case df.Walks < 1 || df.Confirm < 0 || df.Executions < 0:
		return fmt.Errorf("walks %d, confirm_walks %d, executions %d", df.Walks, df.Confirm, df.Executions)
	case df.TotalSteps < 0 || df.Step < -1 || df.Step > df.TotalSteps:
		return fmt.Errorf("step %d of %d", df.Step, df.TotalSteps)
	case !(df.IgnorableFraction >= 0 && df.IgnorableFraction <= 1):
		return fmt.Errorf("ignorable_fraction %v", df.IgnorableFraction)
	case df.Anomaly == nil:
		return errors.New("missing anomaly")
	}
	walks := 0
	for _, p := range df.Probes {
		if p.Prefix < 0 || p.Prefix > df.TotalSteps || p.Walks < 0 || p.Cut < 0 || p.RecoveredWalk < -1 || p.RecoveredWalk >= p.Walks {
			return fmt.Errorf("probe of prefix %d is malformed", p.Prefix)
		}
		walks += p.Walks
	}
	if walks != df.Executions {
		return fmt.Errorf("%d walks in the probes, executions %d", walks, df.Executions)
	}
	return nil
}

// validate checks a train.json's numbers.
func (tf *TrainFile) validate() error {
	if tf.Runs < 1 || tf.Nodes < 1 {
		return fmt.Errorf("runs %d, nodes %d", tf.Runs, tf.Nodes)
	}
	for _, l := range tf.Labels {
		if l.Samples < 1 || l.MedianNS < 0 || l.P99NS < l.MedianNS || l.MaxNS < l.P99NS {
			return fmt.Errorf("label %q is malformed", l.Label)
		}
	}
	return nil
}

package pipeline

import (
	"errors"
	"fmt"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
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
		if e.Index != i || e.ExecTimeNS < 0 || e.Steps < 0 || !results.ValidOutcome(e.Outcome) || e.Finished != (e.Outcome == timedsim.Finished) {
			return fmt.Errorf("execution %d is malformed (index %d, exec_time_ns %d, steps %d, outcome %q)", i, e.Index, e.ExecTimeNS, e.Steps, e.Outcome)
		}
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

package pipeline

import "fmt"

// The checks of train.json beyond its schema: the ranges of its numbers.
// A reader refuses a file that fails them with an error naming it, rather
// than computing results from garbage. The other files' checks are their
// Validate methods in package results.

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

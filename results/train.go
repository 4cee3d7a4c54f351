package results

import "fmt"

// Train is train.json (FileTrain): how edd.json was trained.
type Train struct {
	Header
	// Options are the simulator options training ran with; profile takes
	// them, with the system, variant, nodes and seed, from here.
	Options    TrainOptions `json:"options"`
	PhaseSeed  uint64       `json:"phase_seed"`
	Runs       int          `json:"runs"`
	Note       string       `json:"note"`
	Labels     []TrainLabel `json:"labels"`
	SeedLabels []string     `json:"seed_labels"` // labels seen but with no sample (none today: every executed handler is measured)
}

// TrainOptions are the simulator options of a training.
type TrainOptions struct {
	Semantics   string `json:"semantics"`
	ExecTime    string `json:"exec_time"`
	MaxSteps    int    `json:"max_steps"`
	CheckSafety bool   `json:"check_safety"`
}

// TrainLabel is one trained label: its number of samples and their
// median, 99th percentile and maximum.
type TrainLabel struct {
	Label    string `json:"label"`
	Samples  int    `json:"samples"`
	MedianNS int64  `json:"median_ns"`
	P99NS    int64  `json:"p99_ns"`
	MaxNS    int64  `json:"max_ns"`
}

// ReadTrain reads a train.json: its schema, format and version and its
// numbers (Validate).
func ReadTrain(path string) (*Train, error) {
	return readFile(path, FormatTrain, (*Train).Validate)
}

// Validate checks a training's numbers: its runs and nodes, and each
// label's samples and quantiles in order. Its error says what is wrong,
// for the caller to name the file.
func (tf *Train) Validate() error {
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

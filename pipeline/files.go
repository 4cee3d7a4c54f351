package pipeline

import "github.com/macepc/macepc/results"

// The results files this package writes, by the names its API has always
// given them. Each is an alias of the one declaration in package results,
// which report and explore read with the same types.
type (
	// SearchFile is DIR/search.json (results.Search).
	SearchFile = results.Search
	// Anomaly is an anomalous execution of the search (results.Anomaly).
	Anomaly = results.Anomaly
	// Class is one class of anomalies or of the normal tail (results.Class).
	Class = results.Class
	// Cause is a class representative's critical-path attribution
	// (results.Cause).
	Cause = results.Cause
	// CausePart is one part of a Cause (results.CausePart).
	CausePart = results.CausePart
	// CauseStranded is a Cause's stranded node (results.CauseStranded).
	CauseStranded = results.CauseStranded
	// CauseUnanswered is a Cause's unanswered requests
	// (results.CauseUnanswered).
	CauseUnanswered = results.CauseUnanswered
	// SignificanceFile is the significance test of a search
	// (results.Significance).
	SignificanceFile = results.Significance
	// TailModelFile is an anomaly.TailModel (results.TailModel).
	TailModelFile = results.TailModel
	// TailTestFile is an anomaly.TailTest (results.TailTest).
	TailTestFile = results.TailTest
	// TailWindowFile is a rejected anomaly.Window (results.TailWindow).
	TailWindowFile = results.TailWindow

	// DivergenceFile is DIR/divergence.json (results.Divergence).
	DivergenceFile = results.Divergence
	// Event is one event of an execution in a results file (results.Event).
	Event = results.Event
	// Similar is the similar fast execution (results.Similar).
	Similar = results.Similar
	// Probe is one prefix the divergence search tried (results.Probe).
	Probe = results.Probe

	// CorrelationFile is DIR/correlation.json (results.Correlation).
	CorrelationFile = results.Correlation

	// LivenessFile is DIR/liveness.json (results.Liveness).
	LivenessFile = results.Liveness
	// LivenessPathFile is a liveness path file (results.LivenessPath).
	LivenessPathFile = results.LivenessPath

	// TrainFile is DIR/train.json (results.Train).
	TrainFile = results.Train
	// TrainOptions are the simulator options of a training
	// (results.TrainOptions).
	TrainOptions = results.TrainOptions
	// TrainLabel is one trained label (results.TrainLabel).
	TrainLabel = results.TrainLabel

	// SimulateFile is DIR/simulate.json (results.Simulate).
	SimulateFile = results.Simulate
	// TimeSummary is the five-number summary of execution times
	// (results.TimeSummary).
	TimeSummary = results.TimeSummary
	// SimLine is an execution of simulate (results.SimLine).
	SimLine = results.SimLine
)

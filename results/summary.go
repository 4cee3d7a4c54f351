package results

import (
	"encoding/json"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/readlimit"
)

// Summary is summary.json (FileSummary): the run at a glance, for CI and the
// report. Paths are relative to the results directory.
type Summary struct {
	Header
	PhaseSeeds PhaseSeeds         `json:"phase_seeds"`
	ConfigHash string             `json:"config_hash"`
	EDD        string             `json:"edd"`
	Profile    SummaryProfile     `json:"profile"`
	Anomaly    *SummaryAnomaly    `json:"anomaly"`
	Divergence *SummaryDivergence `json:"divergence"`
	// Training says which parts of the answer depend on the trained
	// event durations (empty when the run used committed ones).
	Training     string        `json:"training,omitempty"`
	Correlations []SummaryCorr `json:"correlations"`
	// LengthOnly lists labels that correlate with execution time only
	// because long executions run longer (periodic timers…).
	LengthOnly []SummaryCorr `json:"length_only"`
	// Replay are the executions to replay: the anomalous one and the
	// similar fast execution.
	Replay []Replay `json:"replay"`
}

// Replay is an execution of a run to replay, as data: a front end renders
// the command with its own program name (macepc, or a binary built on
// cli.Main) and Args, or replays Path itself.
type Replay struct {
	// Execution says which: ReplayAnomaly or ReplaySimilar.
	Execution string `json:"execution"`
	// Path is its path file, relative to the results directory.
	Path string `json:"path"`
	// Args are the arguments of the command line that replays it, after
	// the program's name: ["replay", "--path", Path].
	Args []string `json:"args"`
}

// The executions of a Replay.
const (
	// ReplayAnomaly is the analysed anomaly (SummaryAnomaly.Path).
	ReplayAnomaly = "anomaly"
	// ReplaySimilar is phase 3a's similar fast execution
	// (SummaryDivergence.SimilarPath).
	ReplaySimilar = "similar"
)

// NewReplay is the Replay of execution (ReplayAnomaly, ReplaySimilar)
// whose path file is path.
func NewReplay(execution, path string) Replay {
	return Replay{Execution: execution, Path: path, Args: []string{"replay", "--path", path}}
}

// PhaseSeeds are the base seeds of the phases (pipeline.PhaseSeed).
type PhaseSeeds struct {
	Train   uint64 `json:"train"`
	Profile uint64 `json:"profile"`
	Search  uint64 `json:"search"`
	Diverge uint64 `json:"diverge"`
}

// SummaryProfile is the profile of phase 1b, times in seconds.
type SummaryProfile struct {
	Runs        int     `json:"runs"`
	Q1          float64 `json:"q1"`
	Median      float64 `json:"median"`
	Q3          float64 `json:"q3"`
	Threshold   float64 `json:"threshold"`
	IQRFactor   float64 `json:"iqr_factor"`
	MinSlowdown float64 `json:"min_slowdown"`
	MinExcess   float64 `json:"min_excess"`
	Unfinished  int     `json:"unfinished"`
	// FastMode, when not 0, is how many executions the fence is Tukey's
	// over (the profile's FastMode); FastMedian and FastQ3 are theirs, the
	// normal execution's.
	FastMode   int      `json:"fast_mode,omitempty"`
	FastMedian float64  `json:"fast_median,omitempty"`
	FastQ3     float64  `json:"fast_q3,omitempty"`
	Warnings   []string `json:"warnings"`
}

// SummaryAnomaly is what phase 2 found, times in seconds.
type SummaryAnomaly struct {
	Found         bool    `json:"found"`
	Explored      int     `json:"explored"`
	MaxRuns       int     `json:"max_runs"`
	Complete      bool    `json:"complete"`
	Index         int     `json:"index"`
	ExecutionTime float64 `json:"execution_time"`
	Steps         int     `json:"steps"`
	Finding       string  `json:"finding,omitempty"`
	Path          string  `json:"path,omitempty"`
	// Class is the rank of the analysed anomaly's class; FirstIndex the
	// first anomalous execution; Anomalies how many were found.
	Class      int            `json:"class,omitempty"`
	FirstIndex int            `json:"first_index"`
	Anomalies  int            `json:"anomalies"`
	Classes    []SummaryClass `json:"classes"`
	// Verdict says how the executions above the threshold were judged;
	// Candidates how many were (anomalies and normal tail together).
	Verdict    string `json:"verdict"`
	Candidates int    `json:"candidates"`
	// Cause is what the analysed anomaly's critical path spent its excess
	// on, against a median execution ("" for a finding).
	Cause string `json:"cause,omitempty"`
	// Tail are the classes of the normal tail: above the threshold, not
	// anomalies.
	Tail           []SummaryClass `json:"tail"`
	TailExecutions int            `json:"tail_executions"`
}

// SummaryClass is a class of anomalies or of the normal tail.
type SummaryClass struct {
	Rank           int      `json:"rank"`
	Executions     int      `json:"executions"`
	Min            float64  `json:"min"`
	Median         float64  `json:"median"`
	Max            float64  `json:"max"`
	Slowdown       float64  `json:"slowdown"`
	Finding        string   `json:"finding,omitempty"`
	Signature      []string `json:"signature"`
	Representative int      `json:"representative"`
	Path           string   `json:"path,omitempty"`
	Text           string   `json:"text"`
	// Cause is the critical path's attribution of its representative's
	// excess over a median execution.
	Cause string `json:"cause,omitempty"`
}

// SummaryDivergence is phase 3a's divergence point.
type SummaryDivergence struct {
	Step                 int     `json:"step"`
	TotalSteps           int     `json:"total_steps"`
	IgnorableFraction    float64 `json:"ignorable_fraction"`
	Event                string  `json:"event,omitempty"`
	SimilarExecutionTime float64 `json:"similar_execution_time"`
	SimilarPath          string  `json:"similar_path,omitempty"`
	AnomalyLog           string  `json:"anomaly_log"`
	SimilarLog           string  `json:"similar_log,omitempty"`
	Diff                 string  `json:"diff,omitempty"`
	Executions           int     `json:"executions"`
	// WalksFrom: "snapshot" or "replay" (divergence.json's walks_from).
	WalksFrom string `json:"walks_from,omitempty"`
	// Criterion is divergence.json's: which bound Limit (seconds) is.
	Criterion divergence.Bound `json:"criterion"`
	Limit     float64          `json:"limit"`
	// Why says in one line why the divergence step decides the outcome.
	Why string `json:"why,omitempty"`
}

// SummaryCorr is a label of phase 3b's ranking.
type SummaryCorr struct {
	Label   string   `json:"label"`
	R       *float64 `json:"r"`
	WindowR *float64 `json:"window_r"`
	// Critical: the anomaly's analysis points at the label (its class's
	// signature, or what its critical path's waiting node did).
	Critical bool `json:"critical,omitempty"`
}

// ReadSummary reads a summary.json: its schema, format and version. A
// version-1 summary, whose replays were command lines naming the program
// macepc, is read too, with no Replay (a front end renders its own from
// the path files), so that an older results directory keeps its report.
func ReadSummary(path string) (*Summary, error) {
	var h struct {
		Format  string          `json:"format"`
		Version int             `json:"version"`
		Replay  json.RawMessage `json:"replay"`
	}
	if err := readLenient(path, &h); err == nil && h.Format == FormatSummary && h.Version == 1 {
		var v1 struct {
			*Summary
			Replay []string `json:"replay"`
		}
		v1.Summary = &Summary{}
		if err := ReadJSON(path, &v1); err != nil {
			return nil, err
		}
		v1.Summary.Replay = []Replay{}
		return v1.Summary, nil
	}
	return readFile[Summary](path, FormatSummary, nil)
}

// readLenient decodes the JSON file at path into v, ignoring the fields v
// lacks (a header), with ReadJSON's size bound.
func readLenient(path string, v any) error {
	f, err := readlimit.Open(path, readlimit.MaxJSONFile)
	if err != nil {
		return err
	}
	defer f.Close()
	return json.NewDecoder(f).Decode(v)
}

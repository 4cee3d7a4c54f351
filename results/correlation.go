package results

import (
	"fmt"

	"github.com/macepc/macepc/anomaly"
)

// Correlation is correlation.json (FileCorrelation): phase 3b's ranking
// of the labels by the correlation of their counts with the execution
// time.
type Correlation struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	// Executions of phases 2 and 3a that were correlated.
	Executions       int     `json:"executions"`
	SearchExecutions int     `json:"search_executions"`
	WalkExecutions   int     `json:"walk_executions"`
	WindowNS         int64   `json:"window_ns"`
	MinR             float64 `json:"min_r"`
	Method           string  `json:"method"`
	// Labels are anomaly.Correlate's, ranked (anomaly.Prioritize): the
	// file's element type is the analysis's own.
	Labels []anomaly.Correlation `json:"labels"`
}

// ReadCorrelation reads a correlation.json: its schema, format and
// version and its numbers (Validate).
func ReadCorrelation(path string) (*Correlation, error) {
	return readFile(path, FormatCorrelation, (*Correlation).Validate)
}

func (cf *Correlation) formatVersion() (string, int) { return cf.Format, cf.Version }

// Validate checks a correlation's counts: the executions of both phases
// add up, the window is not negative and each label is named. Its error
// says what is wrong, for the caller to name the file.
func (cf *Correlation) Validate() error {
	switch {
	case cf.SearchExecutions < 0 || cf.WalkExecutions < 0 || cf.Executions != cf.SearchExecutions+cf.WalkExecutions:
		return fmt.Errorf("executions %d of %d search and %d walk executions", cf.Executions, cf.SearchExecutions, cf.WalkExecutions)
	case cf.WindowNS < 0:
		return fmt.Errorf("window_ns %d", cf.WindowNS)
	}
	for i, l := range cf.Labels {
		if l.Label == "" || l.Executions < 0 || l.Executions > cf.Executions {
			return fmt.Errorf("label %d (%q) is malformed", i, l.Label)
		}
	}
	return nil
}

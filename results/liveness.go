package results

import (
	"errors"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/timedsim"
)

// Liveness is liveness.json (FileLiveness): MaceMC's liveness search,
// its report and the files written next to it.
type Liveness struct {
	Header
	Report *liveness.Report `json:"report"`
	// Files written next to it (relative to the results directory).
	Files []string `json:"files"`
}

// LivenessPath is a liveness path file (FileDeadPath, FileLivePath,
// FilePrefix): a path with what is needed to replay it or start a
// prefix-based search from its end (liveness.Config.Prefix).
type LivenessPath struct {
	Header
	Note string `json:"note"`
	// Params are the system parameters the path was made with.
	Params timedsim.Params `json:"params,omitempty"`
	// The settings a replay needs: the choice weights decide the random
	// part, the properties what the log reports.
	Weights  map[string]int `json:"weights"`
	Unbiased bool           `json:"unbiased,omitempty"`
	Faults   int            `json:"faults,omitempty"`
	Breaks   int            `json:"breaks,omitempty"`
	Drops    int            `json:"drops,omitempty"`
	// Crashes and Partitions are absent from files written before they
	// existed: none.
	Crashes    int           `json:"crashes,omitempty"`
	Partitions int           `json:"partitions,omitempty"`
	Safety     []string      `json:"safety"`
	Liveness   []string      `json:"liveness"`
	Path       liveness.Path `json:"path"`
}

// ReadLiveness reads a liveness.json: its schema, format and version,
// and that it has a report.
func ReadLiveness(path string) (*Liveness, error) {
	return readFile(path, FormatLiveness, (*Liveness).Validate)
}

// Validate checks that a liveness file has a report. Its error says what
// is wrong, for the caller to name the file.
func (lf *Liveness) Validate() error {
	if lf.Report == nil {
		return errors.New("missing report")
	}
	return nil
}

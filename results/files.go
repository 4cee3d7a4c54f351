package results

import "github.com/macepc/macepc/timedsim"

// CountsLine is one execution of phase 2 or 3a with its event counts
// (plain and composite labels together) for phase 3b: a line of
// search-executions.jsonl (FileSearchExecs) or divergence-walks.jsonl
// (FileWalks).
type CountsLine struct {
	Phase      string           `json:"phase"`
	Index      int              `json:"index"`  // execution index (search) or walk index (divergence)
	Prefix     int              `json:"prefix"` // divergence: steps replayed from the anomalous execution
	Seed       uint64           `json:"seed"`   // seed of the execution (search) or of the walk's continuation
	ExecTimeNS int64            `json:"exec_time_ns"`
	Steps      int              `json:"steps"`
	Outcome    timedsim.Outcome `json:"outcome"`
	Recovered  *bool            `json:"recovered,omitempty"`
	Finding    string           `json:"finding,omitempty"` // a panic or safety violation (Finding)
	Counts     map[string]int   `json:"counts"`
	Window     map[string]int   `json:"window"`
}

// Events is divergence-events.json (FileEvents): both executions' events
// around the divergence point in structured form, and each node's
// activity over the whole execution, for the report's event graph and
// per-node completion plot.
type Events struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ConfigHash string `json:"config_hash"`
	Nodes      int    `json:"nodes"`
	// Step is the divergence step; the window is steps [FromStep, ToStep)
	// of each execution (clipped to its length).
	Step       int          `json:"step"`
	FromStep   int          `json:"from_step"`
	ToStep     int          `json:"to_step"`
	Executions []EventsExec `json:"executions"`
}

// EventsExec is one execution of divergence-events.json: the anomalous
// or the similar one.
type EventsExec struct {
	Name       string           `json:"name"` // anomalous, similar
	ExecTimeNS int64            `json:"exec_time_ns"`
	Steps      int              `json:"steps"`
	Outcome    timedsim.Outcome `json:"outcome"`
	// NodeLastNS is, per node, the end time (start + duration) of its last
	// executed event in the whole execution, or of its first event noted
	// timedsim.NoteDone if it has one; -1 for a node that executed none. NodeEvents counts each node's events.
	NodeLastNS []int64      `json:"node_last_ns"`
	NodeEvents []int        `json:"node_events"`
	Events     []EventsStep `json:"events"`
}

// EventsStep is one executed event with what its handler did.
type EventsStep struct {
	Step       int           `json:"step"`
	Node       int           `json:"node"`
	From       int           `json:"from"` // sender of a delivered message or peer of an error upcall; -1 none
	Label      string        `json:"label"`
	StartNS    int64         `json:"start_ns"`
	DurationNS int64         `json:"duration_ns"`
	Sends      []EventsSend  `json:"sends,omitempty"`
	Timers     []EventsTimer `json:"timers,omitempty"`
	Notes      []string      `json:"notes,omitempty"` // the handler's notes (timedsim.Context.Note)
}

// EventsSend is a message a handler sent.
type EventsSend struct {
	To        int    `json:"to"`
	Type      string `json:"type"`
	Transport string `json:"transport"`
	Size      int    `json:"size"`
	Status    string `json:"status"` // sent, queue-full, dropped, unreachable
	ArriveNS  int64  `json:"arrive_ns,omitempty"`
}

// EventsTimer is a timer a handler set or cancelled.
type EventsTimer struct {
	Name   string `json:"name"`
	Cancel bool   `json:"cancel,omitempty"`
	AtNS   int64  `json:"at_ns,omitempty"`
}

// ReadEvents reads a divergence-events.json: its schema, format and
// version.
func ReadEvents(path string) (*Events, error) {
	return readFile[Events](path, FormatEvents, nil)
}

func (ef *Events) formatVersion() (string, int) { return ef.Format, ef.Version }

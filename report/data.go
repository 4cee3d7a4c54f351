package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/results"
)

// Search is search.json (phase 2).
type Search struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Seed        uint64 `json:"seed"`
	MaxRuns     int    `json:"max_runs"`
	TriageRuns  int    `json:"triage_runs"`
	Explored    int    `json:"explored"`
	Complete    bool   `json:"complete"`
	ThresholdNS int64  `json:"threshold_ns"`
	FirstIndex  int    `json:"first_index"`
	Anomalies   int    `json:"anomalies"`
	Classes     []struct {
		Rank      int      `json:"rank"`
		Members   []int    `json:"members"`
		Signature []string `json:"signature"`
	} `json:"classes"`
	Anomaly *SearchAnomaly `json:"anomaly"`
	// Tail are the classes above the threshold that the verdict found to
	// be the normal tail.
	Tail []struct {
		Rank    int   `json:"rank"`
		Members []int `json:"members"`
	} `json:"tail"`
	TailExecutions int `json:"tail_executions"`
}

// SearchAnomaly is search.json's anomaly: the representative of the
// class ranked first.
type SearchAnomaly struct {
	Index      int    `json:"index"`
	ExecTimeNS int64  `json:"exec_time_ns"`
	Steps      int    `json:"steps"`
	Outcome    string `json:"outcome"`
	Finding    string `json:"finding"`
	Class      int    `json:"class"`
}

// Divergence is divergence.json (phase 3a).
type Divergence struct {
	Format            string  `json:"format"`
	Version           int     `json:"version"`
	Walks             int     `json:"walks"`
	Confirm           int     `json:"confirm_walks"`
	Criterion         string  `json:"criterion"`
	LimitNS           int64   `json:"limit_ns"`
	MedianNS          int64   `json:"median_ns"`
	Q3NS              int64   `json:"q3_ns"`
	ThresholdNS       int64   `json:"threshold_ns"`
	Step              int     `json:"step"`
	TotalSteps        int     `json:"total_steps"`
	IgnorableFraction float64 `json:"ignorable_fraction"`
	Event             *struct {
		Step    int    `json:"step"`
		Node    string `json:"node"`
		Label   string `json:"label"`
		From    string `json:"from"`
		StartNS int64  `json:"start_ns"`
	} `json:"event"`
	Similar *struct {
		Prefix     int    `json:"prefix"`
		Walk       int    `json:"walk"`
		ExecTimeNS int64  `json:"exec_time_ns"`
		Steps      int    `json:"steps"`
		Path       string `json:"path"`
	} `json:"similar"`
	Executions int `json:"executions"`
	// BudgetExecutions are the walks of the first search, when the
	// divergence search ran twice (divergence-walks.jsonl has both).
	BudgetExecutions int     `json:"budget_executions"`
	Probes           []Probe `json:"probes"`
}

// Probe is one prefix probed by the divergence search.
type Probe struct {
	Prefix        int     `json:"prefix"`
	Walks         int     `json:"walks"`
	Recovered     bool    `json:"recovered"`
	RecoveredWalk int     `json:"recovered_walk"`
	ExecTimesNS   []int64 `json:"exec_times_ns"`
	Cut           int     `json:"cut_walks"`
}

// Correlation is correlation.json (phase 3b).
type Correlation struct {
	Format     string  `json:"format"`
	Version    int     `json:"version"`
	Executions int     `json:"executions"`
	WindowNS   int64   `json:"window_ns"`
	MinR       float64 `json:"min_r"`
	Labels     []struct {
		Label      string   `json:"label"`
		Composite  bool     `json:"composite"`
		Executions int      `json:"executions"`
		MeanCount  float64  `json:"mean_count"`
		R          *float64 `json:"r"`
		WindowR    *float64 `json:"window_r"`
		LengthOnly bool     `json:"length_only"`
		SameAs     string   `json:"same_as"`
	} `json:"labels"`
}

// Liveness is liveness.json (macepc run --liveness).
type Liveness struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	System  string `json:"system"`
	Variant string `json:"variant"`
	Nodes   int    `json:"nodes"`
	Seed    uint64 `json:"seed"`
	Report  struct {
		Settings struct {
			Nodes     int            `json:"nodes"`
			Depth     int            `json:"depth"`
			DepthStep int            `json:"depth_step"`
			MaxDepth  int            `json:"max_depth"`
			DMax      int            `json:"dmax"`
			Walks     int            `json:"walks"`
			Seed      uint64         `json:"seed"`
			Weights   map[string]int `json:"weights"`
			Unbiased  bool           `json:"unbiased"`
			Faults    int            `json:"faults"`
			Breaks    int            `json:"breaks"`
			Drops     int            `json:"drops"`
			// Crashes and Partitions are the crash-stop and lasting
			// partition budgets (0 in files written before them).
			Crashes    int      `json:"crashes"`
			Partitions int      `json:"partitions"`
			Hashing    bool     `json:"hashing"`
			Safety     []string `json:"safety"`
			Liveness   []string `json:"liveness"`
		} `json:"settings"`
		Stats struct {
			Depth      int `json:"depth"`
			Paths      int `json:"paths"`
			States     int `json:"states"`
			Duplicates int `json:"duplicates"`
			Walks      int `json:"walks"`
			Steps      int `json:"steps"`
			// The parallel search's.
			DepthDone int     `json:"depth_done"`
			Split     int     `json:"split"`
			Prefixes  int     `json:"prefixes"`
			Distinct  int     `json:"distinct"`
			Collision float64 `json:"collision_probability"`
		} `json:"stats"`
		End       string `json:"end"`
		Violation *struct {
			Kind     string   `json:"kind"`
			Property string   `json:"property"`
			Failed   []string `json:"failed"`
			Panic    string   `json:"panic"`
			Step     int      `json:"step"`
			Depth    int      `json:"depth"`
		} `json:"violation"`
		Critical *struct {
			Class         string `json:"class"`
			Reason        string `json:"reason"`
			Step          int    `json:"step"`
			DeadFromStart bool   `json:"dead_from_start"`
			Dead          struct {
				Steps int `json:"steps"`
			} `json:"dead"`
			Live *struct {
				Steps int `json:"steps"`
			} `json:"live"`
			DeadEvent string `json:"dead_event"`
			LiveEvent string `json:"live_event"`
			Probes    []struct {
				Prefix    int  `json:"prefix"`
				Recovered bool `json:"recovered"`
				Walks     int  `json:"walks"`
			} `json:"probes"`
			Walks int `json:"walks"`
		} `json:"critical"`
		// Warnings are about the services (a Describe that is not
		// deterministic).
		Warnings []string `json:"warnings"`
	} `json:"report"`
	Files []string `json:"files"`
}

// Results is what a results directory holds, decoded. A phase that did not
// run leaves its fields nil.
type Results struct {
	Summary     *results.Summary
	Profile     *results.Profile
	Search      *Search
	SearchExecs []results.CountsLine
	Divergence  *Divergence
	Walks       []results.CountsLine
	Events      *results.Events
	Correlation *Correlation
	// Diff is divergence.diff's text ("" when absent).
	Diff string
	// Liveness is liveness.json and StateDiff state.diff's text, of a
	// liveness run (nil, "" when absent).
	Liveness  *Liveness
	StateDiff string
	// Regress is regress.json, RegressSVG and RegressPNG its plot (nil
	// when absent).
	Regress                *results.Regress
	RegressSVG, RegressPNG []byte
	// Explore: explore.html is in the directory.
	Explore bool
}

// Load reads a results directory. summary.json and profile.json must be
// there (a directory without them is not a results directory), unless it
// holds a liveness run's liveness.json; the files of later phases are
// optional, but one that is there must be well-formed.
func Load(dir string) (*Results, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %s is not a results directory: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("report: %s is not a results directory (not a directory)", dir)
	}
	r := &Results{}
	if _, err := os.Stat(filepath.Join(dir, results.FileExplore)); err == nil {
		r.Explore = true
	}
	read := func(name, format string, v any, required bool) (bool, error) {
		ok, err := readJSON(filepath.Join(dir, name), format, v)
		if err == nil && !ok && required {
			err = fmt.Errorf("report: %s has no %s: not a results directory of 'macepc run' (or of a phase command)", dir, name)
		}
		return ok, err
	}
	var lf Liveness
	if ok, err := read(results.FileLiveness, "macepc-liveness", &lf, false); err != nil {
		return nil, err
	} else if ok {
		r.Liveness = &lf
		if b, err := readlimit.ReadFile(filepath.Join(dir, results.FileStateDiff), readlimit.MaxTextFile); err == nil {
			r.StateDiff = string(b)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("report: %w", err)
		}
		// A liveness run alone has no timed pipeline's files.
		if _, err := os.Stat(filepath.Join(dir, results.FileSummary)); errors.Is(err, fs.ErrNotExist) {
			return r, nil
		}
	}
	var sum results.Summary
	if _, err := read(results.FileSummary, "macepc-summary", &sum, true); err != nil {
		return nil, err
	}
	r.Summary = &sum
	var pf results.Profile
	if _, err := read(results.FileProfile, "macepc-profile", &pf, true); err != nil {
		return nil, err
	}
	r.Profile = &pf
	var sf Search
	if ok, err := read(results.FileSearch, "macepc-search", &sf, false); err != nil {
		return nil, err
	} else if ok {
		r.Search = &sf
		if r.SearchExecs, err = results.ReadCountsLines(filepath.Join(dir, results.FileSearchExecs), true, results.CountsSpec{Phase: "search", Lines: sf.Explored}); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	var df Divergence
	if ok, err := read(results.FileDivergence, "macepc-divergence", &df, false); err != nil {
		return nil, err
	} else if ok {
		r.Divergence = &df
		if r.Walks, err = results.ReadCountsLines(filepath.Join(dir, results.FileWalks), true, results.CountsSpec{Phase: "diverge", Lines: df.Executions + df.BudgetExecutions, AtMost: true}); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	var ef results.Events
	if ok, err := read(results.FileEvents, "macepc-divergence-events", &ef, false); err != nil {
		return nil, err
	} else if ok {
		r.Events = &ef
	}
	var cf Correlation
	if ok, err := read(results.FileCorrelation, "macepc-correlation", &cf, false); err != nil {
		return nil, err
	} else if ok {
		r.Correlation = &cf
	}
	if b, err := readlimit.ReadFile(filepath.Join(dir, results.FileDiff), readlimit.MaxTextFile); err == nil {
		r.Diff = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	var rg results.Regress
	if ok, err := read(results.FileRegress, "macepc-regress", &rg, false); err != nil {
		return nil, err
	} else if ok {
		r.Regress = &rg
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{results.FileRegressSVG, &r.RegressSVG}, {results.FileRegressPNG, &r.RegressPNG}} {
			if b, err := readlimit.ReadFile(filepath.Join(dir, f.name), readlimit.MaxTextFile); err == nil {
				*f.dst = b
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("report: %w", err)
			}
		}
	}
	return r, nil
}

// readJSON decodes one JSON file after checking its format and version;
// a missing file is (false, nil). A file larger than
// readlimit.MaxJSONFile, or one that does not start as a JSON object does
// (a device), is an error.
func readJSON(path, format string, v any) (bool, error) {
	b, err := readlimit.ReadJSONFile(path, readlimit.MaxJSONFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("report: %w", err)
	}
	var h struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return false, fmt.Errorf("report: %s is malformed: %w", path, err)
	}
	want := results.FormatVersion(format)
	if format == results.FormatSummary && h.Format == format && h.Version == 1 {
		// Version 1 held the replays as command lines; the report renders
		// its own from the paths, so it reads the rest.
		var v1 struct {
			*results.Summary
			Replay []string `json:"replay"`
		}
		v1.Summary = v.(*results.Summary)
		if err := json.Unmarshal(b, &v1); err != nil {
			return false, fmt.Errorf("report: %s is malformed: %w", path, err)
		}
		v1.Summary.Replay = []results.Replay{}
		return true, nil
	}
	if h.Format != format || h.Version != want {
		return false, fmt.Errorf("report: %s is not a version-%d %s file (format %q, version %d)", path, want, format, h.Format, h.Version)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("report: %s is malformed: %w", path, err)
	}
	return true, nil
}

package anomaly

import (
	"context"
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// Found is one anomalous execution of a search.
type Found struct {
	// Index is the execution's index in the search.
	Index int
	// Result is the execution.
	Result *timedsim.Result
}

// SearchResult is the outcome of an anomaly search (phase 2).
type SearchResult struct {
	// Found says whether an anomalous execution was found.
	Found bool
	// Index is the execution index of the first anomalous execution, -1
	// if none.
	Index int
	// Result is the first anomalous execution (nil if none).
	Result *timedsim.Result
	// Anomalies are all the anomalous executions explored, in index
	// order; Anomalies[0] is the first (Index, Result).
	Anomalies []Found
	// Explored is the number of executions handed to each: the first
	// anomaly's index + 1 + the triage budget when an anomaly was found
	// (at most the budget maxRuns), the budget when none was, the
	// completed prefix when the search was cancelled.
	Explored int
}

// SearchConfig bounds a search.
type SearchConfig struct {
	// MaxRuns is the number of executions explored at most; it must be
	// positive.
	MaxRuns int
	// Triage is the number of executions explored after the first
	// anomalous one, to collect the others (0: stop at the first). A
	// fuzzer that stopped at its first crash would report whichever bug
	// is most frequent, not the worst one; Triage classifies what this
	// budget finds.
	Triage int
	// Start resumes an interrupted search: executions 0..Start-1 were
	// explored by it, and the first anomalous one among them was
	// FirstBefore (-1: none; read only when Start > 0). The search explores from Start on and stops
	// where the uninterrupted search would have; the result counts the
	// executions before Start as explored, but holds only the anomalies
	// from Start on (Found and Index include the earlier one).
	Start, FirstBefore int
}

// Search explores executions 0..cfg.MaxRuns-1 of ex, execution i following
// paths(i), until one is anomalous, then cfg.Triage more executions
// (phase 2), collecting every anomalous execution on the way. each, if not
// nil, sees every explored execution in index order, from one goroutine
// at a time (phase 3b collects its samples there); only the anomalous
// results are kept.
//
// The explored executions are the ones with the lowest indexes up to the
// first anomalous index plus cfg.Triage, so the answer does not depend on
// ex.Jobs: workers may have simulated later executions, but each never
// sees them and they do not count as explored.
//
// On cancellation of ctx Search returns what it explored (the consecutive
// executions from index 0 that completed) and ctx's error; an error of
// the explorer (an invalid scenario) is returned as it is. A budget that
// is not positive, or a negative Triage, is an error. A nil ex, paths or
// anomalous is a caller bug: Search panics.
func Search(ctx context.Context, ex *timedsim.Explorer, paths func(i int) timedsim.Path, cfg SearchConfig,
	anomalous func(*timedsim.Result) bool, each func(i int, r *timedsim.Result)) (SearchResult, error) {
	if ex == nil || paths == nil || anomalous == nil {
		panic("anomaly: Search needs an explorer, a path source and an anomaly predicate")
	}
	res := SearchResult{Index: -1}
	if cfg.MaxRuns <= 0 {
		return res, fmt.Errorf("anomaly: search budget %d is not positive", cfg.MaxRuns)
	}
	if cfg.Triage < 0 {
		return res, fmt.Errorf("anomaly: triage budget %d is negative", cfg.Triage)
	}
	if cfg.Start < 0 || cfg.Start > cfg.MaxRuns || cfg.Start > 0 && cfg.FirstBefore >= cfg.Start {
		return res, fmt.Errorf("anomaly: cannot resume at %d of %d with the first anomaly at %d", cfg.Start, cfg.MaxRuns, cfg.FirstBefore)
	}
	last := cfg.MaxRuns - 1 // the last index to explore
	if f := cfg.FirstBefore; cfg.Start > 0 && f >= 0 {
		res.Found, res.Index = true, f
		if f <= last-cfg.Triage {
			last = f + cfg.Triage
		}
	}
	if cfg.Start > last { // the interrupted search had explored everything
		res.Explored = cfg.Start
		return res, nil
	}
	_, done, err := ex.Run(ctx, timedsim.Work{
		N:    last + 1 - cfg.Start,
		Path: func(j int) timedsim.Path { return paths(cfg.Start + j) },
		Each: func(j int, r *timedsim.Result) bool {
			i := cfg.Start + j
			if each != nil {
				each(i, r)
			}
			if anomalous(r) {
				if !res.Found {
					res.Found, res.Index, res.Result = true, i, r
					if i <= last-cfg.Triage {
						last = i + cfg.Triage
					}
				}
				res.Anomalies = append(res.Anomalies, Found{Index: i, Result: r})
			}
			return i < last
		},
	})
	res.Explored = cfg.Start + done
	return res, err
}

package anomaly

import (
	"context"
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// SearchResult is the outcome of an anomaly search (phase 2).
type SearchResult struct {
	// Found says whether an anomalous execution was found.
	Found bool
	// Index is the execution index of the anomalous execution, -1 if none.
	Index int
	// Result is the anomalous execution (nil if none).
	Result *timedsim.Result
	// Explored is the number of executions handed to each, the anomalous
	// one included: Index+1 when Found, the budget when the search ran to
	// its end, the completed prefix when it was cancelled.
	Explored int
}

// Search explores executions 0..maxRuns-1 of ex, execution i following
// paths(i), until one is anomalous (phase 2). each, if not nil, sees every
// explored execution in index order, from one goroutine at a time (phase
// 3b collects its samples there); results are not kept otherwise.
//
// The search stops at the anomalous execution with the lowest index, so the
// answer does not depend on ex.Jobs: workers may have simulated later
// executions, but each never sees them and they do not count as explored.
//
// On cancellation of ctx Search returns what it explored (the consecutive
// executions from index 0 that completed) and ctx's error; an error of
// the explorer (an invalid scenario) is returned as it is. maxRuns must be
// positive. A nil ex, paths or anomalous is a caller bug: Search panics.
func Search(ctx context.Context, ex *timedsim.Explorer, paths func(i int) timedsim.Path, maxRuns int,
	anomalous func(*timedsim.Result) bool, each func(i int, r *timedsim.Result)) (SearchResult, error) {
	if ex == nil || paths == nil || anomalous == nil {
		panic("anomaly: Search needs an explorer, a path source and an anomaly predicate")
	}
	res := SearchResult{Index: -1}
	if maxRuns <= 0 {
		return res, fmt.Errorf("anomaly: search budget %d is not positive", maxRuns)
	}
	_, done, err := ex.Run(ctx, timedsim.Work{
		N:    maxRuns,
		Path: paths,
		Each: func(i int, r *timedsim.Result) bool {
			if each != nil {
				each(i, r)
			}
			if anomalous(r) {
				res.Found, res.Index, res.Result = true, i, r
				return false
			}
			return true
		},
	})
	res.Explored = done
	return res, err
}

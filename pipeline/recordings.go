package pipeline

import (
	"context"
	"sync"

	"github.com/macepc/macepc/timedsim"
)

// recordings are replays with the event log on (record) started ahead of
// the call that needs them, so that several run side by side, and kept for
// a later phase of the same run: the search's triage replays the median
// execution and the classes' representatives, phase 3a the first class's
// representative again. An execution is a pure function of its target and
// path, so a recording is the replay's result whoever asks.
type recordings struct {
	mu sync.Mutex
	m  map[recordingKey]func() (*timedsim.Result, error)
}

type recordingKey struct {
	t    *Target
	path string
}

func newRecordings() *recordings {
	return &recordings{m: map[recordingKey]func() (*timedsim.Result, error){}}
}

func keyOf(t *Target, path timedsim.Path) recordingKey {
	return recordingKey{t: t, path: path.String()}
}

// start starts the recording of path on t unless it is there.
func (rs *recordings) start(ctx context.Context, env Env, t *Target, path timedsim.Path) {
	k := keyOf(t, path)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if _, ok := rs.m[k]; !ok {
		env.recs = nil // the replay itself records
		rs.m[k] = recordAsync(ctx, env, t, path)
	}
}

// get is the recording of path on t, started earlier; ok is false if it
// was not.
func (rs *recordings) get(t *Target, path timedsim.Path) (wait func() (*timedsim.Result, error), ok bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	wait, ok = rs.m[keyOf(t, path)]
	return wait, ok
}

// keep drops every recording but that of path on t (none if t is nil),
// waiting for the dropped ones to end: no replay outlives its phase.
func (rs *recordings) keep(t *Target, path timedsim.Path) {
	var k recordingKey
	if t != nil {
		k = keyOf(t, path)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for key, wait := range rs.m {
		if t == nil || key != k {
			wait() //nolint:errcheck // dropped
			delete(rs.m, key)
		}
	}
}

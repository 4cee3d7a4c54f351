// Package simtime bounds simulated time. Durations are int64 nanoseconds
// (time.Duration), whose range ends after about 292 years: a sum of two
// large ones wraps around to a negative time, which the simulator would
// take for an early one (a what-if factor of 1e20 on a
// handler's duration gave a 492.5 ms median instead of timeouts). The
// durations a user or a file gives (event durations, link latencies) are
// at most MaxDuration, and the simulator adds times with Add, which
// saturates at math.MaxInt64 (never) instead of wrapping.
//
// # Usage
//
//	if d > simtime.MaxDuration { return error }
//	end := simtime.Add(start, d) // math.MaxInt64 at most, never negative for non-negative arguments
//
// # Determinism
//
// Pure functions of their arguments.
package simtime

import (
	"math"
	"time"
)

// MaxDuration is the largest duration macepc accepts as an input: 100
// years (of 365 days), beyond any timeout a simulated execution can mean,
// and small enough that a time within it plus a duration within it cannot
// overflow (an int64 of nanoseconds holds 292 years). Larger values are
// refused where they are read, or saturate at it where they are computed
// (a scaled event duration, a network delay).
const MaxDuration = 100 * 365 * 24 * time.Hour

// Add is the time t plus the duration d, saturating at math.MaxInt64
// instead of wrapping around. Simulated time only moves forward: every
// caller's d is non-negative, and a negative one is added unchecked. The
// check is one comparison, for the simulator's hot path.
func Add(t, d time.Duration) time.Duration {
	if s := t + d; s >= t || d < 0 {
		return s
	}
	return math.MaxInt64
}

// FromFloat is x nanoseconds rounded to the nearest, saturating at
// MaxDuration (and at 0 for negative values and NaN): a computed delay that
// no int64 could hold is as good as never.
func FromFloat(x float64) time.Duration {
	if x > 0 && x < float64(MaxDuration) {
		return time.Duration(math.Round(x))
	}
	if x >= float64(MaxDuration) {
		return MaxDuration
	}
	return 0
}

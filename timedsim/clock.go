package timedsim

import "time"

// Elapsed reports whether at least d has passed since the instant since
// on ctx's clock (ctx.Now()−since >= d). A service that decides by
// comparing times (a timeout on the last message heard, a lease) should
// ask Elapsed rather than compare ctx.Now() itself: in the timed
// simulator the answer is the comparison, while in the liveness mode,
// where time is logical (one millisecond per step), it is a choice point
// that the search explores both ways, since an untimed execution says
// nothing about how much real time passed.
func Elapsed(ctx Context, since, d time.Duration) bool {
	if c, ok := ctx.(ClockChooser); ok {
		return c.ChooseElapsed(since, d)
	}
	return ctx.Now()-since >= d
}

// ClockChooser is a Context whose time comparisons are choices (the
// liveness mode's): ChooseElapsed answers Elapsed.
type ClockChooser interface {
	ChooseElapsed(since, d time.Duration) bool
}

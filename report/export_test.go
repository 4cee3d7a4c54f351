package report

// EventGraphClashes draws the event graph of d as the report does and
// lists its texts that overlap or come closer than textsClash allows (for
// the external tests that run the pipeline, which this package's own
// tests cannot import).
func EventGraphClashes(d *EventGraphData) []string {
	return textsClash(eventGraphTexts(d), map[string]bool{"simulated time (s)": true}, egClear, egWiden)
}

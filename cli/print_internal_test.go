package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
)

// With a fast-mode fence the summary's normal execution time is the fast
// mode's, and the quartiles of all executions, the upper one in the slow
// mode, are named as such; without one it is the profile's.
func TestPrintSummaryNormalTime(t *testing.T) {
	s := &pipeline.SummaryFile{Profile: pipeline.SummaryProfile{Runs: 50, Median: 7.956, Q3: 20, Threshold: 11.93, FastMode: 33, FastMedian: 7.5, FastQ3: 7.95}}
	var b bytes.Buffer
	printSummary(&b, "out", s)
	if want := "normal execution time: median 7.5 s, Q3 7.95 s of the fast mode (33 of 50 profile executions; all: median 7.956 s, Q3 20 s); anomalous above 11.93 s"; !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", b.String(), want)
	}
	s.Profile.FastMode, s.Profile.Q3 = 0, 8
	b.Reset()
	printSummary(&b, "out", s)
	if want := "normal execution time: median 7.956 s, Q3 8 s; anomalous above 11.93 s (50 profile executions)"; !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", b.String(), want)
	}
}

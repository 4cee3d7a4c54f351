package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// With a fast-mode fence the summary's normal execution time is the fast
// mode's, and the quartiles of all executions, the upper one in the slow
// mode, are named as such; without one it is the profile's.
func TestPrintSummaryNormalTime(t *testing.T) {
	s := &results.Summary{Profile: results.SummaryProfile{Runs: 50, Median: 7.956, Q3: 20, Threshold: 11.93, FastMode: 33, FastMedian: 7.5, FastQ3: 7.95}}
	var b bytes.Buffer
	printSummary(&b, "macepc", "out", s)
	if want := "normal execution time: median 7.5 s, Q3 7.95 s of the fast mode (33 of 50 profile executions; all: median 7.956 s, Q3 20 s); anomalous above 11.93 s"; !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", b.String(), want)
	}
	s.Profile.FastMode, s.Profile.Q3 = 0, 8
	b.Reset()
	printSummary(&b, "macepc", "out", s)
	if want := "normal execution time: median 7.956 s, Q3 8 s; anomalous above 11.93 s (50 profile executions)"; !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", b.String(), want)
	}
}

// stdout does not put a time beside a step count ("at 22.4 ms of 22"),
// and a profile with slow executions points at the warning where it went,
// standard error.
func TestPrintDivergenceAndProfileWording(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &bytes.Buffer{}}
	df := &pipeline.DivergenceFile{Anomaly: &pipeline.Anomaly{}, Step: 12, TotalSteps: 22, IgnorableFraction: 0.5, Event: &pipeline.Event{Step: 12, Label: "deliver Vote", Node: "n1", From: "n2", StartNS: 22_400_000}}
	a.printDivergence(pipeline.NewDir("out"), df)
	if want := "divergence at step 12: deliver Vote on n1 from n2 at 22.4 ms (of the execution's 22 steps, 50.0% ignorable)"; !strings.Contains(out.String(), want) {
		t.Errorf("divergence line:\n%s\nwant %q", out.String(), want)
	}
	out.Reset()
	pf := &results.Profile{Runs: 50, Threshold: 100, IQRFactor: 1.5, MinSlowdown: 1.5}
	for i := range 50 {
		ns := int64(50)
		if i < 7 {
			ns = 200
		}
		pf.Executions = append(pf.Executions, results.ExecLine{Index: i, ExecTimeNS: ns, Finished: true, Outcome: timedsim.Finished})
	}
	a.printProfile(pf)
	if want := "7 of 50 profile executions already above the threshold (the slowest 0 s): not rare: see the warning on standard error"; !strings.Contains(out.String(), want) {
		t.Errorf("profile lines:\n%s\nwant %q", out.String(), want)
	}
}

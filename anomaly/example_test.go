package anomaly_test

import (
	"fmt"
	"log"
	"time"

	"github.com/macepc/macepc/anomaly"
)

// Phase 1b: the profile of 8 execution times, one of which is slow.
func ExampleNewProfile() {
	ms := time.Millisecond
	times := []time.Duration{510 * ms, 495 * ms, 530 * ms, 10040 * ms, 502 * ms, 521 * ms, 515 * ms, 540 * ms}
	p, err := anomaly.NewProfile(times, 0, anomaly.MildOutliers)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Q1", p.Q1, "median", p.Median, "Q3", p.Q3)
	fmt.Println("threshold", p.Threshold)
	fmt.Println("550ms anomalous:", p.Anomalous(550*ms), "10.04s anomalous:", p.Anomalous(10040*ms))
	for _, w := range p.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// Q1 502ms median 515ms Q3 530ms
	// threshold 572ms
	// 550ms anomalous: false 10.04s anomalous: true
	// warning: only 8 executions: quartiles from fewer than 20 are rough
}

// Phase 3b: six executions, two of them slow because of a race whose
// marker event happens early (inside the 490 ms count window, which every
// execution runs to its end), after which a recovery timer at 10 s
// repairs the damage. Both correlate with execution time; only the race
// still does within the window. Pings are noise, and
// every execution has 4 Joins: no correlation is defined.
func ExampleCorrelate() {
	race := "deliver JoinReply → Remove"
	sample := func(ms int, slow bool, pings int) anomaly.Sample {
		s := anomaly.Sample{
			ExecTime: time.Duration(ms) * time.Millisecond,
			Counts:   map[string]int{"deliver Join": 4, "deliver Ping": pings},
			Window:   map[string]int{"deliver Join": 4, "deliver Ping": pings},
		}
		if slow {
			s.Counts[race], s.Window[race] = 1, 1
			s.Counts["timer recovery"] = 1
		}
		return s
	}
	samples := []anomaly.Sample{
		sample(510, false, 2), sample(10020, true, 2), sample(495, false, 3),
		sample(530, false, 1), sample(10050, true, 2), sample(521, false, 1),
	}
	show := func(r *float64) string {
		if r == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", *r)
	}
	for _, c := range anomaly.Correlate(samples, 490*time.Millisecond) {
		fmt.Printf("%-27s R %-6s window R %-6s length only %v\n", c.Label, show(c.R), show(c.WindowR), c.LengthOnly)
	}
	// Output:
	// deliver JoinReply → Remove  R 1.000  window R 1.000  length only false
	// deliver Ping                R 0.169  window R 0.169  length only false
	// deliver Join                R -      window R -      length only false
	// timer recovery              R 1.000  window R -      length only true
}

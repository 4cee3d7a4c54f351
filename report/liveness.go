package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
)

// NewCriticalData extracts the critical-transition search of a liveness
// run as the divergence plot's data: the same exponential-then-binary
// search over prefixes of the dead path (MaceMC's FindCriticalTransition),
// where a probe recovers when a random walk reaches a live state.
func NewCriticalData(r *Results) (*DivergenceData, string) {
	lv := r.Liveness
	if lv == nil {
		return nil, "no liveness run"
	}
	c := lv.Report.Critical
	if c == nil {
		if lv.Report.Violation == nil {
			return nil, fmt.Sprintf("no liveness violation (the search ended: %s), so there is no critical transition", lv.Report.End)
		}
		return nil, "the critical-transition search did not run"
	}
	if len(c.Probes) == 0 {
		return nil, "the critical-transition search ran no probe"
	}
	d := &DivergenceData{TotalSteps: c.Dead.Steps, Step: c.Step, Lower: -1, Upper: -1, Walks: lv.Report.Settings.Walks,
		Criterion: "a walk reached a live state", Execution: "dead path", Point: "critical transition"}
	if c.DeadEvent != "" {
		d.Event = fmt.Sprintf("step %d: %s", c.Step, c.DeadEvent)
	}
	exp := true
	for i, pr := range c.Probes {
		ph := "binary"
		if exp {
			ph = "exponential"
			if pr.Recovered {
				d.Lower = pr.Prefix
			} else {
				d.Upper = pr.Prefix
				exp = false
			}
		}
		d.Probes = append(d.Probes, DivProbe{Order: i + 1, Phase: ph, Prefix: pr.Prefix, Walks: pr.Walks, Recovered: pr.Recovered})
	}
	return d, ""
}

func criticalFigure(r *Results) Figure {
	d, why := NewCriticalData(r)
	f := Figure{Title: "Critical transition search (liveness, MaceMC)", Missing: why, W: vg.Points(640), H: vg.Points(340)}
	if d != nil {
		f.Data = d
		c := r.Liveness.Report.Critical
		where := fmt.Sprintf("Class %s: %s", c.Class, c.Reason)
		if c.Class == "C1" {
			where = fmt.Sprintf("The critical transition is step %d of the dead path (red line, %s): from the state before it some random walk still reaches a live state, after it none of %d does. "+
				"The state diff below shows what that step changed compared with the live path that shares every step before it", c.Step, c.DeadEvent, d.Walks)
		}
		f.Guide = fmt.Sprintf("The black bar is the dead path, %d steps long (a random walk to dmax that ends in a state violating the liveness property). Each mark is a probe: replay the dead path's first x steps, "+
			"then up to %d random walks; green circle: a walk reached a live state, red cross: none did. Above the bar the exponential phase finds the bounds %s (grey dashed lines); below it the binary phase narrows them. %s.",
			d.TotalSteps, d.Walks, boundsText(d), where)
	}
	return finish(f, func() func(draw.Canvas) { return divergencePlot(d).Draw })
}

func livenessVerdict(lv *results.Liveness) (string, bool) {
	v := lv.Report.Violation
	if v == nil {
		return fmt.Sprintf("Liveness: no violation (the search ended: %s; %d states, %d random walks).", lv.Report.End, lv.Report.Stats.States, lv.Report.Stats.Walks), false
	}
	s := fmt.Sprintf("%s violation: property %s fails at step %d", upper(v.Kind), v.Property, v.Step)
	if v.Kind == liveness.KindPanic {
		s = fmt.Sprintf("Panic at step %d: %s", v.Step, v.Panic)
	}
	c := lv.Report.Critical
	if c != nil && c.Class == "C1" {
		s += fmt.Sprintf("; critical transition at step %d: %s", c.Step, c.DeadEvent)
	}
	if v.Kind == "liveness" && c != nil && c.Class == "C2" && !c.DeadFromStart {
		return fmt.Sprintf("Liveness: inconclusive, not a violation: property %s does not hold after %d steps, but no dead state was isolated (%s).", v.Property, v.Step, c.Reason), false
	}
	return s + ".", true
}

func livenessConfigRows(lv *results.Liveness) []row {
	st := lv.Report.Settings
	var ws []string
	for _, k := range slices.Sorted(maps.Keys(st.Weights)) {
		ws = append(ws, fmt.Sprintf("%s %d", k, st.Weights[k]))
	}
	rows := []row{
		{"system", fmt.Sprintf("%s (variant %s, %d nodes)", lv.System, lv.Variant, lv.Nodes)},
		{"seed", fmt.Sprint(lv.Seed)},
		{"search", fmt.Sprintf("iterative-deepening DFS, depth %d to %d by %d, random walks to dmax %d; %d walks per critical-transition probe; state hashing %v", st.Depth, st.MaxDepth, st.DepthStep, st.DMax, st.Walks, st.Hashing)},
		{"choice weights", strings.Join(ws, ", ") + ifs(st.Unbiased, " (unbiased)", "")},
		{"safety properties", strings.Join(st.Safety, ", ")},
		{"liveness properties", strings.Join(st.Liveness, ", ")},
	}
	if st.Faults > 0 || st.Breaks > 0 || st.Drops > 0 || st.Crashes > 0 || st.Partitions > 0 {
		f := fmt.Sprintf("up to %d node resets, %d connection breaks and %d datagram drops", st.Faults, st.Breaks, st.Drops)
		if st.Crashes > 0 || st.Partitions > 0 {
			f = fmt.Sprintf("up to %d node resets, %d connection breaks, %d datagram drops, %d crash-stops (a node down for good) and %d lasting partitions (a node cut off for good)", st.Faults, st.Breaks, st.Drops, st.Crashes, st.Partitions)
		}
		rows = append(rows, row{"faults", f + " per execution"})
	}
	return rows
}

func livenessSummaryRows(lv *results.Liveness) []row {
	rp := lv.Report
	s := rp.Stats
	rows := []row{{"liveness search", fmt.Sprintf("ended: %s; depth %d, %d paths, %d states (%d duplicates pruned), %d random walks, %d steps", rp.End, s.Depth, s.Paths, s.States, s.Duplicates, s.Walks, s.Steps)}}
	distinct := "not known (merged shards)"
	if s.Distinct > 0 {
		distinct = fmt.Sprint(s.Distinct)
	}
	rows = append(rows, row{"visited states", fmt.Sprintf("%s; %d prefix tasks (split depth %d); %s distinct states; fingerprint collision probability (TLC estimate) %.2g",
		liveness.SearchedText(s.DepthDone, s.Depth), s.Prefixes, s.Split, distinct, s.Collision)})
	if v := rp.Violation; v != nil {
		what := fmt.Sprintf("%s property %s at step %d (failing: %s)", v.Kind, v.Property, v.Step, strings.Join(v.Failed, ", "))
		if v.Kind == liveness.KindPanic {
			what = fmt.Sprintf("panic at step %d: %s", v.Step, v.Panic)
		}
		rows = append(rows, row{"violation", what})
	}
	if c := rp.Critical; c != nil {
		what := fmt.Sprintf("class %s", c.Class)
		if c.Class == "C1" {
			what = fmt.Sprintf("C1: step %d of %d: %s", c.Step, c.Dead.Steps, c.DeadEvent)
		} else if c.Reason != "" {
			what += ": " + c.Reason
		}
		rows = append(rows, row{"critical transition", what})
		if c.Live != nil && c.LiveEvent != "" {
			rows = append(rows, row{"live path", fmt.Sprintf("same first %d steps, then %s; live after %d steps", c.Step, c.LiveEvent, c.Live.Steps)})
		}
	}
	return rows
}

// livenessReplay lists the commands that replay the dead and live paths.
func livenessReplay(program string, lv *results.Liveness) []string {
	var out []string
	for _, f := range []string{"dead.path.json", "live.path.json"} {
		if slices.Contains(lv.Files, f) {
			out = append(out, replayCommand(program, f))
		}
	}
	return out
}

package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Explore writes DIR/explore.html (package explore), the execution
// debugger of a results directory: the anomalous execution and the
// similar fast one side by side, the divergence point marked (phase 3a's
// files), and the liveness run's dead and live paths side by side, the
// critical step marked (liveness.json's files). Each execution is
// replayed from its path file with every node's state recorded. A
// directory with none of these files gets no explore.html (an older one
// is removed) and wrote is false.
func Explore(ctx context.Context, systems timedsim.Registry, dir string) (wrote bool, err error) {
	defer wrapErr(&err)
	d := NewDir(dir)
	data := &explore.Data{}
	if d.exists(results.FileAnomalyPath) {
		if err := exploreTimed(ctx, systems, d, data); err != nil {
			return false, err
		}
	}
	if d.exists(results.FileLiveness) {
		if err := exploreLiveness(systems, d, data); err != nil {
			return false, err
		}
	}
	if len(data.Executions) == 0 {
		return false, d.remove(results.FileExplore)
	}
	return true, explore.WriteFile(d.File(results.FileExplore), data)
}

// ExplorePaths writes explore.html to out for one or two path files
// (timed or liveness ones), the second side by side with the first.
func ExplorePaths(ctx context.Context, systems timedsim.Registry, paths []string, out string) (err error) {
	defer wrapErr(&err)
	if len(paths) == 0 || len(paths) > 2 {
		return fmt.Errorf("explore takes one or two path files, got %d", len(paths))
	}
	data := &explore.Data{}
	for _, p := range paths {
		name := filepath.Base(p)
		var e *explore.Execution
		var title string
		if IsLivenessPath(p) {
			pf, err := readLivenessPath(p)
			if err != nil {
				return err
			}
			if e, err = traceLiveness(systems, pf, name); err != nil {
				return err
			}
			title = fmt.Sprintf("%s/%s, %d nodes, seed %d", pf.System, pf.Variant, pf.Nodes, pf.Seed)
		} else {
			pf, err := readPathFile(p)
			if err != nil {
				return err
			}
			if e, err = replayExplore(ctx, systems, pf, name); err != nil {
				return err
			}
			title = fmt.Sprintf("%s/%s, %d nodes", pf.System, pf.Variant, pf.Nodes)
		}
		if data.Title == "" {
			data.Title = title
		}
		data.Executions = append(data.Executions, e)
	}
	if len(paths) == 2 {
		data.Pair(0, 1, data.Executions[0].Name+" vs "+data.Executions[1].Name)
	}
	return explore.WriteFile(out, data)
}

// replayExplore replays a timed path file with states recorded.
func replayExplore(ctx context.Context, systems timedsim.Registry, pf *timedsim.PathFile, name string) (*explore.Execution, error) {
	r, err := replay(ctx, systems, pf, -1, 0, true)
	if err != nil {
		return nil, err
	}
	e := explore.FromTimed(name, r.Header, r.Result)
	if pf.Note != "" {
		e.Title += " (" + pf.Note + ")"
	}
	return e, nil
}

// exploreTimed adds the anomalous execution and, after phase 3a, the
// similar fast one, with the divergence point.
func exploreTimed(ctx context.Context, systems timedsim.Registry, d *Dir, data *explore.Data) error {
	apf, err := readPathFile(d.File(results.FileAnomalyPath))
	if err != nil {
		return err
	}
	a, err := replayExplore(ctx, systems, apf, "anomalous")
	if err != nil {
		return err
	}
	data.Title = fmt.Sprintf("%s/%s, %d nodes", apf.System, apf.Variant, apf.Nodes)
	ai := len(data.Executions)
	data.Executions = append(data.Executions, a)
	if !d.exists(results.FileDivergence) {
		return nil
	}
	path := d.File(results.FileDivergence)
	var df DivergenceFile
	if err := results.ReadJSON(path, &df); err != nil {
		return err
	}
	if err := results.CheckFormat(path, df.Format, df.Version, results.FormatDivergence); err != nil {
		return err
	}
	if df.ConfigHash != apf.ConfigHash {
		return fmt.Errorf("%s belongs to another configuration than %s", path, results.FileAnomalyPath)
	}
	// The run's seed, as the report and summary.json give it; the
	// divergence walks' own seed is the phase's, said as such.
	var pf results.Profile
	if err := results.ReadJSON(d.File(results.FileProfile), &pf); err == nil && pf.Format == results.FormatProfile {
		data.Title += fmt.Sprintf(", seed %d (divergence walks: phase seed %d)", pf.Seed, df.Seed)
	} else {
		data.Title += fmt.Sprintf(", divergence walks' phase seed %d", df.Seed)
	}
	if df.Step < 0 {
		a.Mark(0, explore.MarkDivergence, "no divergence point: no walk recovers even from the start")
		return nil
	}
	why := "divergence point: after this step no walk recovers"
	if df.Why != "" {
		why = "divergence point: " + df.Why
	}
	a.Mark(df.Step, explore.MarkDivergence, why)
	if df.Similar == nil || !d.exists(results.FileSimilarPath) {
		return nil
	}
	spf, err := readPathFile(d.File(results.FileSimilarPath))
	if err != nil {
		return err
	}
	s, err := replayExplore(ctx, systems, spf, "similar")
	if err != nil {
		return err
	}
	s.Mark(df.Similar.Prefix, explore.MarkDivergence, "the similar fast execution branches off the anomalous one here")
	data.Executions = append(data.Executions, s)
	data.Pair(ai, len(data.Executions)-1, "anomalous vs similar fast")
	return nil
}

// exploreLiveness adds the dead path and, with a critical transition, the
// live path, with the critical step.
func exploreLiveness(systems timedsim.Registry, d *Dir, data *explore.Data) error {
	lf, err := results.ReadLiveness(d.File(results.FileLiveness))
	if err != nil {
		return err
	}
	rep := lf.Report
	if rep.Violation == nil || !d.exists(results.FileDeadPath) {
		return nil
	}
	if data.Title == "" {
		data.Title = fmt.Sprintf("%s/%s, %d nodes, seed %d", lf.System, lf.Variant, lf.Nodes, lf.Seed)
	}
	pf, err := readLivenessPath(d.File(results.FileDeadPath))
	if err != nil {
		return err
	}
	dead, err := traceLiveness(systems, pf, "dead")
	if err != nil {
		return err
	}
	v := rep.Violation
	dead.Mark(v.Step, explore.MarkViolation, v.What())
	di := len(data.Executions)
	data.Executions = append(data.Executions, dead)
	c := rep.Critical
	if c == nil || c.Live == nil || !d.exists(results.FileLivePath) {
		return nil
	}
	dead.Mark(c.Step, explore.MarkCritical, fmt.Sprintf("critical transition: %s (the live path: %s)", c.DeadEvent, c.LiveEvent))
	lpf, err := readLivenessPath(d.File(results.FileLivePath))
	if err != nil {
		return err
	}
	live, err := traceLiveness(systems, lpf, "live")
	if err != nil {
		return err
	}
	live.Mark(c.Step, explore.MarkCritical, "the live path leaves the dead one: "+c.LiveEvent)
	data.Executions = append(data.Executions, live)
	data.Pair(di, len(data.Executions)-1, "dead vs live")
	return nil
}

// traceLiveness traces a liveness path file.
func traceLiveness(systems timedsim.Registry, pf *LivenessPathFile, name string) (*explore.Execution, error) {
	cfg, err := livenessPathConfig(pf, systems)
	if err != nil {
		return nil, err
	}
	tr, err := liveness.TracePath(cfg, pf.Path)
	if err != nil {
		return nil, fmt.Errorf("%s path: %w", name, err)
	}
	title := fmt.Sprintf("%s path: %s/%s, %d nodes, driver seed %d", name, pf.System, pf.Variant, pf.Nodes, pf.Path.Driver)
	if pf.Note != "" {
		title += " (" + pf.Note + ")"
	}
	return explore.FromTrace(name, title, tr), nil
}

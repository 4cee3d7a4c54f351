package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// livenessFiles are the files a liveness run writes.
func livenessFiles() []string {
	return []string{results.FileLiveness, results.FileDeadPath, results.FileLivePath, results.FileDeadLog, results.FileLiveLog, results.FileStateDiff, results.FilePrefix, results.FileExplore}
}

// LivenessConfig configures MaceMC's liveness search (Liveness).
type LivenessConfig struct {
	Dir *Dir
	// System and Variant name the system under test; Search.Scenario is
	// their scenario.
	System  timedsim.System
	Variant string
	// Search configures the search itself (package liveness).
	Search liveness.Config
	// Progress, if not nil, follows the search (PhaseLiveness, of unknown
	// total): its DFS paths and random walks count as executions.
	Progress Progress
}

// LivenessResult is what Liveness wrote.
type LivenessResult struct {
	File *LivenessFile
}

// Report is the search's report.
func (r *LivenessResult) Report() *liveness.Report { return r.File.Report }

// prepare checks the configuration both the search and one of its shards
// need, and creates the results directory.
func (cfg LivenessConfig) prepare() (*Dir, *timedsim.Scenario, error) {
	d, sc := cfg.Dir, cfg.Search.Scenario
	switch {
	case d == nil:
		return nil, nil, errors.New("no results directory (LivenessConfig.Dir)")
	case sc == nil:
		return nil, nil, errors.New("no scenario (LivenessConfig.Search.Scenario)")
	}
	if err := d.create(); err != nil {
		return nil, nil, err
	}
	return d, sc, nil
}

// Liveness runs MaceMC's liveness search (package liveness: bounded DFS,
// random walks, the critical transition) and writes liveness.json and,
// for a violation, its path file and event log (dead.path.json,
// dead.log), the live path with the longest common prefix (live.path.json,
// live.log) and the state diff at the critical step (state.diff). A
// search that ends early (interrupted) still writes its partial report,
// which the result holds, with the error.
func Liveness(ctx context.Context, cfg LivenessConfig) (res *LivenessResult, err error) {
	defer wrapErr(&err)
	d, _, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	search := cfg.Search
	task := start(cfg.Progress, PhaseLiveness, 0)
	if cfg.Progress != nil {
		var done int64
		own := cfg.Search.Progress
		search.Progress = func(st liveness.Stats) {
			if own != nil {
				own(st)
			}
			// The division's paths count until its tasks are folded:
			// the count can step back; progress never does.
			n := max(st.Paths+st.Walks, done)
			task.Add(int(n-done), fmt.Sprintf("depth %d, %d states, %d walks", st.Depth, st.States, st.Walks))
			done = n
		}
	}
	rep, runErr := liveness.Run(ctx, search)
	task.Done()
	if rep == nil {
		return nil, runErr
	}
	// The earlier search's files go once this one has a report, not
	// before: a refused search changes no file.
	if err := d.remove(livenessFiles()...); err != nil {
		return nil, err
	}
	lf, err := writeLiveness(d, cfg.System.Name, cfg.Variant, cfg.Search, rep)
	if err != nil {
		return nil, err
	}
	res = &LivenessResult{File: lf}
	if runErr != nil {
		return res, fmt.Errorf("%w; the partial report is in %s", runErr, d.File(results.FileLiveness))
	}
	return res, nil
}

// writeLiveness writes liveness.json and the files of its violation, for
// the search search (which replays the paths) of system/variant.
func writeLiveness(d *Dir, system, variant string, search liveness.Config, rep *liveness.Report) (*LivenessFile, error) {
	sc, seed := search.Scenario, search.Seed
	hdr := results.NewHeader(results.FormatLivenessPath, system, variant, sc.Nodes, seed)
	lf := &LivenessFile{Header: results.NewHeader(results.FormatLiveness, system, variant, sc.Nodes, seed), Report: rep, Files: []string{}}
	write := func(name string, fill func(io.Writer) error) error {
		lf.Files = append(lf.Files, name)
		return d.write(name, fill)
	}
	savePath := func(name, note string, p liveness.Path) error {
		return write(name, func(w io.Writer) error {
			st := rep.Settings
			return results.EncodeJSON(w, LivenessPathFile{Header: hdr, Note: note, Params: sc.Params, Weights: st.Weights, Unbiased: st.Unbiased, Faults: st.Faults, Breaks: st.Breaks, Drops: st.Drops,
				Crashes: st.Crashes, Partitions: st.Partitions, Safety: st.Safety, Liveness: st.Liveness, Path: p})
		})
	}
	saveLog := func(name string, p liveness.Path) error {
		lines, err := liveness.Replay(search, p)
		if err != nil && lines == nil {
			return err
		}
		return write(name, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
			return err
		})
	}
	if st := rep.Settings; st.LivePrefix > 0 && st.Prefix != nil {
		if err := savePath(results.FilePrefix, fmt.Sprintf("search prefix: a random walk to its first live state, %d steps (MaceMC's printed prefix; --prefix)", st.Prefix.Steps), *st.Prefix); err != nil {
			return nil, err
		}
	}
	if v := rep.Violation; v != nil {
		note := fmt.Sprintf("%s at step %d", v.What(), v.Step)
		if v.Kind == liveness.KindPanic {
			note = fmt.Sprintf("panic at step %d: %s", v.Step, v.Panic)
		}
		if err := savePath(results.FileDeadPath, note, v.Path); err != nil {
			return nil, err
		}
		if err := saveLog(results.FileDeadLog, v.Path); err != nil {
			return nil, err
		}
	}
	if c := rep.Critical; c != nil && c.Live != nil {
		if err := savePath(results.FileLivePath, fmt.Sprintf("live path sharing the dead path's first %d steps", c.Step), *c.Live); err != nil {
			return nil, err
		}
		if err := saveLog(results.FileLiveLog, *c.Live); err != nil {
			return nil, err
		}
		if err := write(results.FileStateDiff, func(w io.Writer) error { return writeStateDiff(w, c) }); err != nil {
			return nil, err
		}
	}
	if err := d.writeJSON(results.FileLiveness, lf); err != nil {
		return nil, err
	}
	return lf, nil
}

// ReadLivenessPath reads a liveness path file (dead.path.json,
// live.path.json).
func ReadLivenessPath(name string) (pf *LivenessPathFile, err error) {
	defer wrapErr(&err)
	return readLivenessPath(name)
}

func readLivenessPath(name string) (*LivenessPathFile, error) {
	var pf LivenessPathFile
	if err := results.ReadJSON(name, &pf); err != nil {
		return nil, configErr("ReadLivenessPath.name", nil, "{ReadLivenessPath.name}: %w", err)
	}
	if err := results.CheckFormat(name, pf.Format, pf.Version, results.FormatLivenessPath); err != nil {
		return nil, configErr("ReadLivenessPath.name", nil, "{ReadLivenessPath.name}: %w", err)
	}
	if err := pf.Path.Validate(); err != nil {
		return nil, configErr("ReadLivenessPath.name", nil, "{ReadLivenessPath.name} %s: %w", name, err)
	}
	return &pf, nil
}

// writeStateDiff is MaceMC Mdb's filediff of the critical step: every node
// whose state differs between the dead and the live path, '-' dead, '+'
// live.
func writeStateDiff(w io.Writer, c *liveness.Critical) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# macepc state diff v1: after step %d\n# - dead path: %s\n# + live path: %s\n", c.Step, c.DeadEvent, c.LiveEvent)
	for _, d := range c.Diff {
		fmt.Fprintf(&b, "@@ %s\n", timedsim.NodeID(d.Node))
		for _, l := range d.Lines {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IsLivenessPath reports whether a path file was written by the liveness
// search (dead.path.json, live.path.json).
func IsLivenessPath(name string) bool {
	b, err := readlimit.ReadJSONFile(name, readlimit.MaxPathFile) // /dev/zero: false at once
	if err != nil {
		return false
	}
	var h struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(b, &h) == nil && h.Format == results.FormatLivenessPath
}

// LivenessReplay is a liveness path replayed.
type LivenessReplay struct {
	Path *LivenessPathFile
	// Lines are its event log.
	Lines []string
	// Finding is true when the log ends in a panic or a violation, or the
	// path is not live.
	Finding bool
}

// ReplayLiveness replays the liveness path file name with the settings
// it records, resolving its system from systems.
func ReplayLiveness(systems timedsim.Registry, name string) (r *LivenessReplay, err error) {
	defer wrapErr(&err)
	pf, err := readLivenessPath(name)
	if err != nil {
		return nil, err
	}
	cfg, err := livenessPathConfig(pf, systems)
	if err != nil {
		return nil, err
	}
	lines, err := liveness.Replay(cfg, pf.Path)
	if err != nil && lines == nil {
		return nil, err
	}
	r = &LivenessReplay{Path: pf, Lines: lines}
	for _, l := range lines {
		if strings.HasPrefix(l, "# end ") && (strings.Contains(l, ": panic: ") || strings.Contains(l, " violated")) || strings.HasPrefix(l, "# not live: ") {
			r.Finding = true
		}
	}
	return r, nil
}

// livenessPathConfig is the liveness configuration that replays the path file: its
// scenario, seed, choice weights, faults and properties.
func livenessPathConfig(pf *LivenessPathFile, systems timedsim.Registry) (liveness.Config, error) {
	_, sc, err := pathScenario(systems, pf.System, pf.Variant, pf.Nodes, pf.Params)
	if err != nil {
		return liveness.Config{}, err
	}
	cfg := liveness.Config{Scenario: sc, Seed: pf.Seed, Weights: pf.Weights, Unbiased: pf.Unbiased, Faults: pf.Faults, Breaks: pf.Breaks, Drops: pf.Drops,
		Crashes: pf.Crashes, Partitions: pf.Partitions}
	if cfg.Safety, err = liveness.Select(sc.Safety, pf.Safety...); err != nil {
		return cfg, fmt.Errorf("path file: %w", err)
	}
	if cfg.Liveness, err = liveness.Select(sc.Liveness, pf.Liveness...); err != nil {
		return cfg, fmt.Errorf("path file: %w", err)
	}
	return cfg, nil
}

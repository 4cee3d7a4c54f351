package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/liveness"
	"github.com/macepc/macepc/timedsim"
)

// Files of a liveness run.
const (
	fileLiveness    = "liveness.json"
	fileDeadPath    = "dead.path.json"
	fileLivePath    = "live.path.json"
	fileDeadLog     = "dead.log"
	fileLiveLog     = "live.log"
	fileStateDiff   = "state.diff"
	livenessNodes   = 3
	livenessFormat  = "macepc-liveness"
	livenessPathFmt = "macepc-liveness-path"
)

// livenessFile is DIR/liveness.json.
type livenessFile struct {
	fileHeader
	Report *liveness.Report `json:"report"`
	// Files written next to it (relative to DIR).
	Files []string `json:"files"`
}

// livenessPathFile is a liveness path with what is needed to replay it or
// start a prefix-based search from its end (--prefix).
type livenessPathFile struct {
	fileHeader
	Note string `json:"note"`
	// Params are the system parameters the path was made with.
	Params timedsim.Params `json:"params,omitempty"`
	// The settings a replay needs: the choice weights decide the random
	// part, the properties what the log reports.
	Weights  map[string]int `json:"weights"`
	Unbiased bool           `json:"unbiased,omitempty"`
	Faults   int            `json:"faults,omitempty"`
	Safety   []string       `json:"safety"`
	Liveness []string       `json:"liveness"`
	Path     liveness.Path  `json:"path"`
}

// isLiveness reports whether run was asked for the liveness mode.
func isLiveness(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--liveness" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--liveness="); ok {
			b, err := strconv.ParseBool(v)
			return err != nil || b // a bad value: let the liveness flag set report it
		}
	}
	return false
}

// runLiveness is `macepc run --liveness`: MaceMC's search and critical
// transition (package liveness).
func (a *app) runLiveness(args []string) (int, error) {
	flags := a.flags("run --liveness")
	var sf simFlags
	flags.StringVar(&sf.system, "system", "randtree", "system to check (see 'macepc systems')")
	flags.StringVar(&sf.variant, "variant", "", "variant of the system (default: the system's default)")
	flags.StringArrayVar(&sf.params, "param", nil, "system parameter, name=value (repeatable; see 'macepc systems')")
	flags.IntVar(&sf.nodes, "nodes", livenessNodes, "number of nodes (small: the search is exhaustive up to --max-depth)")
	flags.Uint64Var(&sf.seed, "seed", 1, "seed of the random walks and the driver")
	flags.IntVar(&sf.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	flags.Bool("liveness", true, "the liveness mode (this command)")
	out := flags.String("out", "macepc-out", "results directory")
	depth := flags.Int("depth", liveness.DefaultDepth, "first depth of the iterative-deepening DFS")
	step := flags.Int("depth-step", liveness.DefaultDepthStep, "depth increment")
	maxDepth := flags.Int("max-depth", liveness.DefaultMaxDepth, "last DFS depth")
	dmax := flags.Int("dmax", liveness.DefaultDMax, "length of the random walks: a walk that is not live by then is dead")
	walks := flags.Int("walks", liveness.DefaultWalks, "random walks per prefix in the critical-transition search (k)")
	randomWalks := flags.Int("random-walks", 0, "budget of random walks from the DFS periphery (0: one per sequence)")
	weights := flags.StringArray("weight", nil, "choice weight, kind=w or 'label=w' (repeatable; defaults app 40, message 8, timer 1)")
	unbiased := flags.Bool("unbiased", false, "choose uniformly among enabled events after the DFS prefix")
	faults := flags.Int("faults", 0, "node resets the scheduler may choose per execution")
	prefix := flags.String("prefix", "", "start from the end of this liveness path file (e.g. live.path.json): bugs of steady state")
	safety := flags.StringArray("safety", nil, "safety property to check (repeatable; default: the system's required ones; names an optional one to switch it on)")
	props := flags.StringArray("property", nil, "liveness property to check (repeatable; default: all of the system's)")
	if err := flags.Parse(args); err != nil {
		return ExitError, err
	}
	if flags.NArg() > 0 {
		return ExitError, fmt.Errorf("run --liveness takes no arguments, got %q", flags.Args())
	}
	sys, err := a.reg.Lookup(sf.system)
	if err != nil {
		return ExitError, err
	}
	if sf.nodes < 1 {
		return ExitError, fmt.Errorf("--nodes must be at least 1, got %d", sf.nodes)
	}
	variant := sys.ResolveVariant(sf.variant)
	params, err := parseParams(sf.params)
	if err != nil {
		return ExitError, err
	}
	sc, err := sys.ScenarioParams(variant, sf.nodes, params)
	if err != nil {
		return ExitError, err
	}
	cfg := liveness.Config{Scenario: sc, Depth: *depth, DepthStep: *step, MaxDepth: *maxDepth, DMax: *dmax, Walks: *walks,
		RandomWalks: *randomWalks, Jobs: sf.jobs, Seed: sf.seed, Unbiased: *unbiased, Faults: *faults}
	if cfg.Weights, err = parseWeights(*weights); err != nil {
		return ExitError, err
	}
	if len(*safety) > 0 {
		if cfg.Safety, err = liveness.Select(sc.Safety, *safety...); err != nil {
			return ExitError, fmt.Errorf("--safety: %w", err)
		}
	}
	if len(*props) > 0 {
		if len(sc.Liveness) == 0 {
			return ExitError, fmt.Errorf("--property: system %s defines no liveness properties", sys.Name)
		}
		if cfg.Liveness, err = liveness.Select(sc.Liveness, *props...); err != nil {
			return ExitError, fmt.Errorf("--property: %w", err)
		}
	}
	hdr := newHeader(livenessPathFmt, sys.Name, variant, sc.Nodes, sf.seed)
	if *prefix != "" {
		pf, err := readLivenessPath(*prefix)
		if err != nil {
			return ExitError, err
		}
		if pf.System != sys.Name || pf.Variant != variant || pf.Nodes != sc.Nodes {
			return ExitError, fmt.Errorf("--prefix %s is a path of %s/%s with %d nodes, not %s/%s with %d", *prefix, pf.System, pf.Variant, pf.Nodes, sys.Name, variant, sc.Nodes)
		}
		if !maps.Equal(pf.Params, sc.Params) {
			return ExitError, fmt.Errorf("--prefix %s is a path with parameters %q, not %q", *prefix, pf.Params.String(), sc.Params.String())
		}
		// The prefix means what it meant under its own choice settings.
		for _, c := range []struct {
			flag string
			same bool
		}{{"weight", maps.Equal(cfg.Weights, pf.Weights) || len(cfg.Weights) == 0}, {"unbiased", cfg.Unbiased == pf.Unbiased}, {"faults", cfg.Faults == pf.Faults}} {
			if flags.Changed(c.flag) && !c.same {
				return ExitError, fmt.Errorf("--%s differs from the settings of --prefix %s, whose path only means the same under them", c.flag, *prefix)
			}
		}
		cfg.Weights, cfg.Unbiased, cfg.Faults = pf.Weights, pf.Unbiased, pf.Faults
		cfg.Prefix = &pf.Path
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return ExitError, fmt.Errorf("--out: %w", err)
	}
	for _, f := range []string{fileLiveness, fileDeadPath, fileLivePath, fileDeadLog, fileLiveLog, fileStateDiff} {
		if err := os.Remove(filepath.Join(*out, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ExitError, fmt.Errorf("--out: %w", err)
		}
	}
	fmt.Fprintf(a.stdout, "macepc run --liveness: system=%s variant=%s%s nodes=%d seed=%d depth=%d..%d step %d dmax=%d walks=%d\n",
		sys.Name, variant, paramsNote(sc.Params), sc.Nodes, sf.seed, *depth, *maxDepth, *step, *dmax, *walks)
	rep, runErr := liveness.Run(a.ctx, cfg)
	if rep == nil {
		return ExitError, runErr
	}
	lf := livenessFile{fileHeader: newHeader(livenessFormat, sys.Name, variant, sc.Nodes, sf.seed), Report: rep, Files: []string{}}
	write := func(name string, fill func(io.Writer) error) error {
		lf.Files = append(lf.Files, name)
		return atomicfile.Write(filepath.Join(*out, name), fill)
	}
	savePath := func(name, note string, p liveness.Path) error {
		return write(name, func(w io.Writer) error {
			st := rep.Settings
			return writeJSONTo(w, livenessPathFile{fileHeader: hdr, Note: note, Params: sc.Params, Weights: st.Weights, Unbiased: st.Unbiased, Faults: st.Faults,
				Safety: st.Safety, Liveness: st.Liveness, Path: p})
		})
	}
	saveLog := func(name string, p liveness.Path) error {
		lines, err := liveness.Replay(cfg, p)
		if err != nil && lines == nil {
			return err
		}
		return write(name, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
			return err
		})
	}
	if v := rep.Violation; v != nil {
		if err := savePath(fileDeadPath, fmt.Sprintf("%s violation of %s at step %d", v.Kind, v.Property, v.Step), v.Path); err != nil {
			return ExitError, err
		}
		if err := saveLog(fileDeadLog, v.Path); err != nil {
			return ExitError, err
		}
	}
	if c := rep.Critical; c != nil && c.Live != nil {
		if err := savePath(fileLivePath, fmt.Sprintf("live path sharing the dead path's first %d steps", c.Step), *c.Live); err != nil {
			return ExitError, err
		}
		if err := saveLog(fileLiveLog, *c.Live); err != nil {
			return ExitError, err
		}
		if err := write(fileStateDiff, func(w io.Writer) error { return writeStateDiff(w, c) }); err != nil {
			return ExitError, err
		}
	}
	if err := writeJSON(filepath.Join(*out, fileLiveness), lf); err != nil {
		return ExitError, err
	}
	printLiveness(a.stdout, *out, rep)
	a.writeReport(*out)
	if runErr != nil {
		return ExitError, fmt.Errorf("%w; the partial report is in %s", runErr, filepath.Join(*out, fileLiveness))
	}
	if rep.Violation != nil {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

func parseWeights(specs []string) (map[string]int, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]int{}
	for _, s := range specs {
		i := strings.LastIndexByte(s, '=')
		if i <= 0 {
			return nil, fmt.Errorf("--weight %q: want kind=w or label=w", s)
		}
		w, err := strconv.Atoi(strings.TrimSpace(s[i+1:]))
		if err != nil || w < 0 {
			return nil, fmt.Errorf("--weight %q: the weight must be an integer >= 0", s)
		}
		m[strings.TrimSpace(s[:i])] = w
	}
	return m, nil
}

func readLivenessPath(name string) (*livenessPathFile, error) {
	var pf livenessPathFile
	if err := readJSONFile(name, &pf); err != nil {
		return nil, fmt.Errorf("--prefix: %w", err)
	}
	if err := checkFormat(name, pf.Format, pf.Version, livenessPathFmt); err != nil {
		return nil, fmt.Errorf("--prefix: %w", err)
	}
	if err := pf.Path.Validate(); err != nil {
		return nil, fmt.Errorf("--prefix %s: %w", name, err)
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

func printLiveness(w io.Writer, dir string, rep *liveness.Report) {
	s := rep.Stats
	fmt.Fprintf(w, "search: depth %d, %d paths, %d states, %d duplicates pruned, %d random walks, %d steps; ended: %s\n",
		s.Depth, s.Paths, s.States, s.Duplicates, s.Walks, s.Steps, rep.End)
	v := rep.Violation
	if v == nil {
		fmt.Fprintf(w, "no violation\n")
		return
	}
	what := v.Property
	if v.Kind == liveness.KindPanic {
		what = v.Panic
	}
	if len(v.Failed) > 0 {
		what += " (failing: " + strings.Join(v.Failed, ", ") + ")"
	}
	fmt.Fprintf(w, "VIOLATION (%s): %s at step %d -> %s, %s\n", v.Kind, what, v.Step, filepath.Join(dir, fileDeadPath), filepath.Join(dir, fileDeadLog))
	c := rep.Critical
	if c == nil {
		return
	}
	switch c.Class {
	case liveness.C1:
		fmt.Fprintf(w, "critical transition (C1): step %d: %s\n  after it no random walk of %d steps becomes live; the live path with the longest common prefix took: %s\n",
			c.Step, c.DeadEvent, rep.Settings.DMax, c.LiveEvent)
		fmt.Fprintf(w, "  state diff of %d node(s): %s; live path: %s\n", len(c.Diff), filepath.Join(dir, fileStateDiff), filepath.Join(dir, fileLivePath))
	default:
		fmt.Fprintf(w, "no critical transition (C2): %s\n", c.Reason)
	}
}

// writeJSONTo writes v as indented JSON.
func writeJSONTo(w io.Writer, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// isLivenessPath reports whether a path file was written by the liveness
// mode (dead.path.json, live.path.json).
func isLivenessPath(name string) bool {
	b, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	var h struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(b, &h) == nil && h.Format == livenessPathFmt
}

// replayLiveness re-runs a liveness path and writes its event log.
func (a *app) replayLiveness(name, logFile string) (int, error) {
	pf, err := readLivenessPath(name)
	if err != nil {
		return ExitError, err
	}
	_, sc, err := a.pathScenario(pf.System, pf.Variant, pf.Nodes, pf.Params)
	if err != nil {
		return ExitError, err
	}
	cfg := liveness.Config{Scenario: sc, Seed: pf.Seed, Weights: pf.Weights, Unbiased: pf.Unbiased, Faults: pf.Faults}
	if cfg.Safety, err = liveness.Select(sc.Safety, pf.Safety...); err != nil {
		return ExitError, fmt.Errorf("path file: %w", err)
	}
	if cfg.Liveness, err = liveness.Select(sc.Liveness, pf.Liveness...); err != nil {
		return ExitError, fmt.Errorf("path file: %w", err)
	}
	lines, err := liveness.Replay(cfg, pf.Path)
	if err != nil && lines == nil {
		return ExitError, err
	}
	text := strings.Join(lines, "\n") + "\n"
	status := ExitOK
	for _, l := range lines {
		if strings.HasPrefix(l, "# end ") && (strings.Contains(l, ": panic: ") || strings.Contains(l, " violated")) || strings.HasPrefix(l, "# not live: ") {
			status = ExitFinding
		}
	}
	if logFile == "" {
		_, werr := io.WriteString(a.stdout, text)
		return status, werr
	}
	if err := atomicfile.WriteBytes(logFile, []byte(text)); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "replayed the liveness path %s (%s/%s%s, %d nodes, %d steps); event log in %s\n", name, pf.System, pf.Variant, paramsNote(pf.Params), pf.Nodes, pf.Path.Steps, logFile)
	return status, nil
}

// pathScenario rebuilds the scenario a path file names.
func (a *app) pathScenario(system, variant string, nodes int, params timedsim.Params) (timedsim.System, *timedsim.Scenario, error) {
	sys, err := a.reg.Lookup(system)
	if err != nil {
		return sys, nil, fmt.Errorf("path file: %w", err)
	}
	sc, err := sys.ScenarioParams(variant, nodes, params)
	if err != nil {
		return sys, nil, fmt.Errorf("path file: %w", err)
	}
	return sys, sc, nil
}

package pipeline

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/internal/readlimit"
	"github.com/macepc/macepc/timedsim"
)

// Target is one configuration of a system under test: the system, its
// variant and scenario (node count and parameters included) and the
// simulator options, whose EDD gives the event durations. Hash is their
// timedsim.ConfigHash, which every results file records.
type Target struct {
	System   timedsim.System
	Variant  string
	Scenario *timedsim.Scenario
	Options  timedsim.Options
	Hash     string
}

// NewTarget is the target of a scenario of sys's variant (resolved: not
// "") with the options opts. It refuses a nil or invalid scenario
// (Scenario.Validate).
func NewTarget(sys timedsim.System, variant string, sc *timedsim.Scenario, opts timedsim.Options) (t *Target, err error) {
	defer wrapErr(&err)
	return newTarget(sys, variant, sc, opts)
}

func newTarget(sys timedsim.System, variant string, sc *timedsim.Scenario, opts timedsim.Options) (*Target, error) {
	if sc == nil {
		return nil, errors.New("no scenario (nil *timedsim.Scenario)")
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &Target{System: sys, Variant: variant, Scenario: sc, Options: opts, Hash: timedsim.ConfigHash(sys.Name, variant, sc, opts)}, nil
}

// ResolveTarget builds sys's scenario for variant ("": the system's
// default), nodes (0: the default) and params, with the options opts
// (opts.EDD nil: the seed distributions, uniform 1–10 ms).
func ResolveTarget(sys timedsim.System, variant string, nodes int, params timedsim.Params, opts timedsim.Options) (t *Target, err error) {
	defer wrapErr(&err)
	variant = sys.ResolveVariant(variant)
	sc, err := sys.ScenarioParams(variant, nodes, params)
	if err != nil {
		return nil, err
	}
	if opts.EDD == nil {
		opts.EDD = edd.NewSet(edd.DefaultSeed())
	}
	return newTarget(sys, variant, sc, opts)
}

// TargetFromPathFile rebuilds the configuration a path file was made with
// from the systems, refusing a stale file (the system's code or defaults
// changed since).
func TargetFromPathFile(systems timedsim.Registry, pf *timedsim.PathFile) (t *Target, err error) {
	defer wrapErr(&err)
	return fromPathFile(systems, pf)
}

func fromPathFile(systems timedsim.Registry, pf *timedsim.PathFile) (*Target, error) {
	if pf == nil {
		return nil, errors.New("no path file (nil *timedsim.PathFile)")
	}
	sys, err := systems.Lookup(pf.System)
	if err != nil {
		return nil, err
	}
	sc, err := sys.ScenarioParams(pf.Variant, pf.Nodes, pf.Params)
	if err != nil {
		return nil, err
	}
	opts, err := pf.Options()
	if err != nil {
		return nil, err
	}
	if err := pf.Check(sc, opts); err != nil {
		return nil, err
	}
	return &Target{System: sys, Variant: pf.Variant, Scenario: sc, Options: opts, Hash: pf.ConfigHash}, nil
}

// withEDD is t with other event durations.
func (t *Target) withEDD(set *edd.Set) *Target {
	c := *t
	c.Options.EDD = set
	c.Hash = timedsim.ConfigHash(c.System.Name, c.Variant, c.Scenario, c.Options)
	return &c
}

// pathFile is the path file of path p of t.
func (t *Target) pathFile(p timedsim.Path, note string) (*timedsim.PathFile, error) {
	return timedsim.NewPathFile(t.System.Name, t.Variant, t.Scenario, t.Options, p, note)
}

// WritePathFile writes the path file of path p of t, with a note saying
// what it is, atomically to path.
func WritePathFile(path string, t *Target, p timedsim.Path, note string) (err error) {
	defer wrapErr(&err)
	return writePath(path, t, p, note)
}

func writePath(path string, t *Target, p timedsim.Path, note string) error {
	pf, err := t.pathFile(p, note)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return timedsim.WritePathFile(w, pf) })
}

// ReadPathFile reads a path file.
func ReadPathFile(name string) (pf *timedsim.PathFile, err error) {
	defer wrapErr(&err)
	return readPathFile(name)
}

func readPathFile(name string) (*timedsim.PathFile, error) {
	f, err := readlimit.Open(name, readlimit.MaxPathFile)
	if err != nil {
		return nil, configErr("ReadPathFile.name", nil, "{ReadPathFile.name}: %w", err)
	}
	defer f.Close()
	pf, err := timedsim.ReadPathFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pf, nil
}

// ApplyScale applies what-if factors, "label=factor" specs (edd.ParseScale),
// to set.
func ApplyScale(set *edd.Set, specs []string) (err error) {
	defer wrapErr(&err)
	if set == nil {
		return configErr("ApplyScale.set", nil, "{ApplyScale.set}: no event duration distributions to scale (nil *edd.Set)")
	}
	return applyScale(set, specs)
}

// A set with trained labels refuses a label that is none of them, nor a
// wildcard ("*", "<kind> *") of one of their kinds: a what-if on a label
// that never occurs is a typo, which the error answers with the closest
// labels. A set without labels (the seed distributions) cannot tell; the
// profile warns instead (unscaledWarning).
func applyScale(set *edd.Set, specs []string) error {
	for _, spec := range specs {
		label, factor, err := edd.ParseScale(spec)
		if err != nil {
			return configErr("ApplyScale.specs", nil, "{ApplyScale.specs}: %w", err)
		}
		if labels := set.Labels(); len(labels) > 0 && !scaleMatches(label, labels) {
			return fieldErr("ApplyScale.specs", "%q: no event is labelled %q in the trained distributions; closest labels: %s", spec, label, strings.Join(closest(label, labels, 3), ", "))
		}
		if err := set.Scale(label, factor); err != nil {
			return configErr("ApplyScale.specs", nil, "{ApplyScale.specs}: %w", err)
		}
	}
	return nil
}

// Finding describes what is wrong with an execution beyond being slow: a
// panic in the protocol's code (a recorded execution's also in a
// Describe, timedsim.Result.DescribePanic) or a violated safety property
// ("" if nothing, or if r is nil).
func Finding(r *timedsim.Result) string {
	if r == nil {
		return ""
	}
	if p := r.Panic; p == nil && (r.Outcome == timedsim.Hung || r.Outcome == timedsim.Panicked) {
		return r.Outcome.String() // a Result made by hand, without its PanicInfo
	}
	switch r.Outcome {
	case timedsim.Hung:
		p := r.Panic
		return fmt.Sprintf("handler hung at step %d on %v in %q: %s", p.Step, p.Node, p.Label, p.Value)
	case timedsim.Panicked:
		p := r.Panic
		if p.AfterReturn {
			return fmt.Sprintf("Context used after its handler returned: the Context of step %d on %v in %q was called after that handler returned (a goroutine it started, or a Context the service kept); the call did nothing", p.Step, p.Node, p.Label)
		}
		if p.Where == "handler" {
			return fmt.Sprintf("handler panicked at step %d on %v in %q: %s", p.Step, p.Node, p.Label, p.Value)
		}
		return fmt.Sprintf("%s panicked at step %d: %s", p.Where, p.Step, p.Value)
	case timedsim.SafetyViolated:
		return fmt.Sprintf("safety property %q violated at step %d", r.Violation, r.Steps)
	}
	if p := r.DescribePanic; p != nil { // only a recorded execution describes states
		return p.DescribeText()
	}
	return ""
}

// pathScenario rebuilds the scenario a path file names.
func pathScenario(systems timedsim.Registry, system, variant string, nodes int, params timedsim.Params) (timedsim.System, *timedsim.Scenario, error) {
	sys, err := systems.Lookup(system)
	if err != nil {
		return sys, nil, fmt.Errorf("path file: it needs system %q, which this binary was not built with (%w): it comes from a binary built on cli.Main with that system; replay it with that binary", system, err)
	}
	sc, err := sys.ScenarioParams(variant, nodes, params)
	if err != nil {
		return sys, nil, fmt.Errorf("path file: %w", err)
	}
	return sys, sc, nil
}

// scaleMatches reports whether the scale key applies to one of labels: it
// is one of them, "*", or "<kind> *" of one of their kinds.
func scaleMatches(key string, labels []string) bool {
	if key == edd.Wildcard {
		return true
	}
	for _, l := range labels {
		if l == key || edd.KindWildcard(edd.Kind(l)) == key {
			return true
		}
	}
	return false
}

// closest are the (at most n) labels nearest to s by edit distance, nearest
// first, ties in label order.
func closest(s string, labels []string, n int) []string {
	type cand struct {
		label string
		d     int
	}
	cs := make([]cand, 0, len(labels))
	for _, l := range labels {
		cs = append(cs, cand{l, levenshtein.ComputeDistance(strings.ToLower(s), strings.ToLower(l))})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	out := make([]string, 0, n)
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, fmt.Sprintf("%q", c.label))
	}
	return out
}

// unscaledWarning is the warning of a profile or simulate (whose
// executions are what) about --scale keys that applied to none of the
// labels its executions ran (seen): with the seed distributions,
// applyScale cannot refuse them up front.
func unscaledWarning(set *edd.Set, seen map[string]bool, what string) []string {
	labels := slices.Sorted(maps.Keys(seen))
	var out []string
	for _, key := range slices.Sorted(maps.Keys(set.ScaleFactors())) {
		if !scaleMatches(key, labels) {
			out = append(out, fmt.Sprintf("--scale %q: no event of %s is labelled so (a typo?); closest labels: %s", key, what, strings.Join(closest(key, labels, 3), ", ")))
		}
	}
	return out
}

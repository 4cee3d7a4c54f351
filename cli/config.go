package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/edd"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/timedsim"
)

// simFlags are the flags that pick a system configuration and the
// simulator options; shared by every command that simulates.
type simFlags struct {
	system, variant string
	params          []string
	nodes           int
	seed            uint64
	jobs            int
	eddFile         string
	scale           []string
	semantics       string
	execTime        string
	maxSteps        int
	checkSafety     bool
	ignoreNotes     bool
	checkDet        bool // --check-determinism
}

// defaultSystem is --system's default: randtree, the bundled default
// system, when the binary has it, else the first system registered (a
// binary built on Main with its own protocol only defaults to that one).
func (a *app) defaultSystem() string {
	if _, err := a.reg.Lookup("randtree"); err == nil || len(a.reg) == 0 {
		return "randtree"
	}
	return a.reg[0].Name
}

const checkDetDoc = "self-check: run every execution twice, on a fresh simulator, and fail (exit 2) on any difference"

func (f *simFlags) register(fs *pflag.FlagSet, defSystem string) {
	fs.StringVar(&f.system, "system", defSystem, "system to simulate (see 'macepc systems')")
	fs.StringVar(&f.variant, "variant", "", "variant of the system (default: the system's default)")
	fs.StringArrayVar(&f.params, "param", nil, "system parameter, name=value (repeatable; see 'macepc systems'), e.g. --param scenario=rejoin")
	fs.IntVar(&f.nodes, "nodes", 0, "number of nodes (default: the system's default)")
	fs.Uint64Var(&f.seed, "seed", pipeline.DefaultConfig(nil, nil).Seed, "base seed; execution i uses a seed derived from it and i")
	fs.IntVar(&f.jobs, "jobs", 0, "worker goroutines (default GOMAXPROCS); results do not depend on it")
	fs.StringVar(&f.eddFile, "edd", "", "event duration distributions (edd.json); default: seed distribution uniform 1-10ms")
	fs.StringArrayVar(&f.scale, "scale", nil, "what-if scaling of an event's durations, label=factor (repeatable), e.g. --scale 'deliver Join=2'")
	fs.StringVar(&f.semantics, "semantics", "requeue", "busy-node semantics: requeue (events in global time order) or paper (Algorithm 1 exactly)")
	fs.StringVar(&f.execTime, "exec-time", "stop-time", "execution time: stop-time (when the stopping condition first holds) or avg-clock (the paper's average node clock)")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "end each execution after this many events (0: no limit; for systems that never stop)")
	fs.BoolVar(&f.checkSafety, "check-safety", false, "check the system's safety properties after every event; a violation is a finding")
	fs.BoolVar(&f.ignoreNotes, "ignore-notes", false, "leave the handlers' notes (ctx.Note) out of the event labels, as if the protocol had none: how phase 3b ranks a protocol written without them")
	fs.BoolVar(&f.checkDet, "check-determinism", false, checkDetDoc)
}

// resolve is the configuration the flags name.
func (a *app) resolve(f *simFlags) (*pipeline.Target, error) {
	if f.nodes < 0 {
		return nil, fmt.Errorf("--nodes must be positive, got %d", f.nodes)
	}
	if f.jobs < 0 {
		return nil, fmt.Errorf("--jobs must be positive, got %d", f.jobs)
	}
	if f.maxSteps < 0 {
		return nil, fmt.Errorf("--max-steps must be positive, got %d", f.maxSteps)
	}
	sys, err := a.lookupSystem(f.system)
	if err != nil {
		return nil, err
	}
	variant, err := resolveVariant(sys, f.variant)
	if err != nil {
		return nil, err
	}
	params, err := parseParams(f.params)
	if err != nil {
		return nil, err
	}
	if err := checkParams(sys, params); err != nil {
		return nil, err
	}
	sc, err := sys.ScenarioParams(variant, f.nodes, params)
	if err != nil {
		return nil, err
	}
	opts, err := simOptions(f)
	if err != nil {
		return nil, err
	}
	return pipeline.NewTarget(sys, variant, sc, opts)
}

func simOptions(f *simFlags) (timedsim.Options, error) {
	o := timedsim.Options{MaxSteps: f.maxSteps, CheckSafety: f.checkSafety, IgnoreNotes: f.ignoreNotes}
	switch f.semantics {
	case "requeue":
		o.Semantics = timedsim.Requeue
	case "paper":
		o.Semantics = timedsim.Paper
	default:
		return o, fmt.Errorf("--semantics must be requeue or paper, got %q", f.semantics)
	}
	switch f.execTime {
	case "stop-time":
		o.ExecTime = timedsim.StopTime
	case "avg-clock":
		o.ExecTime = timedsim.AvgClock
	default:
		return o, fmt.Errorf("--exec-time must be stop-time or avg-clock, got %q", f.execTime)
	}
	set := edd.NewSet(edd.DefaultSeed())
	if f.eddFile != "" {
		var err error
		if set, err = pipeline.ReadEDD(f.eddFile); err != nil {
			return o, err
		}
	}
	if err := pipeline.ApplyScale(set, f.scale); err != nil {
		return o, err
	}
	o.EDD = set
	return o, nil
}

// parseParams parses --param specs (name=value); a name given twice is an
// error rather than a silent override.
func parseParams(specs []string) (timedsim.Params, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := timedsim.Params{}
	for _, spec := range specs {
		name, value, err := timedsim.ParseParam(spec)
		if err != nil {
			return nil, fmt.Errorf("--param: %w", err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--param: %s given twice", name)
		}
		out[name] = value
	}
	return out, nil
}

// paramsNote is " params=a=1,b=2" for a header line, or "" for a system
// without parameters (whose lines stay as they were).
func paramsNote(p timedsim.Params) string {
	if len(p) == 0 {
		return ""
	}
	return " params=" + p.String()
}

package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/timedsim"
)

// live runs a system's nodes on real sockets (package realnet) and
// records their traces.
func (a *app) live(args []string) (int, error) {
	fs := a.flags("live")
	system := fs.String("system", a.defaultSystem(), "system to run (see 'macepc systems')")
	variant := fs.String("variant", "", "variant of the system (default: the system's default)")
	params := fs.StringArray("param", nil, "system parameter, name=value (repeatable; see 'macepc systems')")
	nodes := fs.Int("nodes", 0, "number of nodes, all in this process on loopback (default: the system's default)")
	runs := fs.Int("runs", 1, "real executions, one after the other")
	out := fs.String("out", "macepc-live", "trace directory: one run-NNN directory per run, one node-NNN.jsonl trace per node (empty: record nothing)")
	seed := fs.Uint64("seed", 1, "seed of the driver's application events and the nodes' ctx.Rand; run i uses seed+i")
	scale := fs.Float64("time-scale", 1, "real seconds per scenario second: timers and application events fire after their delay times this (0.05 runs scenario time 20 times faster)")
	timeout := fs.Duration("timeout", 0, "end a run whose stopping condition has not held after this much real time (default: the scenario's timeout times --time-scale)")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	if fs.NArg() > 0 {
		return ExitError, fmt.Errorf("live takes no arguments, got %q", fs.Args())
	}
	if *runs < 1 {
		return ExitError, fmt.Errorf("--runs must be at least 1, got %d", *runs)
	}
	if *nodes < 0 {
		return ExitError, fmt.Errorf("--nodes must be positive, got %d", *nodes)
	}
	if !(*scale > 0) || *scale > 1e6 {
		return ExitError, fmt.Errorf("--time-scale must be a positive number, got %v", *scale)
	}
	if *timeout < 0 {
		return ExitError, fmt.Errorf("--timeout must be positive, got %v", *timeout)
	}
	if *out != "" {
		if old, _ := filepath.Glob(filepath.Join(*out, "run-*")); len(old) > 0 {
			return ExitError, fmt.Errorf("--out %s already holds traces (%s): replay --trace would mix them with the new runs; choose another directory or remove it", *out, filepath.Base(old[0]))
		}
	}
	sys, err := a.lookupSystem(*system)
	if err != nil {
		return ExitError, err
	}
	v, err := resolveVariant(sys, *variant)
	if err != nil {
		return ExitError, err
	}
	set, err := parseParams(*params)
	if err != nil {
		return ExitError, err
	}
	if err := checkParams(sys, set); err != nil {
		return ExitError, err
	}
	sc, err := sys.ScenarioParams(v, *nodes, set)
	if err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "macepc live: system=%s variant=%s%s nodes=%d runs=%d seed=%d time-scale=%v, on loopback\n", sys.Name, v, paramsNote(sc.Params), sc.Nodes, *runs, *seed, *scale)
	var msgs int
	var real time.Duration
	stopped := 0
	for r := range *runs {
		// A fresh scenario per run: a NewStop's state and the driver's
		// data belong to one run.
		sc, err := sys.ScenarioParams(v, *nodes, set)
		if err != nil {
			return ExitError, err
		}
		cfg := realnet.Config{System: sys.Name, Variant: v, Params: sc.Params, Scenario: sc, Run: r, Seed: *seed + uint64(r), TimeScale: *scale, Timeout: *timeout}
		if *out != "" {
			cfg.Dir = filepath.Join(*out, realnet.RunDirName(r))
		}
		res, err := realnet.Run(a.ctx, cfg)
		if err != nil {
			return ExitError, err
		}
		what := "stopped"
		if res.Stopped {
			stopped++
		} else {
			what = "TIMED OUT"
		}
		msgs += res.Messages
		real += res.ExecTime
		fmt.Fprintf(a.stdout, "run %d: %s after %v real, %d events, %d messages delivered", r, what, res.ExecTime.Round(time.Microsecond), res.Events, res.Messages)
		if cfg.Dir != "" {
			fmt.Fprintf(a.stdout, ", traces in %s", cfg.Dir)
		}
		fmt.Fprintln(a.stdout)
	}
	fmt.Fprintf(a.stdout, "%d of %d runs stopped; %d messages in %v of real execution time (%.0f messages/s)\n", stopped, *runs, msgs, real.Round(time.Millisecond), float64(msgs)/real.Seconds())
	if *out != "" {
		fmt.Fprintf(a.stdout, "replay them with their global predicates: %s\n", a.cmd("replay", "--trace", *out))
	}
	if stopped < *runs {
		return ExitFinding, nil
	}
	return ExitOK, nil
}

// replayTrace replays the real runs under dir (realnet.Replay) and prints
// what each one's global predicates and sends say.
func (a *app) replayTrace(dir string, steps int, optional []string, states bool) (int, error) {
	runs, err := realnet.RunDirs(dir)
	if err != nil {
		return ExitError, err
	}
	status := ExitOK
	for _, rd := range runs {
		rt, err := realnet.ReadRun(rd)
		if err != nil {
			return ExitError, err
		}
		h := rt.Nodes[0].Header
		sys, err := a.lookupSystem(h.System)
		if err != nil {
			return ExitError, fmt.Errorf("%s: %w", rd, err)
		}
		sc, err := sys.ScenarioParams(h.Variant, h.Nodes, timedsim.Params(h.Params))
		if err != nil {
			return ExitError, fmt.Errorf("%s: %w", rd, err)
		}
		res, err := realnet.Replay(sc, rt, realnet.ReplayOptions{Steps: steps, Optional: optional, States: states})
		if err != nil {
			return ExitError, err
		}
		sends := 0
		for _, s := range res.Sends {
			sends += len(s)
		}
		fmt.Fprintf(a.stdout, "%s: %s/%s, %d nodes: replayed %d of %d events, %d sends as recorded", rd, h.System, h.Variant, h.Nodes, res.Steps, res.Total, sends)
		if res.StopStep >= 0 {
			fmt.Fprintf(a.stdout, "; the stopping condition holds from step %d", res.StopStep)
		}
		fmt.Fprintln(a.stdout)
		if nd := res.Nondeterminism; nd != nil {
			status = ExitFinding
			fmt.Fprintf(a.stdout, "  NONDETERMINISM at step %d, %s: %s\n", nd.Step, nd.Event, nd.What)
		}
		for _, v := range res.Violations {
			status = ExitFinding
			kind := "safety"
			if v.Liveness {
				kind = "liveness (at the end of the trace)"
			}
			names := make([]string, len(v.Nodes))
			for i, n := range v.Nodes {
				names[i] = n.String()
			}
			fmt.Fprintf(a.stdout, "  VIOLATION %s property %s at step %d (%v into the run), nodes %s: after %s\n", kind, v.Property, v.Step, v.Time.Round(time.Microsecond), strings.Join(names, " "), v.Event)
			fmt.Fprintf(a.stdout, "    the states there: %s\n", a.cmd("replay", "--trace", rd, "--steps", fmt.Sprint(v.Step+1), "--states"))
		}
		for i, s := range res.States {
			fmt.Fprintf(a.stdout, "  n%d: %s\n", i, s)
		}
	}
	return status, nil
}

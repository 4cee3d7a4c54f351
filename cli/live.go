package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/results"
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
	node := fs.Int("node", -1, "with --peers: run only this node, one node per process")
	until := fs.String("until", "", "with --peers, instead of --timeout: end the run at this time, Unix seconds or RFC 3339 (processes started one after the other then end together)")
	linger := fs.Duration("linger", 500*time.Millisecond, "with --peers: keep the sockets open this long after --timeout, handling nothing, so that peers that started a little later see no connection break at the end")
	peers := fs.StringSlice("peers", nil, "every node's address host:port, comma-separated, node 0 first (transport t listens on port+t); with --node I this process runs node I, its messages encoded (the system's service must list its MessageTypes), until --timeout")
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
	for _, f := range []string{"linger", "until"} {
		if fs.Changed(f) && !fs.Changed("peers") {
			//lint:ignore ST1005 the message ends with the flag's syntax
			return ExitError, fmt.Errorf("--%s goes with --node I --peers ADDR,...", f)
		}
	}
	var deadline time.Time
	if fs.Changed("node") || fs.Changed("peers") {
		switch {
		case *node < 0 || len(*peers) == 0:
			return ExitError, fmt.Errorf("--node I and --peers ADDR,... go together (one node per process)")
		case *node >= len(*peers):
			return ExitError, fmt.Errorf("--node %d is not one of the %d --peers", *node, len(*peers))
		case fs.Changed("nodes") && *nodes != len(*peers):
			return ExitError, fmt.Errorf("--nodes %d but %d --peers", *nodes, len(*peers))
		case fs.Changed("runs"):
			return ExitError, fmt.Errorf("--runs goes without --peers: one node per process records one run (start the processes again for another, with another --out)")
		case *linger < 0:
			return ExitError, fmt.Errorf("--linger must be positive, got %v", *linger)
		case (*timeout == 0) == (*until == ""):
			return ExitError, fmt.Errorf("--peers needs --timeout or --until (one of them): no process sees every node's state, so the stopping condition cannot end the run; each process runs until then (or an interrupt) and replay --trace finds where it held")
		}
		if *until != "" {
			t, err := parseUntil(*until)
			if err != nil {
				return ExitError, err
			}
			deadline = t
		}
		*nodes = len(*peers)
	}
	if *out != "" && len(*peers) > 0 {
		if f := filepath.Join(*out, realnet.RunDirName(0), realnet.NodeFileName(*node)); fileExists(f) {
			return ExitError, fmt.Errorf("--out %s already holds node %d's trace (%s): choose another directory or remove it", *out, *node, f)
		}
	} else if *out != "" {
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
	if len(*peers) > 0 {
		return a.livePeer(sys.Name, v, sc, *node, *peers, *seed, *scale, *timeout, deadline, *linger, *out)
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

// livePeer runs node i of a system whose nodes each run in their own
// process (realnet.Config.Peers), until timeout or an interrupt.
func (a *app) livePeer(system, variant string, sc *timedsim.Scenario, i int, peers []string, seed uint64, scale float64, timeout time.Duration, deadline time.Time, linger time.Duration, out string) (int, error) {
	end := timeout.String()
	if !deadline.IsZero() {
		end = deadline.UTC().Format(time.RFC3339Nano)
	}
	fmt.Fprintf(a.stdout, "macepc live: system=%s variant=%s%s node %d of %d, listening on %s, seed=%d time-scale=%v, until %s\n", system, variant, paramsNote(sc.Params), i, len(peers), peers[i], seed, scale, end)
	cfg := realnet.Config{System: system, Variant: variant, Params: sc.Params, Scenario: sc, Seed: seed, TimeScale: scale, Timeout: timeout, Peers: peers, Node: i, Linger: linger, Deadline: deadline}
	if out != "" {
		cfg.Dir = filepath.Join(out, realnet.RunDirName(0))
	}
	res, err := realnet.Run(a.ctx, cfg)
	if err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "node %d: ended (%s) after %v real, %d events, %d messages delivered", i, res.Ended, res.ExecTime.Round(time.Millisecond), res.Events, res.Messages)
	if len(res.Files) > 0 {
		fmt.Fprintf(a.stdout, ", trace in %s", res.Files[0])
	}
	fmt.Fprintln(a.stdout)
	if out != "" {
		fmt.Fprintf(a.stdout, "gather every node's %s into one directory and replay it with the stopping condition and global predicates: %s\n", realnet.NodeFileName(i), a.cmd("replay", "--trace", cfg.Dir))
	}
	return ExitOK, nil
}

// replayTrace replays the real runs under dir (realnet.Replay) and prints
// what each one's global predicates and sends say. A run with a finding
// (a violation or a departure from the trace) is replayed once more,
// recording every step's state, for its explore.html: in the run's
// directory, or under out.
func (a *app) replayTrace(dir string, steps int, optional []string, states bool, out string) (int, error) {
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
		if res.Nondeterminism == nil && len(res.Violations) == 0 {
			continue
		}
		// The replay is deterministic: the same traces give the same
		// steps, now with every node's state after each. A fresh
		// scenario, as for a run: the driver's data belong to one.
		if sc, err = sys.ScenarioParams(h.Variant, h.Nodes, timedsim.Params(h.Params)); err != nil {
			return ExitError, fmt.Errorf("%s: %w", rd, err)
		}
		rec, err := realnet.Replay(sc, rt, realnet.ReplayOptions{Steps: steps, Optional: optional, Record: true})
		if err != nil {
			return ExitError, err
		}
		file := filepath.Join(rd, results.FileExplore)
		if out != "" {
			file = filepath.Join(out, filepath.Base(rd), results.FileExplore)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return ExitError, err
			}
		}
		if err := a.claimOutput(file); err != nil {
			return ExitError, err
		}
		if err := realnet.WriteExplore(file, rt, rec); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(a.stdout, "  explore: %s (the replay step by step, at the real times, the finding marked)\n", file)
	}
	return status, nil
}

// parseUntil reads --until: Unix seconds (possibly fractional) or an RFC
// 3339 time.
func parseUntil(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		return time.Unix(0, int64(f*1e9)), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--until %q is neither Unix seconds nor an RFC 3339 time (2026-01-02T15:04:05Z)", s)
	}
	return t, nil
}

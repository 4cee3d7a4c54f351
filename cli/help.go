package cli

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/pipeline"
)

// help is what a command's --help says besides its flags.
type help struct {
	usage   string // the synopsis after "macepc "
	does    string // what the command does, a paragraph
	exit1   string // what exit status 1 means ("" : the command never exits 1)
	example string // one or more command lines
}

// anomalyExit is what exit status 1 means for run and the phases.
const anomalyExit = "an anomaly was found (or a panic in the protocol's code, or a violated safety property), each with a path file to replay it"

// commandHelp is the help of a command (name as passed to app.flags).
func commandHelp(name string) help {
	if pc, ok := phaseCommands()[pipeline.Phase(name)]; ok {
		return pc.help
	}
	switch name {
	case "systems":
		return help{"systems", "Lists the systems this binary knows, with their variants, default variant and node count, and parameters (--param name=value).", "",
			"macepc systems"}
	case "version":
		return help{"version", "Prints the version.", "", "macepc version"}
	case "run":
		return help{"run [flags]", "Runs the whole MacePC pipeline into --out DIR: phase 1a trains event durations from real handler times, 1b profiles the normal execution time and sets the anomaly threshold, 2 searches for executions above the threshold, calls anomalies those that normal variance cannot explain (the rest is the normal tail) and classes them, each with its critical path, 3a finds the divergence point of the worst class, 3b correlates event frequencies with execution time. Ends with a summary, DIR/summary.json and DIR/report.html. With --liveness, runs MaceMC's liveness search instead ('macepc run --liveness --help').",
			anomalyExit, "macepc run --system randtree --variant buggy --seed 1 --out macepc-out\nmacepc run --system randtree --edd macepc-out/edd.json --out macepc-out   # repeat a run exactly"}
	case "run --liveness":
		return help{"run --liveness [flags]", "Runs MaceMC's liveness search on a small system: an iterative-deepening DFS with state hashing, random walks from its periphery to --dmax steps, safety properties checked after every step; a walk that never becomes live is a violation, whose critical transition and state diff are then isolated. The scheduler may also choose faults, each kind with its own budget per execution (--faults, --breaks, --drops, --crashes, --partitions); the faults the system's driver scripts (reset, break, partition, heal) are steps of its script, in its order. The DFS is divided into prefix tasks that --jobs workers search (and --shard i/n machines, for 'macepc merge'); the result does not depend on either. Writes liveness.json, dead.path.json/dead.log, live.path.json/live.log and state.diff into --out DIR.",
			"a safety or liveness property is violated (or the protocol's code panicked), with a path file to replay it", "macepc run --liveness --system randtree --variant liveness-bug --seed 1 --out lv"}
	case "regress":
		return help{"regress --baseline DIR|profile.json [flags]", "The CI gate: profiles the current code with the baseline's system, nodes, options, EDD, variant, seed and runs, and compares both execution-time distributions with a shift test and a tail test combined by Holm's procedure at --alpha. Writes the current profile.json, regress.json and the ECDF plot into --out DIR (not the baseline's directory).",
			"a regression: a test rejected the current code", "macepc regress --baseline baseline --out macepc-out\nmacepc regress --baseline baseline --scale 'deliver Join=2' --out macepc-out   # what-if"}
	case "simulate":
		return help{"simulate [flags]", "Runs the explorer alone: --runs executions, their execution-time distribution and histogram, and the slowest one's path file. Writes DIR/executions.jsonl and DIR/simulate.json.",
			"an execution panicked or violated a safety property (FINDING), with its path file", "macepc simulate --system randtree --variant buggy --runs 200 --out macepc-out"}
	case "merge":
		return help{"merge [--out DIR] [SHARD-DIR...]", "Merges the shards of a simulate, profile, search or run --liveness run with --shard i/n into the files the unsharded command writes, with the same output and exit status.",
			"as the unsharded command", "macepc merge --out macepc-out shard-0 shard-1 shard-2"}
	case "replay":
		return help{"replay --path FILE | --run DIR --index I | --trace DIR [flags]", "Re-runs one execution exactly from a path file (or execution I of a simulate run) and writes its event log; with --branch-at K it replays K steps and continues with --branch-seed's randomness. With --trace, replays the real runs that 'live' recorded, in an order consistent with happens-before, checks that every handler sends what it sent in the real run, and checks the system's safety properties over all nodes' states after every event (its liveness properties at the end).",
			"the replayed execution panicked or violated a property; with --trace, a property was violated or the code departed from its trace (NONDETERMINISM)", "macepc replay --path macepc-out/anomaly.path.json --log slow.log\nmacepc replay --run macepc-out --index 17\nmacepc replay --trace live"}
	case "train --trace":
		return help{"train --trace DIR [--out DIR]", "Phase 1a from real runs: trains the event duration distributions from the real handler times that 'live' recorded (every run under --trace must replay) and writes DIR/edd.json, for --edd.", "",
			"macepc train --trace live --out macepc-out"}
	case "fidelity":
		return help{"fidelity --trace DIR [flags]", "Sets the real runs' execution times (the end of the event after which the stopping condition first held, found by replaying them) beside the simulator's prediction for the same scenario, with the EDD trained from their handler times and the network latency fitted from their send-to-arrival delays: the median, p90 and p99 side by side and the Kolmogorov-Smirnov distance. Needs runs recorded with --time-scale 1.", "",
			"macepc fidelity --trace live --runs 200"}
	case "live":
		return help{"live [flags]", "Runs a system's nodes on real sockets, all in this process on loopback: one event loop per node, TCP for the reliable transports, UDP for datagrams, real timers and handler times; the stopping condition is checked over all nodes' states after handlers. Records one trace per node and run into --out DIR/run-NNN/node-NNN.jsonl, for 'replay --trace'.",
			"a run did not stop before its timeout", "macepc live --system randtree --variant buggy --nodes 16 --runs 20 --out live\nmacepc replay --trace live"}
	case "explore":
		return help{"explore DIR | explore --path A.path.json [--path B.path.json] [--out FILE]", "Writes DIR/explore.html, the execution debugger: every step of the results directory's executions (the anomalous and the similar fast one, or the dead and the live path), with every node's state, to step through in a browser; with --path, of one or two path files.", "",
			"macepc explore macepc-out\nmacepc explore --path macepc-out/anomaly.path.json --path macepc-out/similar.path.json --out both.html"}
	case "report":
		return help{"report [--out DIR]", "Re-renders DIR/report.html, DIR/summary.md and DIR/plots/*.png from the JSON files of a results directory alone (run and the phase commands write them at the end).", "",
			"macepc report --out macepc-out"}
	}
	return help{usage: name + " [flags]"}
}

// flagGroup is the heading a flag of command cmd is listed under.
func flagGroup(cmd, flag string) string {
	if cmd == "regress" {
		switch flag {
		case "baseline", "system", "nodes", "edd":
			return "Baseline"
		case "variant", "seed", "profile-runs", "scale":
			return "Current run (default: the baseline's)"
		case "max-slowdown", "max-slow-rate", "max-runs", "alpha", "resamples":
			return "Comparison"
		}
	}
	if cmd == "replay" {
		switch flag {
		case "trace", "steps", "states", "safety":
			return "What to replay"
		}
	}
	if flag == "trace" {
		return "What to run"
	}
	switch flag {
	case "liveness":
		return "Mode"
	case "node", "peers", "until", "linger":
		return "One node per process"
	case "system", "variant", "param", "nodes", "seed", "edd", "scale", "semantics", "exec-time", "max-steps", "check-safety", "ignore-notes", "runs", "time-scale", "timeout":
		return "What to run"
	case "walks":
		if cmd == "run --liveness" {
			return "Liveness search"
		}
		return "Phases"
	case "depth", "depth-step", "max-depth", "dmax", "random-walks", "weight", "unbiased", "faults", "breaks", "drops", "crashes", "partitions", "prefix", "safety", "property", "split-depth", "level-division", "live-prefix":
		return "Liveness search"
	case "path", "run", "index", "branch-at", "branch-seed":
		if cmd == "explore" {
			return "What to explore"
		}
		return "What to replay"
	case "out", "progress", "log", "trace-events", "save-path", "jobs", "shard", "phase", "resume", "check-determinism", "max-memory", "plot":
		return "Output and resources"
	}
	if isPhaseFlag(flag) {
		return "Phases"
	}
	return "Other options"
}

// printHelp is a command's --help on w: the synopsis, what the command
// does, its flags by group, its exit statuses and an example.
func printHelp(w io.Writer, fs *pflag.FlagSet, bin, name string) {
	h := commandHelp(name)
	fmt.Fprintf(w, "Usage: %s %s\n\n%s\n", bin, h.usage, wrap(h.does, 78))
	var order []string
	groups := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		g := flagGroup(name, f.Name)
		if groups[g] == nil {
			groups[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			groups[g].SortFlags = false
			order = append(order, g)
		}
		groups[g].AddFlag(f)
	})
	// The groups in a fixed order, then any other.
	rank := []string{"Mode", "What to run", "What to replay", "What to explore", "Baseline", "Current run (default: the baseline's)", "Phases", "Liveness search", "One node per process", "Comparison", "Output and resources", "Other options"}
	slices.SortStableFunc(order, func(a, b string) int {
		ia, ib := slices.Index(rank, a), slices.Index(rank, b)
		if ia < 0 {
			ia = len(rank)
		}
		if ib < 0 {
			ib = len(rank)
		}
		return ia - ib
	})
	for _, g := range order {
		fmt.Fprintf(w, "\n%s:\n%s", g, groups[g].FlagUsagesWrapped(100))
	}
	if h.exit1 != "" {
		fmt.Fprintf(w, "\nExit status:\n  0  ran and found nothing\n  1  %s\n", h.exit1)
	} else {
		fmt.Fprintf(w, "\nExit status:\n  0  success\n")
	}
	fmt.Fprintf(w, "  2  usage or runtime error, with a one-line message on standard error\n")
	if h.example != "" {
		// The examples name the binary by the name it was run as.
		ex := regexp.MustCompile(`(?m)^macepc `).ReplaceAllLiteralString(h.example, bin+" ")
		fmt.Fprintf(w, "\nExample:\n  %s\n", strings.ReplaceAll(ex, "\n", "\n  "))
	}
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

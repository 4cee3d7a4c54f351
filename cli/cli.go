package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/timedsim"
)

// Version is the macepc version printed by `macepc version`.
const Version = "0.1.0-dev"

// Exit statuses.
const (
	ExitOK      = 0 // ran and found nothing
	ExitFinding = 1 // found an anomaly, a panic or a violation
	ExitError   = 2 // usage or runtime error
)

// Main runs the macepc command line with the given systems and returns the
// exit status. A user's own binary is
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, mysys.System())) }
//
// SIGINT cancels a long run: finished work is kept and written.
func Main(args []string, stdout, stderr io.Writer, systems ...timedsim.System) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process the usual way
	}()
	return runEnv(ctx, binaryName(), os.Getenv, args, stdout, stderr, systems...)
}

// binaryName is the name the running binary was invoked by, for the
// commands and hints it prints ("macepc replay …", or a binary of one's
// own built on Main); "macepc" when it cannot tell.
func binaryName() string {
	if len(os.Args) > 0 {
		if n := filepath.Base(os.Args[0]); n != "" && n != "." && n != string(filepath.Separator) {
			return n
		}
	}
	return "macepc"
}

// Run is Main with an explicit context (tests cancel it to simulate
// Ctrl-C). The environment is the process's (see RunEnv).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, systems ...timedsim.System) int {
	return RunEnv(ctx, os.Getenv, args, stdout, stderr, systems...)
}

// RunEnv is Run reading the environment through getenv: the only
// variables read are the batch engines' shard variables of package shard
// (JOB_COMPLETION_INDEX with MACEPC_SHARD_COUNT, SLURM_ARRAY_TASK_*), by
// simulate, profile and search when --shard is not given.
func RunEnv(ctx context.Context, getenv func(string) string, args []string, stdout, stderr io.Writer, systems ...timedsim.System) int {
	return runEnv(ctx, "macepc", getenv, args, stdout, stderr, systems...)
}

// runEnv is RunEnv for a binary invoked as name.
func runEnv(ctx context.Context, name string, getenv func(string) string, args []string, stdout, stderr io.Writer, systems ...timedsim.System) int {
	a := &app{ctx: ctx, name: name, stdout: stdout, stderr: stderr, reg: timedsim.Registry(systems), getenv: getenv}
	status, err := a.run(args)
	for _, unlock := range a.unlocks {
		unlock()
	}
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitOK
		}
		fmt.Fprintf(stderr, "%s: %v\n", name, message(name, err))
		return ExitError
	}
	return status
}

type app struct {
	ctx            context.Context
	name           string // the binary's name, for the commands it prints
	stdout, stderr io.Writer
	reg            timedsim.Registry
	getenv         func(string) string // the environment (RunEnv)
	unlocks        []func()            // the results directories' locks (lockDir), released at the end
}

// cmd renders a command of this binary, its arguments quoted for a shell.
func (a *app) cmd(args ...string) string {
	return shellquote.Join(append([]string{a.name}, args...)...)
}

// lockDir takes the lock of the results directory d (creating it), which
// the command writes into, until the command ends; another process
// writing into it is refused (pipeline.Dir.Lock).
func (a *app) lockDir(d *pipeline.Dir) error {
	unlock, err := d.Lock()
	if err != nil {
		return err
	}
	a.unlocks = append(a.unlocks, unlock)
	return nil
}

type command struct {
	name, summary string
	run           func(a *app, args []string) (int, error)
}

func commands() []command {
	return append(append([]command{
		{"systems", "list the systems, their variants and defaults", (*app).systems},
		{"run", "the MacePC pipeline: " + phaseNames(", "), (*app).runAll},
	}, phaseCommandList()...), []command{
		{"regress", "CI gate: profile the current code as a baseline was and compare (exit 1: regression)", (*app).regress},
		{"simulate", "run the explorer: N executions, execution-time distribution", (*app).simulate},
		{"merge", "merge the shards of a sharded " + strings.Replace(orList(pipeline.ShardPhases()), pipeline.PhaseLivenessShard, "run --liveness", 1), (*app).merge},
		{"replay", "re-run one execution from a path file and write its event log, or real runs' traces (--trace)", (*app).replay},
		{"live", "run a system's nodes on real sockets (loopback) and record their traces for replay --trace", (*app).live},
		{"fidelity", "real runs' execution times (live) beside the simulator's, with the EDD and network fitted from them", (*app).fidelity},
		{"report", "re-render report.html, summary.md and the plots of a results directory", (*app).reportCmd},
		{"explore", "write explore.html: step through the executions of a results directory in a browser", (*app).exploreCmd},
		{"version", "print the version", (*app).version},
	}...)
}

func (a *app) run(args []string) (int, error) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		a.usage(a.stdout)
		if len(args) == 0 {
			return ExitError, fmt.Errorf("no command given")
		}
		return ExitOK, nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(a, args[1:])
		}
	}
	hint := ""
	if c := closest(args[0], commandNames()); len(c) > 0 {
		hint = "; did you mean " + strings.Join(c, " or ") + "?"
	}
	return ExitError, fmt.Errorf("unknown command %q%s (commands: %s)", args[0], hint, strings.Join(commandNames(), ", "))
}

func commandNames() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, "%s finds latent performance bugs in event-driven distributed systems.\n\nUsage: %s <command> [flags]\n\nCommands:\n", a.name, a.name)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> --help' for a command's flags.\n", a.name)
}

func (a *app) flags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(a.name+" "+name, pflag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.SortFlags = false
	fs.Usage = func() { printHelp(a.stdout, fs, a.name, name) } // --help only: parse errors are one line
	return fs
}

func (a *app) version(args []string) (int, error) {
	fs := a.flags("version")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(a.stdout, "%s %s\n", a.name, Version)
	return ExitOK, nil
}

func (a *app) systems(args []string) (int, error) {
	fs := a.flags("systems")
	if err := fs.Parse(args); err != nil {
		return ExitError, err
	}
	sys := append([]timedsim.System(nil), a.reg...)
	sort.Slice(sys, func(i, j int) bool { return sys[i].Name < sys[j].Name })
	for _, s := range sys {
		fmt.Fprintf(a.stdout, "%s: %s\n  default: --variant %s --nodes %d\n", s.Name, s.Doc, s.ResolveVariant(""), s.DefaultNodes)
		w := 8 // one column for the system's variant names: "join-loop fixed, but ..." read as a variant "join-loop fixed"
		for _, v := range s.Variants {
			w = max(w, len(v.Name))
		}
		for _, v := range s.Variants {
			fmt.Fprintf(a.stdout, "  variant %-*s %s\n", w, v.Name, v.Doc)
		}
		for _, p := range s.Params {
			values := ""
			if len(p.Values) > 0 {
				values = " (" + strings.Join(p.Values, ", ") + ")"
			}
			fmt.Fprintf(a.stdout, "  param   %s=%s  %s%s\n", p.Name, p.Default, p.Doc, values)
		}
	}
	return ExitOK, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// deprecatedAlias makes --old an alias of the flag --name of fs: setting it
// sets --name (which then counts as Changed), it is hidden from the help,
// and using it prints a warning that names the canonical spelling.
func deprecatedAlias(fs *pflag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	fs.Var(aliasValue{Value: f.Value, fs: fs, to: name}, old, f.Usage)
	if f.NoOptDefVal != "" {
		fs.Lookup(old).NoOptDefVal = f.NoOptDefVal
	}
	fs.MarkDeprecated(old, "use --"+name)
}

// aliasValue sets the flag it aliases through its FlagSet.
type aliasValue struct {
	pflag.Value
	fs *pflag.FlagSet
	to string
}

func (v aliasValue) Set(s string) error { return v.fs.Set(v.to, s) }

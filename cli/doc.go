// Package cli is the macepc command line as a library, so that a protocol
// author can build a binary with their own systems and get the whole tool:
//
// # Usage
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/macepc/macepc/cli"
//		"example.com/myproto"
//	)
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, myproto.System())) }
//
// cmd/macepc is exactly that call with the bundled systems.
//
// Commands: run (the MacePC pipeline; with --liveness, MaceMC's liveness
// search), its phases train, profile, search, diverge and correlate,
// regress (the CI gate), and systems, simulate, merge, replay, report,
// version. A command parses its own pflag set into a Config of package
// pipeline (the flags' defaults are pipeline.DefaultConfig's, their checks
// the configurations' Validate, whose errors name fields that the
// command line names by its flags: flagOf), calls it, and prints a human
// summary: the work, the results
// directory and its files are package pipeline's (its doc describes each
// phase and file). Every command returns an exit status: 0 ran and found
// nothing, 1 found something (an anomaly, a regression, a panic in the
// protocol's code or a violated property, each with a path file to
// replay it), 2 usage or runtime error with a one-line message on
// standard error. Ctrl-C interrupts a run: finished executions are kept
// and written; a second Ctrl-C kills the process.
//
// Every command's --help says what it does, its flags by group, its exit
// statuses and an example. One concept has one spelling: the results
// directory is --out DIR (default macepc-out) everywhere, the executions of
// a profile are --profile-runs; the old spellings (regress --runs, report
// DIR) still work and print a deprecation warning. A typo in a command,
// system, variant or parameter name gets the closest names.
//
// Every long-running command takes --progress auto|always|never: a bar on
// a terminal, a plain line every 5 s when standard error is a file or a
// pipe (a CI log); standard output does not depend on it. Five seconds
// into a phase that will clearly take more than 15 minutes (or hold more
// than 8 GiB), a warning on standard error gives the estimate; run
// --liveness gives it before its search starts, from the time to start
// again from its initial state and the events enabled there (a lower
// bound of its first iteration, liveness.MeasureCost). Durations
// print in the unit that fits them (package internal/units), and the line
// of execution times says how many executions did not finish.
//
// `macepc run --out DIR` runs every phase; each phase command runs one,
// reading what the earlier ones wrote into DIR. profile after train takes
// train's configuration (system, variant, nodes, seed, simulator options)
// for the flags not given and refuses one given with another value.
// Every command that ends a phase rewrites summary.json and renders the
// report (report.html, summary.md, plots/).
//
// A system's parameters (timedsim.Param: a scenario, a protocol knob) are
// set with --param name=value on every command that builds a scenario from
// flags; the resolved values are printed in the header line, recorded in
// path files (and so in profile.json's template, which the later phases
// read) and in liveness path files; regress keeps the baseline's.
//
// regress --baseline DIR|profile.json profiles the current code with the
// baseline's configuration and compares both distributions; it exits 1
// on a regression. The baseline's seed is the default, so unchanged code
// gives identical executions; --seed measures against other executions.
//
// # Sharding
//
// simulate, profile and search take --shard i/n, or the shard from a
// Kubernetes Indexed Job's or a Slurm array's environment (package
// shard), read through the getenv of RunEnv (Run uses os.Getenv). A shard
// exits 0 once its file is written, even when its executions hold an
// anomaly: the run's answer is the merge's. `macepc merge --out DIR
// SHARDS...` writes what the unsharded command would have written, with
// the same output and exit status. Shards take their EDD from --edd or
// DIR/edd.json like the unsharded command: every shard must see the same
// one.
//
// # Determinism
//
// Outputs depend only on the flags and the EDD, never on --jobs or the
// machine (training measures real handler times, so edd.json itself
// differs between trainings: pass --edd DIR/edd.json to reuse one). The
// seed is printed in every output.
package cli

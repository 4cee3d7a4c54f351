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
// search of package liveness), its phases train, profile, search,
// diverge and correlate, regress (the CI gate), and systems, simulate,
// merge, replay, version. Every
// command parses its own
// pflag set, writes results atomically (a temporary file renamed into
// place), and returns an exit status: 0 ran and found nothing, 1 found
// something (a panic in the protocol's code or a violated safety property,
// each with a path file to replay it), 2 usage or runtime error with a
// one-line message on standard error. Ctrl-C interrupts a run: finished
// executions are kept and written; a second Ctrl-C kills the process.
//
// A system's parameters (timedsim.Param: a scenario, a protocol knob) are
// set with --param name=value on every command that builds a scenario from
// flags; the resolved values are printed in the header line, recorded in
// path files (and so in profile.json's template, which the later phases
// read) and in liveness path files; regress keeps the baseline's.
//
// # The pipeline (paper 004 §3.2)
//
// `macepc run --out DIR` runs every phase; each phase command runs one,
// reading what the earlier ones wrote into DIR:
//
//   - train (1a): executions with the seed distributions, measuring each
//     handler's real time; writes edd.json and train.json. Skipped by run
//     when --edd is given.
//   - profile (1b): executions with the trained EDDs; quartiles of the
//     execution time and the anomaly threshold; writes profile.json (with
//     every execution time, the EDD coverage, and the configuration every
//     later phase reads).
//   - search (2): new executions until one exceeds the threshold (the
//     lowest such index); writes search.json, search-executions.jsonl
//     (every explored execution with its event counts) and
//     anomaly.path.json.
//   - diverge (3a): the divergence point by exponential and binary search
//     over prefixes of the anomalous execution with k walks each; writes
//     divergence.json, divergence-walks.jsonl, similar.path.json, the event
//     logs anomaly.log and similar.log, and divergence.diff (both logs side
//     by side from the divergence point).
//   - correlate (3b): Pearson correlation of every label's count with the
//     execution time over the executions of phases 2 and 3a, and of its
//     count within the normal execution time, which exposes labels that
//     only scale with length; writes correlation.json.
//
// regress --baseline DIR|profile.json profiles the current code with the
// baseline's configuration (its template path file: system, variant, nodes,
// options, EDD; and its seed and runs) and compares both distributions with
// anomaly.Compare (a shift test and a tail test, combined by Holm's
// procedure at family-wise --alpha; regress.json has each test's p-value,
// Holm level and adjusted p-value); writes the current profile.json, regress.json,
// regress.svg and regress.png (both ECDFs, report.RegressPlot), and exits
// 1 on a regression. The baseline's seed is the default, so unchanged code
// gives identical executions; --seed measures against other executions.
//
// Each phase removes the files of the phases after it, and every command
// rewrites summary.json (versioned; paths relative to DIR) from the files
// present. Files are written atomically, so an interrupted run leaves the
// completed phases' files intact; an interrupted search still writes the
// executions it explored, with "complete": false.
//
// # Sharding
//
// simulate, profile and search take --shard i/n (or the shard from a
// Kubernetes Indexed Job's or a Slurm array's environment; package shard):
// they run the executions whose index is ≡ i (mod n), with the seeds of
// the unsharded run, and write only DIR/<phase>.shard-i-of-n.jsonl. A
// shard exits 0 once its file is written, even when its executions hold
// an anomaly: the run's answer is the merge's. `macepc merge --out DIR
// SHARDS...` checks the files (one configuration, all n shards, each
// complete and given once) and writes what the unsharded command would
// have written, through the same code (profile: newProfileFile from the
// execution lines; search: the lines up to the lowest anomalous index over
// all shards; simulate: writeSimulate), with the same output and exit
// status. Shards take their EDD from --edd or DIR/edd.json like the
// unsharded command: every shard must see the same one. The environment
// is read through the getenv of RunEnv (Run uses os.Getenv).
//
// # Determinism
//
// Outputs depend only on the flags and the EDD, never on --jobs or the
// machine (training measures real handler times, so edd.json itself
// differs between trainings: pass --edd DIR/edd.json to reuse one):
// execution i of a run uses the path SeedPath(ExecutionSeed(seed, i)), and
// results are written in index order. The seed is printed in every output.
package cli

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
// Commands: systems, simulate, replay, version. Every command parses its own
// pflag set, writes results atomically (a temporary file renamed into
// place), and returns an exit status: 0 ran and found nothing, 1 found
// something (a panic in the protocol's code or a violated safety property,
// each with a path file to replay it), 2 usage or runtime error with a
// one-line message on standard error. Ctrl-C interrupts a run: finished
// executions are kept and written; a second Ctrl-C kills the process.
//
// # Determinism
//
// Outputs depend only on the flags, never on --jobs or the machine:
// execution i of a run uses the path SeedPath(ExecutionSeed(seed, i)), and
// results are written in index order. The seed is printed in every output.
package cli

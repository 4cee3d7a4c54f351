// Package forktest checks a system's timedsim.Cloner against replay: for
// the same path, an execution forked from a timedsim.Snapshot must give
// the result and the event log of the execution replayed from step 0,
// byte for byte. Every bundled system's tests call Check on its
// scenarios.
package forktest

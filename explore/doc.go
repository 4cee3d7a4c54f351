// Package explore writes explore.html, an interactive execution debugger
// in the browser, MaceMC Mdb's successor: one self-contained file (the
// executions embedded as JSON, plain JavaScript and CSS embedded with
// package embed, no framework, no network fetch) that shows an execution
// as a message sequence chart — one lane per node, steps going down in
// simulated-time order, an arrow from each send to its delivery, timers,
// resets, failed sends, drops and notes — with stepping (next and
// previous step, next and previous event of a node, jump to a step or a
// time, jump to each mark), every node's Describe state after any step,
// the state diff of two marked steps, two executions side by side aligned
// at their common prefix, and filters by node, label and text.
//
// The chart has one row per step, in step order (which is the order of
// the steps' start times under the default Requeue semantics), its
// simulated start time beside it; a jump to a time goes to the first step,
// in step order, that starts at or after it. In the liveness mode time is
// logical: step i is at i ms.
//
// The package knows executions, not results directories: FromTimed turns
// a replayed timed execution (timedsim.Result recorded with
// Options.RecordStates) into an Execution, FromTrace a liveness path's
// liveness.Trace. Package pipeline finds the executions of a directory
// (anomalous and similar fast, dead and live), marks them (the divergence
// point, the critical step, violations) and calls Write.
//
// # States as checkpoints and deltas
//
// A handler changes only its own node's state, so a step records the
// state of its node after it (timedsim.TimedEvent.State), and the state of
// every node after step s is each node's last recorded state up to s.
// Only the states that change are stored: a node's first state and every
// Checkpoint-th change of it in full, the others as a delta against the
// node's previous state (a common prefix and suffix kept, the middle
// replaced), in UTF-16 code units as JavaScript strings count them.
// Reconstructing a state takes at most Checkpoint-1 deltas; StateAt does
// it in Go as the page does in JavaScript.
//
// # Determinism
//
// The file is a pure function of the executions: same paths, same bytes.
//
// # Usage
//
//	a := explore.FromTimed("anomalous", hdr, res) // res recorded with Record and RecordStates
//	a.Mark(df.Step, explore.MarkDivergence, "divergence point")
//	d := &explore.Data{Title: "randtree/buggy", Executions: []*explore.Execution{a, b}}
//	d.Pair(0, 1) // side by side, first difference marked
//	err := explore.WriteFile(filepath.Join(dir, results.FileExplore), d)
package explore

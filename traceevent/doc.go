// Package traceevent writes a recorded execution in the Trace Event Format
// of Chrome's tracing (the JSON object format: {"traceEvents": [...]}),
// which the Perfetto UI (ui.perfetto.dev) and chrome://tracing open, so
// that an execution of macepc can be read with the tools people already
// use for traces.
//
// One process stands for the execution and one thread per node, named
// n0, n1, … and sorted by node, so that each node is one track. Each
// handler is a complete event ("ph": "X") on its node's track, at its
// simulated start and for its simulated duration, with the step, the
// sender, the time it waited for its busy node, its notes and its log
// lines as arguments. Each delivered message is a flow from the slice
// that sent it to the slice that received it ("ph": "s" and "f", the
// latter bound to its enclosing slice), named by the message's type. A
// message that was lost (a full queue, a drop, an unreachable node) and
// every timer set or cancelled is an instant event on the sender's
// track. Times are microseconds with nanosecond fractions, as the format
// prescribes.
//
// The format is documented in "Trace Event Format" (Google, the Chrome
// tracing project); Perfetto's legacy JSON importer reads it.
package traceevent

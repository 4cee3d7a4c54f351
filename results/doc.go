// Package results is the format of a macepc results directory: the names
// of its files, the types of its JSON files with their format and
// version, and the readers and writers that every side uses. Package
// pipeline writes the directory; report, explore and pipeline itself read
// it; none of them declares a file name or a file type of its own.
//
// It is a leaf, as raft's raftpb and the x/perf benchfmt package are for
// theirs: it imports only the engine's types (timedsim) and internal
// helpers, so that a reader needs nothing of the pipeline.
//
// Not all of the formats live here yet: Summary, Profile, Regress,
// CountsLine and Events do; search.json, divergence.json,
// correlation.json and liveness.json are still declared by pipeline (the
// writer, with its validation) and decoded by report with types of its
// own.
//
// # Usage
//
// Writing and reading a JSON file:
//
//	err := results.WriteJSON(filepath.Join(dir, results.FileSummary), &sum) // atomically, indented
//	var s results.Summary
//	if err := results.ReadJSON(path, &s); err != nil { … }                   // unknown fields refused
//	if err := results.CheckFormat(path, s.Format, s.Version, results.FormatSummary); err != nil { … }
//
// Reading a JSON Lines file of executions, each line validated:
//
//	lines, err := results.ReadCountsLines(path, false, results.CountsSpec{Phase: "search", Lines: explored})
//
// # Determinism
//
// Every writer produces the same bytes for the same value: JSON indented
// by two spaces and newline-ended (MarshalJSON), struct fields in
// declaration order, map keys sorted by encoding/json.
//
// # Errors
//
// Errors start with "results: " and name the file (and the line of a
// JSON Lines file); a file that is not there is fs.ErrNotExist for
// errors.Is.
package results

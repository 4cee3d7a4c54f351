// Package results is the format of a macepc results directory: the names
// of its files, the types of its JSON files with their format and
// version, and the readers and writers that every side uses. Package
// pipeline writes the directory; report, explore and pipeline itself read
// it; none of them declares a file name or a file type of its own
// (pipeline.SearchFile, pipeline.DivergenceFile, … are aliases of this
// package's Search, Divergence, …).
//
// It is a leaf, as raft's raftpb and the x/perf benchfmt package are for
// theirs: it imports the types of the engine and of the analyses its
// files hold (timedsim, edd, anomaly, divergence, liveness) and internal
// helpers, never pipeline or report, so that a reader needs nothing of
// the pipeline.
//
// The files declared here: Summary, Profile, Search, Divergence, Events,
// Correlation, Regress, Liveness, LivenessPath, Train and Simulate, and
// the CountsLine and SimLine of the JSON Lines files. Each has a reader that checks the schema
// (unknown fields refused), the format and the version: ReadSummary,
// ReadProfile, ReadSearch, ReadDivergence, ReadEvents, ReadCorrelation,
// ReadRegress, ReadLiveness, ReadCountsLines. ReadSearch,
// ReadDivergence, ReadCorrelation, ReadLiveness and ReadCountsLines
// check the numbers too; a profile's are Profile.Validate's, which the
// later phases need (pipeline.Dir.LoadProfile) and the report does not
// (it draws whatever profile there is). Train and Simulate, which only
// pipeline reads, have their types here too (ReadTrain).
//
// # Units and values
//
// A time is int64 nanoseconds in a field whose name ends in _ns (and NS
// in Go; time.Duration(f.ExecTimeNS) is the duration); summary.json and
// simulate.json's summary alone give seconds, for people. An outcome is
// a timedsim.Outcome, written as its name ("timed-out"); the divergence
// criterion is a divergence.Bound, a word ("q3"), whose Describe is the
// sentence the report prints. A count of 0 is none.
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
// Reading a file with its checks (a missing file is fs.ErrNotExist):
//
//	sf, err := results.ReadSearch(filepath.Join(dir, results.FileSearch))
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

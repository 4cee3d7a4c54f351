// Package shard splits an exploration of N executions across machines and
// checks the pieces before they are put back together.
//
// Shard i of n runs the executions whose index is ≡ i (mod n): j-th
// execution of the shard is global index i + j·n. Execution i's seed
// depends only on the run's seed and i (timedsim.ExecutionSeed), never on
// the shard, so the union of the n shards is exactly the unsharded run.
//
// # File format
//
// A shard file is JSON Lines, version 1, written atomically by its caller:
//
//	{"format":"macepc-shard","version":1,"phase":"profile","config_hash":"…","system":…,"shard":3,"shards":8,"source":"--shard","runs":100,"planned":12,"params":{…}}
//	{"index":3,"data":{…}}
//	{"index":11,"data":{…}}
//	…
//	{"footer":"macepc-shard","count":12,"stop":"","summary":{…}}
//
// The header identifies the configuration (config hash, system identity,
// the phase and its parameters, opaque to this package but compared byte
// for byte), the shard and where its number came from. Every record
// carries its global execution index and the phase's data. The footer
// holds the record count, and "stop" when the phase ended the shard early
// on purpose (a search stops at its first anomaly): a file without its
// footer, or cut in the middle of a line, is truncated and refused. The
// file holds no timestamps and no host names: running a shard again
// rewrites the same bytes.
//
// # Usage
//
//	spec, src, err := shard.Resolve(flagValue, os.Getenv)  // --shard wins, then the batch engine
//	…run executions spec.Global(0), spec.Global(1), … below runs…
//	shard.Write(w, &shard.File{Header: h, Records: recs, Footer: shard.Footer{Count: len(recs)}})
//
//	files := …shard.ReadFile(path) for each path…
//	set, err := shard.Merge(files)      // same config, all n shards, no duplicate
//	recs, err := set.Upto(limit)        // indices 0..limit-1, each exactly once
//
// # Batch engines
//
// Without --shard, the shard comes from the environment (Resolve):
//
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX is the index; the
//     count is MACEPC_SHARD_COUNT, which the Job's manifest must set to
//     its completions (Kubernetes does not export it).
//   - Slurm job arrays: SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN is the
//     index and SLURM_ARRAY_TASK_COUNT the count; the array must be a
//     contiguous range (--array=0-7, or 1-8), without a step.
//
// The source is reported (Source) so the output says which one was used.
// --shard off ignores the environment.
//
// # Determinism
//
// Merge orders records by global index whatever the order of the files
// given, and Upto returns the same records an unsharded run produced in
// the same order, so a caller that renders them as the unsharded run does
// writes byte-identical files.
package shard

// Package pipeline runs MacePC's four phases (paper 004 §3.2), the
// regression test and MaceMC's liveness search as library calls, writing
// their results into a results directory. The command line (package cli)
// is flags, then a Config, then one call of this package, then a human
// summary; package macepctest and package bench call it too.
//
// # Usage
//
//	set, _ := pipeline.ReadEDD("systems/randtree/testdata/edd.json")
//	target, _ := pipeline.ResolveTarget(randtree.System(), "buggy", 0, nil, timedsim.Options{EDD: set})
//	dir, _ := pipeline.OpenDir("macepc-out")
//	cfg := pipeline.DefaultConfig(dir, target) // the command line's defaults
//	cfg.TrainRuns = 0                          // use the EDD above instead of training one
//	res, err := pipeline.Run(ctx, cfg)
//	if res.Found() {
//		fmt.Println(res.Divergence.Event.Describe())
//	}
//
// A Target is a system configuration: the system, its variant, its
// scenario and the simulator options with the event duration
// distributions (EDD). Env is what the phases share: the results
// directory (Dir), the systems its files may name, the number of workers
// and a Progress. Each phase has its Config and function, and Run chains
// them in the order of Phases, the one table of the phases (their files,
// seeds and sharded forms) that Run, Dir.ClearAfter, Merge and the
// command line derive from:
//
//   - Train (1a): executions with the seed distributions, measuring each
//     handler's real time; writes edd.json and train.json (TrainFile).
//   - Profile (1b): executions with the trained EDD; quartiles of the
//     execution time and the anomaly threshold (Thresholds); writes
//     profile.json (ProfileFile: every execution time, the EDD coverage,
//     and the template path file every later phase takes its
//     configuration from).
//   - Search (2): new executions until one exceeds the threshold (the
//     lowest such index), then TriageRuns more; the Verdict judges those
//     above the threshold (anomaly.Significance at α/2; when nothing is
//     significant, the search goes on to MaxRuns and judges again), and
//     every class's representative gets its critical path against a
//     median execution (Cause, package critpath), which sends a class
//     whose excess is the models' own draws to the normal tail too. It
//     classes the anomalies and the normal tail apart; writes search.json
//     (SearchFile), search-executions.jsonl (every explored execution
//     with its event counts, CountsLine) and the path files of the
//     classes' representatives (anomaly-class-N, tail-class-N).
//   - Diverge (3a): the divergence point of a class's representative, by
//     exponential and binary search over its prefixes with k walks each;
//     writes divergence.json (DivergenceFile), divergence-walks.jsonl,
//     similar.path.json, the event logs anomaly.log and similar.log,
//     divergence.diff (both logs side by side from the divergence point)
//     and divergence-events.json.
//   - Correlate (3b): Pearson correlation of every label's count with the
//     execution time over the executions of phases 2 and 3a, and within
//     the normal execution time, which exposes the labels that only scale
//     with length; the labels the anomaly's analysis points at (its
//     class's signature, what its critical path's waiting node did) rank
//     first; writes correlation.json (CorrelationFile).
//
// Run, and Dir.WriteSummary after a single phase, write summary.json
// (results.Summary; paths relative to the directory, replays as data
// that a front end renders with its own name). StartRegress and
// Regression.Run profile the current code as a baseline profile.json was
// profiled and compare both distributions (anomaly.Compare); Simulate
// runs the explorer alone; Liveness runs MaceMC's search; Replay and
// ReplayLiveness re-run one path file with its event log. The HTML report
// is package report's: report.Write(dir.Path()).
//
// # The results directory
//
// Dir owns the directory's layout (the File constants), writes every file
// atomically (a temporary file renamed into place), checks that the files
// it reads belong to one configuration (their config hash), and removes
// the files of the later phases when a phase has succeeded, just before it
// writes its own (Dir.ClearAfter), so a directory never mixes two
// configurations. A phase refused on a bad input or flag, failed or
// interrupted changes no file; an interrupted search still writes the
// executions it explored, with Complete false. A writer holds the
// directory's lock (Dir.Lock), which also removes the temporary files a
// killed writer left: Run and the unsharded phases take it themselves
// unless their caller holds it through the same Dir, so that a second
// writer, in this process or another, is refused at once ("in use")
// rather than mixing its files with the first one's. Config.Resume and
// SearchConfig.Resume continue an interrupted run: the training, profile
// and search executions in the directory that are this run's are kept,
// and the files are those of an uninterrupted run.
//
// # Sharding
//
// ProfileShard, SearchShard and SimulateShard run the executions whose
// index is ≡ i (mod n), with the seeds of the unsharded run, and write
// only DIR/<phase>.shard-i-of-n.jsonl; ReadShards and Merge check the
// files (one configuration, all n shards, each complete and given once)
// and write what the unsharded function would have written, through the
// same code.
//
// # Errors
//
// Every error is an *Error, whose message starts with "pipeline: " once;
// errors.Is and errors.As see its cause: an interrupted phase's error says
// what it left and is context.Canceled (or context.DeadlineExceeded, and
// the cause given to context.WithCancelCause's cancel). A bad setting or
// argument, or a results directory without the files a phase needs, is a
// *ConfigError: its message names the field at fault as a Go caller spells
// it ("Config.Walks must be at least 1, got 0") and may suggest a command
// of the macepc command line (ConfigError.Hints, as data); Render names
// them as a front end does (the command line: "--walks", and its own
// binary's name), without the prefix. DefaultConfig holds the defaults
// and Validate (of Config and of each phase's configuration) the rules of
// the settings, which the command line takes as they are. Run, the
// phases, Replay, NewTarget, TargetFromPathFile and the methods of Dir
// that return an error return one for a nil argument (context, *Dir,
// path file, scenario, profile) instead of panicking.
//
// # Determinism
//
// Results depend only on the Config and the EDD, never on Env.Jobs or the
// machine: execution i of a phase uses the path
// SeedPath(ExecutionSeed(PhaseSeed(seed, phase), i)), "first" means the
// lowest index, and files are written in index order. Training is the
// exception: it measures real handler times, so edd.json differs between
// trainings; pass the written edd.json (TrainRuns 0) to repeat a run
// exactly. Env.CheckDeterminism runs every execution twice and fails on a
// difference; Env.HandlerTimeout is the handler watchdog (10 s by
// default), under which a handler that never returns is a finding.
//
// # Bad input
//
// Counts whose executions cannot fit in the machine's memory are refused
// before anything runs; every reader of a results file checks its schema,
// ranges and ties to profile.json (config hash, phase seeds, execution
// seeds) and refuses a file that fails them with one line naming it (and
// the line, for JSON Lines).
package pipeline

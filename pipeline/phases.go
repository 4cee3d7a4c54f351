package pipeline

import (
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/shard"
)

// Phase names a phase of the pipeline; its seed is PhaseSeed(seed, phase).
type Phase string

// The phases of the pipeline (paper 004 §3.2), in order, and the
// regression test's bootstrap.
const (
	PhaseTrain     Phase = "train"     // 1a
	PhaseProfile   Phase = "profile"   // 1b
	PhaseSearch    Phase = "search"    // 2
	PhaseDiverge   Phase = "diverge"   // 3a
	PhaseCorrelate Phase = "correlate" // 3b
	PhaseRegress   Phase = "regress"
)

// The other commands' long runs, as Progress names them: the explorer's
// plain run (Simulate) and the liveness search (Liveness).
const (
	PhaseSimulate Phase = "simulate"
	PhaseLiveness Phase = "liveness"
)

// PhaseInfo describes a phase of the pipeline. The table of them
// (Phases) is the one place a phase is declared: Run runs them in its
// order, Dir.ClearAfter removes their files in it, Merge merges the
// shards of those that have a sharded form, and the command line takes
// its phase commands, their one-line summaries and the run's header
// from it.
type PhaseInfo struct {
	Phase Phase
	// Step is the phase's number in paper 004 §3.2 ("1a").
	Step string
	// Doc says what the phase does, in a line (the summary of its
	// command).
	Doc string
	// Files are the files the phase writes (a name with '*' is a
	// pattern); a phase's commit removes them, and those of the phases
	// after it, before it writes its own (Dir.ClearAfter).
	Files []string
	// Seeded is true for a phase whose executions have a base seed of
	// their own (PhaseSeed); the run's header prints them.
	Seeded bool

	// run is the phase within Run: it reads what the phases before it
	// left in s and records its own result there; stop ends the run
	// after it (nothing for the later phases to do).
	run func(s *runState) (stop bool, err error)
	// writtenWithNext is true for a phase whose files the next phase
	// writes with its own (the training is written with the profile, so
	// that a failed profile leaves the directory as it was): Run reports
	// it done (Config.OnPhase) with the next one.
	writtenWithNext bool
	// merge, if not nil, writes the files of the phase from the shard
	// files of its sharded form (Merge).
	merge func(env Env, set *shard.Set, res *MergeResult) error
}

// tailPathGlob matches the normal tail's path files (results.TailPath),
// which the search writes too (TestClearAfter checks the two agree).
const tailPathGlob = "tail-class-*.path.json"

// phaseTable is the pipeline's phases in order.
func phaseTable() []PhaseInfo {
	return []PhaseInfo{
		{Phase: PhaseTrain, Step: "1a", Doc: "train event duration distributions from real handler times",
			Files: []string{results.FileEDD, results.FileTrain}, Seeded: true, run: runTrain, writtenWithNext: true},
		{Phase: PhaseProfile, Step: "1b", Doc: "the normal execution time (quartiles, anomaly threshold)",
			Files: []string{results.FileProfile}, Seeded: true, run: runProfile, merge: mergeProfile},
		{Phase: PhaseSearch, Step: "2", Doc: "explore until an execution is anomalous",
			Files: []string{results.FileSearch, results.FileSearchExecs, results.FileAnomalyPath, results.ClassPathGlob, tailPathGlob}, Seeded: true, run: runSearch, merge: mergeSearch},
		{Phase: PhaseDiverge, Step: "3a", Doc: "the divergence point of the anomalous execution",
			Files: []string{results.FileDivergence, results.FileWalks, results.FileSimilarPath, results.FileAnomalyLog, results.FileSimilarLog, results.FileDiff, results.FileEvents}, Seeded: true, run: runDiverge},
		{Phase: PhaseCorrelate, Step: "3b", Doc: "event frequencies correlated with execution time",
			Files: []string{results.FileCorrelation}, run: runCorrelate},
	}
}

// Phases are the pipeline's phases (paper 004 §3.2) in the order Run
// runs them.
func Phases() []PhaseInfo { return phaseTable() }

// PhaseOf is the phase named p, and whether it is one of Phases.
func PhaseOf(p Phase) (PhaseInfo, bool) {
	for _, info := range phaseTable() {
		if info.Phase == p {
			return info, true
		}
	}
	return PhaseInfo{}, false
}

// Sharded reports whether the phase has a sharded form, whose shard
// files Merge merges.
func (p PhaseInfo) Sharded() bool { return p.merge != nil }

// ShardPhases are the phases whose shard files Merge merges, by the names
// their shard files carry: the explorer's plain run (Simulate), the
// pipeline's phases that have a sharded form, and the liveness search.
func ShardPhases() []string {
	out := []string{string(PhaseSimulate)}
	for _, p := range phaseTable() {
		if p.Sharded() {
			out = append(out, string(p.Phase))
		}
	}
	return append(out, PhaseLivenessShard)
}

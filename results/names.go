package results

// The files of a results directory, by the phase or command that writes
// them. A phase that succeeded removes the files of the phases after it
// before it writes its own (pipeline.Dir.ClearAfter), so a directory never
// mixes the results of two configurations.
const (
	FileEDD         = "edd.json"   // phase 1a: the trained event duration distributions
	FileTrain       = "train.json" // phase 1a: how edd.json was trained
	FileProfile     = "profile.json"
	FileSearch      = "search.json"
	FileSearchExecs = "search-executions.jsonl" // every explored execution with its event counts (CountsLine)
	FileAnomalyPath = "anomaly.path.json"       // the path file of class 1's representative
	FileDivergence  = "divergence.json"
	FileWalks       = "divergence-walks.jsonl" // every walk of phase 3a (CountsLine)
	FileSimilarPath = "similar.path.json"
	FileAnomalyLog  = "anomaly.log"
	FileSimilarLog  = "similar.log"
	FileDiff        = "divergence.diff"        // both event logs side by side from the divergence point
	FileEvents      = "divergence-events.json" // the events around the divergence point, for the report's event graph
	FileCorrelation = "correlation.json"
	FileSummary     = "summary.json"
)

// The files the regression test writes besides profile.json and
// summary.json. Any phase that starts in the directory removes them, as
// it does summary.json: they describe the directory as the regression
// test left it.
const (
	FileRegress        = "regress.json"
	FileRegressSVG     = "regress.svg"               // the comparison's plot (report.RegressPlot)
	FileRegressPNG     = "regress.png"               // the same plot as PNG
	FileRegressOutlier = "regress-outlier.path.json" // the first current execution above the baseline's threshold
	FileRegressSlowest = "regress-slowest.path.json" // the slowest current execution
	// FileRegressBaseBench and FileRegressCurBench are both sides'
	// execution times in the Go benchmark format, for benchstat.
	FileRegressBaseBench = "baseline.bench.txt"
	FileRegressCurBench  = "current.bench.txt"
)

// The files of `macepc simulate`.
const (
	FileSimulate   = "simulate.json"     // the execution-time distribution
	FileExecutions = "executions.jsonl"  // one line per execution
	FileSlowest    = "slowest.path.json" // the path file of the slowest execution
)

// The files of a liveness run.
const (
	FileLiveness  = "liveness.json"
	FileDeadPath  = "dead.path.json" // the violating path
	FileLivePath  = "live.path.json" // the live path with the longest common prefix
	FileDeadLog   = "dead.log"
	FileLiveLog   = "live.log"
	FileStateDiff = "state.diff"       // the nodes' states after the critical step, dead against live
	FilePrefix    = "prefix.path.json" // the search prefix of --live-prefix (for --prefix)
)

// The rendered files: the report (package report) and the execution
// debugger (package explore), written from the files above.
const (
	FileReport   = "report.html"
	FileMarkdown = "summary.md"
	DirPlots     = "plots" // a PNG file per figure of the report
	FileExplore  = "explore.html"
)

package cli

import (
	"regexp"
	"strings"

	"github.com/macepc/macepc/pipeline"
)

// flagOf is the flag of this command line that sets the pipeline field or
// argument a pipeline.ConfigError names ("DivergeConfig.Walks": "--walks"),
// or "" for one no flag sets: the library speaks in fields, the command
// line in its flags.
func flagOf(field string) string {
	switch field {
	case "Env.Dir":
		return "--out"
	case "Env.Jobs":
		return "--jobs"
	case "Config.TrainRuns", "TrainConfig.Runs":
		return "--train-runs"
	case "Config.ProfileRuns", "ProfileConfig.Runs", "RegressConfig.Runs":
		return "--profile-runs"
	case "Config.MaxRuns", "SearchConfig.MaxRuns", "RegressConfig.MaxRuns":
		return "--max-runs"
	case "Config.TriageRuns", "SearchConfig.TriageRuns":
		return "--triage-runs"
	case "Config.Walks", "DivergeConfig.Walks":
		return "--walks"
	case "Config.Confirm", "DivergeConfig.Confirm":
		return "--confirm-walks"
	case "DivergeConfig.Class":
		return "--class"
	case "Thresholds.IQRFactor":
		return "--iqr-factor"
	case "Thresholds.MinSlowdown":
		return "--min-slowdown"
	case "Thresholds.MinExcess":
		return "--min-excess"
	case "Verdict.Alpha":
		return "--alpha"
	case "SimulateConfig.Runs":
		return "--runs"
	case "RegressConfig.Baseline":
		return "--baseline"
	case "RegressConfig.EDDFile", "ReadEDD.path":
		return "--edd"
	case "RegressConfig.MaxSlowRate":
		return "--max-slow-rate"
	case "RegressConfig.Compare.Resamples":
		return "--resamples"
	case "ApplyScale.set", "ApplyScale.specs":
		return "--scale"
	case "ReadPathFile.name":
		return "--path"
	case "ReadLivenessPath.name":
		return "--prefix"
	case "PathFromRun.dir":
		return "--run"
	case "PathFromRun.index":
		return "--index"
	case "Replay.branchAt":
		return "--branch-at"
	case "ReadShards.phase":
		return "--phase"
	}
	return ""
}

// otherPrefix is the package prefix of the errors of macepc's packages
// that have no typed errors ("timedsim: ", "results: "), at the start of
// a message or after another's colon; pipeline's are typed (message).
var otherPrefix = regexp.MustCompile(`(^|: )(?:(?:results|timedsim|shard|edd|netmodel|anomaly|divergence|liveness|report|atomicfile): )+`)

// message is err as this command line says it, named name: on one line,
// the pipeline's fields named by their flags and its suggested commands
// by this binary's name (pipeline.Render), without the package prefixes
// of macepc's errors: the command line speaks for its packages, and a user
// does not know them.
func message(name string, err error) string {
	msg := pipeline.Render(err, pipeline.Names{Program: name, Field: flagOf})
	msg = otherPrefix.ReplaceAllString(msg, "$1")
	return strings.ReplaceAll(strings.TrimSpace(msg), "\n", "; ")
}

package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/pipeline"
)

// phaseCommand is a phase of the pipeline (pipeline.Phases) as this
// command line has it: the phase's own command, its settings' flags, their
// check, its help and the lines it prints when it ends. The commands'
// list and summaries, run's flags, header and printed phases, and the
// help's "Phases" group are derived from pipeline.Phases and this table,
// in the pipeline's order.
type phaseCommand struct {
	// run is the phase's command (`macepc train`).
	run func(a *app, args []string) (int, error)
	// flags registers the flags of the phase's settings, on its command
	// and on run's; own, those its command alone has (nil: none).
	flags, own func(*pipelineFlags, *pflag.FlagSet)
	// check checks the phase command's flags with the pipeline's rules
	// (its configuration's Validate); th holds the threshold flags but
	// --min-excess, which pipelineFlags.thresholds parses.
	check func(f *pipelineFlags, env pipeline.Env, th pipeline.Thresholds) error
	help  help
	// print prints the phase's result, as its command, run and merge do;
	// nothing when the result has none.
	print func(a *app, d *pipeline.Dir, r *pipeline.Result)
}

// phaseCommands are the phases' commands by phase; every phase of
// pipeline.Phases has one (TestEveryPhaseHasACommand).
func phaseCommands() map[pipeline.Phase]phaseCommand {
	return map[pipeline.Phase]phaseCommand{
		pipeline.PhaseTrain: {run: (*app).train, flags: (*pipelineFlags).registerTrain,
			check: func(f *pipelineFlags, env pipeline.Env, _ pipeline.Thresholds) error {
				return (&pipeline.TrainConfig{Env: env, Runs: f.trainRuns}).Validate()
			},
			help: help{"train [flags]", "Phase 1a: runs --train-runs executions with the seed durations (uniform 1-10 ms), measures each handler's real time, and writes DIR/edd.json and DIR/train.json. Later phases in DIR use it.", "",
				"macepc train --system randtree --variant buggy --out macepc-out"},
			print: func(a *app, d *pipeline.Dir, r *pipeline.Result) {
				if r.Train != nil {
					a.printTrain(d, r.Train)
				}
			}},
		pipeline.PhaseProfile: {run: (*app).profileCmd, flags: (*pipelineFlags).registerProfile,
			check: func(f *pipelineFlags, env pipeline.Env, th pipeline.Thresholds) error {
				return (&pipeline.ProfileConfig{Env: env, Runs: f.profileRuns, Thresholds: th}).Validate()
			},
			help: help{"profile [flags]", "Phase 1b: runs --profile-runs executions and writes DIR/profile.json: the quartiles of the execution time and the anomaly threshold. After 'macepc train --out DIR' it takes training's system, variant, nodes, seed and options, and its edd.json.",
				"", "macepc profile --system randtree --variant fixed --edd macepctest/testdata/edd.json --out baseline"},
			print: func(a *app, d *pipeline.Dir, r *pipeline.Result) {
				if r.Profile != nil {
					a.printProfile(r.Profile)
				}
			}},
		pipeline.PhaseSearch: {run: (*app).searchCmd, flags: (*pipelineFlags).registerSearch,
			check: func(f *pipelineFlags, env pipeline.Env, _ pipeline.Thresholds) error {
				return (&pipeline.SearchConfig{Env: env, MaxRuns: f.maxRuns, TriageRuns: f.triageRuns, Verdict: f.verdict()}).Validate()
			},
			help: help{"search [flags]", "Phase 2: explores new executions until one is slower than the threshold of DIR/profile.json, then --triage-runs more to find the others; calls anomalies those that normal variance cannot explain (a tail model of the faster executions, family-wise --alpha; --fence-only: every one), and when none is, searches on to --max-runs and judges again; classes the anomalies and, apart, the normal tail by execution time and by the events that set them apart, each with its critical path against a median execution. Writes DIR/search.json and the path files of each class.",
				anomalyExit, "macepc search --out macepc-out --max-runs 2000"},
			print: func(a *app, d *pipeline.Dir, r *pipeline.Result) {
				if r.Search != nil {
					a.printSearch(d, r.Search)
				}
			}},
		pipeline.PhaseDiverge: {run: (*app).divergeCmd, flags: (*pipelineFlags).registerDiverge, own: (*pipelineFlags).registerClass,
			check: func(f *pipelineFlags, env pipeline.Env, _ pipeline.Thresholds) error {
				return (&pipeline.DivergeConfig{Env: env, Class: f.class, Walks: f.walks, Confirm: f.confirm}).Validate()
			},
			help: help{"diverge [flags]", "Phase 3a: finds the divergence point of a class's representative anomaly (the step after which no random continuation is fast again) and a similar fast execution; writes DIR/divergence.json, both event logs and DIR/divergence.diff.",
				anomalyExit, "macepc diverge --out macepc-out --class 2"},
			print: func(a *app, d *pipeline.Dir, r *pipeline.Result) {
				if r.Divergence != nil {
					a.printDivergence(d, r.Divergence)
				}
			}},
		pipeline.PhaseCorrelate: {run: (*app).correlateCmd,
			help: help{"correlate [flags]", "Phase 3b: correlates every event label's count with the execution time over the executions of phases 2 and 3a, and marks the labels that only scale with an execution's length; writes DIR/correlation.json.",
				anomalyExit, "macepc correlate --out macepc-out"},
			print: func(a *app, d *pipeline.Dir, r *pipeline.Result) {
				if r.Correlation != nil {
					a.printCorrelation(r.Correlation)
				}
			}},
	}
}

// phaseCommandList is the phases' commands, in the pipeline's order.
func phaseCommandList() []command {
	pcs := phaseCommands()
	var out []command
	for _, p := range pipeline.Phases() {
		out = append(out, command{string(p.Phase), "phase " + p.Step + ": " + p.Doc, pcs[p.Phase].run})
	}
	return out
}

// phaseNames are the phases' names in order, joined with sep.
func phaseNames(sep string) string {
	var names []string
	for _, p := range pipeline.Phases() {
		names = append(names, string(p.Phase))
	}
	return strings.Join(names, sep)
}

// runPhaseFlags are the flags of the phases' settings, in the pipeline's
// order, as run registers them.
func runPhaseFlags() []func(*pipelineFlags, *pflag.FlagSet) {
	pcs := phaseCommands()
	var out []func(*pipelineFlags, *pflag.FlagSet)
	for _, p := range pipeline.Phases() {
		if f := pcs[p.Phase].flags; f != nil {
			out = append(out, f)
		}
	}
	return out
}

// isPhaseFlag reports whether flag sets a phase's setting (a flag of a
// phase's flags or own), which the help lists under "Phases".
func isPhaseFlag(flag string) bool {
	fs := pflag.NewFlagSet("phases", pflag.ContinueOnError)
	f := newPipelineFlags("")
	for _, pc := range phaseCommands() {
		for _, reg := range []func(*pipelineFlags, *pflag.FlagSet){pc.flags, pc.own} {
			if reg != nil {
				reg(f, fs)
			}
		}
	}
	return fs.Lookup(flag) != nil
}

// phaseSeeds is the run header's list of the phases' seeds
// ("train=… profile=… search=… diverge=…").
func phaseSeeds(seed uint64) string {
	var parts []string
	for _, p := range pipeline.Phases() {
		if p.Seeded {
			parts = append(parts, fmt.Sprintf("%s=%d", p.Phase, pipeline.PhaseSeed(seed, p.Phase)))
		}
	}
	return strings.Join(parts, " ")
}

// orList is "a, b, c or d".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

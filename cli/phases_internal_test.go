package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/pipeline"
)

// Every phase of the pipeline has its command, help and printed lines
// here, and nothing else does: a phase added to pipeline's table and not
// to the command line's fails here.
func TestEveryPhaseHasACommand(t *testing.T) {
	pcs := phaseCommands()
	for _, p := range pipeline.Phases() {
		pc, ok := pcs[p.Phase]
		if !ok {
			t.Errorf("phase %s has no command (phaseCommands)", p.Phase)
			continue
		}
		if pc.run == nil || pc.print == nil || !strings.HasPrefix(pc.help.usage, string(p.Phase)+" ") || pc.help.example == "" {
			t.Errorf("phase %s: command incomplete: run %v, print %v, help %+v", p.Phase, pc.run != nil, pc.print != nil, pc.help)
		}
		delete(pcs, p.Phase)
	}
	for p := range pcs {
		t.Errorf("phaseCommands has %s, which is not a phase of the pipeline", p)
	}
}

// The commands list the phases in the pipeline's order, after run, each
// with its step, and run's summary names them.
func TestPhaseCommandsInOrder(t *testing.T) {
	var b bytes.Buffer
	(&app{name: "macepc"}).usage(&b)
	usage := b.String()
	last := strings.Index(usage, "\n  run ")
	if last < 0 || !strings.Contains(usage, "the MacePC pipeline: train, profile, search, diverge, correlate") {
		t.Fatalf("usage:\n%s", usage)
	}
	for _, p := range pipeline.Phases() {
		i := strings.Index(usage, "\n  "+string(p.Phase)+" ")
		if i < last || !strings.Contains(usage[i:], "phase "+p.Step+": "+p.Doc) {
			t.Errorf("phase %s out of order or without its summary in\n%s", p.Phase, usage)
		}
		last = i
	}
}

// The help's "Phases" group is the phases' flags: those run registers
// and a phase command's own.
func TestPhaseFlagsGroup(t *testing.T) {
	for flag, want := range map[string]bool{"train-runs": true, "min-excess": true, "fence-only": true, "confirm-walks": true, "class": true, "seed": false, "out": false, "runs": false} {
		if got := isPhaseFlag(flag); got != want {
			t.Errorf("isPhaseFlag(%q) = %v, want %v", flag, got, want)
		}
	}
	if g := flagGroup("run", "resume"); g != "Output and resources" {
		t.Errorf("--resume is in %q", g)
	}
	if g := flagGroup("run --liveness", "walks"); g != "Liveness search" {
		t.Errorf("run --liveness's --walks is in %q", g)
	}
}

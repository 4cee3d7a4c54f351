package pipeline

// Progress follows the executions of the phases (the command line draws
// it as a progress bar). The phases call it from one goroutine at a time.
type Progress interface {
	// Start is called when a phase starts total executions.
	Start(phase Phase, total int) Task
}

// Task is one phase's executions under way.
type Task interface {
	// Add counts n finished executions; note, if not "", says what the
	// phase is doing now ("diverge: prefix 64").
	Add(n int, note string)
	// SetTotal changes the number of executions the phase expects: the
	// search's budget shrinks to the triage runs after its first anomaly,
	// the divergence search grows with its probes.
	SetTotal(total int)
	// Done is called when the phase's executions are over, finished or
	// not.
	Done()
}

// start is p.Start, or a no-op Task without p.
func start(p Progress, phase Phase, total int) Task {
	if p == nil {
		return noTask{}
	}
	return p.Start(phase, total)
}

type noTask struct{}

func (noTask) Add(int, string) {}
func (noTask) SetTotal(int)    {}
func (noTask) Done()           {}

package liveness

import (
	"fmt"
	"strings"

	"github.com/macepc/macepc/timedsim"
)

// pathWorld is the world in which path p re-executes with cfg's scenario
// and settings (Replay, TracePath).
func pathWorld(cfg Config, p Path) (*world, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	drv, err := driverSchedule(r.Scenario, p.Driver)
	if err != nil {
		return nil, err
	}
	return newWorld(r.set, drv), nil
}

// Replay re-executes path p with cfg's scenario and settings and returns
// its event log: a header, one line per step ("12 n1 deliver JoinReply
// from n0 JoinReply{Kind:accepted Root:n0} [choice 1 of 4]") followed by
// the handler's notes and Logf lines, a line saying how the execution ended and
// which liveness properties hold, and each node's final state (nodeText:
// its Describe text, its pending timers, the messages waiting for it).
// Every state is described, so a Describe that panics ends the log as a
// handler's panic does ("# end after 3 steps: panic: n1: Describe
// panicked: …"), and one seen not to be deterministic adds a last line,
// "# warning: …". The protocol's text has its hidden characters made
// visible: every line is one line. The log is a pure function of the
// path: same path, same lines (but for that warning).
func Replay(cfg Config, p Path) ([]string, error) {
	w, err := pathWorld(cfg, p)
	if err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("# liveness replay: nodes=%d steps=%d driver=%d explicit=%d", len(w.nodes), p.Steps, p.Driver, len(p.Choices))}
	w.log = &lines
	res := w.walk(p, walkOptions{liveFrom: -1, describe: true, onEvent: func(step int, desc string, c, of int) {
		lines = append(lines, fmt.Sprintf("%d %s [choice %d of %d]", step, desc, c, of))
	}})
	if res.err != nil {
		return lines, res.err
	}
	w.log = nil
	end := fmt.Sprintf("# end after %d steps", res.steps)
	switch {
	case res.panicked != "":
		end += ": panic: " + res.panicked
	case res.safety != "":
		end += ": safety property " + res.safety + " violated"
	case res.quiescent:
		end += ": no event enabled"
	}
	lines = append(lines, end)
	if res.panicked == "" {
		if failed := w.failing(); len(failed) == 0 {
			lines = append(lines, "# live")
		} else {
			lines = append(lines, "# not live: "+strings.Join(failed, ", "))
		}
		for i := range w.nodes {
			lines = append(lines, "# state "+timedsim.NodeID(i).String())
			lines = append(lines, w.nodeText(i)...)
		}
	}
	if w.nondet != "" {
		lines = append(lines, "# warning: "+w.nondet)
	}
	return lines, nil
}

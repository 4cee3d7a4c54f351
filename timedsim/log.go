package timedsim

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/visible"
)

// FormatTime renders a simulated time or duration exactly, to the
// nanosecond, in the unit the summary and the report use for it: "412 ns",
// "3.500 µs", "58.130860 ms", "12.000345678 s". Every log, the divergence
// diff and explore.html use it, so that text outputs are exact, diffable
// and read like the rest (the summary's "58.13 ms" is the same time,
// rounded).
func FormatTime(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	b := make([]byte, 0, 24)
	if neg {
		b = append(b, '-')
	}
	unit, digits, suffix := time.Duration(1), 0, " ns"
	switch {
	case d >= time.Second:
		unit, digits, suffix = time.Second, 9, " s"
	case d >= time.Millisecond:
		unit, digits, suffix = time.Millisecond, 6, " ms"
	case d >= time.Microsecond:
		unit, digits, suffix = time.Microsecond, 3, " µs"
	}
	b = strconv.AppendInt(b, int64(d/unit), 10)
	if digits > 0 {
		b = append(b, '.')
		frac := strconv.FormatInt(int64(d%unit), 10)
		for i := len(frac); i < digits; i++ {
			b = append(b, '0')
		}
		b = append(b, frac...)
	}
	b = append(b, suffix...)
	return string(b)
}

// LogHeader is the metadata printed at the top of an event log.
type LogHeader struct {
	System, Variant string
	Nodes           int
	ConfigHash      string
	// Params, when the system has any, are printed on a line of their own.
	Params Params
	Path   Path
}

// WriteEventLog writes the human-readable event log of a recorded
// execution: one line per event (step, node, start, duration, label,
// sender), indented lines for each message sent (destination, transport,
// type, size, arrival, fate), timer changes, notes and log lines. The output is a
// pure function of the result: same path, same bytes. Every text that
// came from the protocol's code (states, log lines, panics) has its hidden
// characters made visible (package internal/visible): a line of the log
// is one event or one of its effects, and none can forge another.
func WriteEventLog(w io.Writer, h LogHeader, r *Result) error {
	v := visible.String
	bw := bufio.NewWriter(w)
	bw.WriteString("# macepc event log v1\n")
	bw.WriteString("# system=" + v(h.System) + " variant=" + v(h.Variant) + " nodes=" + strconv.Itoa(h.Nodes) + " config=" + v(h.ConfigHash) + "\n")
	if len(h.Params) > 0 {
		bw.WriteString("# params=" + v(h.Params.String()) + "\n")
	}
	bw.WriteString("# path=")
	for i, s := range h.Path.Segments {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(strconv.Itoa(s.From) + ":" + strconv.FormatUint(s.Seed, 10))
	}
	bw.WriteString("\n# outcome=" + r.Outcome.String() + " exec_time=" + strings.ReplaceAll(FormatTime(r.ExecTime), " ", "") + " steps=" + strconv.Itoa(r.Steps) + "\n")
	if p := r.Panic; p != nil {
		where := p.Where
		if p.Node != None {
			where += " on " + p.Node.String()
		}
		if p.Label != "" {
			where += " in " + p.Label
		}
		bw.WriteString("# panic at step " + strconv.Itoa(p.Step) + " in the " + v(where) + ": " + v(p.Value) + "\n")
	}
	if p := r.DescribePanic; p != nil {
		bw.WriteString("# " + v(p.DescribeText()) + "\n")
	}
	if r.Violation != "" {
		bw.WriteString("# safety property violated: " + v(r.Violation) + "\n")
	}
	bw.WriteString("#  step node   start            duration      event\n")
	for i := range r.Events {
		e := &r.Events[i]
		line := pad(strconv.Itoa(e.Step), 7) + " " + padRight(e.Node.String(), 6) + " " + pad(FormatTime(e.Start), 16) + " " + pad(FormatTime(e.Duration), 13) + "  " + v(e.Label)
		if e.From != None {
			line += " from " + e.From.String()
		}
		bw.WriteString(line + "\n")
		for _, s := range e.Sends {
			l := "        -> " + s.To.String() + " " + v(s.Type) + " " + strconv.Itoa(s.Size) + "B on " + v(s.Transport) + ": " + s.Status
			if s.Status == "sent" {
				l += ", arrives " + FormatTime(s.Arrive)
			}
			bw.WriteString(l + "\n")
		}
		for _, t := range e.Timers {
			if t.Cancel {
				bw.WriteString("        timer " + v(t.Name) + " cancelled\n")
			} else {
				bw.WriteString("        timer " + v(t.Name) + " set for " + FormatTime(t.At) + "\n")
			}
		}
		for _, n := range e.Notes {
			bw.WriteString("        note: " + v(n) + "\n")
		}
		for _, l := range e.Logs {
			bw.WriteString("        log: " + v(l) + "\n")
		}
	}
	if len(r.FinalStates) > 0 {
		bw.WriteString("# final node states\n")
		for i, st := range r.FinalStates {
			bw.WriteString("# " + NodeID(i).String() + ": " + v(st) + "\n")
		}
	}
	return bw.Flush()
}

func pad(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

package raftsim

import (
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// logger is raft's Logger for one node: info, warnings and errors go to
// the event log of the handler that is running (Context.Logf, recorded
// only when an execution is recorded); debug lines are dropped; Fatal and
// Panic panic, which the simulator turns into a Panicked execution.
type logger struct{ ctx timedsim.Context }

func (l *logger) out(format string, v ...any) {
	if l.ctx != nil {
		l.ctx.Logf("raft: "+format, v...)
	}
}

func (l *logger) Debug(v ...any)                   {}
func (l *logger) Debugf(format string, v ...any)   {}
func (l *logger) Info(v ...any)                    { l.out("%s", fmt.Sprint(v...)) }
func (l *logger) Infof(format string, v ...any)    { l.out(format, v...) }
func (l *logger) Warning(v ...any)                 { l.out("%s", fmt.Sprint(v...)) }
func (l *logger) Warningf(format string, v ...any) { l.out(format, v...) }
func (l *logger) Error(v ...any)                   { l.out("%s", fmt.Sprint(v...)) }
func (l *logger) Errorf(format string, v ...any)   { l.out(format, v...) }
func (l *logger) Fatal(v ...any)                   { panic("raft: " + fmt.Sprint(v...)) }
func (l *logger) Fatalf(format string, v ...any)   { panic(fmt.Sprintf("raft: "+format, v...)) }
func (l *logger) Panic(v ...any)                   { panic("raft: " + fmt.Sprint(v...)) }
func (l *logger) Panicf(format string, v ...any)   { panic(fmt.Sprintf("raft: "+format, v...)) }

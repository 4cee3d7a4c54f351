package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/macepc/macepc/internal/shellquote"
)

// Error is an error of this package: its message is the cause's with the
// prefix "pipeline: ". Every exported function returns its errors as an
// *Error (errors.Is and errors.As see the cause through Unwrap), so the
// prefix appears once, at the front: the command line prints the message
// without it.
type Error struct {
	Err error
}

func (e *Error) Error() string { return "pipeline: " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// wrapErr makes *err an *Error. The package's exported functions defer it;
// inside the package only unexported functions are called, so that no
// message holds the prefix in its middle.
func wrapErr(err *error) {
	if *err == nil {
		return
	}
	if _, ok := (*err).(*Error); ok {
		return
	}
	*err = &Error{Err: *err}
}

// interruptedError is the error of a phase that ctx's cancellation ended:
// its message says what the phase left (the files of the completed phases),
// and errors.Is sees the context's error (context.Canceled or
// context.DeadlineExceeded) and the cause given to its cancel function, if
// any (context.Cause).
type interruptedError struct {
	msg    string
	causes []error
}

func (e *interruptedError) Error() string { return e.msg }

func (e *interruptedError) Unwrap() []error { return e.causes }

// interruption is the error of a phase interrupted by ctx's cancellation,
// with the message format and args make.
func interruption(ctx context.Context, format string, args ...any) error {
	e := &interruptedError{msg: fmt.Sprintf(format, args...)}
	if err := ctx.Err(); err != nil {
		e.causes = append(e.causes, err)
		if c := context.Cause(ctx); c != nil && c != err {
			e.causes = append(e.causes, c)
		}
	}
	return e
}

// checkContext refuses a nil ctx, which the workers would crash on
// (context.Context's rule: pass context.Background() instead).
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("nil context.Context (pass context.Background() or context.TODO())")
	}
	return nil
}

// DefaultProgram is the program a ConfigError's suggested command starts
// with unless a front end renders it with its own name (Names.Program).
const DefaultProgram = "macepc"

// ConfigError is an error in what a caller asked for: the value of a
// configuration field or of an argument (Field), or a results directory
// that lacks what a phase needs, whose message then suggests a command
// that makes it (Hint). The message names fields as a Go caller spells
// them ("DivergeConfig.Walks must be at least 1, got 0") and the
// suggested command as the macepc command line's; Render names both as a
// front end does (the command line names its flags: "--walks must be at
// least 1, got 0"). errors.As finds it through the *Error that the
// package's exported functions return; errors.Is and errors.As see its
// cause, if any.
type ConfigError struct {
	// Field is the configuration field or argument at fault, by its Go
	// name qualified with its type or function ("Config.Walks",
	// "Env.Dir", "Replay.branchAt"); "" when the error is not one field's.
	Field string
	// Hints are the commands the message suggests, in its order: each
	// one's arguments after the program's name (["search", "--out", DIR]).
	Hints [][]string
	// msg is the message with each field and the hint marked (mark).
	msg string
	err error
}

// Names says how a front end names what a ConfigError's message refers
// to. The zero Names keeps the Go names and DefaultProgram.
type Names struct {
	// Program starts the suggested commands (DefaultProgram when "").
	Program string
	// Field, if not nil, is the front end's name of a field ("--walks"
	// for "DivergeConfig.Walks"); "" keeps the Go name.
	Field func(field string) string
}

// mark delimits a field's name, or hintMark, in a ConfigError's message:
// a NUL byte, which no path, flag or error text holds.
const (
	mark     = "\x00"
	hintMark = mark + "hint" + mark
)

// configErr is a ConfigError of field (may be "") suggesting the
// commands hints, with the message format and args: in format, {Name}
// names the field Name (any field, not only the one at fault) and each
// {hint} stands for the next of hints. A %w verb makes its argument the
// cause.
func configErr(field string, hints [][]string, format string, args ...any) error {
	var b strings.Builder
	for {
		i := strings.IndexByte(format, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(format[i+1:], '}')
		}
		if j < 0 {
			b.WriteString(format)
			break
		}
		b.WriteString(format[:i])
		if name := format[i+1 : i+1+j]; name == "hint" {
			b.WriteString(hintMark)
		} else {
			b.WriteString(mark + name + mark)
		}
		format = format[i+2+j:]
	}
	err := fmt.Errorf(b.String(), args...)
	return &ConfigError{Field: field, Hints: hints, msg: err.Error(), err: errors.Unwrap(err)}
}

// fieldErr is a ConfigError of field: "{field} " and then the message of
// format and args ("{Config.Walks} must be at least 1, got 0").
func fieldErr(field, format string, args ...any) error {
	return configErr(field, nil, "{"+field+"} "+format, args...)
}

func (e *ConfigError) Error() string { return e.Render(Names{}) }

func (e *ConfigError) Unwrap() error { return e.err }

// Render is the error's message with its fields and its suggested
// commands named as n says.
func (e *ConfigError) Render(n Names) string {
	prog := n.Program
	if prog == "" {
		prog = DefaultProgram
	}
	parts := strings.Split(e.msg, mark)
	hints := e.Hints
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(p)
		case p == "hint" && len(hints) > 0:
			b.WriteString(shellquote.Join(append([]string{prog}, hints[0]...)...))
			hints = hints[1:]
		case n.Field != nil && n.Field(p) != "":
			b.WriteString(n.Field(p))
		default:
			b.WriteString(p)
		}
	}
	return b.String()
}

// Render is err's message with the fields and suggested commands of the
// ConfigErrors it wraps named as n says, without this package's prefix
// ("pipeline: "): a front end's message for its user.
func Render(err error, n Names) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case *Error:
			msg = strings.Replace(msg, e.Error(), e.Err.Error(), 1)
		case *ConfigError:
			msg = strings.Replace(msg, e.Error(), e.Render(n), 1)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			if next := u.Unwrap(); next != nil {
				walk(next)
			}
		case interface{ Unwrap() []error }:
			for _, next := range u.Unwrap() {
				walk(next)
			}
		}
	}
	walk(err)
	return msg
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
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

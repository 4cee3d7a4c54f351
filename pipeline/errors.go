package pipeline

import (
	"context"
	"errors"
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

// checkContext refuses a nil ctx, which the workers would crash on
// (context.Context's rule: pass context.Background() instead).
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("nil context.Context (pass context.Background() or context.TODO())")
	}
	return nil
}

//go:build !unix

package pipeline

import "os"

// flock is a no-op where flock(2) does not exist: Linux is the target, and
// there a second writer is refused.
func flock(*os.File) (busy bool, err error) { return false, nil }

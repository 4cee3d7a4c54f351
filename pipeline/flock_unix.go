//go:build unix

package pipeline

import (
	"errors"
	"os"
	"syscall"
)

// flock takes f's exclusive advisory lock without waiting; busy: another
// open file holds it.
func flock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

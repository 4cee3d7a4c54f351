package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Write creates or replaces path with what fill writes. On any error the
// temporary file is removed and path is untouched.
//
// A path that is a symbolic link is replaced by the file, never written
// through: what the link points to is left alone. A path that is a
// character device or a FIFO (itself or through a link), such as
// /dev/null, /dev/stdout or a named pipe a reader waits on, is written
// through, since renaming over it would replace the device; a FIFO
// nobody reads is an error rather than a wait. A directory, a socket or a
// block device is refused.
func Write(path string, fill func(w io.Writer) error) (err error) {
	through, err := writesThrough(path)
	if err != nil {
		return err
	}
	if through {
		return writeThrough(path, fill)
	}
	tmp, err := writeTemp(path, fill)
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}

// WriteBytes is Write with fixed content.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeTemp writes what fill writes into a new temporary file beside
// path ("." + base + ".tmp-" + digits, which RemoveStale recognises),
// synced and made 0644, and returns its name; on an error it removes it.
func writeTemp(path string, fill func(w io.Writer) error) (_ string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", fmt.Errorf("atomicfile: %w", err)
	}
	if err = f.Close(); err != nil {
		return "", fmt.Errorf("atomicfile: %w", err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return "", fmt.Errorf("atomicfile: %w", err)
	}
	return tmp, nil
}

// writesThrough says whether path is a character device or a FIFO, to be
// written through, or an error for a file that must not be replaced nor
// written (a directory, a socket, a block device). A missing path, a
// regular file and a link to one (or a dangling link) are replaced.
func writesThrough(path string) (bool, error) {
	st, err := os.Stat(path) // through a link: what it points to
	if err != nil {
		return false, nil // missing: created; any other error shows when writing
	}
	m := st.Mode()
	switch {
	case m.IsRegular():
		return false, nil
	case m&os.ModeNamedPipe != 0, m&os.ModeCharDevice != 0:
		return true, nil
	case m.IsDir():
		return false, fmt.Errorf("atomicfile: %s is a directory", path)
	}
	return false, fmt.Errorf("atomicfile: %s is not a regular file (%s): refusing to write over it", path, m.Type())
}

// writeThrough writes into the device or FIFO path as it is. A FIFO is
// opened without waiting: one that no process reads is an error.
func writeThrough(path string, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok && pe.Err == syscall.ENXIO {
			return fmt.Errorf("atomicfile: %s is a FIFO that no process reads", path)
		}
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}

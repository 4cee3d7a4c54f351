package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/report"
)

// errNilDir and errNilProfile are the errors of a method called on a nil
// *Dir, or given a nil *ProfileFile.
var (
	errNilDir     = errors.New("no results directory (nil *Dir)")
	errNilProfile = errors.New("no profile (nil *ProfileFile)")
)

// Lock takes the advisory lock (flock(2), exclusive) of the results
// directory, creating it if it does not exist, so that no second process
// writes into it at the same time: two runs into one directory would
// leave the files of one configuration beside those of another. A second
// writer is refused at once with an error. Holding the lock, it removes
// the temporary files a killed writer left (atomicfile.RemoveStale) in
// the directory and its plots. unlock releases the lock; so does the end
// of the process.
//
// The lock belongs to the open file: a second Lock of the same directory
// fails in the same process too.
func (d *Dir) Lock() (unlock func(), err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	if err := d.create(); err != nil {
		return nil, err
	}
	f, err := os.Open(d.path)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	if busy, err := flock(f); err != nil || busy {
		f.Close()
		if busy {
			return nil, fmt.Errorf("--out %s is in use: another macepc process is writing into it (wait for it to end, or choose another --out)", d.path)
		}
		return nil, fmt.Errorf("--out %s: lock: %w", d.path, err)
	}
	unlock = func() { f.Close() } // closing the last descriptor releases the lock
	for _, dir := range []string{d.path, filepath.Join(d.path, report.DirPlots)} {
		if _, err := atomicfile.RemoveStale(dir); err != nil {
			unlock()
			return nil, fmt.Errorf("--out: removing stale temporary files: %w", err)
		}
	}
	return unlock, nil
}

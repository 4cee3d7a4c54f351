package pipeline

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/results"
)

// errNilDir and errNilProfile are the errors of a method called on a nil
// *Dir, or given a nil *ProfileFile.
var (
	errNilDir     = errors.New("no results directory (nil *Dir)")
	errNilProfile = errors.New("no profile (nil *results.Profile)")
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
// fails in the same process too. Run and the unsharded phases (Train,
// Profile, Search, Diverge, Correlate, Simulate) take it themselves for
// as long as they write, unless the caller holds it through the same Dir
// (as the command line does, for the whole command); two of them at once
// on one Dir are refused.
func (d *Dir) Lock() (unlock func(), err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	return d.lock()
}

func (d *Dir) lock() (unlock func(), err error) {
	if err := d.create(); err != nil {
		return nil, err
	}
	f, err := os.Open(d.path)
	if err != nil {
		return nil, configErr("Env.Dir", nil, "{Env.Dir}: %w", err)
	}
	if busy, err := flock(f); err != nil || busy {
		f.Close()
		if busy {
			return nil, fieldErr("Env.Dir", "%s is in use: another process is writing into it (wait for it to end, or choose another {Env.Dir})", d.path)
		}
		return nil, configErr("Env.Dir", nil, "{Env.Dir} %s: lock: %w", d.path, err)
	}
	d.mu.Lock()
	d.locked = true
	d.mu.Unlock()
	released := false
	unlock = func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !released {
			released, d.locked = true, false
			f.Close() // closing the last descriptor releases the lock
		}
	}
	for _, dir := range []string{d.path, filepath.Join(d.path, results.DirPlots)} {
		if _, err := atomicfile.RemoveStale(dir); err != nil {
			unlock()
			return nil, configErr("Env.Dir", nil, "{Env.Dir}: removing stale temporary files: %w", err)
		}
	}
	return unlock, nil
}

// hold marks d as written into by a function of this package until
// release, and takes the directory's lock for that time unless a Lock of
// d holds it: a second writer on the same Dir, or on the directory from
// another Dir or process, is refused with an error that says so, instead
// of the two overwriting each other's files (which a phase would then
// read back as a protocol that is not deterministic).
func (d *Dir) hold() (release func(), err error) {
	d.mu.Lock()
	if d.busy {
		d.mu.Unlock()
		return nil, fieldErr("Env.Dir", "%s is in use: another Run or phase of this process is writing into it (one at a time per results directory)", d.path)
	}
	d.busy = true
	locked := d.locked
	d.mu.Unlock()
	unlock := func() {}
	if !locked {
		if unlock, err = d.lock(); err != nil {
			d.mu.Lock()
			d.busy = false
			d.mu.Unlock()
			return nil, err
		}
	}
	return func() {
		unlock()
		d.mu.Lock()
		d.busy = false
		d.mu.Unlock()
	}, nil
}

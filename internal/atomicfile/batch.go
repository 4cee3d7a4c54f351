package atomicfile

import (
	"fmt"
	"io"
	"os"
)

// Batch writes a set of files that appear together or not at all, such
// as the files of one phase of the pipeline: Write puts each file's
// content into a temporary file beside it (as Write does), and only
// Commit renames them all into place. A failed Write leaves the batch as
// it was; Abort removes the temporary files, and so does a failed Commit
// (a rename failed), which also removes the files it had renamed into
// place, so that none of the batch's files is left: commit a batch over
// paths that no longer exist (a file it replaced is not brought back).
//
// A Batch is not safe for concurrent use. Its zero value is empty.
type Batch struct {
	pending []pending
}

type pending struct{ tmp, path string }

// Write writes what fill writes into a temporary file that Commit
// renames to path. It refuses a path that is not a regular file (a
// device, a FIFO), which cannot be written together with others. On an
// error the temporary file is removed; the files written before stay
// pending.
func (b *Batch) Write(path string, fill func(w io.Writer) error) error {
	if through, err := writesThrough(path); err != nil {
		return err
	} else if through {
		return fmt.Errorf("atomicfile: %s is a device or a FIFO, not a file to write", path)
	}
	tmp, err := writeTemp(path, fill)
	if err != nil {
		return err
	}
	b.pending = append(b.pending, pending{tmp: tmp, path: path})
	return nil
}

// WriteBytes is Write with fixed content.
func (b *Batch) WriteBytes(path string, content []byte) error {
	return b.Write(path, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
}

// Commit renames every file written into place, in the order written,
// and empties the batch. If a rename fails, it removes the files already
// renamed and the temporary files left, and returns the error.
func (b *Batch) Commit() error {
	ps := b.pending
	b.pending = nil
	for i, p := range ps {
		if err := os.Rename(p.tmp, p.path); err != nil {
			for _, q := range ps[:i] {
				os.Remove(q.path)
			}
			for _, q := range ps[i:] {
				os.Remove(q.tmp)
			}
			return fmt.Errorf("atomicfile: %w", err)
		}
	}
	return nil
}

// Abort removes the temporary files of the files written and empties the
// batch; after Commit it does nothing. Defer it after creating a batch.
func (b *Batch) Abort() {
	for _, p := range b.pending {
		os.Remove(p.tmp)
	}
	b.pending = nil
}

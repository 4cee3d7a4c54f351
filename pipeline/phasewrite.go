package pipeline

import (
	"io"

	"github.com/macepc/macepc/internal/atomicfile"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// phaseWrite is the set of files a phase writes, so that they appear
// together or not at all: each file goes into a temporary file beside its
// place (atomicfile.Batch), and commit, once the whole phase has
// succeeded, removes the files of an earlier run of the phase and of the
// phases after it (clearAfter), then moves the new files into place. A
// phase that fails before its commit (an error, a full disk, an
// interruption) calls abort, which removes the temporary files: the
// directory is as it was.
type phaseWrite struct {
	d *Dir
	b atomicfile.Batch
}

func (d *Dir) newPhaseWrite() *phaseWrite { return &phaseWrite{d: d} }

// write writes the file name of the directory with what fill writes.
func (w *phaseWrite) write(name string, fill func(io.Writer) error) error {
	if f := w.d.failWrite; f != nil {
		return w.b.Write(w.d.File(name), func(out io.Writer) error { return fill(f(name, out)) })
	}
	return w.b.Write(w.d.File(name), fill)
}

// writeJSON writes v as the JSON file name.
func (w *phaseWrite) writeJSON(name string, v any) error {
	return w.write(name, func(out io.Writer) error { return results.EncodeJSON(out, v) })
}

// writeLines writes the JSON Lines of j as the file name.
func (w *phaseWrite) writeLines(name string, j *jsonLines) error {
	if j.err != nil {
		return j.err
	}
	return w.write(name, func(out io.Writer) error {
		_, err := out.Write(j.buf)
		return err
	})
}

// writePath writes the path file of path p of t, with its note, as the
// file name.
func (w *phaseWrite) writePath(name string, t *Target, p timedsim.Path, note string) error {
	pf, err := t.pathFile(p, note)
	if err != nil {
		return err
	}
	return w.write(name, func(out io.Writer) error { return timedsim.WritePathFile(out, pf) })
}

// commit moves the files written into place, after removing the files of
// the phases after clear (Dir.clearAfter): those of the earlier run of
// this phase included.
func (w *phaseWrite) commit(clear Phase) error {
	if err := w.d.clearAfter(clear); err != nil {
		return err
	}
	return w.b.Commit()
}

// abort removes the temporary files of a phase that did not commit; after
// commit it does nothing.
func (w *phaseWrite) abort() { w.b.Abort() }

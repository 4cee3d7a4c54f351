// Package atomicfile writes files so that a reader (or an interrupted run)
// sees either the old file, or the whole new one, never a half-written one:
// the content goes to a temporary file in the same directory, is synced,
// and is renamed over the target. A Batch does the same for a set of
// files that must appear together or not at all (a phase's files).
//
// A symbolic link at the target is replaced, never written through. A
// character device or a FIFO (/dev/null, a named pipe) is written through
// instead of being replaced; a directory, a socket or a block device is
// refused.
//
// # Usage
//
//	err := atomicfile.Write("out/summary.json", func(w io.Writer) error {
//		return json.NewEncoder(w).Encode(summary)
//	})
//
//	var b atomicfile.Batch
//	defer b.Abort()
//	if err := b.WriteBytes("out/a.json", a); err != nil { … }
//	if err := b.WriteBytes("out/b.json", b); err != nil { … }
//	err := b.Commit() // both files appear, or neither
//
// # Determinism
//
// The content is exactly what fill writes; files are created 0644.
package atomicfile

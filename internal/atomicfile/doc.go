// Package atomicfile writes files so that a reader (or an interrupted run)
// sees either the old file, or the whole new one, never a half-written one:
// the content goes to a temporary file in the same directory, is synced,
// and is renamed over the target.
//
// # Usage
//
//	err := atomicfile.Write("out/summary.json", func(w io.Writer) error {
//		return json.NewEncoder(w).Encode(summary)
//	})
//
// # Determinism
//
// The content is exactly what fill writes; files are created 0644.
package atomicfile

package results_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/results"
)

// FuzzReaders: a file of any content given to each reader of a JSON file
// is read or refused with a one-line error of this package naming it;
// never a panic. The seeds are the readers' own test files, written by
// WriteJSON.
func FuzzReaders(f *testing.F) {
	for _, v := range []any{search(), divergence(), correlation(), livenessFile()} {
		b, err := results.MarshalJSON(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":"macepc-search","version":1,"explored":-1}`))
	f.Add([]byte(`{"format":"macepc-divergence","version":1,"criterion":"sometimes"}`))
	readers := []reader{wrap(results.ReadSummary), wrap(results.ReadProfile), wrap(results.ReadSearch), wrap(results.ReadDivergence),
		wrap(results.ReadEvents), wrap(results.ReadCorrelation), wrap(results.ReadRegress), wrap(results.ReadLiveness), wrap(results.ReadTrain)}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "file.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, read := range readers {
			if _, err := read(path); err != nil {
				msg := err.Error()
				if !strings.HasPrefix(msg, "results: ") || strings.Contains(msg, "\n") || !strings.Contains(msg, path) {
					t.Fatalf("not a one-line results error naming %s: %q", path, msg)
				}
			}
		}
	})
}

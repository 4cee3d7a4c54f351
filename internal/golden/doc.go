// Package golden compares a test's output with a golden file under
// testdata, and rewrites the file when the package's tests run with their
// -update flag: one implementation for the packages whose tests pin their
// output (explore, report, realnet).
//
// # Usage
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//
//	golden.Check(t, filepath.Join("testdata", "golden", "page.json"), got, *update)
//
// A mismatch fails the test at the first line that differs, and says how
// to accept an intended change (go test ./PKG -update, then review the
// diff); a missing file says how to create it.
package golden

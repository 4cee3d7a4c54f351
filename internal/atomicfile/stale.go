package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// isTemp reports whether name is one of Write's temporary files:
// "." + base + ".tmp-" + digits.
func isTemp(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 2 || i+len(".tmp-") == len(name) {
		return false
	}
	for _, c := range name[i+len(".tmp-"):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RemoveStale removes the temporary files that Write left in dir (not in
// its subdirectories) when its process was killed between creating and
// renaming them, and returns their names. Only call it when no other
// process writes into dir (hold its lock): a live writer's temporary file
// looks the same. A missing dir has none.
func RemoveStale(dir string) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTemp(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

// RemoveStaleOf removes the temporary files that Write left beside path
// (for path itself, not for the other files of its directory) when its
// process was killed, and returns their names: for a file written into a
// directory that is not macepc's own, whose other files are none of its
// business. As for RemoveStale, no other process may be writing path.
func RemoveStaleOf(path string) (removed []string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	prefix := "." + base + ".tmp-"
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) || !isTemp(e.Name()) {
			continue
		}
		if strings.ContainsFunc(e.Name()[len(prefix):], func(r rune) bool { return r < '0' || r > '9' }) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

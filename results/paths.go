package results

import "fmt"

// ClassPath is the path file of the representative of the search's
// anomaly class rank (1: FileAnomalyPath).
func ClassPath(rank int) string {
	if rank == 1 {
		return FileAnomalyPath
	}
	return fmt.Sprintf("anomaly-class-%d.path.json", rank)
}

// ClassPathGlob matches the ClassPath files of the classes after the
// first.
const ClassPathGlob = "anomaly-class-*.path.json"

// TailPath is the path file of the representative of the search's
// normal-tail class rank.
func TailPath(rank int) string { return fmt.Sprintf("tail-class-%d.path.json", rank) }

// FindingPath is the path file of `macepc simulate`'s execution index,
// which has a finding (a panic or a violated safety property).
func FindingPath(index int) string { return fmt.Sprintf("finding-%d.path.json", index) }

// FindingPathGlob matches every FindingPath file.
const FindingPathGlob = "finding-*.path.json"

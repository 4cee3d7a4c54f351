package pipeline

import (
	"errors"
	"fmt"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// searchLines is the spec of sf's search-executions.jsonl: line n is
// execution n of the search's seed.
func searchLines(sf *SearchFile) results.CountsSpec {
	seeds := timedsim.Seeded(sf.Seed)
	return results.CountsSpec{Phase: string(PhaseSearch), Lines: sf.Explored, Check: func(n int, l *results.CountsLine) error {
		if l.Index != n {
			return fmt.Errorf("index %d where execution %d is due", l.Index, n)
		}
		if want := seeds(n).Segments[0].Seed; l.Seed != want {
			return fmt.Errorf("seed %d is not execution %d's of search seed %d (%d)", l.Seed, n, sf.Seed, want)
		}
		if l.Prefix != 0 || l.Recovered != nil {
			return errors.New("a search execution has no prefix and no recovered field")
		}
		return nil
	}}
}

// walkLines is the spec of df's divergence-walks.jsonl: at most one line
// per walk the divergence search ran, walk j of prefix p with
// divergence.WalkSeed(df.Seed, p, j).
func walkLines(df *DivergenceFile) results.CountsSpec {
	seen := map[[2]int]bool{}
	return results.CountsSpec{Phase: string(PhaseDiverge), Lines: df.Executions + df.BudgetExecutions, AtMost: true, Check: func(_ int, l *results.CountsLine) error {
		k := [2]int{l.Prefix, l.Index}
		if seen[k] {
			return fmt.Errorf("walk %d of prefix %d again", l.Index, l.Prefix)
		}
		seen[k] = true
		if l.Prefix < 0 || l.Prefix > df.TotalSteps {
			return fmt.Errorf("prefix %d outside the anomaly's %d steps", l.Prefix, df.TotalSteps)
		}
		if want := divergence.WalkSeed(df.Seed, l.Prefix, l.Index); l.Seed != want {
			return fmt.Errorf("seed %d is not walk %d's of prefix %d (%d)", l.Seed, l.Index, l.Prefix, want)
		}
		if l.Recovered == nil {
			return errors.New("missing field \"recovered\"")
		}
		return nil
	}}
}

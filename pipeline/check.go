package pipeline

import (
	"fmt"

	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Check reads and validates every results file of the directory that a
// phase reads back (profile.json, search.json, search-executions.jsonl,
// divergence.json, divergence-walks.jsonl), each against the files it
// belongs to, as the phases do; a missing file is no error (a directory
// of `simulate` or of the liveness search has none). Package report
// renders a directory without checking it: `macepc report` checks first.
func (d *Dir) Check(systems timedsim.Registry) (err error) {
	defer wrapErr(&err)
	if d == nil {
		return errNilDir
	}
	if !d.exists(results.FileProfile) {
		if d.exists(results.FileSearch) || d.exists(results.FileDivergence) {
			return fmt.Errorf("%s has results of phases 2 and 3 without their profile.json", d.path)
		}
		return nil
	}
	pf, _, err := d.loadProfile(systems)
	if err != nil {
		return err
	}
	if !d.exists(results.FileSearch) {
		return nil
	}
	sf, err := d.loadSearch(pf)
	if err != nil {
		return err
	}
	if _, err := results.ReadCountsLines(d.File(results.FileSearchExecs), false, searchLines(sf)); err != nil {
		return err
	}
	if !d.exists(results.FileDivergence) {
		return nil
	}
	df, err := d.loadDivergence(pf)
	if err != nil {
		return err
	}
	_, err = results.ReadCountsLines(d.File(results.FileWalks), true, walkLines(df))
	return err
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/results"
)

// ---- phase 3b: frequency correlation ----

const correlationMethod = "Pearson r of each label's count per execution with the execution time (r), and of its count among the events starting within the window (window_ns, the profile's Q1) over the executions that ran the whole window (window_r); length_only marks labels whose correlation disappears in the window: they happen because the execution is long (periodic timers and the work they trigger), not before it became long; a composite label 'event → type' counts the events whose handler sent that type, 'event → note' those whose handler made that note (timedsim.Context.Note), 'event → (nothing)' those that did neither, and same_as marks a composite whose counts equal its event's in every execution (ranked last)"

// criticalLabels are the labels the analysis of the anomaly points at
// (anomaly.Prioritize): the signature of its class (the events within the
// normal time that set it apart), what the node of its critical path's
// longest wait did while waiting (Cause.LeadIn) that fewer than
// anomaly.DefaultRare of the normal executions of the search did at all,
// and what the anomaly did after the divergence point that the similar
// fast execution never did (DivergenceFile.Contrast: etcd raft's
// 'timer persist → MsgVote', the returning node's disruptive campaign,
// which its length-controlled r ranked twelfth in some trainings).
// When the last node to finish was stranded while the path waited on
// another node (Cause.Stranded), they include the labels of the last
// message it received and of the error upcalls of the messages to it that
// were lost; the latter are also in sure, the labels ranked first even
// without a correlation (which messages were lost stranded it, which a
// count per execution cannot show: Bullet′'s lost Diffs).
// When no node was stranded, the longest wait was a node's own timer, and
// requests it made in two or more of those waits were delivered and
// dropped in silence (Cause.Unanswered), they include the labels of those
// deliveries: Chord's successor that ignores a Notify from a farther node.
// The critical path's own labels are not among them: they are mostly the
// repair (a recovery timer and the work it triggers), a consequence.
func criticalLabels(pf *results.Profile, sf *SearchFile, df *DivergenceFile, search []results.CountsLine) (first, sure map[string]bool) {
	an := sf.Anomaly
	if df != nil && df.Anomaly != nil {
		an = df.Anomaly
	}
	if an == nil || an.Class < 1 || an.Class > len(sf.Classes) {
		return nil, nil
	}
	c := sf.Classes[an.Class-1]
	out := map[string]bool{}
	if df != nil {
		for _, l := range df.Contrast {
			out[l] = true
		}
	}
	for _, s := range c.Signature {
		out[s[1:]] = true // "+label", "-label"
	}
	if c.Cause == nil {
		return out, nil
	}
	if st := c.Cause.Stranded; st != nil {
		for _, lb := range st.Labels {
			out[lb] = true
		}
		for _, lb := range st.LostLabels {
			if sure == nil {
				sure = map[string]bool{}
			}
			out[lb], sure[lb] = true, true
		}
	}
	if u := c.Cause.Unanswered; u != nil {
		for _, lb := range u.Labels {
			out[lb] = true
		}
	}
	normal, present := 0, map[string]int{}
	for _, l := range search {
		if l.Finding != "" || l.ExecTimeNS > pf.Threshold {
			continue
		}
		normal++
		for lb, n := range l.Counts {
			if n > 0 {
				present[lb]++
			}
		}
	}
	for _, lb := range c.Cause.LeadIn {
		if float64(present[lb]) < anomaly.DefaultRare*float64(normal) {
			out[lb] = true
		}
	}
	return out, sure
}

// minCorrelate is the fewest executions phase 3b correlates.
const minCorrelate = 3

// tooFewToCorrelate says why phase 3b has fewer than minCorrelate
// executions and what gives it more: the search ran (its file is there),
// but stopped early, and the divergence walks may be missing.
func tooFewToCorrelate(d *Dir, sf *SearchFile, search, walks int) error {
	why := fmt.Sprintf("the search explored %d execution%s", search, plural(search, "", "s"))
	if sf != nil && sf.FirstIndex >= 0 && sf.TriageRuns == 0 && search == sf.FirstIndex+1 {
		why = fmt.Sprintf("the search stopped at execution %d, its first anomalous one ({SearchConfig.TriageRuns} 0)", sf.FirstIndex)
	}
	added := "the divergence phase has not run"
	if walks > 0 {
		added = fmt.Sprintf("the divergence phase added %d walk%s", walks, plural(walks, "", "s"))
	}
	more, hints := "search again with more executions ('{hint}')", [][]string{{"search", "--triage-runs", "200", "--out", d.path}}
	if walks == 0 {
		more, hints = "run the divergence phase, whose walks are correlated too ('{hint}'), or "+more, append([][]string{{"diverge", "--out", d.path}}, hints...)
	}
	return configErr("", hints, "only %d execution%s to correlate, at least %d needed: "+why+" and %s; "+more, search+walks, plural(search+walks, "", "s"), minCorrelate, added)
}

// CorrelateConfig configures phase 3b.
type CorrelateConfig struct {
	// Env.Dir holds the executions to correlate; the phase runs none.
	Env
	// Profile is the directory's profile (Dir.LoadProfile).
	Profile *results.Profile
}

// Correlate runs phase 3b: the Pearson correlation of every label's count
// with the execution time over the executions of phases 2 and 3a
// (search-executions.jsonl, divergence-walks.jsonl), and of its count
// within the normal execution time, which exposes the labels that only
// scale with an execution's length (anomaly.Correlate). It writes
// correlation.json. On an error after it started, summary.json is
// rewritten from the files that remain.
func Correlate(ctx context.Context, cfg CorrelateConfig) (cf *CorrelationFile, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.Env.check(); err != nil {
		return nil, err
	}
	if cfg.Profile == nil {
		return nil, errors.New("no profile (CorrelateConfig.Profile)")
	}
	release, err := cfg.Dir.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	d, pf := cfg.Dir, cfg.Profile
	sf, err := d.loadSearch(pf)
	if err != nil {
		return nil, err
	}
	var df *DivergenceFile
	if d.exists(results.FileWalks) {
		if df, err = d.loadDivergence(pf); err != nil {
			return nil, configErr("", [][]string{{"diverge", "--out", d.path}}, "%w (%s is there without a valid %s: run '{hint}' again)", err, results.FileWalks, results.FileDivergence)
		}
	}
	cf, err = correlate(d, pf, sf, df)
	if err != nil {
		d.salvageSummary(pf)
	}
	return cf, err
}

// correlate runs phase 3b over the executions of the search sf and of
// the divergence df (nil: none), whose files each line must agree with.
func correlate(d *Dir, pf *results.Profile, sf *SearchFile, df *DivergenceFile) (*CorrelationFile, error) {
	search, err := results.ReadCountsLines(d.File(results.FileSearchExecs), false, searchLines(sf))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, configErr("", [][]string{{"search", "--out", d.path}}, "%w (run '{hint}' first)", err)
		}
		return nil, err
	}
	var walks []results.CountsLine
	if df != nil {
		if walks, err = results.ReadCountsLines(d.File(results.FileWalks), true, walkLines(df)); err != nil {
			return nil, err
		}
	}
	samples := make([]anomaly.Sample, 0, len(search)+len(walks))
	for _, l := range append(append([]results.CountsLine(nil), search...), walks...) {
		samples = append(samples, anomaly.Sample{ExecTime: time.Duration(l.ExecTimeNS), Counts: l.Counts, Window: l.Window})
	}
	if len(samples) < minCorrelate {
		return nil, tooFewToCorrelate(d, sf, len(search), len(walks))
	}
	cf := &CorrelationFile{Format: results.FormatCorrelation, Version: 1, ConfigHash: pf.ConfigHash, Executions: len(samples),
		SearchExecutions: len(search), WalkExecutions: len(walks), WindowNS: int64(pf.CountWindow()), MinR: anomaly.MinR, Method: correlationMethod,
		Labels: anomaly.Correlate(samples, pf.CountWindow())}
	first, sure := criticalLabels(pf, sf, df, search)
	anomaly.Prioritize(cf.Labels, first, sure)
	if err := d.clearAfter(PhaseDiverge); err != nil { // once the correlation is computed
		return nil, err
	}
	if err := d.writeJSON(results.FileCorrelation, cf); err != nil {
		return nil, err
	}
	return cf, nil
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/macepc/macepc/anomaly"
	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// ---- phase 2: anomaly search ----

// MaxClassPaths is the number of classes whose representative gets a
// path file when the search ends (the others get theirs when Diverge
// analyses them).
const MaxClassPaths = 10

// MaxTailPaths is the number of normal-tail classes whose representative
// gets a path file (TailPath).
const MaxTailPaths = 3

// SearchConfig configures phase 2.
type SearchConfig struct {
	Env
	// Profile is the directory's profile (Dir.LoadProfile), Target its
	// configuration (nil: rebuilt from the profile's template with
	// Env.Systems).
	Profile *results.Profile
	Target  *Target
	// MaxRuns bounds the executions explored to find an anomaly.
	MaxRuns int
	// TriageRuns is the number of executions explored after the first
	// anomaly, to find the others and class them (0: stop at the first).
	TriageRuns int
	// Verdict says how executions above the threshold are judged
	// (DefaultVerdict: the significance test).
	Verdict Verdict
	// Resume continues the search of Dir with these budgets if it was
	// interrupted (from the executions it kept), or keeps it if it is
	// complete; otherwise the search starts afresh. The files are those
	// of an uninterrupted search.
	Resume bool
}

func (c *SearchConfig) check() error {
	if err := c.Env.check(); err != nil {
		return err
	}
	switch {
	case c.Profile == nil:
		return errors.New("no profile to search against (SearchConfig.Profile)")
	}
	return c.Validate()
}

// target is c.Target, or the profile's configuration.
func (c *SearchConfig) target() (*Target, error) {
	if c.Target != nil {
		return c.Target, nil
	}
	return fromPathFile(c.Systems, c.Profile.Template)
}

// Search runs phase 2: new executions until one is anomalous (slower than
// the profile's threshold, or a panic or safety violation), then
// TriageRuns more, whose anomalies it classes by execution time and the
// events that set them apart (anomaly.Triage). "First" is the lowest
// execution index, whatever Env.Jobs. It removes the files of the later
// phases and writes search.json, search-executions.jsonl and the path
// files of the classes' representatives (anomaly.path.json for class 1).
//
// Interrupted, it still writes the executions explored so far, with
// Complete false, and returns the search file with the error. On an
// error, summary.json is rewritten from the files that remain.
func Search(ctx context.Context, cfg SearchConfig) (sf *SearchFile, err error) {
	defer wrapErr(&err)
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	release, err := cfg.Dir.hold()
	if err != nil {
		return nil, err
	}
	defer release()
	sf, err = searchTarget(ctx, cfg)
	if err != nil {
		cfg.Dir.salvageSummary(cfg.Profile)
	}
	return sf, err
}

func searchTarget(ctx context.Context, cfg SearchConfig) (*SearchFile, error) {
	t, err := cfg.target()
	if err != nil {
		return nil, err
	}
	cfg.Target = t
	return search(ctx, cfg)
}

func search(ctx context.Context, cfg SearchConfig) (*SearchFile, error) {
	cfg.Verdict = cfg.Verdict.resolved()
	pf, t, d := cfg.Profile, cfg.Target, cfg.Dir
	opts := t.Options
	opts.CountWindow = pf.CountWindow()
	ex := cfg.explorer(t, opts)
	seed := PhaseSeed(pf.Seed, PhaseSearch)
	var lines jsonLines
	var execs []results.CountsLine
	first := -1
	if cfg.Resume {
		kept, keptLines := d.keptSearch(pf, &cfg)
		if kept != nil && kept.Complete {
			return kept, nil
		}
		for _, l := range keptLines {
			lines.add(l)
			execs = append(execs, l)
			if first < 0 && isAnomalous(pf, l) {
				first = l.Index
			}
		}
	}
	prog := start(cfg.Progress, PhaseSearch, cfg.MaxRuns)
	if first >= 0 {
		prog.SetTotal(min(cfg.MaxRuns, first+1+cfg.TriageRuns))
	}
	prog.Add(len(execs), "")
	each := func(i int, r *timedsim.Result) {
		l := newCountsLine(PhaseSearch, i, 0, r.Path.Segments[0].Seed, r)
		lines.add(l)
		execs = append(execs, l)
		if first < 0 && isAnomalous(pf, l) {
			first = i // the budget is now the triage runs after it
			prog.SetTotal(min(cfg.MaxRuns, i+1+cfg.TriageRuns))
		}
		prog.Add(1, "")
	}
	// Look 1: until the first candidate and the triage budget after it.
	res, err := anomaly.Search(ctx, ex, timedsim.Seeded(seed), anomaly.SearchConfig{MaxRuns: cfg.MaxRuns, Triage: cfg.TriageRuns, Start: len(execs), FirstBefore: first}, searchPredicate(pf), each)
	explored := res.Explored
	var sig *anomaly.SignificanceResult
	var sigFile *SignificanceFile
	look1, looks := planLooks(first, cfg.MaxRuns, cfg.TriageRuns)
	if err == nil && first >= 0 && !cfg.Verdict.FenceOnly {
		sig, sigFile = judge(pf, t, execs, look1, cfg.Verdict.Alpha, 1, looks)
		if looks == 2 && sig.Cut == 0 && !hasFinding(execs[:look1]) {
			// Nothing significant yet: search on to the budget, and judge
			// again (look 2) on everything.
			prog.SetTotal(cfg.MaxRuns)
			res, err = anomaly.Search(ctx, ex, timedsim.Seeded(seed), anomaly.SearchConfig{MaxRuns: cfg.MaxRuns, Triage: cfg.MaxRuns, Start: len(execs), FirstBefore: -1}, searchPredicate(pf), each)
			explored = res.Explored
			if err == nil {
				sig, sigFile = judge(pf, t, execs, len(execs), cfg.Verdict.Alpha, 2, looks)
			}
		}
	}
	prog.Done()
	if errors.Is(err, timedsim.ErrNondeterministic) {
		return nil, err
	}
	sf := &SearchFile{Format: results.FormatSearch, Version: 1, ConfigHash: pf.ConfigHash, Seed: seed, MaxRuns: cfg.MaxRuns, TriageRuns: cfg.TriageRuns,
		Explored: explored, Complete: err == nil, ThresholdNS: pf.Threshold, WindowNS: int64(pf.CountWindow()), Verdict: results.Verdict(cfg.Verdict), Significance: sigFile,
		FirstIndex: -1, Classes: []Class{}, Tail: []Class{}}
	// The explored executions replace the files of an earlier search and
	// of the phases after it, all together at the end (commit): a search
	// refused at its start, or failing on the way (a full disk), changes
	// no file.
	out := d.newPhaseWrite()
	defer out.abort()
	if err == nil {
		if terr := triage(ctx, cfg.Env, t, pf, sf, execs[:explored], sig, out); terr != nil {
			if ctx.Err() == nil {
				return nil, terr
			}
			// Interrupted while replaying the classes' representatives:
			// the executions are kept, the triage is done again on resume,
			// and the path files of the classes found so far go.
			err = ctx.Err()
			out.abort()
			sf.Complete, sf.Classes, sf.Tail, sf.Anomaly = false, []Class{}, []Class{}, nil
			sf.Anomalies, sf.TailExecutions, sf.Candidates, sf.FirstIndex = 0, 0, 0, -1
		}
	}
	// The executions explored so far are kept even when interrupted.
	if werr := out.writeLines(results.FileSearchExecs, &lines); werr != nil {
		return nil, werr
	}
	if werr := out.writeJSON(results.FileSearch, sf); werr != nil {
		return nil, werr
	}
	if werr := out.commit(PhaseProfile); werr != nil {
		return nil, werr
	}
	if err != nil {
		return sf, d.interrupted(ctx, PhaseSearch, explored, cfg.MaxRuns)
	}
	return sf, nil
}

// planLooks says where the verdict's first look judges (the first
// candidate, found at index first, plus the triage budget, within the
// search budget) and how many looks the search plans: two when the first
// look comes before the budget's end, since a search whose first look
// finds nothing significant goes on to the budget and looks again. With no
// candidate (first < 0) the search explored the whole budget.
func planLooks(first, maxRuns, triageRuns int) (look1, looks int) {
	if first < 0 {
		return maxRuns, 1
	}
	look1 = maxRuns
	if first < maxRuns-triageRuns {
		look1 = first + triageRuns + 1
	}
	if look1 < maxRuns {
		return look1, 2
	}
	return look1, 1
}

func hasFinding(execs []results.CountsLine) bool {
	for _, l := range execs {
		if l.Finding != "" {
			return true
		}
	}
	return false
}

// searchPredicate is phase 2's test of an execution.
func searchPredicate(pf *results.Profile) func(*timedsim.Result) bool {
	threshold := time.Duration(pf.Threshold)
	return func(r *timedsim.Result) bool { return r.ExecTime > threshold || Finding(r) != "" }
}

// isAnomalous is searchPredicate on an execution's line.
func isAnomalous(pf *results.Profile, l results.CountsLine) bool {
	return l.ExecTimeNS > pf.Threshold || l.Finding != ""
}

// triage classes the anomalies among the explored executions (in index
// order), and the normal tail apart: findings and, with the fence alone,
// every execution above the threshold are anomalies; otherwise the
// executions the significance test found (sig, nil when nothing was above
// the threshold) are, unless their class's excess over a median execution
// is the simulator's own draws at their rate (Cause.Draws). It fills sf's
// class fields and writes the path files of the classes' representatives
// into out.
func triage(ctx context.Context, env Env, t *Target, pf *results.Profile, sf *SearchFile, execs []results.CountsLine, sig *anomaly.SignificanceResult, out *phaseWrite) error {
	byIndex := make(map[int]*results.CountsLine, len(execs))
	for i := range execs {
		byIndex[execs[i].Index] = &execs[i]
	}
	// kind: 0 normal, 1 anomaly, 2 normal tail.
	kind := make(map[int]int)
	for _, l := range execs {
		switch {
		case l.Finding != "":
			kind[l.Index] = 1
		case l.ExecTimeNS <= pf.Threshold:
		case sf.Verdict.FenceOnly || sig != nil && sig.Significant(time.Duration(l.ExecTimeNS)):
			kind[l.Index] = 1
		default:
			kind[l.Index] = 2
		}
		if kind[l.Index] != 0 {
			sf.Candidates++
		}
	}
	classesOf := func(k int) []anomaly.Class {
		in := make([]anomaly.Execution, len(execs))
		for i, l := range execs {
			in[i] = anomaly.Execution{Index: l.Index, ExecTime: time.Duration(l.ExecTimeNS), Steps: l.Steps, Anomalous: kind[l.Index] == k,
				Finding: findingBucket(l.Finding), Window: l.Window}
		}
		return anomaly.Triage(in, anomaly.TriageConfig{Median: time.Duration(pf.MedianNS)})
	}
	var causes *causer
	if sf.Candidates > 0 {
		// The causes replay the median execution and the classes'
		// representatives one after the other: start the first ones
		// side by side. A run's phase 3a uses the first class's again.
		if env.recs == nil {
			env.recs = newRecordings()
			defer env.recs.keep(nil, timedsim.Path{})
		} else {
			defer func() {
				if sf.Anomaly != nil {
					env.recs.keep(t, timedsim.SeedPath(sf.Anomaly.Seed))
				} else {
					env.recs.keep(nil, timedsim.Path{})
				}
			}()
		}
		startCauses(ctx, env, t, pf, execs, classesOf)
		var err error
		if causes, err = newCauser(ctx, env, t, pf, execs, sf.Verdict.Alpha); err != nil {
			return err
		}
	}
	// A class of anomalies whose excess is the models' draws joins the
	// normal tail (its members too), and the classes are made again.
	var anomalies []anomaly.Class
	for again := true; again; {
		again = false
		anomalies = classesOf(1)
		for _, c := range anomalies {
			if c.Finding != "" || sf.Verdict.FenceOnly {
				continue
			}
			k, err := causes.cause(byIndex[c.Representative])
			if err != nil {
				return err
			}
			if k != nil && k.Draws {
				for _, m := range c.Members {
					kind[m] = 2
				}
				again = true
			}
		}
	}
	newClass := func(c anomaly.Class, path string) (Class, error) {
		l := byIndex[c.Representative]
		rep := Anomaly{Index: l.Index, Seed: l.Seed, ExecTimeNS: l.ExecTimeNS, Steps: l.Steps, Outcome: l.Outcome, Finding: l.Finding, Class: c.Rank, Path: path}
		out := Class{Rank: c.Rank, Executions: len(c.Members), Members: c.Members, Finding: c.Finding,
			MinNS: int64(c.Min), MedianNS: int64(c.Median), MaxNS: int64(c.Max), Slowdown: c.Slowdown, ExcessNS: int64(c.Excess),
			Signature: c.Signature, Representative: rep}
		if causes != nil {
			k, err := causes.cause(l)
			if err != nil {
				return out, err
			}
			out.Cause = k
		}
		return out, nil
	}
	for _, c := range anomalies {
		path := ""
		if c.Rank <= MaxClassPaths {
			path = results.ClassPath(c.Rank)
		}
		cl, err := newClass(c, path)
		if err != nil {
			return err
		}
		if path != "" {
			if err := writeAnomalyPath(out, t, sf.Seed, &cl.Representative, sf.ThresholdNS); err != nil {
				return err
			}
		}
		sf.Classes = append(sf.Classes, cl)
		sf.Anomalies += len(c.Members)
		if sf.FirstIndex < 0 || c.Members[0] < sf.FirstIndex {
			sf.FirstIndex = c.Members[0]
		}
	}
	for _, c := range classesOf(2) {
		path := ""
		if c.Rank <= MaxTailPaths {
			path = results.TailPath(c.Rank)
		}
		cl, err := newClass(c, path)
		if err != nil {
			return err
		}
		cl.Representative.Class = 0
		if path != "" {
			et := units.Duration(time.Duration(cl.Representative.ExecTimeNS))
			note := fmt.Sprintf("normal tail: search seed=%d execution %d (tail class %d), %s: above the threshold, not an anomaly", sf.Seed, cl.Representative.Index, c.Rank, et)
			if err := out.writePath(path, t, timedsim.SeedPath(cl.Representative.Seed), note); err != nil {
				return err
			}
		}
		sf.Tail = append(sf.Tail, cl)
		sf.TailExecutions += len(c.Members)
	}
	if len(sf.Classes) > 0 {
		an := sf.Classes[0].Representative
		sf.Anomaly = &an
	}
	return nil
}

// startCauses starts the replays that triage's causes begin with: the
// median execution's and those of the representatives of the first
// classes, anomalies then normal tail, as many as there are workers.
func startCauses(ctx context.Context, env Env, t *Target, pf *results.Profile, execs []results.CountsLine, classesOf func(k int) []anomaly.Class) {
	m := medianExecution(pf, execs)
	if m < 0 {
		return // no median execution: no causes
	}
	env.recs.start(ctx, env, t, timedsim.SeedPath(execs[m].Seed))
	n := env.Jobs
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	seed := make(map[int]uint64, len(execs))
	for _, l := range execs {
		if l.Finding == "" {
			seed[l.Index] = l.Seed
		}
	}
	for _, k := range []int{1, 2} {
		for _, c := range classesOf(k) {
			s, ok := seed[c.Representative]
			if !ok {
				continue // a finding: no cause
			}
			if n == 0 {
				return
			}
			n--
			env.recs.start(ctx, env, t, timedsim.SeedPath(s))
		}
	}
}

// findingBucket is the class key of a finding: its text without the
// numbers (step, node, index) that differ between executions of one
// problem.
func findingBucket(f string) string {
	if f == "" {
		return ""
	}
	b := make([]byte, 0, len(f))
	digits := false
	for i := 0; i < len(f); i++ {
		if f[i] >= '0' && f[i] <= '9' {
			if !digits {
				b = append(b, '#')
			}
			digits = true
			continue
		}
		digits = false
		b = append(b, f[i])
	}
	return string(b)
}

// writeAnomalyPath writes the path file of an anomaly of the search with
// phase seed seed into out.
func writeAnomalyPath(out *phaseWrite, t *Target, seed uint64, an *Anomaly, thresholdNS int64) error {
	et, th := twoTimes(time.Duration(an.ExecTimeNS), time.Duration(thresholdNS))
	note := fmt.Sprintf("anomaly: search seed=%d execution %d (class %d), %s > threshold %s", seed, an.Index, an.Class, et, th)
	if an.Finding != "" {
		note = fmt.Sprintf("finding: search seed=%d execution %d (class %d), %s", seed, an.Index, an.Class, an.Finding)
	}
	return out.writePath(an.Path, t, timedsim.SeedPath(an.Seed), note)
}

// LoadSearch reads DIR/search.json, which must belong to pf's
// configuration.
func (d *Dir) LoadSearch(pf *results.Profile) (sf *SearchFile, err error) {
	defer wrapErr(&err)
	if d == nil {
		return nil, errNilDir
	}
	if pf == nil {
		return nil, errNilProfile
	}
	return d.loadSearch(pf)
}

func (d *Dir) loadSearch(pf *results.Profile) (*SearchFile, error) {
	path := d.File(results.FileSearch)
	var sf SearchFile
	if err := results.ReadJSON(path, &sf); err != nil {
		return nil, configErr("", [][]string{{"search", "--out", d.path}}, "%w (run '{hint}' first)", err)
	}
	if err := results.CheckFormat(path, sf.Format, sf.Version, results.FormatSearch); err != nil {
		return nil, err
	}
	if sf.ConfigHash != pf.ConfigHash {
		return nil, fmt.Errorf("%s belongs to another configuration (config hash %s, profile.json has %s): run the search again", path, sf.ConfigHash, pf.ConfigHash)
	}
	if err := sf.Validate(); err != nil {
		return nil, fmt.Errorf("%s is malformed: %w", path, err)
	}
	if sf.Seed != PhaseSeed(pf.Seed, PhaseSearch) || sf.ThresholdNS != pf.Threshold {
		return nil, fmt.Errorf("%s does not belong to profile.json: its seed or threshold differs", path)
	}
	return &sf, nil
}

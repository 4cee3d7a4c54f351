package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/internal/shellquote"
	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/results"
)

// row is one line of a key-value table.
type row struct{ Key, Value string }

// heading is what report.html and summary.md lead with.
type heading struct {
	title string
	// verdicts are the one-line outcomes of the phases that give one, in
	// order; finding says whether any of them is a finding.
	verdicts []string
	finding  bool
	// cause names what the timed pipeline found behind the anomaly: the
	// divergence event and the top-ranked label ("" when neither phase
	// ran); it ends the verdicts' line.
	cause string
	// warnings (the profile's) stand under the verdicts in both files,
	// regressWarnings in report.html only: summary.md gives them in its
	// regression table.
	warnings, regressWarnings []string
}

// caution says that the verdict is not a finding but comes with
// warnings (slow executions that did not make a finding): its banner is
// amber, not green.
func (h heading) caution() bool {
	return !h.finding && len(h.warnings)+len(h.regressWarnings) > 0
}

// newHeading is the heading of a results directory: the timed
// pipeline's verdict, then regress's (instead of the profile-only
// verdict, which says nothing), then the liveness run's.
func newHeading(r *Results) heading {
	var h heading
	add := func(v string, finding bool) {
		h.verdicts = append(h.verdicts, v)
		h.finding = h.finding || finding
	}
	if s := r.Summary; s != nil {
		h.title = fmt.Sprintf("macepc report: %s/%s, seed %d", s.System, s.Variant, s.Seed)
		add(verdict(r))
		h.cause = causeText(r)
		h.warnings = profileWarnings(r)
	}
	if rg := r.Regress; rg != nil { // Load reads regress.json only with summary.json
		if r.Summary.Anomaly == nil {
			h.title = fmt.Sprintf("macepc regression report: %s/%s, seed %d", rg.System, rg.Variant, rg.Seed)
			h.verdicts, h.finding, h.cause = nil, false, ""
		}
		add(regressVerdict(rg))
		h.regressWarnings = rg.Warnings
	}
	if lv := r.Liveness; lv != nil {
		if r.Summary == nil {
			h.title = fmt.Sprintf("macepc liveness report: %s/%s, seed %d", lv.System, lv.Variant, lv.Seed)
		}
		add(livenessVerdict(lv))
		h.warnings = append(h.warnings, lv.Report.Warnings...)
	}
	return h
}

// verdict is the run's one-line outcome and whether it is a finding.
func verdict(r *Results) (string, bool) {
	s := r.Summary
	a := s.Anomaly
	switch {
	case a == nil:
		return "Profile only: the anomaly search has not run.", false
	case !a.Found && !a.Complete:
		return fmt.Sprintf("The anomaly search was interrupted after %d executions without finding an anomaly.", a.Explored), false
	case !a.Found && a.TailExecutions > 0:
		return fmt.Sprintf("No anomaly in %d executions: the %d above the threshold %s are the normal tail, which normal variance explains.", a.Explored, a.TailExecutions, fmtSec(s.Profile.Threshold)), false
	case !a.Found:
		return fmt.Sprintf("No anomaly in %d executions: every execution finished within the threshold %s.", a.Explored, fmtSec(s.Profile.Threshold)), false
	}
	// Kept short, so that the cause follows on the same line: the
	// summary counts the anomalies and lists the classes.
	classes := ""
	if n := len(a.Classes); n > 1 {
		classes = fmt.Sprintf(" (class %d of %d)", a.Class, n)
	}
	if a.Finding != "" {
		return fmt.Sprintf("Finding: execution %d%s: %s.", a.Index, classes, a.Finding), true
	}
	return fmt.Sprintf("Anomaly: execution %d%s took %s, %.1f× the median %s.", a.Index, classes, fmtSec(a.ExecutionTime), a.ExecutionTime/max(s.Profile.Median, 1e-9), fmtSec(s.Profile.Median)), true
}

// causeText names the cause of the analysed anomaly in one sentence: what
// its critical path spent the excess on, the divergence event (the step
// after which no walk recovers) and the label ranked first by its
// correlation with execution time; "" when none is known.
func causeText(r *Results) string {
	s := r.Summary
	if s == nil || s.Anomaly == nil || !s.Anomaly.Found {
		return ""
	}
	var parts []string
	if c := s.Anomaly.Cause; c != "" {
		parts = append(parts, c)
	}
	if d := s.Divergence; d != nil {
		if d.Step < 0 {
			parts = append(parts, "no divergence point (no walk recovers even from the start)")
		} else {
			parts = append(parts, "divergence at "+divEventText(r))
		}
	}
	if len(s.Correlations) > 0 {
		c := s.Correlations[0]
		parts = append(parts, fmt.Sprintf("top-ranked label %s (r = %s)", c.Label, fmtRp(c.R)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Cause: " + strings.Join(parts, "; ") + "."
}

// divEventText is the divergence event: "step 66, timer start on n7",
// from divergence.json, else summary.json's text without its time.
func divEventText(r *Results) string {
	if df := r.Divergence; df != nil && df.Event != nil {
		t := fmt.Sprintf("step %d, %s on %s", df.Event.Step, df.Event.Label, df.Event.Node)
		if df.Event.From != "" {
			t += " from " + df.Event.From
		}
		return t
	}
	ev := r.Summary.Divergence.Event
	if i := strings.LastIndex(ev, " at "); i > 0 {
		ev = ev[:i]
	}
	return strings.Replace(ev, ": ", ", ", 1)
}

// thresholdRule says how profile.json's threshold was made, from its own
// record: each term of the maximum with its value, the one that set it
// named (a --min-excess of 100 ms, say, rather than the default rule).
func thresholdRule(p *results.Profile) string {
	q3 := "Q3"
	if p.FastMode > 0 {
		q3 = fmt.Sprintf("the fast mode's Q3 (%d executions)", p.FastMode)
	}
	terms := []struct {
		text string
		ns   int64
	}{
		{fmt.Sprintf("%s + %g·IQR = %s", q3, p.IQRFactor, fmtSec(secsNS(p.TukeyNS))), p.TukeyNS},
		{fmt.Sprintf("%g·median = %s", p.MinSlowdown, fmtSec(p.MinSlowdown*secsNS(p.MedianNS))), int64(p.MinSlowdown * float64(p.MedianNS))},
	}
	if p.MinExcessNS > 0 {
		by := p.MinExcessBy
		if by == "" {
			by = "--min-excess"
		}
		terms = append(terms, struct {
			text string
			ns   int64
		}{fmt.Sprintf("median + %s (%s)", fmtSec(secsNS(p.MinExcessNS)), by), p.MedianNS + p.MinExcessNS})
	}
	parts := make([]string, len(terms))
	best := 0
	for i, t := range terms {
		parts[i] = t.text
		if t.ns > terms[best].ns {
			best = i
		}
	}
	return fmt.Sprintf("%d executions; anomalous above %s = max(%s): set by %s", p.Runs, fmtSec(secsNS(p.Threshold)), strings.Join(parts, ", "), strings.SplitN(terms[best].text, " =", 2)[0])
}

// configRows is the run's configuration and seeds.
func configRows(r *Results) []row {
	s := r.Summary
	rows := []row{
		{"system", fmt.Sprintf("%s (variant %s, %d nodes)", s.System, s.Variant, s.Nodes)},
		{"seed", fmt.Sprint(s.Seed)},
		{"phase seeds", fmt.Sprintf("train %d, profile %d, search %d, diverge %d", s.PhaseSeeds.Train, s.PhaseSeeds.Profile, s.PhaseSeeds.Search, s.PhaseSeeds.Diverge)},
		{"configuration hash", s.ConfigHash},
		{"event durations", s.EDD},
		{"profile", fmt.Sprintf("%d executions; anomalous above max(Q3 + %g·IQR, %g·median)", s.Profile.Runs, s.Profile.IQRFactor, s.Profile.MinSlowdown)},
	}
	if p := r.Profile; p != nil {
		rows[len(rows)-1].Value = thresholdRule(p)
	}
	if r.Profile != nil && r.Profile.Estimator != "" {
		rows = append(rows, row{"quartiles", r.Profile.Estimator})
	}
	if a := s.Anomaly; a != nil {
		budget := fmt.Sprintf("%d executions", a.MaxRuns)
		if sr := r.Search; sr != nil {
			budget += fmt.Sprintf("; after the first execution above the threshold, %d more to find and class the others, and on to the budget when none of them is significant", sr.TriageRuns)
		}
		rows = append(rows, row{"search budget", budget})
	}
	if d := r.Divergence; d != nil {
		crit := d.Criterion
		if crit == "" { // written before the recovery limit
			crit, d.LimitNS = divergence.BoundQ3, d.Q3NS
		}
		rows = append(rows, row{"divergence walks", fmt.Sprintf("k = %d per prefix, then up to %d confirmation walks when none recovers; a walk recovers if it %s (%s)", d.Walks, d.Confirm, crit.Describe(), fmtSec(secsNS(d.LimitNS)))})
	}
	if s.Training != "" {
		rows = append(rows, row{"what depends on the training", s.Training})
	}
	return rows
}

// summaryRows is the results at a glance.
func summaryRows(r *Results) []row {
	s := r.Summary
	p := s.Profile
	q := fmtSecs(p.Median, p.Q1, p.Q3)
	rows := []row{
		{"normal execution time", fmt.Sprintf("median %s (Q1 %s, Q3 %s) over %d executions", q[0], q[1], q[2], p.Runs)},
		{"anomaly threshold", fmtSec(p.Threshold)},
	}
	if pf := r.Profile; pf != nil {
		n := profileAbove(pf)
		rows = append(rows, row{"profile executions above the threshold", fmt.Sprintf("%d of %d", n, len(pf.Executions))})
	}
	if p.Unfinished > 0 {
		rows = append(rows, row{"unfinished profile executions", fmt.Sprint(p.Unfinished)})
	}
	if len(profileWarnings(r)) == 0 { // else they stand under the verdict
		for _, w := range p.Warnings {
			rows = append(rows, row{"warning", w})
		}
	}
	a := s.Anomaly
	switch {
	case a == nil:
		rows = append(rows, row{"anomaly search", "not run"})
	case !a.Found && a.TailExecutions > 0:
		rows = append(rows, row{"anomaly search", fmt.Sprintf("no anomaly in %d executions%s: %d above the threshold, the normal tail", a.Explored, ifs(a.Complete, "", " (interrupted)"), a.TailExecutions)})
	case !a.Found:
		rows = append(rows, row{"anomaly search", fmt.Sprintf("nothing above the threshold in %d executions%s", a.Explored, ifs(a.Complete, "", " (interrupted)"))})
	default:
		if len(a.Classes) > 0 {
			rows = append(rows, row{"anomalies", fmt.Sprintf("%d of %d executions explored (the first at %d), in %d class%s by execution time and the events that set them apart",
				a.Anomalies, a.Explored, a.FirstIndex, len(a.Classes), ifs(len(a.Classes) == 1, "", "es"))})
			for i, c := range a.Classes {
				if i == maxClassRows {
					rows = append(rows, row{"…", fmt.Sprintf("%d more classes in %s", len(a.Classes)-i, results.FileSearch)})
					break
				}
				rows = append(rows, row{fmt.Sprintf("class %d", c.Rank), c.Text + ifs(c.Path != "", "; replay "+c.Path, "")})
			}
		}
		what := fmt.Sprintf("%s (%.1f× the median), %d steps", fmtSec(a.ExecutionTime), a.ExecutionTime/max(p.Median, 1e-9), a.Steps)
		if a.Finding != "" {
			what = a.Finding + fmt.Sprintf(", %d steps", a.Steps)
		}
		rows = append(rows, row{"analysed execution", fmt.Sprintf("execution %d, class %d's representative: %s", a.Index, a.Class, what)})
		if a.Cause != "" {
			rows = append(rows, row{"critical path", a.Cause})
		}
	}
	if a != nil && a.Verdict != "" && a.Candidates > 0 {
		rows = append(rows, row{"verdict", a.Verdict})
	}
	if a != nil && a.TailExecutions > 0 {
		rows = append(rows, row{"normal tail", fmt.Sprintf("%d of %d executions above the threshold, not anomalies", a.TailExecutions, a.Explored)})
		for i, c := range a.Tail {
			if i == maxClassRows {
				rows = append(rows, row{"…", fmt.Sprintf("%d more tail classes in %s", len(a.Tail)-i, results.FileSearch)})
				break
			}
			v := c.Text
			if c.Cause != "" {
				v += "; critical path: " + c.Cause
			}
			rows = append(rows, row{fmt.Sprintf("tail %d", c.Rank), v + ifs(c.Path != "", "; replay "+c.Path, "")})
		}
	}
	if d := s.Divergence; d != nil {
		if d.Step < 0 {
			rows = append(rows, row{"divergence point", "none: no walk recovers even from the start (the slowness does not come from a rare choice)"})
		} else {
			rows = append(rows, row{"divergence point", d.Event})
			if d.Why != "" {
				rows = append(rows, row{"why it decides", d.Why})
			}
			rows = append(rows,
				row{"ignorable", fmt.Sprintf("the first %.1f%% of the %d steps (%d walk executions%s)", 100*d.IgnorableFraction, d.TotalSteps, d.Executions, walksFrom(d.WalksFrom))},
				row{"similar fast execution", fmt.Sprintf("%s, same first %d steps", fmtSec(d.SimilarExecutionTime), d.Step)})
		}
	}
	return rows
}

// maxClassRows is the number of anomaly classes the summary lists.
const maxClassRows = 5

// profileAbove counts the profile executions above the threshold.
func profileAbove(pf *results.Profile) int {
	n := 0
	for _, e := range pf.Executions {
		if e.ExecTimeNS > pf.Threshold {
			n++
		}
	}
	return n
}

// profileWarnings are the profile's warnings, shown under the verdict;
// none for a regress directory, whose verdict counts against the
// baseline's threshold.
func profileWarnings(r *Results) []string {
	if r.Summary == nil || r.Regress != nil {
		return nil
	}
	return r.Summary.Profile.Warnings
}

// corrRows lists the correlated labels: label, r, r within Q1.
func corrRows(cs []results.SummaryCorr) [][3]string {
	var out [][3]string
	for _, c := range cs {
		l := c.Label
		if c.Critical {
			l += " (the anomaly's analysis points at it)"
		}
		out = append(out, [3]string{l, fmtRp(c.R), fmtRp(c.WindowR)})
	}
	return out
}

// replayCommand is the command of program (DefaultProgram when "") that
// replays the path file path, quoted for a shell: a path is one word,
// whatever characters it holds.
func replayCommand(program, path string) string {
	if program == "" {
		program = DefaultProgram
	}
	return shellquote.Join(program, "replay", "--path", path)
}

// summaryReplay lists the commands that replay the anomalous and the
// similar fast execution, made from summary.json's paths rather than
// taken from its replay commands: what the report prints for a shell is
// quoted by the report.
func summaryReplay(program string, s *results.Summary) []string {
	var out []string
	if a := s.Anomaly; a != nil && a.Found && a.Path != "" {
		out = append(out, replayCommand(program, a.Path))
	}
	if d := s.Divergence; d != nil && d.SimilarPath != "" {
		out = append(out, replayCommand(program, d.SimilarPath))
	}
	return out
}

// WriteMarkdown writes summary.md: the summary for terminals and CI logs.
// Every text in it that a protocol or a file supplied (labels, notes,
// states, panics, paths) is escaped (mdText) or put in a code span
// (mdCode), so that a Markdown renderer shows it as it is: a note
// "<img src=x onerror=…>" is text, not HTML.
func WriteMarkdown(w io.Writer, r *Results, figs []Rendered) {
	h := newHeading(r)
	if h.title != "" {
		fmt.Fprintf(w, "# %s\n\n", mdText(h.title))
	}
	for i, v := range h.verdicts {
		if i == 0 && h.cause != "" {
			v += " " + h.cause
		}
		fmt.Fprintf(w, "**%s**\n\n", mdText(v))
	}
	for _, warn := range h.warnings {
		fmt.Fprintf(w, "> Warning: %s.\n\n", mdText(warn))
	}
	var conf, sum []row
	var replay []string
	if s := r.Summary; s != nil {
		conf, sum, replay = configRows(r), summaryRows(r), summaryReplay(r.Program, s)
	}
	if rg := r.Regress; rg != nil {
		cmds, _ := regressReplay(r.Program, rg)
		replay = append(replay, cmds...)
	}
	if lv := r.Liveness; lv != nil {
		if r.Summary == nil {
			conf = livenessConfigRows(lv)
		} else {
			conf = append(conf, livenessConfigRows(lv)[2:]...)
		}
		sum = append(sum, livenessSummaryRows(lv)...)
		replay = append(replay, livenessReplay(r.Program, lv)...)
	}
	fmt.Fprintf(w, "## Configuration\n\n| | |\n|---|---|\n")
	for _, x := range conf {
		fmt.Fprintf(w, "| %s | %s |\n", mdCell(x.Key), mdCell(x.Value))
	}
	fmt.Fprintf(w, "\n## Summary\n\n| | |\n|---|---|\n")
	for _, x := range sum {
		fmt.Fprintf(w, "| %s | %s |\n", mdCell(x.Key), mdCell(x.Value))
	}
	if rg := r.Regress; rg != nil {
		fmt.Fprintf(w, "\n## Regression test against the baseline\n\n| | |\n|---|---|\n")
		for _, x := range regressRows(rg) {
			fmt.Fprintf(w, "| %s | %s |\n", mdCell(x.Key), mdCell(x.Value))
		}
	}
	if s := r.Summary; s != nil && (len(s.Correlations) > 0 || len(s.LengthOnly) > 0) {
		fmt.Fprintf(w, "\n## Events correlated with execution time\n\n| label | r | r within Q1 |\n|---|---:|---:|\n")
		for _, c := range s.Correlations {
			note := ""
			if c.Critical {
				note = " (the anomaly's analysis points at it)"
			}
			fmt.Fprintf(w, "| %s%s | %s | %s |\n", mdCodeCell(c.Label), note, fmtRp(c.R), fmtRp(c.WindowR))
		}
		for _, c := range s.LengthOnly {
			fmt.Fprintf(w, "| %s (length-only) | %s | %s |\n", mdCodeCell(c.Label), fmtRp(c.R), fmtRp(c.WindowR))
		}
	}
	if len(replay) > 0 {
		fence := mdFence(strings.Join(replay, "\n"))
		fmt.Fprintf(w, "\n## Replay (from the results directory)\n\n%ssh\n", fence)
		for _, c := range replay {
			fmt.Fprintf(w, "%s\n", visible.String(c))
		}
		fmt.Fprintf(w, "%s\n", fence)
	}
	fmt.Fprintf(w, "\n## Plots\n\n")
	for _, f := range figs {
		note := ""
		if f.Missing != "" {
			note = " — " + mdText(f.Missing)
		}
		fmt.Fprintf(w, "- %s: %s%s\n", mdText(f.Title), mdCode(results.DirPlots+"/"+f.ID+".png"), note)
	}
	diffs := ""
	switch {
	case r.Summary != nil && !regressOnly(r):
		diffs = " and the event-log diff"
	case r.Liveness != nil:
		diffs = " and the state diff"
	}
	fmt.Fprintf(w, "\nThe full report with the plots%s: %s.\n", diffs, mdCode(results.FileReport))
}

// mdSpecial are the characters that Markdown (CommonMark and GitHub's
// tables, strikethrough and math) or the HTML within it give a meaning:
// mdText escapes each with a backslash, which any ASCII punctuation
// character takes. '<' and '&' are escaped only where they start a tag,
// an autolink or an entity (before a letter, or "/!?" and '#'): "p =
// 0.016 < 0.05" stays as it is.
const mdSpecial = "\\`*_[]|~$<&"

// mdText is text for Markdown, shown as it is: a line (a line break
// becomes a space), its hidden characters made visible (package
// internal/visible: "\u202e"), its Markdown and HTML characters escaped,
// so that "<img src=x onerror=alert(1)>" is text, not an image.
func mdText(s string) string {
	s = visible.String(strings.ReplaceAll(s, "\n", " "))
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		letter := 'a' <= next|0x20 && next|0x20 <= 'z'
		switch {
		case c == '<' && (letter || next == '/' || next == '!' || next == '?'),
			c == '&' && (letter || next == '#'),
			c != '<' && c != '&' && strings.IndexByte(mdSpecial, c) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// mdCell is mdText for a table cell (whose '|' mdText escapes).
func mdCell(s string) string { return mdText(s) }

// mdCode is s as a code span: shown as it is in a monospaced font, its
// hidden characters made visible. Its delimiters are one backtick more
// than the longest run of backticks in s, padded with a space when s
// starts or ends with a backtick or a space (CommonMark strips one).
func mdCode(s string) string {
	s = visible.String(s) // no line break left
	delim := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return delim + s + delim
}

// mdCodeCell is mdCode in a table cell: GitHub ends a cell at a '|'
// even in a code span, unless it is escaped.
func mdCodeCell(s string) string {
	return strings.ReplaceAll(mdCode(s), "|", `\|`)
}

// mdFence is the fence of a fenced code block holding s: three backticks,
// or one more than the longest run of backticks in s, so that no line of s
// closes the block.
func mdFence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			n = max(n, run)
		} else {
			run = 0
		}
	}
	return n
}

// WalksFrom says in words how the divergence walks reached their prefixes
// (pipeline.DivergenceFile.WalksFrom): "forked from a snapshot of each
// prefix" or "each replayed its prefix from step 0".
func WalksFrom(mode string) string {
	switch mode {
	case "snapshot":
		return "forked from a snapshot of each prefix"
	case "replay":
		return "each replayed its prefix from step 0"
	}
	return mode
}

// walksFrom is WalksFrom after a comma, "" for a summary without it.
func walksFrom(mode string) string {
	if mode == "" {
		return ""
	}
	return ", " + WalksFrom(mode)
}

package report

import (
	"html/template"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/results"
)

// diffLines is how many lines of divergence.diff the report shows.
const diffLines = 60

// diffMarkColumn is the rune index of divergence.diff's marker column
// (' ', '|', '<', '>'), after the left column of 62 runes and a space.
const diffMarkColumn = 63

// Sections are the ids of report.html's sections, in order.
func Sections(r *Results, figs []Rendered) []string {
	ids := []string{"verdict", "config", "summary"}
	for _, f := range figs {
		ids = append(ids, f.ID)
	}
	if r.Summary != nil && !regressOnly(r) {
		ids = append(ids, "diff")
	}
	if r.Liveness != nil {
		ids = append(ids, "statediff")
	}
	return append(ids, "replay")
}

type htmlDiffLine struct {
	Class, Text string
}

type htmlFig struct {
	ID, Title, Guide, Missing string
	SVG                       template.HTML
	Rows                      []row
}

type htmlData struct {
	Title        string
	Verdict      string
	Cause        string
	VerdictRest  string
	Finding      bool
	Caution      bool
	Warnings     []string
	HasTimed     bool
	HasLiveness  bool
	Config       []row
	Summary      []row
	Correlations [][3]string
	LengthOnly   [][3]string
	Figures      []htmlFig
	Diff         []htmlDiffLine
	DiffMore     int
	DiffMissing  string
	StateDiff    []htmlDiffLine
	StateMissing string
	Replay       []string
	ReplayNote   string
	Nav          []row
	Explore      string
}

// WriteHTML writes report.html: one self-contained file (inline SVG and
// CSS, no scripts, no external resources).
func WriteHTML(w io.Writer, r *Results, figs []Rendered) error {
	h := newHeading(r)
	d := htmlData{Title: h.title, Verdict: strings.Join(h.verdicts, " "), Finding: h.finding, Caution: h.caution(), HasTimed: r.Summary != nil, HasLiveness: r.Liveness != nil}
	if h.cause != "" { // after the timed pipeline's verdict, the first
		d.Verdict, d.Cause, d.VerdictRest = h.verdicts[0], h.cause, strings.Join(h.verdicts[1:], " ")
	}
	for _, warn := range h.warnings {
		d.Warnings = append(d.Warnings, "Warning: "+warn+".")
	}
	d.Warnings = append(d.Warnings, h.regressWarnings...)
	d.Nav = []row{{"config", "Configuration"}, {"summary", "Summary"}}
	if r.Explore {
		d.Explore = results.FileExplore
	}
	if s := r.Summary; s != nil {
		d.Config, d.Summary, d.Correlations, d.LengthOnly, d.Replay = configRows(r), summaryRows(r), corrRows(s.Correlations), corrRows(s.LengthOnly), summaryReplay(r.Program, s)
		d.ReplayNote = "From the results directory, each command re-runs one execution exactly (add --log FILE for its event log): the anomalous execution, then the similar fast one."
		if r.Diff == "" {
			d.DiffMissing = "No " + results.FileDiff + " in this results directory: " + missingDiff(r) + "."
		} else {
			lines := strings.Split(strings.TrimRight(r.Diff, "\n"), "\n")
			if len(lines) > diffLines {
				d.DiffMore = len(lines) - diffLines
				lines = lines[:diffLines]
			}
			for _, l := range fitRules(lines) {
				d.Diff = append(d.Diff, htmlDiffLine{Class: diffClass(l), Text: l})
			}
		}
	}
	if rg := r.Regress; rg != nil {
		cmds, note := regressReplay(r.Program, rg)
		if regressOnly(r) { // the only replay is regress's, and no diff
			d.HasTimed, d.ReplayNote = false, note
		}
		d.Replay = append(d.Replay, cmds...)
	}
	if lv := r.Liveness; lv != nil {
		if r.Summary == nil {
			d.Config = livenessConfigRows(lv)
			d.ReplayNote = "From the results directory, each command re-runs one path exactly (add --log FILE for its event log): the dead path, then the live one."
		} else {
			d.Config = append(d.Config, livenessConfigRows(lv)[2:]...)
		}
		d.Summary = append(d.Summary, livenessSummaryRows(lv)...)
		d.Replay = append(d.Replay, livenessReplay(r.Program, lv)...)
		if r.StateDiff == "" {
			d.StateMissing = "No " + results.FileStateDiff + " in this results directory: there is no critical transition with a live path to compare with."
		}
		for _, l := range strings.Split(strings.TrimRight(r.StateDiff, "\n"), "\n") {
			if r.StateDiff == "" {
				break
			}
			cl := ""
			switch {
			case strings.HasPrefix(l, "#"):
				cl = "dh"
			case strings.HasPrefix(l, "@@"):
				cl = "dp"
			case strings.HasPrefix(l, "-"):
				cl = "dl"
			case strings.HasPrefix(l, "+"):
				cl = "dr"
			}
			d.StateDiff = append(d.StateDiff, htmlDiffLine{Class: cl, Text: l})
		}
	}
	for _, f := range figs {
		d.Figures = append(d.Figures, htmlFig{ID: f.ID, Title: f.Title, Guide: f.Guide, Missing: f.Missing, SVG: template.HTML(f.SVG), Rows: f.rows})
		d.Nav = append(d.Nav, row{f.ID, shortTitle(f.Title)})
	}
	if d.HasTimed {
		d.Nav = append(d.Nav, row{"diff", "Diff"})
	}
	if d.HasLiveness {
		d.Nav = append(d.Nav, row{"statediff", "State diff"})
	}
	d.Nav = append(d.Nav, row{"replay", "Replay"})
	d.makeVisible()
	return htmlTemplate.Execute(w, d)
}

// makeVisible makes the hidden characters of every text of the page
// visible (package internal/visible): a right-to-left override in a
// state or a note shows as "\u202e" instead of reversing the text after
// it. The template escapes the rest for HTML.
func (d *htmlData) makeVisible() {
	v := visible.String
	all := func(ss []string) {
		for i := range ss {
			ss[i] = v(ss[i])
		}
	}
	rows := func(rs []row) {
		for i := range rs {
			rs[i] = row{v(rs[i].Key), v(rs[i].Value)}
		}
	}
	lines := func(ls []htmlDiffLine) {
		for i := range ls {
			ls[i].Text = v(ls[i].Text)
		}
	}
	d.Title, d.Verdict, d.Cause, d.VerdictRest = v(d.Title), v(d.Verdict), v(d.Cause), v(d.VerdictRest)
	d.DiffMissing, d.StateMissing, d.ReplayNote = v(d.DiffMissing), v(d.StateMissing), v(d.ReplayNote)
	all(d.Warnings)
	all(d.Replay)
	rows(d.Config)
	rows(d.Summary)
	rows(d.Nav)
	for _, c := range [][][3]string{d.Correlations, d.LengthOnly} {
		for i := range c {
			c[i] = [3]string{v(c[i][0]), v(c[i][1]), v(c[i][2])}
		}
	}
	lines(d.Diff)
	lines(d.StateDiff)
	for i := range d.Figures {
		f := &d.Figures[i]
		f.Title, f.Guide, f.Missing = v(f.Title), v(f.Guide), v(f.Missing)
		f.Rows = slices.Clone(f.Rows) // the figure's own rows are not ours to change
		rows(f.Rows)
	}
}

func missingDiff(r *Results) string {
	switch {
	case r.Search != nil && r.Search.Anomaly == nil:
		return "no anomaly was found"
	case r.Divergence == nil:
		return "the divergence search did not run"
	case r.Divergence.Step < 0:
		return "no walk recovered, so there is no similar fast execution to compare with"
	}
	return "it was not written"
}

// fitRules shortens the rules of divergence.diff ("-----… divergence
// point", drawn wider than the columns) to the width of its widest other
// line, so that the report's box shows their text without scrolling; a
// rule keeps at least minRuleDashes dashes.
func fitRules(lines []string) []string {
	width := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "-----") && !strings.HasPrefix(l, "#") {
			width = max(width, utf8.RuneCountInString(l))
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l
		if !strings.HasPrefix(l, "-----") {
			continue
		}
		label := strings.TrimLeft(l, "-")
		dashes := max(width-utf8.RuneCountInString(label), minRuleDashes)
		if dashes < len(l)-len(label) {
			out[i] = strings.Repeat("-", dashes) + label
		}
	}
	return out
}

// minRuleDashes is the shortest rule fitRules leaves.
const minRuleDashes = 5

// diffClass classifies a line of divergence.diff for colouring.
func diffClass(l string) string {
	switch {
	case strings.HasPrefix(l, "#"):
		return "dh"
	case strings.HasPrefix(l, "-----"):
		return "dp"
	}
	rs := []rune(l)
	if len(rs) > diffMarkColumn {
		switch rs[diffMarkColumn] {
		case '|':
			return "dc"
		case '<':
			return "dl"
		case '>':
			return "dr"
		}
	}
	return ""
}

func shortTitle(t string) string {
	if i := strings.Index(t, " ("); i > 0 {
		t = t[:i]
	}
	if i := strings.Index(t, ":"); i > 0 {
		t = t[:i]
	}
	return t
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;color:#222;background:#fff;margin:0;line-height:1.45}
main{max-width:980px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}
h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid #ddd}
nav{font-size:13px;margin:6px 0 12px}
nav a{color:#2e6db4;text-decoration:none;margin-right:12px}
.verdict{padding:10px 14px;border-radius:4px;font-weight:bold;margin:12px 0}
.finding{background:#fbeaea;border-left:5px solid #c0392b;color:#8e2a20}
.clean{background:#e9f5ee;border-left:5px solid #1e8449;color:#16613a}
.caution{background:#fdf2e2;border-left:5px solid #d35400;color:#7a3b00}
.warn{background:#fdf2e2;border-left:5px solid #d35400;color:#7a3b00;font-weight:normal}
table{border-collapse:collapse;font-size:13.5px;margin:6px 0}
th,td{text-align:left;padding:3px 12px 3px 0;vertical-align:top}
th{color:#555;font-weight:normal;white-space:nowrap}
td.num{text-align:right;font-family:"Liberation Mono","Courier New",monospace}
table.kv th{width:190px}
figure{margin:8px 0 0}
figure svg{width:100%;height:auto;display:block}
figcaption{font-size:13.5px;color:#333;margin-top:6px}
.missing{color:#777;font-style:italic}
pre{font-family:"Liberation Mono","Courier New",monospace;font-size:11.5px;background:#f7f7f7;border:1px solid #e3e3e3;padding:8px;overflow-x:auto;line-height:1.3}
.dh{color:#777}.dp{color:#c0392b;font-weight:bold}.dc{background:#fdf2e2}.dl{background:#fbeaea}.dr{background:#e9f5ee}
code{font-family:"Liberation Mono","Courier New",monospace;font-size:12.5px}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<nav>{{range .Nav}}<a href="#{{.Key}}">{{.Value}}</a>{{end}}{{if .Explore}}<a href="{{.Explore}}" id="explore">Step through the executions ▸</a>{{end}}</nav>
<section id="verdict"><div class="verdict {{if .Finding}}finding{{else if .Caution}}caution{{else}}clean{{end}}">{{.Verdict}}{{if .Cause}} <span id="cause">{{.Cause}}</span>{{end}}{{if .VerdictRest}} {{.VerdictRest}}{{end}}</div>{{range .Warnings}}
<div class="verdict warn">{{.}}</div>{{end}}</section>

<section id="config">
<h2>Configuration and seeds</h2>
<table class="kv">{{range .Config}}
<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}
</table>
</section>

<section id="summary">
<h2>Summary</h2>
<table class="kv">{{range .Summary}}
<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}
</table>
{{if or .Correlations .LengthOnly}}<table>
<tr><th>event label correlated with execution time</th><th>r</th><th>r within Q1</th></tr>{{range .Correlations}}
<tr><td>{{index . 0}}</td><td class="num">{{index . 1}}</td><td class="num">{{index . 2}}</td></tr>{{end}}{{range .LengthOnly}}
<tr><td>{{index . 0}} <span class="missing">(length-only)</span></td><td class="num">{{index . 1}}</td><td class="num">{{index . 2}}</td></tr>{{end}}
</table>{{end}}
</section>
{{range .Figures}}
<section id="{{.ID}}">
<h2>{{.Title}}</h2>{{if .Rows}}
<table class="kv">{{range .Rows}}
<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}
</table>{{end}}
<figure>{{.SVG}}
<figcaption>{{if .Missing}}<span class="missing">{{.Missing}}.</span>{{else}}{{.Guide}}{{end}}</figcaption>
</figure>
</section>
{{end}}
{{if .HasTimed}}<section id="diff">
<h2>Event logs side by side from the divergence point</h2>
{{if .DiffMissing}}<p class="missing">{{.DiffMissing}}</p>{{else}}<pre>{{range .Diff}}<span{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</span>
{{end}}{{if .DiffMore}}… {{.DiffMore}} more lines in divergence.diff{{end}}</pre>{{end}}
</section>
{{end}}{{if .HasLiveness}}<section id="statediff">
<h2>State diff after the critical transition (dead − / live +)</h2>
{{if .StateMissing}}<p class="missing">{{.StateMissing}}</p>{{else}}<pre>{{range .StateDiff}}<span{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</span>
{{end}}</pre>{{end}}
</section>
{{end}}
<section id="replay">
<h2>Replay</h2>
{{if .Replay}}<p>{{.ReplayNote}}</p>
<pre>{{range .Replay}}{{.}}
{{end}}</pre>{{else}}<p class="missing">Nothing to replay: no anomaly or violation was found.</p>{{end}}
</section>
</main>
</body>
</html>
`))

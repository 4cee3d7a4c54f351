package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// Hostile inputs as tests: protocol text that would run in a Markdown renderer or forge a
// line, paths that would run in a shell, files that are not macepc's,
// outputs over inputs, inputs without bound, a phase that fails half-way
// and explore without the directory's lock.

// securityCases follow the hostile table's rule: exit 2 with one line
// naming want, and no file of the directory changed.
func securityCases() []hostileCase {
	walks := results.FileWalks
	return []hostileCase{
		// Item 8: an output that names an input.
		{"replay-log-over-path", nil, []string{"replay", "--path", "DIR/" + results.FileAnomalyPath, "--log", "DIR/" + results.FileAnomalyPath}, "--log"},
		{"replay-save-path-over-path", nil, []string{"replay", "--path", "DIR/" + results.FileAnomalyPath, "--save-path", "DIR/" + results.FileAnomalyPath}, "--save-path"},
		{"replay-log-over-save-path", nil, []string{"replay", "--path", "DIR/" + results.FileAnomalyPath, "--log", "DIR/x.path.json", "--save-path", "DIR/x.path.json"}, "same file"},
		{"replay-log-over-linked-path", link("anomaly-link.json", results.FileAnomalyPath, false), []string{"replay", "--path", "DIR/" + results.FileAnomalyPath, "--log", "DIR/anomaly-link.json"}, "--log"},
		{"replay-log-over-hard-linked-path", link("anomaly-hard.json", results.FileAnomalyPath, true), []string{"replay", "--path", "DIR/" + results.FileAnomalyPath, "--log", "DIR/anomaly-hard.json"}, "--log"},
		{"explore-out-over-path", nil, []string{"explore", "--path", "DIR/" + results.FileAnomalyPath, "--out", "DIR/" + results.FileAnomalyPath}, "--out"},
		{"explore-out-over-second-path", nil, []string{"explore", "--path", "DIR/" + results.FileAnomalyPath, "--path", "DIR/" + results.FileSimilarPath, "--out", "DIR/" + results.FileSimilarPath}, "--out"},
		// Item 9: one enormous line is refused at the cap.
		{"walks-enormous-line", edit(walks, func(s string) string { return `{"phase":"` + strings.Repeat("x", 65<<20) + "\n" + s }), []string{"correlate", "--out", "DIR"}, walks + " line 1: larger than 64 MiB"},
	}
}

// link makes DIR/name a link (hard or symbolic) to DIR/to.
func link(name, to string, hard bool) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		var err error
		if hard {
			err = os.Link(filepath.Join(dir, to), filepath.Join(dir, name))
		} else {
			err = os.Symlink(to, filepath.Join(dir, name))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestSecurityInputsExit2AndChangeNothing(t *testing.T) {
	runHostileCases(t, securityCases())
}

// copyBase copies the hostile tests' results directory into a new one.
func copyBase(t *testing.T) string {
	t.Helper()
	base, err := hostileBase()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyDir(t, base, dir)
	return dir
}

// Item 1: text from the protocol or a file is escaped in summary.md, or
// put in code spans: a Markdown renderer shows it, it runs nothing.
func TestSummaryMarkdownEscapesHTML(t *testing.T) {
	dir := copyBase(t)
	hostile := "<img src=x onerror=alert(1)></script><script>alert(2)</script> | `tick` [x](javascript:alert(3)) **b** \u202e\n# forged heading"
	edit(results.FileSummary, func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		an := m["anomaly"].(map[string]any)
		an["finding"], an["cause"] = "panic: "+hostile, hostile
		an["path"] = "$(touch PWNED)/x.path.json"
		for _, c := range an["classes"].([]any) {
			c.(map[string]any)["text"] = hostile
		}
		for _, c := range m["correlations"].([]any) {
			c.(map[string]any)["label"] = "deliver " + hostile + " ``` ``"
		}
		m["divergence"].(map[string]any)["why"] = hostile
		b, _ := json.Marshal(m)
		return string(b)
	})(t, dir)
	var o, e bytes.Buffer
	if st := runRandTree(context.Background(), []string{"report", "--out", dir}, &o, &e); st != cli.ExitOK {
		t.Fatalf("report: status %d\n%s", st, e.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if strings.ContainsRune(md, '\u202e') {
		t.Error("summary.md holds a raw U+202E")
	}
	inFence := ""
	for i, l := range strings.Split(md, "\n") {
		if f := fenceOf(l); f != "" {
			switch {
			case inFence == "":
				inFence = f
				continue
			case len(f) >= len(inFence) && strings.TrimRight(l, " ") == f:
				inFence = ""
				continue
			}
		}
		if inFence != "" {
			if strings.Contains(l, "PWNED") && !strings.Contains(l, "'$(touch PWNED)/x.path.json'") {
				t.Errorf("summary.md line %d: an unquoted path in a command: %s", i+1, l)
			}
			continue
		}
		text := stripCodeSpans(l)
		for _, raw := range []string{"<img", "</script", "<script", "](javascript"} {
			if unescaped(text, raw) {
				t.Errorf("summary.md line %d holds raw %s: %s", i+1, raw, l)
			}
		}
		if strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "# macepc report") && !strings.HasPrefix(l, "## ") {
			t.Errorf("summary.md line %d: a forged heading: %s", i+1, l)
		}
		if strings.HasPrefix(l, "|") && strings.Count(unescapedPipes(l), "|") != strings.Count(unescapedPipes(tableHeader(md, i)), "|") {
			t.Errorf("summary.md line %d: a table row with other cells than its header: %s", i+1, l)
		}
	}
	if inFence != "" {
		t.Error("summary.md: a fenced block is never closed")
	}
	if t.Failed() {
		t.Logf("summary.md:\n%s", md)
	}
}

// fenceOf is the backtick fence a line opens or closes ("" for none).
func fenceOf(l string) string {
	n := 0
	for n < len(l) && l[n] == '`' {
		n++
	}
	if n < 3 {
		return ""
	}
	return l[:n]
}

// stripCodeSpans removes a line's code spans (CommonMark: a run of n
// backticks up to the next run of exactly n); an escaped backtick opens
// none.
func stripCodeSpans(l string) string {
	var out strings.Builder
	for i := 0; i < len(l); {
		if l[i] == '\\' && i+1 < len(l) {
			out.WriteString(l[i : i+2])
			i += 2
			continue
		}
		if l[i] != '`' {
			out.WriteByte(l[i])
			i++
			continue
		}
		n := 0
		for i+n < len(l) && l[i+n] == '`' {
			n++
		}
		closed := false
		for j := i + n; j < len(l); {
			if l[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(l) && l[j+m] == '`' {
				m++
			}
			if m == n {
				i, closed = j+m, true
				break
			}
			j += m
		}
		if !closed {
			out.WriteString(l[i : i+n])
			i += n
		}
	}
	return out.String()
}

// unescaped reports whether s holds raw at a place not escaped by a
// backslash before its first character.
func unescaped(s, raw string) bool {
	for i := strings.Index(s, raw); i >= 0; {
		bs := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return true
		}
		k := strings.Index(s[i+1:], raw)
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// unescapedPipes drops the escaped pipes of a table row (GitHub's rule,
// code spans included).
func unescapedPipes(l string) string { return strings.ReplaceAll(l, `\|`, "") }

// tableHeader is the header row of the table line i of md is in.
func tableHeader(md string, i int) string {
	lines := strings.Split(md, "\n")
	for i > 0 && strings.HasPrefix(lines[i-1], "|") {
		i--
	}
	return lines[i]
}

// Item 2: every path in a printed command is quoted for a shell: pasted,
// the command gets the path as one word and runs nothing else.
func TestPrintedCommandsAreShellQuoted(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	work := t.TempDir()
	out := filepath.Join(work, "$(touch PWNED) it's `x`")
	var o, e bytes.Buffer
	st := runRandTree(context.Background(), []string{"run", "--out", out, "--edd", fixedEDD, "--profile-runs", "20", "--max-runs", "300", "--triage-runs", "20",
		"--walks", "4", "--confirm-walks", "4", "--progress", "never"}, &o, &e)
	if st != cli.ExitFinding {
		t.Fatalf("run: status %d\n%s%s", st, o.String(), e.String())
	}
	var cmds []string
	for _, l := range strings.Split(o.String(), "\n") {
		if _, c, ok := strings.Cut(l, "replay: "); ok {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("want 2 replay commands on stdout:\n%s", o.String())
	}
	for i, c := range cmds {
		// What a shell makes of the command line, run in work.
		script := "set -- " + c + "\nprintf '%s\\n' \"$@\""
		cmd := exec.Command(sh, "-c", script)
		cmd.Dir = work
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		want := strings.Join([]string{"macepc", "replay", "--path", filepath.Join(out, []string{results.FileAnomalyPath, results.FileSimilarPath}[i])}, "\n") + "\n"
		if string(got) != want {
			t.Errorf("the shell reads %q as %q, want %q", c, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "PWNED")); err == nil {
		t.Fatal("a printed command ran a command substitution")
	}
	// summary.json holds the replays as data, not as command lines.
	b, err := os.ReadFile(filepath.Join(out, results.FileSummary))
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Replay []results.Replay }
	if err := json.Unmarshal(b, &s); err != nil || len(s.Replay) != 2 || !slices.Equal(s.Replay[0].Args, []string{"replay", "--path", results.FileAnomalyPath}) ||
		s.Replay[0].Path != results.FileAnomalyPath || s.Replay[0].Execution != results.ReplayAnomaly || s.Replay[1].Execution != results.ReplaySimilar {
		t.Errorf("summary.json replay %+v (%v)", s.Replay, err)
	}
	// A hostile path in summary.json is quoted in report.html and
	// summary.md.
	edit(results.FileSummary, replaceOnce(`"path": "anomaly.path.json"`, `"path": "$(touch PWNED).path.json"`))(t, out)
	if st := runRandTree(context.Background(), []string{"report", "--out", out}, &o, &e); st != cli.ExitOK {
		t.Fatalf("report: status %d\n%s", st, e.String())
	}
	for _, f := range []string{"summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		want := "macepc replay --path '$(touch PWNED).path.json'"
		if f == "report.html" {
			want = "macepc replay --path &#39;$(touch PWNED).path.json&#39;"
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", f, want)
		}
	}
}

// hostileSystem is ping-pong whose code does one hostile thing per
// variant: a message label with a line break ("label"), a state and log
// line with a right-to-left override and a line break ("state"), a note
// with a right-to-left override ("note").
func hostileSystem() timedsim.System {
	return timedsim.System{
		Name:         "hostile",
		Doc:          "ping-pong with hostile text",
		Variants:     []timedsim.Variant{{Name: "label"}, {Name: "state"}, {Name: "note"}},
		DefaultNodes: 2,
		Build: func(variant string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{
				Nodes:    nodes,
				New:      func(id timedsim.NodeID) timedsim.Service { return &hostileNode{id: id, variant: variant} },
				Stop:     func(w timedsim.World) bool { return w.Node(0).(*hostileNode).done },
				Timeout:  time.Minute,
				Network:  netmodel.DefaultConfig(),
				Revision: "1",
			}, nil
		},
	}
}

type hostilePing struct{ label string }

func (hostilePing) Size() int              { return 64 }
func (m hostilePing) MessageLabel() string { return m.label }

type hostileNode struct {
	id      timedsim.NodeID
	variant string
	done    bool
}

const forgedLine = "     99 n1   forged"

func (n *hostileNode) Init(ctx timedsim.Context) {
	if n.id != 0 {
		return
	}
	label := "Ping"
	if n.variant == "label" {
		label = "Pi\n" + forgedLine
	}
	if n.variant == "note" {
		ctx.Note("ok\u202e")
	}
	ctx.Logf("started\n%s", forgedLine)
	ctx.Send(1, hostilePing{label})
}

func (n *hostileNode) Deliver(ctx timedsim.Context, from timedsim.NodeID, _ timedsim.Message) {
	if n.id == 0 {
		n.done = true
		return
	}
	ctx.Send(from, hostilePing{"Pong"})
}

func (n *hostileNode) Timer(timedsim.Context, string, any) {}

func (n *hostileNode) Describe() string {
	if n.variant == "state" {
		return "rtl:\u202eevil\n# n1: forged"
	}
	return "ok"
}

func runHostileSystem(args []string, stdout, stderr *bytes.Buffer) int {
	return cli.Run(context.Background(), args, stdout, stderr, hostileSystem())
}

// Items 3 and 4: a message label that would split a line is a finding
// (the handler panics, as for a bad note); hidden characters in states,
// notes and log lines are shown as escapes on stdout, in event logs and
// in explore.html, and no line is forged.
func TestProtocolTextCannotForgeLinesOrHideCharacters(t *testing.T) {
	for _, variant := range []string{"label", "state", "note"} {
		t.Run(variant, func(t *testing.T) {
			dir := t.TempDir()
			var o, e bytes.Buffer
			st := runHostileSystem([]string{"simulate", "--system", "hostile", "--variant", variant, "--runs", "2", "--out", dir, "--progress", "never"}, &o, &e)
			wantFinding := variant != "state"
			if (st == cli.ExitFinding) != wantFinding || st == cli.ExitError {
				t.Fatalf("simulate: status %d\n%s%s", st, o.String(), e.String())
			}
			path := filepath.Join(dir, results.FileSlowest)
			if wantFinding {
				path = filepath.Join(dir, results.FindingPath(0))
				if want := map[string]string{"label": `message label "Pi\n` + forgedLine + `"`, "note": `note "ok\u202e"`}[variant]; !strings.Contains(o.String(), want) {
					t.Errorf("stdout lacks the finding %q:\n%s", want, o.String())
				}
			}
			var log, le bytes.Buffer
			if st := runHostileSystem([]string{"replay", "--path", path}, &log, &le); st == cli.ExitError {
				t.Fatalf("replay: status %d\n%s", st, le.String())
			}
			if st := runHostileSystem([]string{"explore", "--path", path, "--out", filepath.Join(dir, "x.html")}, &o, &e); st != cli.ExitOK {
				t.Fatalf("explore: status %d\n%s", st, e.String())
			}
			html, err := os.ReadFile(filepath.Join(dir, "x.html"))
			if err != nil {
				t.Fatal(err)
			}
			for what, text := range map[string]string{"stdout": o.String(), "stderr": e.String() + le.String(), "the event log": log.String(), "explore.html": string(html)} {
				if strings.ContainsRune(text, '\u202e') {
					t.Errorf("%s holds a raw U+202E", what)
				}
				for _, l := range strings.Split(text, "\n") {
					if strings.HasPrefix(l, forgedLine) || strings.HasPrefix(l, "# n1: forged") {
						t.Errorf("%s holds a forged line: %q", what, l)
					}
				}
			}
			if variant == "state" && !strings.Contains(log.String(), `rtl:\u202eevil\n# n1: forged`) {
				t.Errorf("the event log does not show the state's characters as escapes:\n%s", log.String())
			}
		})
	}
}

// Item 5: a run into a directory that holds the user's own figures in
// plots/ leaves them there; macepc removes only the plots it wrote.
func TestRunLeavesForeignPlots(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "plots", "my-figure.png")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--out", dir, "--edd", fixedEDD, "--profile-runs", "20", "--max-runs", "300", "--triage-runs", "20", "--walks", "4", "--confirm-walks", "4", "--progress", "never"},
		{"train", "--out", dir, "--train-runs", "2", "--progress", "never"},
	} {
		var o, e bytes.Buffer
		if st := runRandTree(context.Background(), args, &o, &e); st == cli.ExitError {
			t.Fatalf("%s: status %d\n%s", args[0], st, e.String())
		}
		if b, err := os.ReadFile(mine); err != nil || string(b) != "the user's" {
			t.Fatalf("after %s: the user's figure is gone (%v)", args[0], err)
		}
	}
}

// Item 6: report refuses a plots that is a link, and writes nothing
// through it; run removes the link, not what it points to.
func TestReportDoesNotWriteThroughALink(t *testing.T) {
	dir := copyBase(t)
	outside := t.TempDir()
	if err := os.RemoveAll(filepath.Join(dir, "plots")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "plots")); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	st := runRandTree(context.Background(), []string{"report", "--out", dir}, &o, &e)
	if lines := errorLines(e.String()); st != cli.ExitError || len(lines) != 1 || !strings.Contains(lines[0], "symbolic link") {
		t.Errorf("report: status %d, stderr %q", st, e.String())
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("report wrote %d files through the link", len(ents))
	}
	if st := runRandTree(context.Background(), []string{"correlate", "--out", dir, "--progress", "never"}, &o, &e); st == cli.ExitError {
		t.Fatalf("correlate: status %d\n%s", st, e.String())
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("correlate wrote %d files through the link", len(ents))
	}
	if st, err := os.Lstat(filepath.Join(dir, "plots")); err != nil || !st.IsDir() {
		t.Errorf("plots is not the directory's own after correlate: %v", err)
	}
}

// Item 7: replay --log over a FIFO writes into it, and a link to
// /dev/null stays a link to the device.
func TestReplayLogWritesThroughSpecialFiles(t *testing.T) {
	dir := copyBase(t)
	fifo := filepath.Join(dir, "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- ""
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	var o, e bytes.Buffer
	var st int
	for i := 0; i < 500; i++ { // until the reader has the FIFO open
		o.Reset()
		e.Reset()
		if st = runRandTree(context.Background(), []string{"replay", "--path", filepath.Join(dir, results.FileAnomalyPath), "--log", fifo}, &o, &e); !strings.Contains(e.String(), "no process reads") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st == cli.ExitError {
		t.Fatalf("replay --log FIFO: status %d\n%s", st, e.String())
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", err)
	}
	if log := <-got; !strings.HasPrefix(log, "# macepc event log") {
		t.Errorf("the FIFO's reader got %.80q", log)
	}
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	if st := runRandTree(context.Background(), []string{"replay", "--path", filepath.Join(dir, results.FileAnomalyPath), "--log", null}, &o, &e); st == cli.ExitError {
		t.Fatalf("replay --log link to /dev/null: status %d\n%s", st, e.String())
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to /dev/null was replaced: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v", err)
	}
}

// Item 9: inputs that are devices or too large are refused at once, with
// one line that names them.
func TestInputsWithoutBoundAreRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := copyBase(t)
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 2<<30); err != nil { // sparse: 2 GiB on no disk
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		file   string // DIR's file made a link to target
		target string
		args   []string
		want   string
	}{
		{"profile-dev-zero", results.FileProfile, "/dev/zero", []string{"search", "--out", "DIR"}, results.FileProfile},
		{"search-dev-zero", results.FileSearch, "/dev/zero", []string{"diverge", "--out", "DIR"}, results.FileSearch},
		{"walks-dev-zero", results.FileWalks, "/dev/zero", []string{"correlate", "--out", "DIR"}, results.FileWalks},
		{"path-dev-zero", "zero.path.json", "/dev/zero", []string{"replay", "--path", "DIR/zero.path.json"}, "zero.path.json"},
		{"explore-path-dev-zero", "zero.path.json", "/dev/zero", []string{"explore", "--path", "DIR/zero.path.json", "--out", "DIR/x.html"}, "zero.path.json"},
		{"profile-2GiB", results.FileProfile, big, []string{"search", "--out", "DIR"}, "larger than"},
		{"report-profile-2GiB", results.FileProfile, big, []string{"report", "--out", "DIR"}, "larger than"},
		{"path-2GiB", "big.path.json", big, []string{"replay", "--path", "DIR/big.path.json"}, "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			copyDir(t, dir, d)
			p := filepath.Join(d, c.file)
			os.Remove(p)
			if err := os.Symlink(c.target, p); err != nil {
				t.Fatal(err)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "DIR", d)
			}
			var o, e bytes.Buffer
			start := time.Now()
			st := runRandTree(context.Background(), args, &o, &e)
			lines := errorLines(e.String())
			if st != cli.ExitError || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Errorf("%v: status %d, stderr %q; want 2 and one line with %q", c.args, st, e.String(), c.want)
			}
			t.Logf("refused in %v", time.Since(start)) // not a bound: the machine's load decides
		})
	}
}

// Item 11: explore takes the directory's lock, and removes the temporary
// file a killed explore left.
func TestExploreTakesTheLock(t *testing.T) {
	dir := copyBase(t)
	stale := filepath.Join(dir, ".explore.html.tmp-12345")
	if err := os.WriteFile(stale, []byte("half a page"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := pipeline.NewDir(dir).Lock()
	if err != nil {
		t.Fatal(err)
	}
	before := readDir(t, dir)
	for _, args := range [][]string{{"explore", dir}, {"explore", "--path", filepath.Join(dir, results.FileAnomalyPath)}} {
		var o, e bytes.Buffer
		st := runRandTree(context.Background(), args, &o, &e)
		if lines := errorLines(e.String()); st != cli.ExitError || len(lines) != 1 || !strings.Contains(lines[0], "in use") {
			t.Errorf("%v while the directory is locked: status %d, stderr %q", args, st, e.String())
		}
	}
	sameFiles(t, "explore while locked", before, readDir(t, dir))
	unlock()
	var o, e bytes.Buffer
	if st := runRandTree(context.Background(), []string{"explore", dir}, &o, &e); st != cli.ExitOK {
		t.Fatalf("explore: status %d\n%s", st, e.String())
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("explore left a killed explore's temporary file")
	}
	// Outside a results directory, only explore's own temporaries go.
	other := t.TempDir()
	theirs := filepath.Join(other, ".notes.txt.tmp-1")
	ours := filepath.Join(other, ".x.html.tmp-2")
	for _, f := range []string{theirs, ours} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if st := runRandTree(context.Background(), []string{"explore", "--path", filepath.Join(dir, results.FileAnomalyPath), "--out", filepath.Join(other, "x.html")}, &o, &e); st != cli.ExitOK {
		t.Fatalf("explore --out: status %d\n%s", st, e.String())
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Error("explore removed a file of another program")
	}
	if _, err := os.Stat(ours); err == nil {
		t.Error("explore left its own stale temporary file")
	}
}

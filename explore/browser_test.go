package explore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/explore"
	"github.com/macepc/macepc/internal/browsertest"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
)

// macepc runs the command line into a fresh directory (--out) and
// returns it.
func macepc(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	args = append(args, "--out", dir)
	var stdout, stderr bytes.Buffer
	if st := cli.Run(context.Background(), args, &stdout, &stderr, randtree.System()); st == cli.ExitError {
		t.Fatalf("macepc %s: exit %d\n%s%s", strings.Join(args, " "), st, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "explore: "+filepath.Join(dir, results.FileExplore)) {
		t.Fatalf("macepc %s does not say it wrote explore.html:\n%s", strings.Join(args, " "), stdout.String())
	}
	return dir
}

// browser is explore.html in headless Chromium (browsertest.Page),
// navigated and drawn.
type browser struct{ *browsertest.Page }

func openPage(t testing.TB, bin, file string) *browser {
	t.Helper()
	p := browsertest.Open(t, bin, file, 1400, 900)
	if err := chromedp.Do(p.Ctx, chromedp.Navigate(p.URL), chromedp.WaitReady(chromedp.CSS("body[data-ready]"))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return &browser{p}
}

// check fails the test on every problem the page had.
func (b *browser) check(t *testing.T) {
	t.Helper()
	for _, p := range b.Problems() {
		t.Errorf("explore.html: %s", p)
	}
}

func (b *browser) keys(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(k)); err != nil {
			t.Fatalf("chromium: key %q: %v", k, err)
		}
	}
}

func evalJS[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("chromium: %s: %v", expr, err)
	}
	return v
}

// step is the selected step, as the side panel says.
func (b *browser) step(t *testing.T) int {
	t.Helper()
	s, err := strconv.Atoi(evalJS[string](t, b, `document.getElementById('stepinfo').dataset.step`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (b *browser) wantStep(t *testing.T, want int, after string) {
	t.Helper()
	if got := b.step(t); got != want {
		t.Fatalf("after %s the selected step is %d, want %d", after, got, want)
	}
}

// diffTokens are the tokens the state diff shows as removed (del) and
// added (add) for node.
func (b *browser) diffTokens(t *testing.T, node int, class string) []string {
	t.Helper()
	return evalJS[[]string](t, b, fmt.Sprintf(`Array.from(document.querySelectorAll('#diff .st[data-node="%d"] span.%s')).map(s => s.textContent)`, node, class))
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// fields are a state line's space-separated fields without brackets.
func fields(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if !strings.ContainsAny(f, "[]{}()") {
			out = append(out, f)
		}
	}
	return out
}

// stepAndFilter checks the keyboard's stepping and a node filter: only
// node's steps and lanes remain, and stepping visits only them.
func stepAndFilter(t *testing.T, b *browser, node int) {
	t.Helper()
	b.keys(t, kb.Home)
	b.wantStep(t, 0, "Home")
	b.keys(t, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown)
	b.wantStep(t, 3, "three ↓")
	b.keys(t, kb.ArrowUp)
	b.wantStep(t, 2, "↓↓↓↑")
	b.keys(t, "j", "j", "k")
	b.wantStep(t, 3, "j j k")

	b.jump(t, "#12")
	b.wantStep(t, 12, "jump to #12")
	b.keys(t, kb.Home)
	b.clickRow(t, 5)
	b.wantStep(t, 5, "a click on row 5")
	if n := evalJS[int](t, b, `document.querySelectorAll('#states .st').length`); n < 2 {
		t.Errorf("after a click the states panel shows %d nodes, want every node", n)
	}

	name := "n" + strconv.Itoa(node)
	b.filterNodes(t, name)
	stat := evalJS[string](t, b, `document.getElementById('fstat').textContent`)
	if !strings.Contains(stat, ", 1 of ") {
		t.Errorf("after the node filter %s the page says %q, want one node", name, stat)
	}
	shown := evalJS[[]string](t, b, `Array.from(document.querySelectorAll('#states .st')).map(e => e.dataset.node)`)
	if len(shown) != 1 || shown[0] != strconv.Itoa(node) {
		t.Errorf("with the filter %s the states panel shows nodes %v", name, shown)
	}
	b.keys(t, kb.Home)
	for i := range 4 {
		if got := evalJS[string](t, b, `document.querySelector('#stepinfo b').textContent`); got != name {
			t.Fatalf("filtered on %s, step %d of the walk is on %s", name, i, got)
		}
		b.keys(t, kb.ArrowDown)
	}
	b.filterNodes(t, "")

	// One execution alone (side by side, a row stays when either
	// execution's step passes): a label filter keeps that label's steps;
	// a regular expression over labels and notes keeps fewer steps; a bad
	// one says so.
	b.setField(t, "view", "1")
	b.setField(t, "flabel", "deliver Join")
	b.keys(t, kb.Home, kb.ArrowDown, kb.ArrowDown)
	if got := evalJS[string](t, b, `document.querySelector('#stepinfo .mono').textContent`); !strings.Contains(got, " deliver Join from ") {
		t.Errorf("filtered on the label deliver Join, a step shows %q", got)
	}
	// A timed step's handler time is in the unit that fits it, as
	// internal/units prints it ("took 1.724 µs"), not in 9-decimal seconds.
	if got := evalJS[string](t, b, `document.querySelector('#stepinfo h3').textContent`); strings.Contains(got, " · ") && !regexp.MustCompile(`\(took [0-9.]+ (ns|µs|ms|s)\)$`).MatchString(got) {
		t.Errorf("a step's heading %q does not give its handler time in a unit", got)
	}
	b.setField(t, "flabel", "")
	all := evalJS[string](t, b, `document.getElementById('fstat').textContent`)
	evalJS[bool](t, b, `(c => { c.checked = true; return c.dispatchEvent(new Event('change')); })(document.getElementById('fre'))`)
	b.setField(t, "ftext", "^timer (join|recovery)$")
	some := evalJS[string](t, b, `document.getElementById('fstat').textContent`)
	if some == all || !strings.HasPrefix(some, "showing ") {
		t.Errorf("the regexp filter left %q (unfiltered: %q)", some, all)
	}
	b.setField(t, "ftext", "(")
	if bad := evalJS[string](t, b, `document.getElementById('fstat').textContent`); !strings.HasPrefix(bad, "bad regexp: ") {
		t.Errorf("a bad regexp shows %q", bad)
	}
	b.setField(t, "ftext", "")
	evalJS[bool](t, b, `(c => { c.checked = false; return c.dispatchEvent(new Event('change')); })(document.getElementById('fre'))`)
	b.setField(t, "view", "0")
}

// clickRow clicks the first pane's chart on row r (the rows start below
// a 22-pixel header and are 16 pixels high at the first zoom).
func (b *browser) clickRow(t *testing.T, r int) {
	t.Helper()
	xy := evalJS[[]float64](t, b, fmt.Sprintf(`(s => { const c = s.getBoundingClientRect(); return [c.left + 150, c.top + 22 + %d * 16 + 8 - s.scrollTop]; })(document.querySelector('.pane .scroll'))`, r))
	if err := chromedp.Do(b.Ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		t.Fatal(err)
	}
}

// setField sets a filter field or menu and fires its change event.
func (b *browser) setField(t *testing.T, id, value string) {
	t.Helper()
	evalJS[bool](t, b, fmt.Sprintf(`(f => { f.value = %q; return f.dispatchEvent(new Event('change')); })(document.getElementById(%q))`, value, id))
}

// jump types a step or a time into the jump field and presses go.
func (b *browser) jump(t *testing.T, to string) {
	t.Helper()
	evalJS[bool](t, b, fmt.Sprintf(`(f => { f.value = %q; return true; })(document.getElementById('jump'))`, to))
	if err := chromedp.Do(b.Ctx, chromedp.Click(chromedp.CSS("#go"))); err != nil {
		t.Fatal(err)
	}
}

// filterNodes types text into the node filter and leaves the field (its
// change event).
func (b *browser) filterNodes(t *testing.T, text string) { b.setField(t, "fnode", text) }

// jumpToMark picks the first mark of a kind in the marks menu and clicks
// the jump button.
func (b *browser) jumpToMark(t *testing.T, kind string) {
	t.Helper()
	if !evalJS[bool](t, b, fmt.Sprintf(`(s => { s.selectedIndex = Array.from(s.options).findIndex(o => o.dataset.kind === %q); return s.selectedIndex >= 0; })(document.getElementById('marks'))`, kind)) {
		t.Fatalf("no %s mark in the menu", kind)
	}
	if err := chromedp.Do(b.Ctx, chromedp.Click(chromedp.CSS("#gomark"))); err != nil {
		t.Fatal(err)
	}
}

// screenshot keeps the page's screenshot in $MACEPC_EXPLORE_SHOTS/name.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("MACEPC_EXPLORE_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestExploreInBrowser opens the explore.html that `macepc run` and `macepc
// run --liveness` wrote, in headless Chromium: keyboard stepping, the jump
// to the divergence point (critical step), the state diff of two marked
// steps, a node filter; any console error, exception or request fails it.
// MACEPC_EXPLORE_SHOTS=DIR keeps screenshots. Without Chromium the test is
// skipped, unless MACEPC_REQUIRE_BROWSER=1.
func TestExploreInBrowser(t *testing.T) {
	bin := browsertest.Chromium(t, "explore.html")
	t.Run("run", func(t *testing.T) {
		dir := macepc(t, "run", "--system", "randtree", "--variant", "buggy", "--seed", "1", "--edd", "../report/testdata/edd.json", "--progress", "never")
		var div struct {
			Step int `json:"step"`
		}
		readJSON(t, filepath.Join(dir, "divergence.json"), &div)
		// The final states in the anomalous execution's event log.
		logText, err := os.ReadFile(filepath.Join(dir, "anomaly.log"))
		if err != nil {
			t.Fatal(err)
		}
		final := map[string]string{}
		for _, l := range strings.Split(string(logText), "\n") {
			if rest, ok := strings.CutPrefix(l, "# n"); ok {
				if id, st, ok := strings.Cut(rest, ": "); ok {
					final["n"+id] = st
				}
			}
		}
		b := openPage(t, bin, filepath.Join(dir, results.FileExplore))
		// The anomaly's last step ends it: it is on the critical path,
		// and the side panel says so (the path is highlighted).
		var sum struct {
			Anomaly struct {
				Steps int `json:"steps"`
			} `json:"anomaly"`
		}
		readJSON(t, filepath.Join(dir, "summary.json"), &sum)
		b.jump(t, fmt.Sprintf("#%d", sum.Anomaly.Steps-1))
		if crit := evalJS[string](t, b, `(e => e ? e.textContent : '')(document.querySelector('#stepinfo .critline'))`); !strings.Contains(crit, "critical path") {
			t.Errorf("the last step's panel says %q, want it on the critical path", crit)
		}
		stepAndFilter(t, b, 1)
		b.keys(t, kb.Home, "d")
		b.wantStep(t, div.Step, "Home d (the first mark)")
		if mark := evalJS[string](t, b, `document.querySelector('#stepinfo .markline').textContent`); !strings.Contains(mark, "divergence") {
			t.Errorf("the step's mark says %q, want the divergence point", mark)
		}
		// Step 0 against the end of the anomalous execution: n0 went
		// from init to its final state.
		b.keys(t, kb.Home, "m", kb.End, "m")
		del, add := b.diffTokens(t, 0, "del"), b.diffTokens(t, 0, "add")
		if !has(del, "init") {
			t.Errorf("the diff of n0 removes %v, want its init state", del)
		}
		for _, f := range fields(final["n0"]) {
			if f != "n0" && !has(add, f) {
				t.Errorf("the diff of n0 adds %v, want %q of its final state %q", add, f, final["n0"])
			}
		}
		if len(final) == 0 || len(add) == 0 {
			t.Fatalf("no final states (%d) or nothing added (%v)", len(final), add)
		}
		// The screenshot: from the first step where the anomalous and the
		// similar fast execution differ, the first after which a node's
		// state differs, the two states diffed.
		b.keys(t, kb.Escape)
		b.jumpToMark(t, "first-diff")
		for range 20 {
			b.keys(t, "m", kb.ArrowRight, "m")
			if evalJS[int](t, b, `document.querySelectorAll('#diff .st').length`) > 0 {
				break
			}
			b.keys(t, kb.Escape, kb.ArrowLeft, "j")
		}
		b.screenshot(t, "randtree-buggy-anomaly.png")
		b.check(t)
	})
	t.Run("liveness", func(t *testing.T) {
		dir := macepc(t, "run", "--liveness", "--system", "randtree", "--variant", "liveness-bug", "--seed", "1")
		var lf struct {
			Report struct {
				Critical struct {
					Step int `json:"step"`
				} `json:"critical"`
			} `json:"report"`
		}
		readJSON(t, filepath.Join(dir, "liveness.json"), &lf)
		c := lf.Report.Critical.Step
		// state.diff: the first node whose Describe line differs, dead
		// (-) against live (+).
		sd, err := os.ReadFile(filepath.Join(dir, "state.diff"))
		if err != nil {
			t.Fatal(err)
		}
		node, dead, live := -1, "", ""
		lines := strings.Split(string(sd), "\n")
		for i := 0; i+1 < len(lines) && node < 0; i++ {
			n, ok := strings.CutPrefix(lines[i], "@@ n")
			if !ok || !strings.HasPrefix(lines[i+1], "-") {
				continue
			}
			for _, l := range lines[i+2:] {
				if strings.HasPrefix(l, "@@") {
					break
				}
				if strings.HasPrefix(l, "+") {
					node, _ = strconv.Atoi(n)
					dead, live = lines[i+1][1:], l[1:]
					break
				}
			}
		}
		if node < 0 {
			t.Fatalf("state.diff has no node whose state line differs:\n%s", sd)
		}
		b := openPage(t, bin, filepath.Join(dir, results.FileExplore))
		stepAndFilter(t, b, node)
		b.jump(t, "7ms") // logical time: step i at i ms
		b.wantStep(t, 7, "jump to 7ms")
		b.keys(t, kb.Home, "d")
		b.wantStep(t, c, "Home d (the first mark)")
		// The dead path's state after the critical step against the
		// live path's.
		b.keys(t, "m", kb.ArrowRight, "m")
		del, add := b.diffTokens(t, node, "del"), b.diffTokens(t, node, "add")
		checked := 0
		for _, f := range fields(dead) {
			if !strings.Contains(" "+live+" ", " "+f+" ") {
				checked++
				if !has(del, f) {
					t.Errorf("the diff of n%d removes %v, want %q (dead %q, live %q)", node, del, f, dead, live)
				}
			}
		}
		for _, f := range fields(live) {
			if !strings.Contains(" "+dead+" ", " "+f+" ") {
				checked++
				if !has(add, f) {
					t.Errorf("the diff of n%d adds %v, want %q (dead %q, live %q)", node, add, f, dead, live)
				}
			}
		}
		if checked == 0 {
			t.Fatalf("no field differs between %q and %q", dead, live)
		}
		b.screenshot(t, "randtree-rt3-dead-path.png")
		b.check(t)
	})
}

// BenchmarkOpenInBrowser opens explore.html of a 30,000-step execution of
// 3,000 RandTree nodes in headless Chromium: ms/open is the time from the
// navigation's start until the page has parsed its data and drawn the
// chart (window.exploreTiming.openMS), averaged over the opens.
func BenchmarkOpenInBrowser(b *testing.B) {
	bin := browsertest.Chromium(b, "explore.html")
	file := filepath.Join(b.TempDir(), results.FileExplore)
	if err := explore.WriteFile(file, explore.BigExecution(b, 3000, 30000)); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	page := openPage(b, bin, file)
	total := 0.0
	b.ResetTimer()
	for b.Loop() {
		if err := chromedp.Do(page.Ctx, chromedp.Reload(), chromedp.WaitReady(chromedp.CSS("body[data-ready]"))); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(page.Ctx, chromedp.Evaluate[float64](`window.exploreTiming.openMS`))
		if err != nil {
			b.Fatal(err)
		}
		total += ms
	}
	b.ReportMetric(total/float64(b.N), "ms/open")
	b.ReportMetric(float64(st.Size()), "bytes")
	for _, p := range page.Problems() {
		b.Errorf("explore.html: %s", p)
	}
}

// BenchmarkScrollInBrowser pages through explore.html of a 100,000-step
// execution of 5,000 RandTree nodes in headless Chromium (PageDown, End,
// Home, zoom in and out) and reports the mean and the longest time the
// page took to draw a frame of the chart, after its first frames.
func BenchmarkScrollInBrowser(b *testing.B) {
	bin := browsertest.Chromium(b, "explore.html")
	file := filepath.Join(b.TempDir(), results.FileExplore)
	if err := explore.WriteFile(file, explore.BigExecution(b, 5000, 100000)); err != nil {
		b.Fatal(err)
	}
	page := openPage(b, bin, file)
	// The first frames (cold code) belong to the page's opening, which
	// BenchmarkOpenInBrowser measures.
	if err := chromedp.Do(page.Ctx, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowUp)); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Run(page.Ctx, chromedp.Evaluate[bool](`(t => { t.frames = 0; t.frameMS = 0; t.maxFrameMS = 0; return true; })(window.exploreTiming)`)); err != nil {
		b.Fatal(err)
	}
	keys := []string{kb.End, kb.Home, "-", "-", "-", "+", "+", "+"}
	for range 20 {
		keys = append(keys, kb.PageDown)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, k := range keys {
			if err := chromedp.Do(page.Ctx, chromedp.KeyEvent(k)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	timing, err := chromedp.Run(page.Ctx, chromedp.Evaluate[map[string]float64](`({frames: exploreTiming.frames, mean: exploreTiming.frameMS / exploreTiming.frames, max: exploreTiming.maxFrameMS})`))
	if err != nil {
		b.Fatal(err)
	}
	if timing["frames"] < float64(len(keys)) {
		b.Fatalf("only %v frames drawn for %d keys", timing["frames"], len(keys)*b.N)
	}
	b.ReportMetric(timing["mean"], "ms/frame")
	b.ReportMetric(timing["max"], "max-ms/frame")
	b.ReportMetric(timing["frames"], "frames")
}

// TestExploreEdgeCasesInBrowser: an execution without steps and a pair
// whose one side is a prefix of the other (with a partition across every
// lane, a reset, a failed and a dropped send, unicode states) take every
// key without a console error.
func TestExploreEdgeCasesInBrowser(t *testing.T) {
	bin := browsertest.Chromium(t, "explore.html")
	empty := &explore.Execution{Name: "empty", Title: "no step", Nodes: 2, Initial: []string{"a", "b"}}
	steps := []explore.Step{
		{Node: 0, From: -1, Kind: explore.KindInit, Label: "init", SentStep: -1, SentIndex: -1, State: "x=1 → é😀",
			Sends: []explore.Send{{To: 1, Type: "Ping", Status: "sent", Recv: 2}, {To: 1, Type: "Lost", Status: "dropped", Recv: -1}, {To: 1, Type: "Full", Status: "queue-full", Recv: -1}}},
		{Node: -1, From: -1, Kind: explore.KindFault, Label: "partition", SentStep: -1, SentIndex: -1},
		{Node: 1, From: 0, Kind: explore.KindDeliver, Label: "deliver Ping", SentStep: 0, SentIndex: 0, State: "got {Ping [1 2]}", Notes: []string{"noted: ok"},
			Timers: []explore.Timer{{Name: "t", At: 5}}},
		{Node: 1, From: -1, Kind: explore.KindReset, Label: "reset", SentStep: -1, SentIndex: -1, State: ""},
	}
	long := &explore.Execution{Name: "long", Title: "four steps", Nodes: 2, Timed: true, Steps: steps, Initial: []string{"", ""}}
	short := &explore.Execution{Name: "short", Title: "two steps", Nodes: 2, Timed: true, Steps: steps[:2], Initial: []string{"", ""}}
	long.Mark(2, explore.MarkViolation, "a violation")
	d := &explore.Data{Title: "edge cases", Executions: []*explore.Execution{empty, long, short}}
	d.Pair(1, 2, "long vs short")
	if d.Pairs[0].FirstDiff != 2 {
		t.Fatalf("first difference %d, want 2 (the shorter's length)", d.Pairs[0].FirstDiff)
	}
	file := filepath.Join(t.TempDir(), results.FileExplore)
	if err := explore.WriteFile(file, d); err != nil {
		t.Fatal(err)
	}
	b := openPage(t, bin, file)
	all := []string{"j", "j", "j", "j", "k", "n", "p", "d", "d", "m", kb.End, "m", kb.ArrowRight, "m", "m", kb.Home, "+", "-", kb.PageDown, kb.PageUp, kb.Escape}
	for _, view := range []string{"0", "1", "2", "3"} {
		b.setField(t, "view", view)
		b.keys(t, all...)
		b.filterNodes(t, "n1")
		b.keys(t, all...)
		b.filterNodes(t, "")
	}
	b.setField(t, "view", "0")
	b.keys(t, kb.Home, "j", "j")
	if got := evalJS[string](t, b, `document.querySelector('#stepinfo').textContent`); !strings.Contains(got, "noted: ok") || !strings.Contains(got, "timer t set") {
		t.Errorf("step 2 of long shows %q, want its note and timer", got)
	}
	b.check(t)
}
